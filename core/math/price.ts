/** Mark price (docs/CONTRACTS.md "Prices"): index × (1 + a time-weighted, clamped premium). */
import { BPS, WAD, clamp } from "./ints.js";

/** Time constant of the premium average (the contracts' MARK_PERIOD). */
export const MARK_PERIOD_SECONDS = 300n;

const median3 = (a: bigint, b: bigint, c: bigint) => (a > b ? (b > c ? b : a > c ? c : a) : a > c ? a : b > c ? c : b);

/**
 * The premium sample of a bid and ask against an index (VenueMath.premiumSample): median(index,
 * bid, ask) clamped to index × (1e4 ∓ clamp) / 1e4, then (that − index) × 1e18 / index (truncating
 * toward zero); 0 when either price is none (0) or there is no index.
 */
export function premiumSample(indexX18: bigint, bidX18: bigint, askX18: bigint, markClampBps: bigint): bigint {
  if (indexX18 === 0n || bidX18 === 0n || askX18 === 0n) return 0n;
  const lo = (indexX18 * (BPS - markClampBps)) / BPS;
  const hi = (indexX18 * (BPS + markClampBps)) / BPS;
  const m = clamp(median3(indexX18, bidX18, askX18), lo, hi);
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
 * What the mark at `now` is made of: the last FundingUpdated's premium average (`premiumX18`,
 * stored at `lastUpdate`) and the bid and ask that update sampled (`sampleBidX18`,
 * `sampleAskX18`: the chain takes them from the book's fillable top; the read side never samples
 * the book itself), with the index now.
 */
export type MarkInputs = {
  indexX18: bigint;
  premiumX18: bigint;
  sampleBidX18: bigint;
  sampleAskX18: bigint;
  markClampBps: bigint;
  lastUpdate: bigint;
  now: bigint;
};

/** The premium average at `now`: the stored one moved, for the seconds since, towards the sample of the stored bid and ask against the index now. */
export const premiumAt = (p: MarkInputs): bigint =>
  p.now > p.lastUpdate
    ? premiumEma(p.premiumX18, premiumSample(p.indexX18, p.sampleBidX18, p.sampleAskX18, p.markClampBps), p.now - p.lastUpdate)
    : p.premiumX18;

/** The mark at `now`, as the contracts' `markPrice()` view computes it. */
export const markPrice = (p: MarkInputs): bigint => markFromPremium(p.indexX18, premiumAt(p));
