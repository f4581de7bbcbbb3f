/**
 * The market snapshot every time-dependent read value is computed from (index, best bid/ask,
 * mark, funding accrued to the indexed block's time), from the rows of one indexed state, with
 * core/math exactly as the contracts' views compute them at that block. One place for both of
 * its readers: Ponder's routes (src/api/lib/data.ts, drizzle) and the read service's
 * (services/reads/tables.ts, one statement on Postgres).
 */
import type { account, indexPrice, market, marketState, operatorApproval, orderBookLevel, position, positionTrigger } from "../../ponder.schema.js";
import { fundingNow, markFromPremium, premiumAt, premiumSample } from "../math/index.js";
import { calendarAt, calendarOf, lastReopen, lastSwitch, nextSessionChange, sessionAt, type SessionName } from "../calendar.js";

export type AccountRow = typeof account.$inferSelect;
export type MarketRow = typeof market.$inferSelect;
export type MarketStateRow = typeof marketState.$inferSelect;
export type PositionRow = typeof position.$inferSelect;
export type LevelRow = typeof orderBookLevel.$inferSelect;
export type IndexPriceRow = typeof indexPrice.$inferSelect;
export type OperatorRow = typeof operatorApproval.$inferSelect;
export type TriggerRow = typeof positionTrigger.$inferSelect;

export type MarketSnapshot = {
  market: MarketRow;
  state: MarketStateRow;
  indexX18: bigint;
  bestBidX18: bigint; // 0 = empty side
  bestAskX18: bigint;
  /** The premium sample at `now`: the last update's bid and ask against the index now. */
  premiumSampleNowX18: bigint;
  /** The mark's premium average at `now` (the stored one moved towards that sample). */
  premiumNowX18: bigint;
  markX18: bigint;
  /** The contract's cumulativeIndexNow at `now` (split at a cancel's stale second; nothing while closed). */
  cumulativeIndexNowX18: bigint;
  /** The rate in force at `now` (the view's rateNowX18PerHour: the stale rate after a margined cancel). */
  rateNowX18PerHour: bigint;
  /** The next session change after `now` under the on-chain calendar (null: none scheduled). */
  nextSession: { at: bigint; session: SessionName } | null;
};

/** A market's state fields before any of its state events (the indexer's first row starts from them). */
export const EMPTY_MARKET_STATE = {
  isActive: true,
  longOpenInterestQty: 0n,
  shortOpenInterestQty: 0n,
  restingBidQty: 0n,
  restingAskQty: 0n,
  fundingRateX18PerHour: 0n,
  premiumComponentX18: 0n,
  skewComponentX18: 0n,
  skewX18: 0n,
  premiumX18: 0n,
  sampleBidX18: 0n,
  sampleAskX18: 0n,
  cumulativeFundingIndexX18: 0n,
  fundingIndexPriceX18: 0n,
  fundingMarkPriceX18: 0n,
  rateStaleSince: 0n,
  staleRateX18PerHour: 0n,
  staleLongQty: 0n,
  staleShortQty: 0n,
  orderCount: 0n,
  session: "OPEN",
  mode: "ACTIVE",
  marginUpliftBps: 10_000,
  closeUpliftBps: 10_000,
  sessionUpdatedAt: null,
  calendarCloseAtMin: 0,
  calendarWindowMin: 0,
  calendarClosedMin: 0,
  nextCalendarCloseAtMin: 0,
  nextCalendarWindowMin: 0,
  nextCalendarClosedMin: 0,
  calendarStartsAt: 0n,
} satisfies Partial<MarketStateRow>;

/**
 * The row as the contract's views see it at `now`: the session and the margin uplift follow the
 * calendar and the time (no event marks a switch), and an accrual after a close restarts the
 * funding clock at the reopening (MarketBase._skipClosed).
 */
export function stateAt(s: MarketStateRow, now: bigint): MarketStateRow {
  const cal = calendarOf(s);
  const t = Number(now);
  const session = sessionAt(calendarAt(cal, t), t);
  const reopen = BigInt(lastReopen(cal, t));
  const stale = s.rateStaleSince;
  const switched = lastSwitch(cal, t);
  return {
    ...s,
    session,
    marginUpliftBps: session === "OPEN" ? 10_000 : s.closeUpliftBps,
    sessionUpdatedAt: switched === null ? s.sessionUpdatedAt : BigInt(switched),
    ...(s.fundingLastUpdate < reopen ? { fundingLastUpdate: reopen, rateStaleSince: stale !== 0n && stale < reopen ? reopen : stale } : {}),
  };
}

/** A market's state before any of its state events was indexed. */
export const emptyMarketState = (m: MarketRow): MarketStateRow => ({
  ...EMPTY_MARKET_STATE,
  marketAddress: m.marketAddress,
  marketId: m.marketId,
  fundingLastUpdate: m.createdAt,
  updatedBlock: m.createdBlock,
});

/** The rows a snapshot is made of (absent: none indexed yet; a best price absent: that side is empty). */
export type SnapshotRows = {
  market: MarketRow;
  state?: MarketStateRow;
  indexX18?: bigint;
  /** the index's unbroken fresh run (IOracle.priceWindow): funding accrues only inside it; absent: fresh throughout */
  freshSince?: bigint;
  freshUntil?: bigint;
  bestBidX18?: bigint;
  bestAskX18?: bigint;
};

/** The snapshot of a market at time `now` (the indexed block's timestamp). */
export function marketSnapshot(r: SnapshotRows, now: bigint): MarketSnapshot {
  const m = r.market;
  const state = stateAt(r.state ?? emptyMarketState(m), now);
  const indexX18 = r.indexX18 ?? 0n;
  const bestBidX18 = r.bestBidX18 ?? 0n;
  const bestAskX18 = r.bestAskX18 ?? 0n;
  const next = nextSessionChange(calendarOf(state), Number(now));
  const markClampBps = BigInt(m.markClampBps);
  const premiumNowX18 = premiumAt({
    indexX18, premiumX18: state.premiumX18, sampleBidX18: state.sampleBidX18, sampleAskX18: state.sampleAskX18, markClampBps, lastUpdate: state.fundingLastUpdate, now,
  });
  return {
    market: m,
    state,
    nextSession: next === null ? null : { at: BigInt(next.at), session: next.session },
    indexX18,
    bestBidX18,
    bestAskX18,
    premiumSampleNowX18: premiumSample(indexX18, state.sampleBidX18, state.sampleAskX18, markClampBps),
    premiumNowX18,
    markX18: markFromPremium(indexX18, premiumNowX18),
    ...fundingNow({
      cumulativeIndexX18: state.cumulativeFundingIndexX18,
      rateX18PerHour: state.fundingRateX18PerHour,
      lastUpdate: state.fundingLastUpdate,
      // a cancel since the last accrual: the stored rate up to its second, the stale rate from it
      rateStaleSince: state.rateStaleSince,
      staleRateX18PerHour: state.staleRateX18PerHour,
      indexX18,
      freshSince: r.freshSince,
      freshUntil: r.freshUntil,
      now,
      closed: state.session === "CLOSED",
    }),
  };
}
