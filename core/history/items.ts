/**
 * History rows → response items (core/schemas/history.ts), in one place: the history read
 * model's pages (plans.ts) and Ponder's PnL route.
 */
import type { z } from "@hono/zod-openapi";
import { getAddress, type Hex } from "viem";
import type { accountFill, accountLiquidation, fundingHistory, fundingPayment, insuranceFundEvent, order, orderModifiedEvent, trade, transfer } from "../../ponder.schema.js";
import { formatField } from "../fields.js";
import { secondsToISO } from "../units.js";
import type { Ohlcv } from "../candles.js";
import type * as H from "../schemas/history.js";
import type { TimeInForceName } from "../order-options.js";
import type { TriggerKindName } from "../triggers.js";
import { orderModifications } from "../reads/responses.js";

/** An account's PnL at one period end (src/api/lib/pnl.ts computes it). */
export type PnlPoint = {
  periodStart: bigint;
  periodEnd: bigint;
  blockNumber: bigint; // B
  blockTimestamp: bigint;
  collateralWad: bigint; // Engine.getAccount(id).totalWad at B
  equityWad: bigint; // collateral + Σ positionHealth.equityWad
  unrealizedPnlWad: bigint; // Σ positionHealth.unrealizedPnlWad
  pendingFundingWad: bigint; // Σ positionHealth.pendingFundingWad
  realizedPnlWad: bigint; // Σ PositionUpdated.realizedPnlWad up to B
  fundingPaidWad: bigint; // Σ PositionUpdated.fundingPaidWad up to B (> 0 paid)
  feesPaidWad: bigint; // Σ PositionUpdated.feeWad up to B
  openPositions: number;
};

type Out<T extends z.ZodType> = z.infer<T>;

/**
 * EIP-55 form of an address (viem's getAddress: a keccak per call), remembered: a page of
 * liquidations names the same few liquidators on every row. Bounded, cleared when full.
 */
const checksums = new Map<string, Hex>();
function checksummed(address: string): Hex {
  let a = checksums.get(address);
  if (a === undefined) {
    a = getAddress(address);
    if (checksums.size >= 10_000) checksums.clear();
    checksums.set(address, a);
  }
  return a;
}
type Place = { blockNumber: bigint; logIndex: number; timestamp: bigint; transactionHash: Hex };

const place = (r: Place) => ({
  blockNumber: Number(r.blockNumber),
  logIndex: r.logIndex,
  timestamp: Number(r.timestamp),
  timestampISO: secondsToISO(r.timestamp),
  transactionHash: r.transactionHash,
});

export function tradeItem(r: typeof trade.$inferSelect): Out<typeof H.Trade> {
  return {
    id: r.id,
    marketId: r.marketId,
    side: r.takerSide as "LONG" | "SHORT",
    takerSide: r.takerSide as "LONG" | "SHORT",
    makerSide: r.takerSide === "LONG" ? "SHORT" : "LONG",
    price: r.priceX18.toString(),
    priceFormatted: formatField("price", r.priceX18),
    size: r.quantityQty.toString(),
    sizeFormatted: formatField("size", r.quantityQty),
    quoteAmount: r.notionalWad.toString(),
    quoteAmountFormatted: formatField("quoteAmount", r.notionalWad),
    makerFee: r.makerFeeWad.toString(),
    makerFeeFormatted: formatField("makerFee", r.makerFeeWad),
    takerFee: r.takerFeeWad.toString(),
    takerFeeFormatted: formatField("takerFee", r.takerFeeWad),
    ...place(r),
  };
}

export function fillItem(r: typeof accountFill.$inferSelect): Out<typeof H.Fill> {
  return {
    id: r.id,
    marketId: r.marketId,
    orderId: r.orderId.toString(),
    side: r.side as "LONG" | "SHORT",
    liquidity: r.liquidity as "MAKER" | "TAKER",
    price: r.priceX18.toString(),
    priceFormatted: formatField("price", r.priceX18),
    size: r.quantityQty.toString(),
    sizeFormatted: formatField("size", r.quantityQty),
    quoteAmount: r.notionalWad.toString(),
    quoteAmountFormatted: formatField("quoteAmount", r.notionalWad),
    fee: r.feeWad.toString(),
    feeFormatted: formatField("fee", r.feeWad),
    ...place(r),
  };
}

