import { describe, expect, it } from "vitest";
import type { IndexedState } from "./indexed-state.js";
import { overlappingReader } from "./overlapping-reader.js";

const state = (n: number): IndexedState => ({ number: BigInt(n), timestamp: 0n, hash: null, state: `s${n}` });
const tick = () => new Promise((r) => setImmediate(r));

describe("overlappingReader", () => {
  it("one read per turn of the event loop, started after the callers; overlapping reads; never pushes an older state after a newer one", async () => {
    const reads: { n: number; resolve: (s: IndexedState) => void }[] = [];
    let n = 0;
    const pushed: string[] = [];
    const refresh = overlappingReader(
      () => new Promise((resolve) => reads.push({ n: ++n, resolve })),
      (s) => pushed.push(s.state),
    );
    const a = refresh();
    const b = refresh(); // same turn: shares the read
    expect(a).toBe(b);
    expect(reads.length).toBe(0); // not started before the turn ends
    await tick();
    expect(reads.length).toBe(1);
    const c = refresh(); // a read already running: a new one, not a wait for it
    await tick();
    expect(reads.length).toBe(2);
    reads[1]!.resolve(state(5)); // the later read lands first
    expect((await c).state).toBe("s5");
    reads[0]!.resolve(state(4)); // the earlier one's older state is answered to its callers, not pushed
    expect((await a).state).toBe("s4");
    expect(pushed).toEqual(["s5"]);
  });

  it("a failed read rejects its callers; the next call reads again", async () => {
    let fail = true;
    const refresh = overlappingReader(async () => {
      if (fail) throw new Error("down");
      return state(1);
    }, () => {});
    await expect(refresh()).rejects.toThrow("down");
    fail = false;
    expect((await refresh()).state).toBe("s1");
  });
});
