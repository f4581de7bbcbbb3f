/** A market's status (IMarket.MarketStatus), one statement for the indexer, the reads and the schemas. Pure. */

/** IMarket.MarketStatus, in its enum order (the value is the index). */
export const MARKET_STATUS = ["ACTIVE", "POST_ONLY", "CANCEL_ONLY", "REDUCE_ONLY", "CLOSED", "PAUSED"] as const;
export type MarketStatusName = (typeof MARKET_STATUS)[number];

/**
 * What the market accepts at the row's time (the contract's `status()`; docs/CONTRACTS.md
 * "Market status"): CLOSED by the calendar, PAUSED by the guardian's pause, REDUCE_ONLY in the
 * window before a close (unless the guardian's mode is CANCEL_ONLY), else the guardian's mode.
 * `row`: the market's state with its session at the read's time (core/reads/snapshot.ts `stateAt`).
 */
export function marketStatus(row: { session: string; isActive: boolean; mode: string }): MarketStatusName {
  if (row.session === "CLOSED") return "CLOSED";
  if (!row.isActive) return "PAUSED";
  if (row.session === "REDUCE_ONLY" && row.mode !== "CANCEL_ONLY") return "REDUCE_ONLY";
  return row.mode as MarketStatusName;
}

