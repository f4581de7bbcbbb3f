/** Order arithmetic mirrored from the contracts (docs/CONTRACTS.md "Orders"). */
import { WAD } from "./ints.js";

/** qty = floor(collateralWad × leverage × 1e18 / price / lot) × lot. */
export function orderQuantity(collateralWad: bigint, leverage: bigint, priceX18: bigint, lotSizeQty: bigint): bigint {
  if (priceX18 === 0n || lotSizeQty === 0n) return 0n;
  return ((collateralWad * leverage * WAD) / priceX18 / lotSizeQty) * lotSizeQty;
}

/** floor(filled × 100 / original); 0 for an empty order. */
export const fillPercent = (filledQty: bigint, originalQty: bigint) =>
  originalQty === 0n ? 0n : (filledQty * 100n) / originalQty;

/** Taker/maker fee of a fill: ceil(q × p / 1e18 × feeBps / 1e4). */
export function fillFee(qty: bigint, priceX18: bigint, feeBps: bigint): bigint {
  const x = ((qty * priceX18) / WAD) * feeBps;
  return x === 0n ? 0n : (x - 1n) / 10_000n + 1n;
}
