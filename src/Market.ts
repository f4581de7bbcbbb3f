/** Market events (every market clone, found through the factory): orders, book, positions, funding. */
import { MARKET_STATUS } from "../core/market-status.js";
import { on } from "./on.js";
import {
  deleverageEvent,
  fill,
  fundingRateStaleEvent,
  fundingUpdateEvent,
  insuranceTakeoverEvent,
  fundPositionReducedEvent,
  liquidationEvent,
  market,
  marketSessionEvent,
  openInterestEvent,
  order,
  orderBookLevel,
  orderModifiedEvent,
  position,
  positionUpdateEvent,
} from "ponder:schema";
import {
  CLOSE_REASONS,
  ORDER_BOND_WAD,
  ORDER_STATUSES,
  ORDER_TYPES,
  POSITION_REASONS,
  SESSIONS,
  SIDES,
  TIMES_IN_FORCE,
  applyMargin,
  enumName,
  marketIdOf,
  patchMarketState,
  positionIdOf,
} from "./store.js";
import { recordFill, recordFundingPayment, recordFundingRate, recordLiquidation, type LiquidationArgs } from "./history/record.js";
import { fundingRate } from "../core/math/funding.js";
import { closeReasonValue } from "../core/schemas/writes.js";
import { marginPortion } from "../core/math/fillable.js";
import type { Hex } from "viem";
import type { Context } from "ponder:registry";

const WAD = 10n ** 18n;

on("Market:OrderPlaced", async ({ event, context }) => {
  const a = event.args;
  const marketId = await marketIdOf(context, event.log.address);
  await context.db.insert(order).values({
    orderId: a.orderId,
    marketId,
    accountId: a.accountId,
    clientKey: a.clientKey,
    side: enumName(SIDES, a.side),
    orderType: enumName(ORDER_TYPES, a.orderType),
    reduceOnly: a.reduceOnly,
    timeInForce: enumName(TIMES_IN_FORCE, a.timeInForce),
    expiresAt: a.expiresAt,
    priceX18: a.priceX18,
    originalQty: a.quantityQty,
    filledQty: 0n,
    remainingQty: a.quantityQty,
    cancelledQty: 0n,
    fillCount: 0,
    marginAllocatedWad: a.marginWad,
    marginRemainingWad: a.marginWad,
    marginReturnedWad: 0n,
    status: "active",
    closeReason: null,
    createdBlock: event.block.number,
    createdAt: event.block.timestamp,
    updatedAt: event.block.timestamp,
    closedAt: null,
    transactionHash: event.transaction.hash,
    modificationCount: 0,
    modifiedAt: null,
    modifiedBlock: null,
    queueSeq: BigInt(a.seq), // a resting order joins its level's tail in this call
  });
  await patchMarketState(context, event.log.address, event.block.number, (s) => ({ orderCount: s.orderCount + 1n }));
});

