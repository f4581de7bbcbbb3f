import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import pino from "pino";
import { startLoop } from "./loop.js";

const log = pino({ level: "silent" });

describe("startLoop", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("wake() runs at once instead of after the wait; wakes during a run give one more run right after", async () => {
    let runs = 0;
    let release: (() => void) | undefined;
    const loop = startLoop("t", 60_000, async () => {
      runs++;
      if (runs === 2) await new Promise<void>((r) => (release = r));
    }, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(2);
    // during run 2: three wakes, one run after it
    loop.wake();
    loop.wake();
    loop.wake();
    release!();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(3);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(runs).toBe(3);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(4);
    await loop.stop();
    loop.wake();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(runs).toBe(4);
  });

  it("reads a function interval after each run", async () => {
    let runs = 0;
    let fast = false;
    const loop = startLoop("t", () => (fast ? 100 : 10_000), async () => void runs++, log);
    await vi.advanceTimersByTimeAsync(0);
    fast = true;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(300);
    expect(runs).toBe(5);
    await loop.stop();
  });
});
