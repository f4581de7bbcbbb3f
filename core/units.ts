/**
 * Units and formatting, in one place. bigint inside; decimal strings only at the edge.
 *   amount6  deposit-token base units (6 decimals)
 *   wad      internal margin, PnL, fees (18 decimals)       wad = amount6 * 10^12
 *   priceX18 prices (18 decimals), qty base-asset quantities (18 decimals)
 *   rateX18  funding rate per hour (18 decimals)
 *   bps      basis points (100 = 1 %)
 * `...Formatted` companions are exact decimals (viem's formatUnits: no floats).
 */
import { formatUnits } from "viem";

export const WAD = 10n ** 18n;
export const AMOUNT6_TO_WAD = 10n ** 12n;
export const BPS = 10_000n;

export const toWad = (amount6: bigint) => amount6 * AMOUNT6_TO_WAD;

export const formatWad = (wad: bigint) => formatUnits(wad, 18);
export const formatAmount6 = (amount6: bigint) => formatUnits(amount6, 6);
/** bps → percent string: 250 → "2.5". */
export const bpsToPercent = (bps: bigint) => formatUnits(bps, 2);
/** An 18-decimal fraction → percent string: 0.0125e18 → "1.25". */
export const x18ToPercent = (x18: bigint) => formatUnits(x18 * 100n, 18);
export const secondsToISO = (seconds: bigint | number) => new Date(Number(seconds) * 1000).toISOString();

export const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
export const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);
export const absBig = (a: bigint) => (a < 0n ? -a : a);
/** Ceiling division for non-negative operands. */
export const divUp = (a: bigint, b: bigint) => (a === 0n ? 0n : (a - 1n) / b + 1n);
