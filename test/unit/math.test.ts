/** core/math mirrors the contracts' formulas (docs/CONTRACTS.md): exact values, rounding, edges. */
import { describe, expect, it } from "vitest";
import {
  WAD,
  annualizeHourlyRate,
  cumulativeIndexNow,
  fundingNow,
  entryPrice,
  fillFee,
  fillPercent,
  fundingRate,
  insolvencyPrice,
  liquidationPrice,
  markFromPremium,
  markPrice,
  premiumEma,
  premiumAt,
  premiumSample,
  marketFundingDirection,
  orderQuantity,
  pendingFunding,
  positionFundingDirection,
  positionHealth,
  positionLeverage,
  positionIdOf,
} from "../../core/math/index.js";
import { encodeAbiParameters, keccak256, parseUnits } from "viem";

const px = (v: string) => parseUnits(v, 18);

describe("mark price", () => {
  // the bid and ask are sampled on chain (the book's fillable top, MarketBase._sampleNow) and
  // carried by FundingUpdated; the read side moves the stored average towards their sample
  // against the index now, as the views do
  const base = { indexX18: px("1"), premiumX18: 0n, sampleBidX18: px("1.004"), sampleAskX18: px("1.01"), markClampBps: 50n, lastUpdate: 1000n };
  it("moves by dt / 300 s of the way towards the update's sample; not at all within the second of the last update", () => {
    expect(markPrice({ ...base, now: 1000n })).toBe(px("1"));
    expect(markPrice({ ...base, now: 1030n })).toBe(px("1.0004"));
    expect(premiumAt({ ...base, now: 1150n })).toBe(px("0.002"));
    expect(premiumEma(-7n, 0n, 1n, 3n)).toBe(-5n); // -7 + 7/3 truncates toward zero
    expect(markFromPremium(px("2"), -px("0.5"))).toBe(px("1"));
  });
  it("a full period or more after the update the average is the sample; no index, no mark", () => {
    expect(markPrice({ ...base, now: 1300n })).toBe(px("1.004"));
    expect(markPrice({ ...base, now: 100_000n })).toBe(px("1.004"));
    expect(markPrice({ ...base, premiumX18: px("0.001"), sampleBidX18: px("0.99"), sampleAskX18: px("0.998"), now: 1100n })).toBe(px("1"));
    expect(markPrice({ ...base, indexX18: 0n, now: 1300n })).toBe(0n);
  });
  it("samples the stored bid and ask against the index of the moment: median, clamped; none → 0", () => {
    expect(premiumSample(px("1"), px("1.004"), px("1.01"), 50n)).toBe(px("0.004"));
    // the index rose past the bid: median is the index
    expect(premiumSample(px("1.005"), px("1.004"), px("1.01"), 50n)).toBe(0n);
    expect(markPrice({ ...base, indexX18: px("1.005"), now: 1300n })).toBe(px("1.005"));
    // clamped to index + 0.5 %
    expect(premiumSample(px("1"), px("1.02"), px("1.03"), 50n)).toBe(px("0.005"));
    expect(premiumSample(px("1"), px("0.97"), px("0.98"), 50n)).toBe(-px("0.005"));
    expect(premiumSample(px("1"), 0n, px("1.01"), 50n)).toBe(0n);
    expect(premiumSample(px("1"), px("1.004"), 0n, 50n)).toBe(0n);
  });
});

