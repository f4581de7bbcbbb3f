/**
 * The history tables' writes (ponder.schema.ts "history"), called by the handlers of the events
 * they come from. Append-only rows keyed by the event id, plus the candles each fill updates.
 */
import type { Context } from "ponder:registry";
import { accountFill, accountLiquidation, candle, fundingHistory, fundingPayment, trade, transfer } from "ponder:schema";
import type { Hex } from "viem";
import { CANDLE_RESOLUTION_NAMES, periodStart, withTrade } from "../../core/candles.js";

/** Where a row comes from: its event's id, block, log index, time and transaction. */
export type EventPlace = {
  id: string;
  block: { number: bigint; timestamp: bigint };
  log: { logIndex: number };
  transaction: { hash: Hex };
};

const placeOf = (e: EventPlace) => ({
  blockNumber: e.block.number,
  logIndex: e.log.logIndex,
  timestamp: e.block.timestamp,
  transactionHash: e.transaction.hash,
});

export type FillArgs = {
  marketId: Hex;
  takerSide: "LONG" | "SHORT";
  priceX18: bigint;
  quantityQty: bigint;
  notionalWad: bigint;
  makerOrderId: bigint;
  takerOrderId: bigint;
  makerAccountId: bigint;
  takerAccountId: bigint;
  makerFeeWad: bigint;
  takerFeeWad: bigint;
};

/** A fill: the market's trade, each side's account fill, and the six candles it lands in. */
export async function recordFill(context: Context, e: EventPlace, f: FillArgs) {
  const at = placeOf(e);
  await context.db.insert(trade).values({ id: e.id, ...f, ...at });
  const common = { marketId: f.marketId, priceX18: f.priceX18, quantityQty: f.quantityQty, notionalWad: f.notionalWad, ...at };
  const makerSide = f.takerSide === "LONG" ? "SHORT" : "LONG";
  await context.db.insert(accountFill).values([
    { id: `${e.id}:M`, accountId: f.makerAccountId, orderId: f.makerOrderId, side: makerSide, liquidity: "MAKER", feeWad: f.makerFeeWad, ...common },
    { id: `${e.id}:T`, accountId: f.takerAccountId, orderId: f.takerOrderId, side: f.takerSide, liquidity: "TAKER", feeWad: f.takerFeeWad, ...common },
  ]);
  for (const resolution of CANDLE_RESOLUTION_NAMES) {
    const key = { marketId: f.marketId, resolution, periodStart: periodStart(e.block.timestamp, resolution) };
    const before = await context.db.find(candle, key);
    const values = { ...withTrade(before ?? undefined, f.priceX18, f.quantityQty, f.notionalWad), updatedBlock: e.block.number };
    if (before) await context.db.update(candle, key).set(values);
    else await context.db.insert(candle).values({ ...key, ...values });
  }
}

export type FundingArgs = {
  rateX18PerHour: bigint;
  cumulativeIndexX18: bigint;
  premiumComponentX18: bigint;
  skewComponentX18: bigint;
  indexPriceX18: bigint;
  markPriceX18: bigint;
};

export async function recordFundingRate(context: Context, e: EventPlace, marketAddress: Hex, a: FundingArgs) {
  await context.db.insert(fundingHistory).values({ id: e.id, marketAddress: marketAddress.toLowerCase() as Hex, ...a, ...placeOf(e) });
}

/**
 * A position change settles the funding owed since its last settlement: recorded when the
 * position had size before the change (a new position owes nothing yet).
 */
export async function recordFundingPayment(
  context: Context,
  e: EventPlace,
  p: { accountId: bigint; marketId: Hex; positionId: Hex; sizeBeforeQty: bigint; fundingPaidWad: bigint; fundingIndexX18: bigint },
) {
  if (p.sizeBeforeQty === 0n) return;
  await context.db.insert(fundingPayment).values({
    id: e.id,
    accountId: p.accountId,
    marketId: p.marketId,
    positionId: p.positionId,
    sizeQty: p.sizeBeforeQty,
    paymentWad: p.fundingPaidWad,
    fundingIndexX18: p.fundingIndexX18,
    ...placeOf(e),
  });
}

/** Deposits and withdrawals; other margin reasons are not transfers. */
export async function recordTransfer(
  context: Context,
  e: EventPlace,
  m: { accountId: bigint; reason: string; amount6: bigint; availableWad: bigint },
) {
  const kind = m.reason === "DEPOSIT" ? "DEPOSIT" : m.reason === "WITHDRAW" ? "WITHDRAWAL" : null;
  if (!kind) return;
  await context.db.insert(transfer).values({ id: e.id, accountId: m.accountId, kind, amount6: m.amount6, availableWad: m.availableWad, ...placeOf(e) });
}

export type LiquidationArgs = {
  accountId: bigint;
  marketId: Hex;
  positionId: Hex;
  kind: "LIQUIDATION" | "TAKEOVER" | "DELEVERAGE";
  liquidator: Hex;
  closedQty: bigint;
  closedNotionalWad: bigint;
  liquidatorFeeWad: bigint;
  insuranceFeeWad: bigint;
  badDebtWad: bigint;
  remainingSizeQty: bigint;
};

export async function recordLiquidation(context: Context, e: EventPlace, l: LiquidationArgs) {
  await context.db.insert(accountLiquidation).values({ id: e.id, ...l, ...placeOf(e) });
}
