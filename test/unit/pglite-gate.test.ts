/** The PGlite block gate (src/api/lib/pgliteGate.ts): no read inside a writer's window, fairness, nesting. */
import { describe, expect, it } from "vitest";
import { blockGate } from "../../src/api/lib/pgliteGate.js";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("blockGate", () => {
  it("a read waits for the writer's whole window, and a writer for the reads already running", async () => {
    const gate = blockGate();
    const log: string[] = [];
    const w = gate.exclusive(async () => {
      log.push("w:start");
      await tick(); // a handler's await, a statement: a read must not run here
      await tick();
      log.push("w:end");
    });
    const r = gate.shared(async () => void log.push("r"));
    await Promise.all([w, r]);
    expect(log).toEqual(["w:start", "w:end", "r"]);

    const log2: string[] = [];
    const r2 = gate.shared(async () => {
      log2.push("r:start");
      await tick();
      log2.push("r:end");
    });
    const w2 = gate.exclusive(async () => void log2.push("w"));
    await Promise.all([r2, w2]);
    expect(log2).toEqual(["r:start", "r:end", "w"]);
  });

  it("readers arriving while a writer waits go after it; those that waited go before the next writer", async () => {
    const gate = blockGate();
    const log: string[] = [];
    const slow = (name: string) => async () => {
      log.push(`${name}:start`);
      await tick();
      log.push(`${name}:end`);
    };
    const r1 = gate.shared(slow("r1"));
    const w1 = gate.exclusive(slow("w1"));
    const r2 = gate.shared(slow("r2")); // waits for w1
    const w2 = gate.exclusive(slow("w2")); // after r2
    await Promise.all([r1, w1, r2, w2]);
    expect(log).toEqual(["r1:start", "r1:end", "w1:start", "w1:end", "r2:start", "r2:end", "w2:start", "w2:end"]);
    expect(gate.stats()).toEqual({ readers: 0, writing: false, waitingReaders: 0, waitingWriters: 0 });
  });

  it("nested calls of a holder pass; a read started by a writer's work waits for it (no deadlock: the writer does not await it)", async () => {
    const gate = blockGate();
    const log: string[] = [];
    let spawned: Promise<void> | undefined;
    await gate.exclusive(async () => {
      await gate.exclusive(async () => void log.push("nested write"));
      spawned = gate.shared(async () => void log.push("read from the writer's work"));
      await tick();
      log.push("w:end");
    });
    await spawned;
    await gate.shared(async () => {
      await gate.shared(async () => void log.push("nested read"));
    });
    expect(log).toEqual(["nested write", "w:end", "read from the writer's work", "nested read"]);
  });

  it("errors release the gate", async () => {
    const gate = blockGate();
    await expect(gate.exclusive(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(gate.shared(async () => Promise.reject(new Error("bam")))).rejects.toThrow("bam");
    await expect(gate.exclusive(async () => 1)).resolves.toBe(1);
    expect(gate.stats()).toEqual({ readers: 0, writing: false, waitingReaders: 0, waitingWriters: 0 });
  });
});
