import { describe, expect, it } from "vitest";
import { stallDetector } from "./stall.js";

describe("stallDetector", () => {
  it("reports nothing while the indexed block follows the head", () => {
    const d = stallDetector(10_000);
    for (let i = 0; i < 100; i++) expect(d.observe({ at: i * 1_000, head: BigInt(i + 1), indexed: BigInt(i) }).stalled).toBe(false);
  });

  it("reports a stall once the indexed block stays put for the bound while the head moves", () => {
    for (const bound of [1_000, 60_000, 3_600_000]) {
      const d = stallDetector(bound);
      expect(d.observe({ at: 0, head: 10n, indexed: 10n }).stalled).toBe(false);
      expect(d.observe({ at: bound - 1, head: 15n, indexed: 10n }).stalled).toBe(false);
      const s = d.observe({ at: bound, head: 16n, indexed: 10n });
      expect(s).toMatchObject({ stalled: true, indexed: 10n, head: 16n, sinceMs: bound });
      // and it clears as soon as a new block is indexed
      expect(d.observe({ at: bound + 1, head: 16n, indexed: 11n }).stalled).toBe(false);
    }
  });

  it("an idle chain is no stall: the head did not move past the indexed block", () => {
    const d = stallDetector(1_000);
    d.observe({ at: 0, head: 7n, indexed: 7n });
    expect(d.observe({ at: 1_000_000, head: 7n, indexed: 7n }).stalled).toBe(false);
  });

  it("a head that was already ahead and did not move since is no stall (lagging, not stalled)", () => {
    const d = stallDetector(1_000);
    d.observe({ at: 0, head: 9n, indexed: 7n });
    expect(d.observe({ at: 5_000, head: 9n, indexed: 7n }).stalled).toBe(false);
    expect(d.observe({ at: 6_000, head: 10n, indexed: 7n }).stalled).toBe(true);
  });

  it("refuses a bound that is not positive", () => {
    expect(() => stallDetector(0)).toThrow(/> 0/);
  });
});