describe("funding", () => {
  it("rate = premium / 24 + skew × scale, clamped, truncating toward zero", () => {
    const r = fundingRate({
      premiumX18: px("0.01"),
      longQty: px("300"),
      shortQty: px("100"),
      skewScaleX18PerHour: px("0.0001"),
      maxFundingRateX18PerHour: px("0.001"),
    });
    expect(r.premiumX18).toBe(px("0.01"));
    expect(r.premiumComponentX18).toBe(px("0.01") / 24n);
    expect(r.skewX18).toBe(px("0.5"));
    expect(r.skewComponentX18).toBe(px("0.00005"));
    expect(r.rateX18PerHour).toBe(px("0.01") / 24n + px("0.00005"));
    const neg = fundingRate({ premiumX18: -px("0.1"), longQty: 0n, shortQty: px("1"), skewScaleX18PerHour: px("0.0001"), maxFundingRateX18PerHour: px("0.001") });
    expect(neg.rateX18PerHour).toBe(-px("0.001"));
    expect(neg.skewX18).toBe(-WAD);
    // -1/24 truncates toward zero, like Solidity
    const t = fundingRate({ premiumX18: -1n, longQty: 0n, shortQty: 0n, skewScaleX18PerHour: 0n, maxFundingRateX18PerHour: WAD });
    expect(t.premiumComponentX18).toBe(0n);
  });
  it("cumulative index accrues rate × index × dt / 3600 / 1e18", () => {
    const base = { cumulativeIndexX18: 5n, rateX18PerHour: px("0.0001"), indexX18: px("1.08"), lastUpdate: 1000n };
    expect(cumulativeIndexNow({ ...base, now: 4600n })).toBe(5n + px("0.000108"));
    expect(cumulativeIndexNow({ ...base, now: 1000n })).toBe(5n);
    expect(cumulativeIndexNow({ ...base, rateX18PerHour: -1n, indexX18: 1n, now: 1001n })).toBe(5n); // -1/3.6e21 → 0
  });
  it("a stale rate (a cancel since the last accrual) applies from its second: two steps, each truncating", () => {
    // docs/CONTRACTS.md "Funding", worked example: 0.01 %/h stored at 1000, a cancel at 4600 leaves
    // a book whose rate is −0.02 %/h; at 6400: +1 h at 0.01 % then +0.5 h at −0.02 % of 1.08
    const base = { cumulativeIndexX18: 5n, rateX18PerHour: px("0.0001"), indexX18: px("1.08"), lastUpdate: 1000n };
    const stale = { ...base, rateStaleSince: 4600n, staleRateX18PerHour: -px("0.0002") };
    expect(cumulativeIndexNow({ ...stale, now: 4600n })).toBe(5n + px("0.000108"));
    expect(cumulativeIndexNow({ ...stale, now: 6400n })).toBe(5n);
    expect(cumulativeIndexNow({ ...stale, now: 8200n })).toBe(5n - px("0.000108"));
    // not stale (0): the stored rate all along, whatever staleRate says
    expect(cumulativeIndexNow({ ...base, rateStaleSince: 0n, staleRateX18PerHour: -px("0.0002"), now: 8200n })).toBe(5n + px("0.000216"));
    // stale from lastUpdate (a cancel in the accrual's second): the stale rate from the start
    expect(cumulativeIndexNow({ ...stale, rateStaleSince: 1000n, now: 4600n })).toBe(5n - px("0.000216"));
    // a stale second before lastUpdate (the reopening moved lastUpdate): from lastUpdate
    expect(cumulativeIndexNow({ ...stale, rateStaleSince: 900n, now: 4600n })).toBe(5n - px("0.000216"));
    // each step truncates toward zero on its own, as VenueMath.accrue twice: 1 × 1 × 1 s / 3.6e21 → 0 twice
    const tiny = { cumulativeIndexX18: 0n, rateX18PerHour: 2n * 10n ** 21n, indexX18: 1n, lastUpdate: 0n, staleRateX18PerHour: 2n * 10n ** 21n };
    expect(cumulativeIndexNow({ ...tiny, now: 2n })).toBe(1n); // one step: 4e21 / 3.6e21
    expect(cumulativeIndexNow({ ...tiny, rateStaleSince: 1n, now: 2n })).toBe(0n); // two steps of 2e21 / 3.6e21
    // the view: the rate in force, nothing accrued while closed
    expect(fundingNow({ ...stale, now: 6400n })).toEqual({ rateNowX18PerHour: -px("0.0002"), cumulativeIndexNowX18: 5n });
    expect(fundingNow({ ...stale, now: 6400n, closed: true })).toEqual({ rateNowX18PerHour: -px("0.0002"), cumulativeIndexNowX18: 5n });
    expect(fundingNow({ ...base, now: 4600n })).toEqual({ rateNowX18PerHour: px("0.0001"), cumulativeIndexNowX18: 5n + px("0.000108") });
  });
  it("only the index's unbroken fresh run accrues (a stale stretch never does)", () => {
    const base = { cumulativeIndexX18: 5n, rateX18PerHour: px("0.0001"), indexX18: px("1.08"), lastUpdate: 1000n };
    // a run since before lastUpdate, fresh now: all of it
    expect(cumulativeIndexNow({ ...base, freshSince: 900n, freshUntil: 5000n, now: 4600n })).toBe(5n + px("0.000108"));
    // a new run from 2800 (the feed was stale before it): only 2800 .. 4600
    expect(cumulativeIndexNow({ ...base, freshSince: 2800n, freshUntil: 9000n, now: 4600n })).toBe(5n + px("0.000054"));
    // stale now (a poke): up to the index's expiry at 2800, nothing after
    expect(cumulativeIndexNow({ ...base, freshSince: 0n, freshUntil: 2800n, now: 4600n })).toBe(5n + px("0.000054"));
    // a stale rate's split inside the run: at the stored rate before it, at the stale one after
    const stale = { ...base, rateStaleSince: 1000n, staleRateX18PerHour: -px("0.0002") };
    expect(cumulativeIndexNow({ ...stale, freshSince: 2800n, freshUntil: 9000n, now: 4600n })).toBe(5n - px("0.000108"));
  });
  it("pending funding: pay rounded up, receive rounded down", () => {
    expect(pendingFunding(1n, 1n, 0n)).toBe(1n); // 1e-36 owed → 1 wei
    expect(pendingFunding(-1n, 1n, 0n)).toBe(0n); // receives less than a wei → 0
    expect(pendingFunding(px("2"), px("0.5") + 1n, 0n)).toBe(px("1") + 2n);
    expect(pendingFunding(px("-2"), px("0.5") + 1n, 0n)).toBe(-px("1") - 2n);
    expect(pendingFunding(px("3"), 0n, px("0.1"))).toBe(-px("0.3"));
    expect(positionFundingDirection(1n)).toBe("PAY");
    expect(positionFundingDirection(-1n)).toBe("RECEIVE");
    expect(positionFundingDirection(0n)).toBe("NONE");
    expect(marketFundingDirection(1n)).toBe("LONGS_PAY");
    expect(marketFundingDirection(-1n)).toBe("SHORTS_PAY");
    expect(marketFundingDirection(0n)).toBe("NEUTRAL");
    expect(annualizeHourlyRate(px("0.0001"))).toBe(px("0.876"));
  });
});