export function candleItem(marketId: Hex, resolution: string, startedAt: bigint, c: Ohlcv): Out<typeof H.Candle> {
  return {
    marketId,
    resolution,
    startedAt: Number(startedAt),
    startedAtISO: secondsToISO(startedAt),
    open: c.openX18.toString(),
    openFormatted: formatField("open", c.openX18),
    high: c.highX18.toString(),
    highFormatted: formatField("high", c.highX18),
    low: c.lowX18.toString(),
    lowFormatted: formatField("low", c.lowX18),
    close: c.closeX18.toString(),
    closeFormatted: formatField("close", c.closeX18),
    baseVolume: c.baseVolumeQty.toString(),
    baseVolumeFormatted: formatField("baseVolume", c.baseVolumeQty),
    quoteVolume: c.quoteVolumeWad.toString(),
    quoteVolumeFormatted: formatField("quoteVolume", c.quoteVolumeWad),
    tradeCount: c.tradeCount,
  };
}

export function fundingRateItem(marketId: Hex, r: typeof fundingHistory.$inferSelect): Out<typeof H.FundingRate> {
  return {
    id: r.id,
    marketId,
    rate: r.rateX18PerHour.toString(),
    rateFormatted: formatField("rate", r.rateX18PerHour),
    cumulativeIndex: r.cumulativeIndexX18.toString(),
    cumulativeIndexFormatted: formatField("cumulativeIndex", r.cumulativeIndexX18),
    premiumComponent: r.premiumComponentX18.toString(),
    skewComponent: r.skewComponentX18.toString(),
    indexPrice: r.indexPriceX18.toString(),
    indexPriceFormatted: formatField("indexPrice", r.indexPriceX18),
    markPrice: r.markPriceX18.toString(),
    markPriceFormatted: formatField("markPrice", r.markPriceX18),
    ...place(r),
  };
}

export function fundingPaymentItem(r: typeof fundingPayment.$inferSelect): Out<typeof H.FundingPayment> {
  return {
    id: r.id,
    marketId: r.marketId,
    positionId: r.positionId,
    positionSize: r.sizeQty.toString(),
    positionSizeFormatted: formatField("positionSize", r.sizeQty),
    payment: r.paymentWad.toString(),
    paymentFormatted: formatField("payment", r.paymentWad),
    cumulativeIndex: r.fundingIndexX18.toString(),
    ...place(r),
  };
}

export function transferItem(r: typeof transfer.$inferSelect): Out<typeof H.Transfer> {
  return {
    id: r.id,
    type: r.kind as "DEPOSIT" | "WITHDRAWAL",
    amount: r.amount6.toString(),
    amountFormatted: formatField("amount", r.amount6),
    availableAfter: r.availableWad.toString(),
    availableAfterFormatted: formatField("availableAfter", r.availableWad),
    ...place(r),
  };
}

export function liquidationItem(r: typeof accountLiquidation.$inferSelect): Out<typeof H.Liquidation> {
  return {
    id: r.id,
    marketId: r.marketId,
    positionId: r.positionId,
    type: r.kind,
    liquidator: checksummed(r.liquidator),
    closedSize: r.closedQty.toString(),
    closedSizeFormatted: formatField("closedSize", r.closedQty),
    closedNotional: r.closedNotionalWad.toString(),
    closedNotionalFormatted: formatField("closedNotional", r.closedNotionalWad),
    liquidatorFee: r.liquidatorFeeWad.toString(),
    insuranceFee: r.insuranceFeeWad.toString(),
    badDebt: r.badDebtWad.toString(),
    badDebtFormatted: formatField("badDebt", r.badDebtWad),
    remainingSize: r.remainingSizeQty.toString(),
    ...place(r),
  };
}

