/**
 * The recurring writes of the handlers, one helper each, so every handler upserts the same way.
 * State comes from event arguments (post-state values; a single cancel's margin release, which
 * its one event carries as a delta: `applyMargin`); nothing is kept in memory between events, so
 * Ponder's reorg handling (it reverts the store) is all we need.
 */
import type { Context } from "ponder:registry";
import { account, marginUpdateEvent, marketState } from "ponder:schema";
import type { Hex } from "viem";
import { recordTransfer, type EventPlace } from "./history/record.js";
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

/** The margin held back by every resting order until it leaves the book (MarketBase.ORDER_BOND_WAD). */
export const ORDER_BOND_WAD = 5n * 10n ** 17n;

export type MarginChange = {
  accountId: bigint;
  marketId: Hex;
  reason: (typeof MARGIN_REASONS)[number];
  deltaAvailableWad: bigint;
  deltaCommittedWad: bigint;
  amount6: bigint;
};

/**
 * A change of an account's margin: its history row, its transfer (a deposit or withdrawal) and
 * the account's balances. `post`: the balances after it (MarginUpdated); without it, the stored
 * ones moved by the deltas (a single cancel's release, which its OrderCancelled carries).
 */
export async function applyMargin(context: Context, e: EventPlace, m: MarginChange, post?: { availableWad: bigint; committedWad: bigint }) {
  let balances = post;
  if (!balances) {
    const row = await context.db.find(account, { accountId: m.accountId });
    if (!row) throw new Error(`a margin change of account ${m.accountId} before its AccountCreated`);
    balances = { availableWad: row.availableWad + m.deltaAvailableWad, committedWad: row.committedWad + m.deltaCommittedWad };
  }
  await context.db.insert(marginUpdateEvent).values({
    id: e.id,
    ...m,
    ...balances,
    blockNumber: e.block.number,
    timestamp: e.block.timestamp,
    transactionHash: e.transaction.hash,
  });
  await recordTransfer(context, e, { accountId: m.accountId, reason: m.reason, amount6: m.amount6, availableWad: balances.availableWad });
  await context.db.update(account, { accountId: m.accountId }).set({
    ...balances,
    totalWad: balances.availableWad + balances.committedWad,
    updatedBlock: e.block.number,
  });
}
