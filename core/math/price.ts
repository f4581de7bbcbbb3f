/** Mark price (docs/CONTRACTS.md "Prices"): index × (1 + a time-weighted, clamped premium). */
import { WAD } from "./ints.js";

/** Time constant of the premium average (the contracts' MARK_PERIOD). */
export const MARK_PERIOD_SECONDS = 300n;

/** ema + (sample − ema) × min(dt, period) / period, truncating toward zero. */
export function premiumEma(emaX18: bigint, sampleX18: bigint, dtSeconds: bigint, period = MARK_PERIOD_SECONDS): bigint {
  const w = dtSeconds > period ? period : dtSeconds;
  return emaX18 + ((sampleX18 - emaX18) * w) / period;
}

/** index × (1e18 + premium) / 1e18 (floor). */
export const markFromPremium = (indexX18: bigint, premiumX18: bigint): bigint => (indexX18 * (WAD + premiumX18)) / WAD;

/** The premium average at `now`: the stored one moved towards the stored sample for the seconds since. */
export const premiumAt = (p: { premiumX18: bigint; premiumSampleX18: bigint; lastUpdate: bigint; now: bigint }): bigint =>
  p.now > p.lastUpdate ? premiumEma(p.premiumX18, p.premiumSampleX18, p.now - p.lastUpdate) : p.premiumX18;

/**
 * The mark at time `now`, as the contracts' `markPrice()` view computes it: the premium average
 * (`premiumX18` of the last FundingUpdated, stored at `lastUpdate`) moved towards that update's
 * sample of the book (`premiumSampleX18`: the chain takes it from the book's fillable top; the
 * read side never samples the book itself) for the seconds since, then applied to the index.
 */
export function markPrice(p: { indexX18: bigint; premiumX18: bigint; premiumSampleX18: bigint; lastUpdate: bigint; now: bigint }): bigint {
  return markFromPremium(p.indexX18, premiumAt(p));
}
