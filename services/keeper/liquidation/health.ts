/**
 * A position's health at the latest indexed block, composed from the indexed rows with the
 * contracts' own formulas (`core/math`, docs/CONTRACTS.md "Health and liquidation"): mark from
 * index, the stored time-weighted premium and the bid and ask the last funding update sampled, the cumulative funding index accrued to the block's timestamp with
 * the current index (split at a cancel's stale second, as the contract), pending funding, then `positionHealth`.
 */
import { cumulativeIndexNow, markPrice, pendingFunding, positionHealth, type Health } from "../../../core/math/index.js";

export type MarketContext = {
  marketId: `0x${string}`;
  symbol: string;
  marketAddress: `0x${string}`;
  /** In force now: the market's maintenance × its session's margin uplift (docs/CONTRACTS.md "Weekends and gaps"). */
  maintenanceMarginBps: bigint;
  liquidationFeeBps: bigint;
  isActive: boolean;
  indexPriceX18: bigint; // 0 when never set
  indexUpdatedAt: bigint;
  fundingRateX18PerHour: bigint;
  cumulativeFundingIndexX18: bigint;
  fundingLastUpdate: bigint;
  /** The time-weighted premium stored at fundingLastUpdate (FundingUpdated.premiumX18). */
  premiumX18: bigint;
  /** The bid and ask that update sampled (FundingUpdated.sampleBidX18/sampleAskX18; 0 = none): the premium moves towards their sample against the index. */
  sampleBidX18: bigint;
  sampleAskX18: bigint;
  markClampBps: bigint;
  /** A cancel made the stored rate stale from this second (FundingRateStale); absent or 0: not stale. */
  rateStaleSince?: bigint;
  /** The rate from rateStaleSince (the stored premium, the margined book after the last cancel). */
  staleRateX18PerHour?: bigint;
  /** The market's session (absent: OPEN). CLOSED: no liquidation, no funding accrual. */
  session?: "OPEN" | "REDUCE_ONLY" | "CLOSED";
};

export type PositionRow = {
  positionId: `0x${string}`;
  accountId: bigint;
  marketId: `0x${string}`;
  sizeQty: bigint;
  openNotionalWad: bigint;
  marginWad: bigint;
  lastFundingIndexX18: bigint;
  lastSettledAt: bigint;
  openBlock: bigint;
  /** Block of the row's last change (consistency check of reads). */
  updatedBlock?: bigint;
};

export const markOf = (m: MarketContext, timestamp: bigint) =>
  markPrice({
    indexX18: m.indexPriceX18, premiumX18: m.premiumX18, sampleBidX18: m.sampleBidX18, sampleAskX18: m.sampleAskX18,
    markClampBps: m.markClampBps, lastUpdate: m.fundingLastUpdate, now: timestamp,
  });

export function healthAt(p: PositionRow, m: MarketContext, timestamp: bigint): Health {
  const mark = markOf(m, timestamp);
  const indexNow = cumulativeIndexNow({
    cumulativeIndexX18: m.cumulativeFundingIndexX18,
    rateX18PerHour: m.fundingRateX18PerHour,
    // a cancel since the last accrual: the stored rate up to its second, the stale rate from it
    rateStaleSince: m.rateStaleSince,
    staleRateX18PerHour: m.staleRateX18PerHour,
    indexX18: m.indexPriceX18,
    lastUpdate: m.fundingLastUpdate,
    // nothing accrues while the market is closed
    now: m.session === "CLOSED" ? m.fundingLastUpdate : timestamp,
  });
  const pending = pendingFunding(p.sizeQty, indexNow, p.lastFundingIndexX18);
  return positionHealth(p, mark, pending, m.maintenanceMarginBps);
}

export type AccountHealth = {
  positionValueWad: bigint;
  equityWad: bigint;
  maintenanceWad: bigint;
  unrealizedPnlWad: bigint;
  pendingFundingWad: bigint;
  /** Σ equity / Σ position value × 1e4 (0 when equity ≤ 0 or no position). */
  marginRatioBps: bigint;
  liquidatableCount: number;
  isLiquidatable: boolean;
};

/** Account health aggregates its positions; it is liquidatable when any position is. */
export function aggregate(healths: Health[]): AccountHealth {
  const sum = (f: (h: Health) => bigint) => healths.reduce((a, h) => a + f(h), 0n);
  const positionValueWad = sum((h) => h.positionValueWad);
  const equityWad = sum((h) => h.equityWad);
  const liquidatableCount = healths.filter((h) => h.isLiquidatable).length;
  return {
    positionValueWad,
    equityWad,
    maintenanceWad: sum((h) => h.maintenanceWad),
    unrealizedPnlWad: sum((h) => h.unrealizedPnlWad),
    pendingFundingWad: sum((h) => h.pendingFundingWad),
    marginRatioBps: equityWad > 0n && positionValueWad > 0n ? (equityWad * 10_000n) / positionValueWad : 0n,
    liquidatableCount,
    isLiquidatable: liquidatableCount > 0,
  };
}
