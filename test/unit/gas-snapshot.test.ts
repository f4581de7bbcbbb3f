import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CAPPED_KEYS, allowance, overSnapshot, type GasSnapshot } from "../../bench/gas-check.js";
import { runGasBench } from "../../bench/gas-measure.js";

const snapshot = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../bench/gas-snapshot.json"), "utf8"),
) as GasSnapshot;

describe("gas snapshot rule (issue 26)", () => {
  it("allows +5 % or +8k gas, whichever is larger", () => {
    expect(allowance(100_000)).toBe(108_000);
    expect(allowance(400_000)).toBe(420_000);
    const snap: GasSnapshot = { commit: "x", gasUsed: { limitOrderNewLevel: 400_000, limitOrderExistingLevel: 300_000, cancel: 100_000, extraMakerFill: 100_000 } };
    expect(overSnapshot(snap, { ...snap.gasUsed, limitOrderNewLevel: 420_000 })).toEqual([]);
    expect(overSnapshot(snap, { ...snap.gasUsed, limitOrderNewLevel: 420_001 })).toHaveLength(1);
    expect(overSnapshot(snap, { ...snap.gasUsed, cancel: 108_001 })).toHaveLength(1);
    const { cancel: _, ...missing } = snap.gasUsed;
    expect(overSnapshot(snap, missing)).toEqual(["cancel: not measured"]);
  });
});

// anvil with the contracts of abis/ (no compilation), every transaction in its own second: the
// figures are deterministic, so a change that costs more than the rule allows fails here
describe("npm run bench:gas against bench/gas-snapshot.json", () => {
  it("every capped key within its allowance", { timeout: 300_000 }, async () => {
    const { results, sizes } = await runGasBench({ fillCap: false });
    const gasUsed = Object.fromEntries(Object.entries(results).map(([k, r]) => [k, r.gasUsed]));
    for (const k of CAPPED_KEYS) expect(gasUsed[k], k).toBeGreaterThan(0);
    expect(gasUsed.liquidate, "liquidation measured (reported, not capped)").toBeGreaterThan(0);
    expect(sizes.Market, "sizes read from the chain").toBeGreaterThan(0);
    expect(overSnapshot(snapshot, gasUsed)).toEqual([]);
  });
});
