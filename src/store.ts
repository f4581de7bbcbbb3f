/**
 * The recurring writes of the handlers, one helper each, so every handler upserts the same way.
 * State comes only from event arguments (post-state values); nothing is kept in memory between
 * events, so Ponder's reorg handling (it reverts the store) is all we need.
 */
import type { Context } from "ponder:registry";
import { marketState } from "ponder:schema";
import type { Hex } from "viem";
export { positionIdOf } from "../core/math/ids";

export const SIDES = ["LONG", "SHORT"] as const;
export const ORDER_TYPES = ["MARKET", "LIMIT"] as const;
export const ORDER_STATUSES = ["none", "active", "filled", "cancelled"] as const;
export const CLOSE_REASONS = [
  "FILLED", "USER_CANCEL", "UNFILLED_MARKET", "REDUCE_ONLY_EXPIRED", "FILL_CAP", "LIQUIDATION", "DUST", "MARGIN",
  "REDUCE_ONLY_SESSION",
] as const;
export const POSITION_REASONS = ["TRADE", "LIQUIDATION", "DELEVERAGE"] as const;
export const SESSIONS = ["OPEN", "REDUCE_ONLY", "CLOSED"] as const;
export const MARGIN_REASONS = ["DEPOSIT", "WITHDRAW", "ORDER_COMMIT", "ORDER_RELEASE", "TRADE_SETTLEMENT", "LIQUIDATION"] as const;

export const enumName = <T extends readonly string[]>(names: T, value: number | bigint): T[number] =>
  names[Number(value)] ?? `UNKNOWN_${value}`;


type MarketStateRow = typeof marketState.$inferInsert;
type MarketStatePatch = Partial<Omit<MarketStateRow, "marketAddress">>;

const EMPTY_MARKET_STATE: Omit<typeof marketState.$inferSelect, "marketAddress" | "updatedBlock"> = {
  marketId: null,
  isActive: true, // a market is active from initialization until ActiveSet(false)
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
  fundingLastUpdate: 0n,
  fundingIndexPriceX18: 0n,
  fundingMarkPriceX18: 0n,
  rateStaleSince: 0n,
  staleRateX18PerHour: 0n,
  staleLongQty: 0n,
  staleShortQty: 0n,
  orderCount: 0n,
  session: "OPEN",
  marginUpliftBps: 10_000,
  closeUpliftBps: 10_000,
  sessionUpdatedAt: null,
};

/** Sets fields of a market's live state, creating the row on the market's first event. */
export async function patchMarketState(
  context: Context,
  marketAddress: Hex,
  blockNumber: bigint,
  patch: MarketStatePatch | ((row: typeof marketState.$inferSelect) => MarketStatePatch),
) {
  const address = marketAddress.toLowerCase() as Hex;
  const existing = await context.db.find(marketState, { marketAddress: address });
  const values = typeof patch === "function" ? patch(existing ?? { ...EMPTY_MARKET_STATE, marketAddress: address, updatedBlock: blockNumber }) : patch;
  if (existing) {
    await context.db.update(marketState, { marketAddress: address }).set({ ...values, updatedBlock: blockNumber });
  } else {
    await context.db.insert(marketState).values({ ...EMPTY_MARKET_STATE, ...values, marketAddress: address, updatedBlock: blockNumber });
  }
}

/** marketId of the market contract that emitted an event (known once MarketCreated was indexed). */
export async function marketIdOf(context: Context, marketAddress: Hex): Promise<Hex> {
  const row = await context.db.find(marketState, { marketAddress: marketAddress.toLowerCase() as Hex });
  if (!row?.marketId) throw new Error(`event from market ${marketAddress} before its MarketCreated`);
  return row.marketId;
}
