/**
 * Reads of the indexed tables, and the market snapshot every time-dependent value is computed
 * from (index, best bid/ask, mark, funding accrued to the indexed block's time) with core/math,
 * exactly as the contracts' views compute them at that block.
 */
import { db } from "ponder:api";
import { account, indexPrice, market, marketState, orderBookLevel, position } from "ponder:schema";
import { and, asc, desc, eq } from "ponder";
import type { Hex } from "viem";
import { ApiError } from "../../../core/errors.js";
import { cumulativeIndexNow, markPrice } from "../../../core/math/index.js";

export type AccountRow = typeof account.$inferSelect;
export type MarketRow = typeof market.$inferSelect;
export type MarketStateRow = typeof marketState.$inferSelect;
export type PositionRow = typeof position.$inferSelect;
export type LevelRow = typeof orderBookLevel.$inferSelect;

export type MarketSnapshot = {
  market: MarketRow;
  state: MarketStateRow;
  indexX18: bigint;
  bestBidX18: bigint; // 0 = empty side
  bestAskX18: bigint;
  markX18: bigint;
  /** The contract's cumulativeIndexNow at `now`. */
  cumulativeIndexNowX18: bigint;
};

export async function findAccount(accountId: bigint): Promise<AccountRow | undefined> {
  const rows = await db.select().from(account).where(eq(account.accountId, accountId)).limit(1);
  return rows[0];
}

export async function requireAccount(accountId: bigint): Promise<AccountRow> {
  const row = await findAccount(accountId);
  if (!row) throw new ApiError("ACCOUNT_NOT_FOUND", `account ${accountId} does not exist`);
  return row;
}

export async function findAccountByOwner(owner: Hex): Promise<AccountRow | undefined> {
  const rows = await db.select().from(account).where(eq(account.owner, owner.toLowerCase() as Hex)).limit(1);
  return rows[0];
}

export async function bookLevels(marketId: Hex, side: "LONG" | "SHORT", depth: number): Promise<LevelRow[]> {
  return db
    .select()
    .from(orderBookLevel)
    .where(and(eq(orderBookLevel.marketId, marketId), eq(orderBookLevel.side, side)))
    .orderBy(side === "LONG" ? desc(orderBookLevel.priceX18) : asc(orderBookLevel.priceX18))
    .limit(depth);
}

const emptyState = (m: MarketRow): MarketStateRow => ({
  marketAddress: m.marketAddress,
  marketId: m.marketId,
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
  cumulativeFundingIndexX18: 0n,
  fundingLastUpdate: m.createdAt,
  fundingIndexPriceX18: 0n,
  fundingMarkPriceX18: 0n,
  orderCount: 0n,
  session: "OPEN",
  marginUpliftBps: 10_000,
  closeUpliftBps: 10_000,
  sessionUpdatedAt: null,
  updatedBlock: m.createdBlock,
});

async function snapshotOf(m: MarketRow, now: bigint): Promise<MarketSnapshot> {
  const [states, prices, bid, ask] = await Promise.all([
    db.select().from(marketState).where(eq(marketState.marketAddress, m.marketAddress)).limit(1),
    db.select().from(indexPrice).where(eq(indexPrice.marketId, m.marketId)).limit(1),
    bookLevels(m.marketId, "LONG", 1),
    bookLevels(m.marketId, "SHORT", 1),
  ]);
  const state = states[0] ?? emptyState(m);
  const indexX18 = prices[0]?.priceX18 ?? 0n;
  const bestBidX18 = bid[0]?.priceX18 ?? 0n;
  const bestAskX18 = ask[0]?.priceX18 ?? 0n;
  return {
    market: m,
    state,
    indexX18,
    bestBidX18,
    bestAskX18,
    markX18: markPrice({
      indexX18, bestBidX18, bestAskX18, markClampBps: BigInt(m.markClampBps),
      premiumX18: state.premiumX18, lastUpdate: state.fundingLastUpdate, now,
    }),
    cumulativeIndexNowX18: cumulativeIndexNow({
      cumulativeIndexX18: state.cumulativeFundingIndexX18,
      rateX18PerHour: state.fundingRateX18PerHour,
      indexX18,
      lastUpdate: state.fundingLastUpdate,
      now,
    }),
  };
}

export async function requireMarket(marketId: Hex): Promise<MarketRow> {
  const rows = await db.select().from(market).where(eq(market.marketId, marketId.toLowerCase() as Hex)).limit(1);
  const m = rows[0];
  if (!m) throw new ApiError("MARKET_NOT_FOUND", `market ${marketId} does not exist`);
  return m;
}

/** The market with its live state at time `now` (the indexed block's timestamp). */
export async function requireMarketSnapshot(marketId: Hex, now: bigint): Promise<MarketSnapshot> {
  return snapshotOf(await requireMarket(marketId), now);
}

export async function allMarketSnapshots(now: bigint): Promise<MarketSnapshot[]> {
  const rows = await db.select().from(market).orderBy(asc(market.marketIndex));
  return Promise.all(rows.map((m) => snapshotOf(m, now)));
}

export async function findPosition(accountId: bigint, marketId: Hex): Promise<PositionRow | undefined> {
  const rows = await db
    .select()
    .from(position)
    .where(and(eq(position.accountId, accountId), eq(position.marketId, marketId.toLowerCase() as Hex)))
    .limit(1);
  return rows[0];
}
