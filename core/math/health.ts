/** Position health, liquidation and insolvency prices, leverage (docs/CONTRACTS.md "Health and liquidation"). */
import { BPS, WAD, abs } from "./ints.js";

export type PositionState = {
  sizeQty: bigint; // > 0 long, < 0 short
  openNotionalWad: bigint;
  marginWad: bigint;
};

export type Health = {
  markPriceX18: bigint;
  positionValueWad: bigint;
  unrealizedPnlWad: bigint;
  pendingFundingWad: bigint;
  equityWad: bigint;
  maintenanceWad: bigint;
  marginRatioBps: bigint;
  liquidationPriceX18: bigint;
  insolvencyPriceX18: bigint;
  isLiquidatable: boolean;
};

/** entryPrice = openNotional × 1e18 / |size| (floor); 0 for no position. */
export const entryPrice = (p: Pick<PositionState, "sizeQty" | "openNotionalWad">) =>
  p.sizeQty === 0n ? 0n : (p.openNotionalWad * WAD) / abs(p.sizeQty);

/** positionValue = |size| × mark / 1e18 (floor). */
export const positionValue = (sizeQty: bigint, markX18: bigint) => (abs(sizeQty) * markX18) / WAD;

/** Long: size × mark / 1e18 − openNotional; short: openNotional − |size| × mark / 1e18. */
export function unrealizedPnl(p: PositionState, markX18: bigint): bigint {
  const value = positionValue(p.sizeQty, markX18);
  return p.sizeQty >= 0n ? value - p.openNotionalWad : p.openNotionalWad - value;
}

/**
 * Price at which equity = maintenance, with E0 = margin − pendingFunding:
 *   long  (openNotional − E0) × 1e18 × 1e4 / (|size| × (1e4 − mmBps))
 *   short (openNotional + E0) × 1e18 × 1e4 / (|size| × (1e4 + mmBps)), floored at 0.
 * mmBps = 0 gives the insolvency price.
 */
export function liquidationPrice(p: PositionState, pendingFundingWad: bigint, mmBps: bigint): bigint {
  if (p.sizeQty === 0n) return 0n;
  const e0 = p.marginWad - pendingFundingWad;
  const size = abs(p.sizeQty);
  const price =
    p.sizeQty > 0n
      ? ((p.openNotionalWad - e0) * WAD * BPS) / (size * (BPS - mmBps))
      : ((p.openNotionalWad + e0) * WAD * BPS) / (size * (BPS + mmBps));
  return price < 0n ? 0n : price;
}

export const insolvencyPrice = (p: PositionState, pendingFundingWad: bigint) => liquidationPrice(p, pendingFundingWad, 0n);

/** The contract's `positionHealth` view, from the position, the mark and the pending funding. */
export function positionHealth(p: PositionState, markX18: bigint, pendingFundingWad: bigint, mmBps: bigint): Health {
  const positionValueWad = positionValue(p.sizeQty, markX18);
  const unrealizedPnlWad = p.sizeQty === 0n ? 0n : unrealizedPnl(p, markX18);
  const equityWad = p.marginWad + unrealizedPnlWad - pendingFundingWad;
  const maintenanceWad = (positionValueWad * mmBps) / BPS;
  const marginRatioBps = equityWad > 0n && positionValueWad > 0n ? (equityWad * BPS) / positionValueWad : 0n;
  return {
    markPriceX18: markX18,
    positionValueWad,
    unrealizedPnlWad,
    pendingFundingWad,
    equityWad,
    maintenanceWad,
    marginRatioBps,
    liquidationPriceX18: liquidationPrice(p, pendingFundingWad, mmBps),
    insolvencyPriceX18: insolvencyPrice(p, pendingFundingWad),
    isLiquidatable: p.sizeQty !== 0n && equityWad < maintenanceWad,
  };
}

/**
 * Leverage of a position (API): max(1, floor(positionValue / margin)). A position with no margin
 * left has no finite leverage: we answer 0 there (documented in the OpenAPI description).
 */
export function positionLeverage(positionValueWad: bigint, marginWad: bigint): bigint {
  if (marginWad === 0n) return positionValueWad === 0n ? 1n : 0n;
  const lev = positionValueWad / marginWad;
  return lev < 1n ? 1n : lev;
}
