/**
 * Amounts: bigint inside, exact decimal strings at the edge. The formatting rule is the servers'
 * own (core/units.ts, bundled at build time: it imports nothing); parsing is the client's.
 *   amount6  deposit-token base units (6 decimals): collateral, deposits, withdrawals
 *   x18      prices, sizes, margin (WAD), funding rates (18 decimals)
 */
import { formatUnits } from "../../../core/units.js";

export { formatUnits, WAD, AMOUNT6_TO_WAD, BPS, toWad } from "../../../core/units.js";

export const AMOUNT6_DECIMALS = 6;
export const X18_DECIMALS = 18;

/**
 * An exact decimal string → its integer in base units. Refuses (RangeError) what does not fit
 * exactly: more fraction digits than `decimals`, exponents, spaces, an empty string.
 */
export function parseUnits(value: string, decimals: number): bigint {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(value);
  if (!m || (m[2] === "" && (m[3] === undefined || m[3] === ""))) throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  const frac = (m[3] ?? "").replace(/0+$/, "");
  if (frac.length > decimals) throw new RangeError(`${value} has more than ${decimals} decimals`);
  const digits = (m[2] || "0") + frac.padEnd(decimals, "0");
  const v = BigInt(digits);
  return m[1] ? -v : v;
}

/** "100.5" → 100_500000n (deposit-token base units). */
export const amount6 = (decimal: string) => parseUnits(decimal, AMOUNT6_DECIMALS);
/** "1.0825" → 1_082500000000000000n (a price, size or WAD). */
export const x18 = (decimal: string) => parseUnits(decimal, X18_DECIMALS);
/** 100_500000n → "100.5" */
export const formatAmount6 = (v: bigint | string) => formatUnits(v, AMOUNT6_DECIMALS);
/** 1_082500000000000000n → "1.0825" */
export const formatX18 = (v: bigint | string) => formatUnits(v, X18_DECIMALS);

/** A raw integer field of an answer ("1082500000000000000") → bigint; null stays null. */
export function big(v: string): bigint;
export function big(v: string | null): bigint | null;
export function big(v: string | null): bigint | null {
  if (v === null) return null;
  if (!/^-?\d+$/.test(v)) throw new RangeError(`not an integer string: ${JSON.stringify(v)}`);
  return BigInt(v);
}

/** Rounds a price down to a multiple of the market's tick (bigint, 18 decimals). */
export const roundToTick = (price: bigint, tick: bigint) => (tick > 0n ? (price / tick) * tick : price);