export function historicalOrderItem(r: typeof order.$inferSelect): Out<typeof H.HistoricalOrder> {
  return {
    orderId: r.orderId.toString(),
    clientKey: r.clientKey,
    marketId: r.marketId,
    side: r.side as "LONG" | "SHORT",
    orderType: r.orderType as "MARKET" | "LIMIT",
    reduceOnly: r.reduceOnly,
    status: r.status as "active" | "filled" | "cancelled",
    closeReason: r.closeReason,
    timeInForce: r.timeInForce as TimeInForceName,
    expiresAt: r.expiresAt === 0n ? null : Number(r.expiresAt),
    price: r.priceX18.toString(),
    priceFormatted: formatField("price", r.priceX18),
    originalQuantity: r.originalQty.toString(),
    originalQuantityFormatted: formatField("originalQuantity", r.originalQty),
    filledQuantity: r.filledQty.toString(),
    filledQuantityFormatted: formatField("filledQuantity", r.filledQty),
    cancelledQuantity: r.cancelledQty.toString(),
    cancelledQuantityFormatted: formatField("cancelledQuantity", r.cancelledQty),
    fillCount: r.fillCount,
    createdBlock: Number(r.createdBlock),
    createdAt: Number(r.createdAt),
    createdAtISO: secondsToISO(r.createdAt),
    closedAt: r.closedAt === null ? null : Number(r.closedAt),
    closedAtISO: r.closedAt === null ? null : secondsToISO(r.closedAt),
    transactionHash: r.transactionHash,
    triggerKind: r.triggerKind as TriggerKindName | null,
    ...orderModifications(r),
  };
}

export function orderModificationItem(r: typeof orderModifiedEvent.$inferSelect): Out<typeof H.OrderModification> {
  return {
    orderId: r.orderId.toString(),
    marketId: r.marketId,
    fromPrice: r.fromPriceX18.toString(),
    fromPriceFormatted: formatField("fromPrice", r.fromPriceX18),
    price: r.priceX18.toString(),
    priceFormatted: formatField("price", r.priceX18),
    fromRemainingQuantity: r.fromRemainingQty.toString(),
    fromRemainingQuantityFormatted: formatField("fromRemainingQuantity", r.fromRemainingQty),
    remainingQuantity: r.remainingQty.toString(),
    remainingQuantityFormatted: formatField("remainingQuantity", r.remainingQty),
    originalQuantity: r.originalQty.toString(),
    originalQuantityFormatted: formatField("originalQuantity", r.originalQty),
    fromMarginRemaining: r.fromMarginRemainingWad.toString(),
    fromMarginRemainingFormatted: formatField("fromMarginRemaining", r.fromMarginRemainingWad),
    marginRemaining: r.marginRemainingWad.toString(),
    marginRemainingFormatted: formatField("marginRemaining", r.marginRemainingWad),
    keptPriority: r.keptPriority,
    ...place(r),
  };
}

export function pnlItem(p: PnlPoint): Out<typeof H.PnlPoint> {
  const amount = <K extends "equity" | "collateral" | "unrealizedPnL" | "pendingFunding" | "realizedPnL" | "fundingPaid" | "feesPaid">(k: K, v: bigint) =>
    ({ [k]: v.toString(), [`${k}Formatted`]: formatField(k, v) }) as Record<K | `${K}Formatted`, string>;
  return {
    startedAt: Number(p.periodStart),
    startedAtISO: secondsToISO(p.periodStart),
    endedAt: Number(p.periodEnd),
    endedAtISO: secondsToISO(p.periodEnd),
    blockNumber: Number(p.blockNumber),
    blockTimestamp: Number(p.blockTimestamp),
    ...amount("equity", p.equityWad),
    ...amount("collateral", p.collateralWad),
    ...amount("unrealizedPnL", p.unrealizedPnlWad),
    ...amount("pendingFunding", p.pendingFundingWad),
    ...amount("realizedPnL", p.realizedPnlWad),
    ...amount("fundingPaid", p.fundingPaidWad),
    ...amount("feesPaid", p.feesPaidWad),
    openPositions: p.openPositions,
  };
}

export function insuranceEventItem(r: typeof insuranceFundEvent.$inferSelect) {
  return {
    id: r.id,
    type: r.kind as "DONATION" | "CHANGE",
    marketId: r.marketId,
    donor: r.donor ? checksummed(r.donor) : null,
    delta: r.deltaWad.toString(),
    deltaFormatted: formatField("delta", r.deltaWad),
    balanceAfter: r.balanceWad.toString(),
    balanceAfterFormatted: formatField("balanceAfter", r.balanceWad),
    blockNumber: Number(r.blockNumber),
    logIndex: r.logIndex,
    timestamp: Number(r.timestamp),
    timestampISO: secondsToISO(r.timestamp),
    transactionHash: r.transactionHash,
  };
}
