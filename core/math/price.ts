/** Mark price (docs/CONTRACTS.md "Prices"): index × (1 + a time-weighted, clamped premium). */
import { BPS, WAD, clamp, median3 } from "./ints.js";

/** Time constant of the premium average (the contracts' MARK_PERIOD). */
export const MARK_PERIOD_SECONDS = 300n;

/**
 * The book's premium now: median(index, bestBid, bestAsk) clamped to index × (1e4 ∓ clamp) / 1e4,
 * then (that − index) × 1e18 / index (truncating toward zero); 0 when a side is empty (0) or no index.
 */
export function premiumSample(indexX18: bigint, bestBidX18: bigint, bestAskX18: bigint, markClampBps: bigint): bigint {
  if (indexX18 === 0n || bestBidX18 === 0n || bestAskX18 === 0n) return 0n;
  const lo = (indexX18 * (BPS - markClampBps)) / BPS;
  const hi = (indexX18 * (BPS + markClampBps)) / BPS;
  const m = clamp(median3(indexX18, bestBidX18, bestAskX18), lo, hi);
  return ((m - indexX18) * WAD) / indexX18;
}

/** ema + (sample − ema) × min(dt, period) / period, truncating toward zero. */
export function premiumEma(emaX18: bigint, sampleX18: bigint, dtSeconds: bigint, period = MARK_PERIOD_SECONDS): bigint {
  const w = dtSeconds > period ? period : dtSeconds;
  return emaX18 + ((sampleX18 - emaX18) * w) / period;
}

/** index × (1e18 + premium) / 1e18 (floor). */
export const markFromPremium = (indexX18: bigint, premiumX18: bigint): bigint => (indexX18 * (WAD + premiumX18)) / WAD;

/**
 * The mark at time `now`, as the contracts' `markPrice()` view computes it: the stored premium
 * average (`premiumX18` of the last FundingUpdated, stored at `lastUpdate`) moved towards the
 * current book's sample for the seconds since, then applied to the index.
 */
export function markPrice(p: {
  indexX18: bigint;
  bestBidX18: bigint; // 0 = empty side
  bestAskX18: bigint;
  markClampBps: bigint;
  premiumX18: bigint;
  lastUpdate: bigint;
  now: bigint;
}): bigint {
  const premium = p.now > p.lastUpdate
    ? premiumEma(p.premiumX18, premiumSample(p.indexX18, p.bestBidX18, p.bestAskX18, p.markClampBps), p.now - p.lastUpdate)
    : p.premiumX18;
  return markFromPremium(p.indexX18, premium);
}
