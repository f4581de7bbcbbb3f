/**
 * Rows + health → the liquidation routes' response objects (camelCase, decimal strings with
 * `...Formatted` / `...Percent` / `...ISO` companions; units as in DESIGN.md). The one place
 * where bigints become strings.
 */
import type { Health } from "../../../core/math/index.js";
import { abs } from "../../../core/math/ints.js";
import { bpsToPercent, formatWad, secondsToISO } from "../../../core/units.js";
import type { AccountHealth, MarketContext, PositionRow } from "./health.js";
import type { AccountRow, LiquidationRow } from "../indexer/reader.js";

const f18 = formatWad; // prices, quantities and WAD amounts all carry 18 decimals

export type HealthResponse = ReturnType<typeof healthResponse>;
export function healthResponse(h: Health) {
  return {
    markPrice: h.markPriceX18.toString(),
    markPriceFormatted: f18(h.markPriceX18),
    positionValue: h.positionValueWad.toString(),
    positionValueFormatted: f18(h.positionValueWad),
    unrealizedPnL: h.unrealizedPnlWad.toString(),
    unrealizedPnLFormatted: f18(h.unrealizedPnlWad),
    pendingFunding: h.pendingFundingWad.toString(),
    pendingFundingFormatted: f18(h.pendingFundingWad),
    equity: h.equityWad.toString(),
    equityFormatted: f18(h.equityWad),
    maintenanceMargin: h.maintenanceWad.toString(),
    maintenanceMarginFormatted: f18(h.maintenanceWad),
    marginRatioBps: Number(h.marginRatioBps),
    marginRatioPercent: bpsToPercent(h.marginRatioBps),
    liquidationPrice: h.liquidationPriceX18.toString(),
    liquidationPriceFormatted: f18(h.liquidationPriceX18),
    insolvencyPrice: h.insolvencyPriceX18.toString(),
    insolvencyPriceFormatted: f18(h.insolvencyPriceX18),
    isLiquidatable: h.isLiquidatable,
  };
}

export type PositionResponse = ReturnType<typeof positionResponse>;
/** A position with its health (null when the position is closed). */
export function positionResponse(p: PositionRow, m: MarketContext, h: Health | null) {
  const open = p.sizeQty !== 0n;
  const size = abs(p.sizeQty);
  const entry = open ? (p.openNotionalWad * 10n ** 18n) / size : 0n;
  return {
    positionId: p.positionId,
    accountId: Number(p.accountId),
    marketId: p.marketId,
    symbol: m.symbol,
    isOpen: open,
    side: open ? (p.sizeQty > 0n ? "LONG" : "SHORT") : null,
    size: size.toString(),
    sizeFormatted: f18(size),
    entryPrice: entry.toString(),
    entryPriceFormatted: f18(entry),
    margin: p.marginWad.toString(),
    marginFormatted: f18(p.marginWad),
    openBlock: Number(p.openBlock),
    indexPrice: m.indexPriceX18.toString(),
    indexPriceFormatted: f18(m.indexPriceX18),
    maintenanceMarginBps: Number(m.maintenanceMarginBps),
    maintenanceMarginPercent: bpsToPercent(m.maintenanceMarginBps),
    health: open && h ? healthResponse(h) : null,
  };
}

export type LiquidationResponse = ReturnType<typeof liquidationResponse>;
export function liquidationResponse(l: LiquidationRow) {
  return {
    positionId: l.positionId,
    accountId: Number(l.accountId),
    marketId: l.marketId,
    liquidator: l.liquidator,
    closedQuantity: l.closedQty.toString(),
    closedQuantityFormatted: f18(l.closedQty),
    closedNotional: l.closedNotionalWad.toString(),
    closedNotionalFormatted: f18(l.closedNotionalWad),
    liquidatorFee: l.liquidatorFeeWad.toString(),
    liquidatorFeeFormatted: f18(l.liquidatorFeeWad),
    insuranceFee: l.insuranceFeeWad.toString(),
    insuranceFeeFormatted: f18(l.insuranceFeeWad),
    badDebt: l.badDebtWad.toString(),
    badDebtFormatted: f18(l.badDebtWad),
    remainingSize: l.remainingSizeQty.toString(),
    remainingSizeFormatted: f18(l.remainingSizeQty),
    blockNumber: Number(l.blockNumber),
    timestamp: Number(l.timestamp),
    timestampISO: secondsToISO(l.timestamp),
    transactionHash: l.transactionHash,
  };
}

export function marginResponse(a: AccountRow) {
  return {
    available: a.availableWad.toString(),
    availableFormatted: f18(a.availableWad),
    committed: a.committedWad.toString(),
    committedFormatted: f18(a.committedWad),
    total: a.totalWad.toString(),
    totalFormatted: f18(a.totalWad),
  };
}

export function accountHealthResponse(a: AccountHealth) {
  return {
    positionValue: a.positionValueWad.toString(),
    positionValueFormatted: f18(a.positionValueWad),
    equity: a.equityWad.toString(),
    equityFormatted: f18(a.equityWad),
    maintenanceMargin: a.maintenanceWad.toString(),
    maintenanceMarginFormatted: f18(a.maintenanceWad),
    unrealizedPnL: a.unrealizedPnlWad.toString(),
    unrealizedPnLFormatted: f18(a.unrealizedPnlWad),
    pendingFunding: a.pendingFundingWad.toString(),
    pendingFundingFormatted: f18(a.pendingFundingWad),
    marginRatioBps: Number(a.marginRatioBps),
    marginRatioPercent: bpsToPercent(a.marginRatioBps),
    liquidatablePositions: a.liquidatableCount,
    isLiquidatable: a.isLiquidatable,
  };
}

export const blockResponse = (b: { number: bigint; timestamp: bigint }) => ({
  indexedBlock: Number(b.number),
  timestamp: Number(b.timestamp),
  timestampISO: secondsToISO(b.timestamp),
});
