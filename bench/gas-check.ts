/**
 * The rule gas figures are held to from issue 26 on: each capped key may cost at most 5 % or
 * 8,000 gas more than its snapshot (`bench/gas-snapshot.json`), whichever is larger; the
 * liquidation is reported, not capped.
 */
export const CAPPED_KEYS = ["limitOrderNewLevel", "limitOrderExistingLevel", "cancel", "extraMakerFill"] as const;
export const REPORTED_KEYS = ["liquidate"] as const;

export type GasSnapshot = { commit: string; note?: string; gasUsed: Record<string, number>; sizes?: Record<string, number> };

/** The largest figure `key` may reach against a snapshot figure of `base`. */
export const allowance = (base: number) => base + Math.max(Math.ceil(base * 0.05), 8_000);

/** One line per capped key over its allowance (or missing); empty when the run holds. */
export function overSnapshot(snapshot: GasSnapshot, gasUsed: Record<string, number>): string[] {
  const out: string[] = [];
  for (const key of CAPPED_KEYS) {
    const base = snapshot.gasUsed[key];
    const now = gasUsed[key];
    if (base === undefined) out.push(`${key}: not in the snapshot`);
    else if (now === undefined) out.push(`${key}: not measured`);
    else if (now > allowance(base)) out.push(`${key}: ${now} > ${allowance(base)} (snapshot ${base} at ${snapshot.commit})`);
  }
  return out;
}
