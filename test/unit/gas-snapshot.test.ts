import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CAPPED_KEYS, allowance, driftFromSnapshot, overBaseline, type GasSnapshot } from "../../bench/gas-check.js";
import { runGasBench } from "../../bench/gas-measure.js";

const snapshot = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../bench/gas-snapshot.json"), "utf8"),
) as GasSnapshot;

describe("gas snapshot rules (bench/gas-check.ts)", () => {
  it("the cap: +5 % or +8k gas over the baseline, whichever is larger", () => {
    expect(allowance(100_000)).toBe(108_000);
    expect(allowance(400_000)).toBe(420_000);
    const base = { commit: "x", gasUsed: { limitOrderNewLevel: 400_000, limitOrderExistingLevel: 300_000, cancel: 100_000, extraMakerFill: 100_000 } };
    expect(overBaseline(base, { ...base.gasUsed, limitOrderNewLevel: 420_000 })).toEqual([]);
    expect(overBaseline(base, { ...base.gasUsed, limitOrderNewLevel: 420_001 })).toHaveLength(1);
    expect(overBaseline(base, { ...base.gasUsed, cancel: 108_001 })).toHaveLength(1);
    const { cancel: _, ...missing } = base.gasUsed;
    expect(overBaseline(base, missing)).toEqual(["cancel: not measured"]);
  });

  it("exact figures: one gas or one byte off the snapshot is a difference; keys the run left out are not", () => {
    const snap: GasSnapshot = { commit: "y", gasUsed: { cancel: 100, close: 200 }, sizes: { Market: 10 }, baseline: { commit: "x", gasUsed: {} } };
    expect(driftFromSnapshot(snap, { cancel: 100 }, { Market: 10 })).toEqual([]);
    expect(driftFromSnapshot(snap, { cancel: 101 }, { Market: 10 })).toEqual(["gas cancel: 101 (snapshot 100 at y)"]);
    expect(driftFromSnapshot(snap, { cancel: 100, fresh: 1 }, { Market: 11 })).toHaveLength(2);
  });
});

// anvil with the contracts of abis/ (no compilation), every transaction in its own second: the
// figures are deterministic, so a change that moves gas or a contract's size fails here until
// the snapshot is written again (npm run bench:gas -- --write-snapshot)
describe("npm run bench:gas against bench/gas-snapshot.json", () => {
  it("every capped key within its allowance, every figure and size as the snapshot's", { timeout: 300_000 }, async () => {
    const { results, sizes } = await runGasBench({ fillCap: false });
    const gasUsed = Object.fromEntries(Object.entries(results).map(([k, r]) => [k, r.gasUsed]));
    for (const k of CAPPED_KEYS) expect(gasUsed[k], k).toBeGreaterThan(0);
    expect(gasUsed.liquidate, "liquidation measured (reported, not capped)").toBeGreaterThan(0);
    expect(sizes.Market, "sizes read from the chain").toBeGreaterThan(0);
    expect(overBaseline(snapshot.baseline, gasUsed)).toEqual([]);
    expect(driftFromSnapshot(snapshot, gasUsed, sizes)).toEqual([]);
  });
});