on("Market:OrderFilled", async ({ event, context }) => {
  const a = event.args;
  const marketId = await marketIdOf(context, event.log.address);
  await context.db.insert(fill).values({
    id: event.id,
    seq: BigInt(a.seq),
    marketId,
    makerOrderId: a.makerOrderId,
    takerOrderId: a.takerOrderId,
    makerAccountId: a.makerAccountId,
    takerAccountId: a.takerAccountId,
    takerSide: enumName(SIDES, a.takerSide),
    priceX18: a.priceX18,
    quantityQty: a.quantityQty,
    notionalWad: (a.quantityQty * a.priceX18) / WAD,
    makerFeeWad: a.makerFeeWad,
    takerFeeWad: a.takerFeeWad,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
  await recordFill(context, event, {
    marketId,
    takerSide: enumName(SIDES, a.takerSide) as "LONG" | "SHORT",
    priceX18: a.priceX18,
    quantityQty: a.quantityQty,
    notionalWad: (a.quantityQty * a.priceX18) / WAD,
    makerOrderId: a.makerOrderId,
    takerOrderId: a.takerOrderId,
    makerAccountId: a.makerAccountId,
    takerAccountId: a.takerAccountId,
    makerFeeWad: a.makerFeeWad,
    takerFeeWad: a.takerFeeWad,
  });
  // post-fill quantities come with the event; OrderClosed follows when an order leaves the book.
  // fillCount: the order's account fills so far (one per fill on each side)
  // marginRemainingWad as the chain keeps it: a maker gives the fill's share of what it had left
  // (MarketBase._fillMaker: its remaining size before the fill = what is left + this fill); a
  // taker once after its sweep, the share of its whole filled size in its placed margin
  // (Market._place; liquidation and reduce-only takers carry none): set from each of its fills'
  // running total, the last one's is the chain's
  const t = event.block.timestamp;
  await context.db.update(order, { orderId: a.makerOrderId }).set((o) => ({
    filledQty: a.makerFilledQty,
    remainingQty: a.makerRemainingQty,
    marginRemainingWad: o.marginRemainingWad - marginPortion(o.marginRemainingWad, a.quantityQty, a.makerRemainingQty + a.quantityQty),
    updatedAt: t,
    fillCount: o.fillCount + 1,
  }));
  await context.db.update(order, { orderId: a.takerOrderId }).set((o) => ({
    filledQty: a.takerFilledQty,
    remainingQty: a.takerRemainingQty,
    marginRemainingWad: o.marginAllocatedWad - marginPortion(o.marginAllocatedWad, a.takerFilledQty, o.originalQty),
    updatedAt: t,
    fillCount: o.fillCount + 1,
  }));
});

/** A closed order's row: nothing remains, `cancelledQty` never filled, its margin returned (`marginReturnedWad`). */
const closedRow = (status: string, reason: number, cancelledQty: bigint, marginReturnedWad: bigint, at: bigint) => ({
  status,
  closeReason: enumName(CLOSE_REASONS, reason),
  remainingQty: 0n,
  cancelledQty,
  marginRemainingWad: 0n,
  marginReturnedWad,
  updatedAt: at,
  closedAt: at,
});

on("Market:OrderClosed", async ({ event, context }) => {
  const a = event.args;
  await context.db.update(order, { orderId: a.orderId }).set({
    ...closedRow(enumName(ORDER_STATUSES, a.status), a.reason, a.cancelledQty, a.marginReturnedWad, event.block.timestamp),
    filledQty: a.filledQty,
  });
});

// A single cancel (Engine.cancelOrder, cancelOrderById): one event, instead of an OrderClosed, a
// LevelUpdated and a FundingRateStale, with the order's level's post-state (its side and price are
// the stored row's) and, when the skew counted the order (staleSince ≠ 0), the skew's after it.
on("Market:OrderCancelled", async ({ event, context }) => {
  const a = event.args;
  const o = await context.db.find(order, { orderId: a.orderId });
  if (!o) throw new Error(`OrderCancelled of order ${a.orderId} before its OrderPlaced`);
  const t = event.block.timestamp;
  await context.db.update(order, { orderId: a.orderId }).set({
    ...closedRow("cancelled", closeReasonValue("USER_CANCEL"), a.originalQty - a.filledQty, a.marginReturnedWad, t),
    filledQty: a.filledQty,
  });
  await setLevel(context, event.log.address, event.block.number, o.marketId, o.side, o.priceX18, { totalQty: a.levelTotalQty, orderCount: a.levelOrderCount });
  if (a.staleSince !== 0n) await markStale(context, event, a.staleSince, a.longQty, a.shortQty);
  // the Engine moves the margin and the bond from committed to available without an event of its own
  const refund = a.marginReturnedWad + ORDER_BOND_WAD;
  await applyMargin(context, event, {
    accountId: a.accountId, marketId: o.marketId, reason: "ORDER_RELEASE", deltaAvailableWad: refund, deltaCommittedWad: -refund, amount6: 0n,
  });
});

// Resting orders of one account cancelled together (Engine.cancelOrders: a cancel-all or the
// dead-man switch): no OrderClosed or LevelUpdated comes with them. Each order closes with what its
// own events left it (its remaining quantity is cancelled, its margin returned), and its level loses
// that quantity and the order (the chain's totals: a level is the sum of its orders).
on("Market:OrdersCancelled", async ({ event, context }) => {
  const { reason, orderIds } = event.args;
  const marketId = await marketIdOf(context, event.log.address);
  const t = event.block.timestamp;
  for (const orderId of orderIds) {
    const o = await context.db.find(order, { orderId });
    if (!o) throw new Error(`OrdersCancelled of order ${orderId} before its OrderPlaced`);
    await context.db.update(order, { orderId }).set(closedRow("cancelled", reason, o.remainingQty, o.marginRemainingWad, t));
    await setLevel(context, event.log.address, event.block.number, marketId, o.side, o.priceX18, (level) => ({
      totalQty: (level?.quantityQty ?? 0n) - o.remainingQty,
      orderCount: BigInt((level?.orderCount ?? 0) - 1),
    }));
  }
});

type LevelTotals = { totalQty: bigint; orderCount: bigint };

/**
 * A level's new totals (LevelUpdated, and both levels of an OrderModified), or what they become
 * from the stored row (OrdersCancelled): the stored row (none at 0) and the side's resting size in
 * the market state (the funding skew: L = long OI + resting bids).
 */
async function setLevel(
  context: Context,
  marketAddress: Hex,
  block: bigint,
  marketId: Hex,
  side: string,
  priceX18: bigint,
  totals: LevelTotals | ((stored: typeof orderBookLevel.$inferSelect | null) => LevelTotals),
): Promise<void> {
  const key = { marketId, side, priceX18 };
  const before = await context.db.find(orderBookLevel, key);
  const { totalQty, orderCount } = typeof totals === "function" ? totals(before) : totals;
  if (totalQty === 0n) {
    if (before) await context.db.delete(orderBookLevel, key);
  } else {
    const values = { quantityQty: totalQty, orderCount: Number(orderCount), updatedBlock: block };
    await context.db.insert(orderBookLevel).values({ ...key, ...values }).onConflictDoUpdate(values);
  }
  const delta = totalQty - (before?.quantityQty ?? 0n);
  if (delta === 0n) return;
  await patchMarketState(context, marketAddress, block, (s) =>
    side === "LONG" ? { restingBidQty: s.restingBidQty + delta } : { restingAskQty: s.restingAskQty + delta },
  );
}

on("Market:LevelUpdated", async ({ event, context }) => {
  const { side, priceX18, totalQty, orderCount } = event.args;
  const marketId = await marketIdOf(context, event.log.address);
  await setLevel(context, event.log.address, event.block.number, marketId, enumName(SIDES, side), priceX18, { totalQty, orderCount });
});

// A resting order's new price and size (Engine.modifyOrder): no LevelUpdated comes with it, the
// event carries both levels' post-state (the level it left at fromPriceX18, the one it is in at
// priceX18: the same one when the price stayed). Its margin is the chain's (ceil of the old one by
// the notionals): what it gained or gave back is committed or released (allocated follows).
on("Market:OrderModified", async ({ event, context }) => {
  const a = event.args;
  const before = await context.db.find(order, { orderId: a.orderId });
  if (!before) throw new Error(`OrderModified of order ${a.orderId} before its OrderPlaced`);
  const t = event.block.timestamp;
  const block = event.block.number;
  // only a smaller (or equal) size at the same price keeps the order's place (MarketOrders._move)
  const keptPriority = a.priceX18 === before.priceX18 && a.remainingQty <= before.remainingQty;
  await context.db.update(order, { orderId: a.orderId }).set({
    priceX18: a.priceX18,
    originalQty: a.originalQty,
    remainingQty: a.remainingQty,
    marginRemainingWad: a.marginRemainingWad,
    marginAllocatedWad: before.marginAllocatedWad + a.marginRemainingWad - before.marginRemainingWad,
    updatedAt: t,
    modificationCount: before.modificationCount + 1,
    modifiedAt: t,
    modifiedBlock: block,
    queueSeq: keptPriority ? before.queueSeq : BigInt(a.seq), // else at the tail of its (new) level
  });
  await setLevel(context, event.log.address, block, before.marketId, before.side, a.fromPriceX18, { totalQty: a.fromTotalQty, orderCount: a.fromOrderCount });
  if (a.fromPriceX18 !== a.priceX18)
    await setLevel(context, event.log.address, block, before.marketId, before.side, a.priceX18, { totalQty: a.levelTotalQty, orderCount: a.levelOrderCount });
  await context.db.insert(orderModifiedEvent).values({
    id: event.id,
    seq: BigInt(a.seq),
    orderId: a.orderId,
    marketId: before.marketId,
    accountId: a.accountId,
    fromPriceX18: before.priceX18,
    fromRemainingQty: before.remainingQty,
    fromMarginRemainingWad: before.marginRemainingWad,
    priceX18: a.priceX18,
    originalQty: a.originalQty,
    remainingQty: a.remainingQty,
    marginRemainingWad: a.marginRemainingWad,
    keptPriority,
    blockNumber: block,
    timestamp: t,
    transactionHash: event.transaction.hash,
    logIndex: event.log.logIndex,
  });
});

on("Market:PositionUpdated", async ({ event, context }) => {
  const a = event.args;
  const marketId = await marketIdOf(context, event.log.address);
  const positionId = positionIdOf(a.accountId, marketId);
  const key = { accountId: a.accountId, marketId };
  const before = await context.db.find(position, key);
  // openBlock (as the contract): cleared at size 0, set when a position opens or flips side
  const oldSize = before?.sizeQty ?? 0n;
  const openBlock =
    a.sizeQty === 0n ? 0n : oldSize === 0n || oldSize > 0n !== a.sizeQty > 0n ? event.block.number : before!.openBlock;
  const state = {
    sizeQty: a.sizeQty,
    openNotionalWad: a.openNotionalWad,
    marginWad: a.marginWad,
    lastFundingIndexX18: a.fundingIndexX18,
    lastSettledAt: event.block.timestamp, // every position change settles funding first
    openBlock,
    updatedBlock: event.block.number,
    updatedAt: event.block.timestamp,
  };
  const totals = {
    realizedPnlWad: (before?.realizedPnlWad ?? 0n) + a.realizedPnlWad,
    fundingPaidWad: (before?.fundingPaidWad ?? 0n) + a.fundingPaidWad,
    feesPaidWad: (before?.feesPaidWad ?? 0n) + a.feeWad,
  };
  if (before) await context.db.update(position, key).set({ ...state, ...totals });
  else await context.db.insert(position).values({ ...key, ...state, positionId, ...totals });
  await recordFundingPayment(context, event, {
    accountId: a.accountId,
    marketId,
    positionId,
    sizeBeforeQty: oldSize,
    fundingPaidWad: a.fundingPaidWad,
    fundingIndexX18: a.fundingIndexX18,
  });
  await context.db.insert(positionUpdateEvent).values({
    id: event.id,
    seq: BigInt(a.seq),
    accountId: a.accountId,
    marketId,
    positionId,
    reason: enumName(POSITION_REASONS, a.reason),
    sizeQty: a.sizeQty,
    openNotionalWad: a.openNotionalWad,
    marginWad: a.marginWad,
    realizedPnlWad: a.realizedPnlWad,
    fundingPaidWad: a.fundingPaidWad,
    feeWad: a.feeWad,
    fundingIndexX18: a.fundingIndexX18,
    realizedPnlTotalWad: totals.realizedPnlWad,
    fundingPaidTotalWad: totals.fundingPaidWad,
    feesPaidTotalWad: totals.feesPaidWad,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});

on("Market:OpenInterestUpdated", async ({ event, context }) => {
  const { longQty, shortQty } = event.args;
  await patchMarketState(context, event.log.address, event.block.number, {
    longOpenInterestQty: longQty,
    shortOpenInterestQty: shortQty,
  });
  await context.db.insert(openInterestEvent).values({
    id: event.id,
    marketAddress: event.log.address,
    longQty,
    shortQty,
    timestamp: event.block.timestamp,
    blockNumber: event.block.number,
  });
});

on("Market:FundingUpdated", async ({ event, context }) => {
  const a = event.args;
  await patchMarketState(context, event.log.address, event.block.number, {
    fundingRateX18PerHour: a.rateX18PerHour,
    premiumComponentX18: a.premiumComponentX18,
    skewComponentX18: a.skewComponentX18,
    skewX18: a.skewX18,
    premiumX18: a.premiumX18,
    sampleBidX18: a.sampleBidX18,
    sampleAskX18: a.sampleAskX18,
    cumulativeFundingIndexX18: a.cumulativeIndexX18,
    fundingLastUpdate: a.timestamp,
    fundingIndexPriceX18: a.indexPriceX18,
    fundingMarkPriceX18: a.markPriceX18,
    rateStaleSince: 0n, // an accrual applied any stale rate and recomputed it
  });
  await context.db.insert(fundingUpdateEvent).values({
    id: event.id,
    marketAddress: event.log.address,
    seq: BigInt(a.seq),
    rateX18PerHour: a.rateX18PerHour,
    premiumComponentX18: a.premiumComponentX18,
    skewComponentX18: a.skewComponentX18,
    skewX18: a.skewX18,
    premiumX18: a.premiumX18,
    sampleBidX18: a.sampleBidX18,
    sampleAskX18: a.sampleAskX18,
    cumulativeIndexX18: a.cumulativeIndexX18,
    indexPriceX18: a.indexPriceX18,
    markPriceX18: a.markPriceX18,
    timestamp: a.timestamp,
    blockNumber: event.block.number,
  });
  await recordFundingRate(context, event, event.log.address, {
    rateX18PerHour: a.rateX18PerHour,
    cumulativeIndexX18: a.cumulativeIndexX18,
    premiumComponentX18: a.premiumComponentX18,
    skewComponentX18: a.skewComponentX18,
    indexPriceX18: a.indexPriceX18,
    markPriceX18: a.markPriceX18,
  });
});

// A margined cancel: the stored rate applies up to staleSince, from there the rate of the stored
// premium and the margined sizes after this cancel (docs/CONTRACTS.md "Funding"). Several orders'
// cancel (Engine.cancelOrders) emits FundingRateStale; a single cancel, OrderCancelled.
on("Market:FundingRateStale", async ({ event, context }) => {
  const { staleSince, longQty, shortQty } = event.args;
  await markStale(context, event, BigInt(staleSince), longQty, shortQty);
});

/** The stale rate a cancel left: the market state's, and its history row (ordered by the event's id, its place in the chain). */
async function markStale(
  context: Context,
  event: { id: string; log: { address: Hex }; block: { number: bigint; timestamp: bigint } },
  staleSince: bigint,
  longQty: bigint,
  shortQty: bigint,
): Promise<void> {
  const m = await context.db.find(market, { marketId: await marketIdOf(context, event.log.address) });
  if (!m) throw new Error(`a stale rate from ${event.log.address} before its MarketCreated`);
  let rate = { rateX18PerHour: 0n, skewX18: 0n };
  await patchMarketState(context, event.log.address, event.block.number, (row) => {
    rate = fundingRate({
      premiumX18: row.premiumX18,
      longQty,
      shortQty,
      skewScaleX18PerHour: m.skewScaleX18PerHour,
      maxFundingRateX18PerHour: m.maxFundingRateX18PerHour,
    });
    return { rateStaleSince: staleSince, staleRateX18PerHour: rate.rateX18PerHour, staleLongQty: longQty, staleShortQty: shortQty };
  });
  await context.db.insert(fundingRateStaleEvent).values({
    id: event.id,
    marketAddress: event.log.address.toLowerCase() as Hex,
    staleSince,
    longQty,
    shortQty,
    rateX18PerHour: rate.rateX18PerHour,
    skewX18: rate.skewX18,
    timestamp: event.block.timestamp,
    blockNumber: event.block.number,
  });
}

/** A Liquidated event's fields as both of its rows store them (liquidation_event, account_liquidation). */
function liquidationFields(
  a: {
    accountId: bigint; liquidator: Hex; closedQty: bigint; closedNotionalWad: bigint; liquidatorFeeWad: bigint;
    insuranceFeeWad: bigint; badDebtWad: bigint; remainingSizeQty: bigint;
  },
  marketId: Hex,
): Omit<LiquidationArgs, "kind"> {
  return {
    accountId: a.accountId,
    marketId,
    positionId: positionIdOf(a.accountId, marketId),
    liquidator: a.liquidator,
    closedQty: a.closedQty,
    closedNotionalWad: a.closedNotionalWad,
    liquidatorFeeWad: a.liquidatorFeeWad,
    insuranceFeeWad: a.insuranceFeeWad,
    badDebtWad: a.badDebtWad,
    remainingSizeQty: a.remainingSizeQty,
  };
}

on("Market:Liquidated", async ({ event, context }) => {
  const fields = liquidationFields(event.args, await marketIdOf(context, event.log.address));
  await context.db.insert(liquidationEvent).values({
    id: event.id,
    seq: BigInt(event.args.seq),
    ...fields,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
  await recordLiquidation(context, event, { kind: "LIQUIDATION", ...fields });
});

on("Market:InsuranceTakeover", async ({ event, context }) => {
  const a = event.args;
  const marketId = await marketIdOf(context, event.log.address);
  await context.db.insert(insuranceTakeoverEvent).values({
    id: event.id,
    seq: BigInt(a.seq),
    marketId,
    accountId: a.accountId,
    quantityQty: a.quantityQty,
    priceX18: a.priceX18,
    notionalWad: a.notionalWad,
    fundMarginAddedWad: a.fundMarginAddedWad,
    fundSizeQty: a.fundSizeQty,
    fundOpenNotionalWad: a.fundOpenNotionalWad,
    fundMarginWad: a.fundMarginWad,
    insuranceFundWad: a.insuranceFundWad,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});

on("Market:FundPositionReduced", async ({ event, context }) => {
  const a = event.args;
  await context.db.insert(fundPositionReducedEvent).values({
    id: event.id,
    seq: BigInt(a.seq),
    marketId: await marketIdOf(context, event.log.address),
    quantityQty: a.quantityQty,
    fundSizeQty: a.fundSizeQty,
    nextAt: a.nextAt,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});

on("Market:Deleveraged", async ({ event, context }) => {
  const a = event.args;
  const marketId = await marketIdOf(context, event.log.address);
  await context.db.insert(deleverageEvent).values({
    id: event.id,
    seq: BigInt(a.seq),
    marketId,
    accountId: a.accountId,
    counterpartyId: a.counterpartyId,
    quantityQty: a.quantityQty,
    priceX18: a.priceX18,
    notionalWad: a.notionalWad,
    counterpartySizeQty: a.counterpartySizeQty,
    counterpartyRealizedPnlWad: a.counterpartyRealizedPnlWad,
    rank: a.rank,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
  // the counterparty's own history: its position was closed by deleveraging (no fee, no liquidator)
  await recordLiquidation(context, event, {
    accountId: a.counterpartyId,
    marketId,
    positionId: positionIdOf(a.counterpartyId, marketId),
    kind: "DELEVERAGE",
    liquidator: "0x0000000000000000000000000000000000000000",
    closedQty: a.quantityQty,
    closedNotionalWad: a.notionalWad,
    liquidatorFeeWad: 0n,
    insuranceFeeWad: 0n,
    badDebtWad: 0n,
    remainingSizeQty: a.counterpartySizeQty,
  });
});

on("Market:ActiveSet", async ({ event, context }) => {
  await patchMarketState(context, event.log.address, event.block.number, { isActive: event.args.isActive });
});

on("Market:MarketStatusSet", async ({ event, context }) => {
  await patchMarketState(context, event.log.address, event.block.number, { mode: MARKET_STATUS[event.args.status] ?? "ACTIVE" });
});

// Sessions follow the calendar and the time on chain (no event at a switch): the row keeps the
// calendar, reads derive the session at their block (core/reads/snapshot.ts stateAt).
on("Market:MarketCalendarScheduled", async ({ event, context }) => {
  const { current, next, startsAt } = event.args;
  await patchMarketState(context, event.log.address, event.block.number, {
    calendarCloseAtMin: current.closeAtMin,
    calendarWindowMin: current.windowMin,
    calendarClosedMin: current.closedMin,
    nextCalendarCloseAtMin: next.closeAtMin,
    nextCalendarWindowMin: next.windowMin,
    nextCalendarClosedMin: next.closedMin,
    calendarStartsAt: startsAt,
  });
});

on("Market:MarketSessionChanged", async ({ event, context }) => {
  const { seq, session, marginUpliftBps, closeUpliftBps } = event.args;
  const name = enumName(SESSIONS, session);
  let marketId: Hex | null = null;
  let fundingLastUpdate = 0n;
  await patchMarketState(context, event.log.address, event.block.number, (row) => {
    marketId = row.marketId;
    fundingLastUpdate = row.fundingLastUpdate;
    // the session at this block's time (a close uplift change; sessions switch with no event)
    return { session: name, marginUpliftBps: Number(marginUpliftBps), closeUpliftBps: Number(closeUpliftBps), sessionUpdatedAt: event.block.timestamp };
  });
  await context.db.insert(marketSessionEvent).values({
    id: event.id,
    seq: BigInt(seq),
    marketAddress: event.log.address.toLowerCase() as Hex,
    marketId,
    session: name,
    marginUpliftBps: Number(marginUpliftBps),
    closeUpliftBps: Number(closeUpliftBps),
    fundingLastUpdate,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});
