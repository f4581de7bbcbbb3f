/**
 * The recurring writes of the handlers, one helper each, so every handler upserts the same way.
 * State comes only from event arguments (post-state values); nothing is kept in memory between
 * events, so Ponder's reorg handling (it reverts the store) is all we need.
 */
import type { Context } from "ponder:registry";
import { marketState } from "ponder:schema";
import type { Hex } from "viem";
export { positionIdOf } from "../core/math/ids.js";
import { EMPTY_MARKET_STATE } from "../core/reads/snapshot.js";

export const SIDES = ["LONG", "SHORT"] as const;
export const ORDER_TYPES = ["MARKET", "LIMIT"] as const;
export const ORDER_STATUSES = ["none", "active", "filled", "cancelled"] as const;
export { CLOSE_REASON_NAME as CLOSE_REASONS } from "../core/schemas/writes.js";
export { TIME_IN_FORCE_NAME as TIMES_IN_FORCE } from "../core/order-options.js";
export const POSITION_REASONS = ["TRADE", "LIQUIDATION", "DELEVERAGE", "MARGIN"] as const;
export const SESSIONS = ["OPEN", "REDUCE_ONLY", "CLOSED"] as const;
export const MARGIN_REASONS = ["DEPOSIT", "WITHDRAW", "ORDER_COMMIT", "ORDER_RELEASE", "TRADE_SETTLEMENT", "LIQUIDATION", "POSITION_MARGIN"] as const;

export const enumName = <T extends readonly string[]>(names: T, value: number | bigint): T[number] =>
  names[Number(value)] ?? `UNKNOWN_${value}`;


type MarketStateRow = typeof marketState.$inferInsert;
type MarketStatePatch = Partial<Omit<MarketStateRow, "marketAddress">>;

// A market is active from initialization until ActiveSet(false); funding starts at its first event.
const EMPTY_MARKET_STATE_ROW: Omit<typeof marketState.$inferSelect, "marketAddress" | "updatedBlock"> = {
  ...EMPTY_MARKET_STATE,
  marketId: null,
  fundingLastUpdate: 0n,
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
  const values = typeof patch === "function" ? patch(existing ?? { ...EMPTY_MARKET_STATE_ROW, marketAddress: address, updatedBlock: blockNumber }) : patch;
  if (existing) {
    await context.db.update(marketState, { marketAddress: address }).set({ ...values, updatedBlock: blockNumber });
  } else {
    await context.db.insert(marketState).values({ ...EMPTY_MARKET_STATE_ROW, ...values, marketAddress: address, updatedBlock: blockNumber });
  }
}

/** marketId of the market contract that emitted an event (known once MarketCreated was indexed). */
export async function marketIdOf(context: Context, marketAddress: Hex): Promise<Hex> {
  const row = await context.db.find(marketState, { marketAddress: marketAddress.toLowerCase() as Hex });
  if (!row?.marketId) throw new Error(`event from market ${marketAddress} before its MarketCreated`);
  return row.marketId;
}