describe("health and liquidation", () => {
  const long = { sizeQty: px("10000"), openNotionalWad: px("10810"), marginWad: px("216.2") };
  const short = { ...long, sizeQty: -long.sizeQty };

  it("value, PnL, equity, ratio and liquidatability of a long", () => {
    const h = positionHealth(long, px("1.07"), px("1"), 100n);
    expect(h.positionValueWad).toBe(px("10700"));
    expect(h.unrealizedPnlWad).toBe(-px("110"));
    expect(h.equityWad).toBe(px("105.2"));
    expect(h.maintenanceWad).toBe(px("107"));
    expect(h.marginRatioBps).toBe(98n);
    expect(h.isLiquidatable).toBe(true);
    expect(positionHealth(long, px("1.08"), 0n, 100n).isLiquidatable).toBe(false);
  });
  it("a short gains when the mark falls", () => {
    const h = positionHealth(short, px("1.07"), 0n, 100n);
    expect(h.unrealizedPnlWad).toBe(px("110"));
    expect(h.marginRatioBps).toBe((px("326.2") * 10_000n) / px("10700"));
  });
  it("liquidation price is where equity meets maintenance; insolvency where equity is 0", () => {
    const liq = liquidationPrice(long, 0n, 100n);
    // (10810 − 216.2) × 1e4 / (10000 × 9900) per unit
    expect(liq).toBe((px("10593.8") * WAD * 10_000n) / (px("10000") * 9_900n));
    const atLiq = positionHealth(long, liq + 1n, 0n, 100n);
    expect(atLiq.isLiquidatable).toBe(false);
    expect(positionHealth(long, liq - px("0.0001"), 0n, 100n).isLiquidatable).toBe(true);
    expect(insolvencyPrice(long, 0n)).toBe(px("1.05938"));
    expect(insolvencyPrice(short, 0n)).toBe(px("1.10262"));
    // more margin than notional: a long cannot be liquidated at any price ≥ 0
    expect(liquidationPrice({ ...long, marginWad: px("20000") }, 0n, 100n)).toBe(0n);
    expect(liquidationPrice({ ...short, marginWad: 0n }, px("20000"), 100n)).toBe(0n);
  });
  it("empty position: zero health, leverage rules", () => {
    const h = positionHealth({ sizeQty: 0n, openNotionalWad: 0n, marginWad: 0n }, px("1"), 0n, 100n);
    expect(h.positionValueWad).toBe(0n);
    expect(h.isLiquidatable).toBe(false);
    expect(positionLeverage(px("10700"), px("216.2"))).toBe(49n);
    expect(positionLeverage(px("100"), px("200"))).toBe(1n);
    expect(positionLeverage(px("100"), 0n)).toBe(0n);
    expect(entryPrice(long)).toBe(px("1.081"));
    expect(entryPrice({ sizeQty: 3n, openNotionalWad: 10n })).toBe((10n * WAD) / 3n);
  });
});

describe("orders", () => {
  it("quantity rounds down to the lot; fill percent floors; fees round up", () => {
    expect(orderQuantity(px("1000"), 10n, px("1.081"), px("0.01"))).toBe(px("9250.69"));
    expect(orderQuantity(px("1"), 1n, 0n, px("0.01"))).toBe(0n);
    expect(fillPercent(px("2"), px("3"))).toBe(66n);
    expect(fillPercent(0n, 0n)).toBe(0n);
    expect(fillFee(px("1"), px("1"), 5n)).toBe(px("0.0005"));
    expect(fillFee(1n, 1n, 5n)).toBe(0n);
    expect(fillFee(3n, WAD, 1n)).toBe(1n);
  });
  it("position id = keccak256(abi.encode(accountId, marketId))", () => {
    const m = keccak256(new TextEncoder().encode("EUR/USD"));
    expect(positionIdOf(7n, m)).toBe(keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "bytes32" }], [7n, m])));
  });
});
