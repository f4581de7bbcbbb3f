/** Funding (docs/CONTRACTS.md "Funding"): the hourly rate, the cumulative index, pending funding. */
import { SECONDS_PER_HOUR, WAD, abs, ceilDiv, clamp } from "./ints.js";

export type FundingRate = {
  rateX18PerHour: bigint;
  premiumX18: bigint;
  premiumComponentX18: bigint;
  skewX18: bigint;
  skewComponentX18: bigint;
};

/**
 * rate = clamp(premium / 24 + skew × skewScale / 1e18, ±maxRate), where premium is the market's
 * time-weighted premium (`price.ts`) and skew = (L − S) × 1e18 / (L + S) with L = long OI + resting
 * bids, S = short OI + resting asks. Divisions truncate toward zero.
 */
export function fundingRate(p: {
  premiumX18: bigint;
  longQty: bigint; // open interest + resting bid quantity
  shortQty: bigint; // open interest + resting ask quantity
  skewScaleX18PerHour: bigint;
  maxFundingRateX18PerHour: bigint;
}): FundingRate {
  const premiumX18 = p.premiumX18;
  const premiumComponentX18 = premiumX18 / 24n;
  const total = p.longQty + p.shortQty;
  const skewX18 = total === 0n ? 0n : ((p.longQty - p.shortQty) * WAD) / total;
  const skewComponentX18 = (skewX18 * p.skewScaleX18PerHour) / WAD;
  const rateX18PerHour = clamp(premiumComponentX18 + skewComponentX18, -p.maxFundingRateX18PerHour, p.maxFundingRateX18PerHour);
  return { rateX18PerHour, premiumX18, premiumComponentX18, skewX18, skewComponentX18 };
}

/** cumulativeIndex + rate × index × dt / (3600 × 1e18): one accrual step (`VenueMath.accrue`). */
export const accrue = (cumulativeIndexX18: bigint, rateX18PerHour: bigint, indexX18: bigint, dtSeconds: bigint): bigint =>
  cumulativeIndexX18 + (rateX18PerHour * indexX18 * dtSeconds) / (SECONDS_PER_HOUR * WAD);

/** The stored funding state and what a cancel since the last accrual changed (`FundingRateStale`). */
export type StoredFunding = {
  cumulativeIndexX18: bigint;
  rateX18PerHour: bigint; // stored at lastUpdate
  lastUpdate: bigint;
  /** The second from which the stored rate is stale (a margined cancel since lastUpdate); 0 = not stale. */
  rateStaleSince?: bigint;
  /** The rate from rateStaleSince: the stored premium and the margined book after the last cancel. */
  staleRateX18PerHour?: bigint;
  /**
   * The stretch over which the index has been fresh without a break (`IOracle.priceWindow`):
   * nothing accrues outside it (docs/CONTRACTS.md "Funding"). Absent: fresh throughout.
   */
  freshSince?: bigint;
  freshUntil?: bigint;
};

const clampTo = (x: bigint, lo: bigint, hi: bigint) => (x < lo ? lo : x > hi ? hi : x);

/**
 * The view `cumulativeIndexNow` (and what the next accrual writes) at `now` with index `indexX18`:
 * from lastUpdate at the stored rate; when a cancel made the rate stale, at the stored rate up to
 * rateStaleSince and at the stale rate from it (docs/CONTRACTS.md "Funding"); only over the index's
 * fresh run [freshSince, freshUntil] when given. Nothing accrues before lastUpdate; pass
 * `now = lastUpdate` while the market is closed.
 */
export function cumulativeIndexNow(p: StoredFunding & { indexX18: bigint; now: bigint }): bigint {
  if (p.now <= p.lastUpdate) return p.cumulativeIndexX18;
  // only the seconds of the index's unbroken fresh run (MarketBase._indexNow)
  const from = clampTo(p.freshSince ?? 0n, p.lastUpdate, p.now);
  const to = clampTo(p.freshUntil ?? p.now, from, p.now);
  const stale = p.rateStaleSince ?? 0n;
  if (stale === 0n) return accrue(p.cumulativeIndexX18, p.rateX18PerHour, p.indexX18, to - from);
  // the contract keeps lastUpdate ≤ rateStaleSince (a reopening moves both); bounded here all the same
  const split = clampTo(stale, from, to);
  const atStale = accrue(p.cumulativeIndexX18, p.rateX18PerHour, p.indexX18, split - from);
  return accrue(atStale, p.staleRateX18PerHour ?? p.rateX18PerHour, p.indexX18, to - split);
}

/**
 * Funding at `now` as the `funding()` view reports it: the rate in force (`rateNowX18PerHour`:
 * the stale rate once a cancel made the stored one stale) and the cumulative index accrued to
 * `now` (none while the market is closed).
 */
export function fundingNow(p: StoredFunding & { indexX18: bigint; now: bigint; closed?: boolean }): {
  rateNowX18PerHour: bigint;
  cumulativeIndexNowX18: bigint;
} {
  const stale = (p.rateStaleSince ?? 0n) !== 0n;
  return {
    rateNowX18PerHour: stale ? (p.staleRateX18PerHour ?? p.rateX18PerHour) : p.rateX18PerHour,
    cumulativeIndexNowX18: cumulativeIndexNow({ ...p, now: p.closed ? p.lastUpdate : p.now }),
  };
}

/**
 * x = size × (indexNow − lastIndex); pending = ceil(x / 1e18) when x > 0 (the position pays,
 * rounded up), −floor(−x / 1e18) otherwise (it receives, rounded down). WAD, > 0 = owed.
 */
export function pendingFunding(sizeQty: bigint, indexNowX18: bigint, lastFundingIndexX18: bigint): bigint {
  const x = sizeQty * (indexNowX18 - lastFundingIndexX18);
  return x > 0n ? ceilDiv(x, WAD) : -(abs(x) / WAD);
}

export type FundingDirection = "LONGS_PAY" | "SHORTS_PAY" | "NEUTRAL";
export const marketFundingDirection = (rateX18PerHour: bigint): FundingDirection =>
  rateX18PerHour > 0n ? "LONGS_PAY" : rateX18PerHour < 0n ? "SHORTS_PAY" : "NEUTRAL";

export type PositionFundingDirection = "PAY" | "RECEIVE" | "NONE";
export const positionFundingDirection = (pendingWad: bigint): PositionFundingDirection =>
  pendingWad > 0n ? "PAY" : pendingWad < 0n ? "RECEIVE" : "NONE";

/** Hourly rate → yearly (× 24 × 365), still X18; exact. */
export const annualizeHourlyRate = (rateX18PerHour: bigint) => rateX18PerHour * 24n * 365n;
