import { describe, expect, it } from "vitest";
import { RandomWalk, SplitMix64, stepPrice, walkBand, walkSeed, type WalkParams } from "./random-walk.js";

const TICK = 10n ** 13n; // 0.00001
const params: WalkParams = { tickX18: TICK, maxStepBps: 3n, bandBps: 200n };
const EUR = "0x" + "ab".repeat(32);
const GBP = "0x" + "cd".repeat(32);

const run = (seed: bigint, start: bigint, n: number, p = params) => {
  const w = new RandomWalk(seed, start, p);
  return Array.from({ length: n }, () => w.next());
};

describe("random walk", () => {
  it("is reproducible: the same seed and start give the same prices", () => {
    const s = walkSeed("venue", EUR);
    expect(run(s, 1_080_000_000_000_000_000n, 500)).toEqual(run(s, 1_080_000_000_000_000_000n, 500));
  });

  it("pins the sequence of a known seed (same on every machine)", () => {
    const g = new SplitMix64(0n);
    // splitmix64 reference outputs for seed 0
    expect(g.next()).toBe(0xe220a8397b1dcdafn);
    expect(g.next()).toBe(0x6e789e6aa1b965f4n);
    const first = run(walkSeed("venue", EUR), 1_080_000_000_000_000_000n, 3);
    expect(first).toEqual([1_080_140_000_000_000_000n, 1_080_110_000_000_000_000n, 1_080_380_000_000_000_000n]);
  });

  it("differs by seed and by market", () => {
    const start = 1_080_000_000_000_000_000n;
    const a = run(walkSeed("venue", EUR), start, 50);
    expect(run(walkSeed("other", EUR), start, 50)).not.toEqual(a);
    expect(run(walkSeed("venue", GBP), start, 50)).not.toEqual(a);
    expect(walkSeed("venue", EUR.toUpperCase().replace("0X", "0x"))).toBe(walkSeed("venue", EUR));
  });

  it("stays on the tick, inside the band, and moves at most the step", () => {
    const start = 1_080_000_000_000_000_000n;
    const { lo, hi } = walkBand(start, params);
    let prev = start;
    const maxMove = (start * 102n / 100n * params.maxStepBps) / 10_000n + TICK;
    for (const p of run(walkSeed("band", EUR), start, 5_000)) {
      expect(p % TICK).toBe(0n);
      expect(p >= lo && p <= hi).toBe(true);
      const d = p > prev ? p - prev : prev - p;
      expect(d <= maxMove).toBe(true);
      prev = p;
    }
  });

  it("reaches the band edges with a big step and reflects there", () => {
    const p: WalkParams = { tickX18: TICK, maxStepBps: 50n, bandBps: 20n };
    const start = 660_000_000_000_000_000n;
    const { lo, hi } = walkBand(start, p);
    const prices = run(walkSeed("edge", EUR), start, 5_000, p);
    expect(prices.some((x) => x === lo || x === hi || x - lo < 10n * TICK || hi - x < 10n * TICK)).toBe(true);
    expect(prices.every((x) => x >= lo && x <= hi)).toBe(true);
  });

  it("moves (not stuck) and moves at least one tick sometimes for tiny step sizes", () => {
    const prices = run(walkSeed("tiny", EUR), 10n ** 18n, 100, { tickX18: TICK, maxStepBps: 0n + 1n, bandBps: 100n });
    expect(new Set(prices).size).toBeGreaterThan(3);
  });

  it("rounds an off-tick start to the tick and reanchors on an external move", () => {
    const w = new RandomWalk(1n, 1_080_000_000_000_000_123n, params);
    expect(w.current).toBe(1_080_000_000_000_000_000n);
    w.reanchor(1_000_004_000_000_000_000n);
    expect(w.anchorX18).toBe(1_000_000_000_000_000_000n);
    const { lo, hi } = walkBand(w.anchorX18, params);
    for (let i = 0; i < 1000; i++) {
      const x = w.next();
      expect(x >= lo && x <= hi).toBe(true);
    }
  });

  it("never goes below one tick and handles a zero step", () => {
    expect(stepPrice(TICK, TICK, 12345n, { tickX18: TICK, maxStepBps: 100n, bandBps: 5_000n }) >= TICK).toBe(true);
    expect(stepPrice(10n ** 18n, 10n ** 18n, 999n, { ...params, maxStepBps: 0n })).toBe(10n ** 18n);
  });
});
