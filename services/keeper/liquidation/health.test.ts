import { describe, expect, it } from "vitest";
import { aggregate, healthAt, markOf, type MarketContext, type PositionRow } from "./health.js";

const E18 = 10n ** 18n;
const market: MarketContext = {
  marketId: `0x${"11".repeat(32)}`, symbol: "EUR/USD", marketAddress: `0x${"22".repeat(20)}`,
  maintenanceMarginBps: 100n, liquidationFeeBps: 50n, isActive: true,
  indexPriceX18: 1_080_000_000_000_000_000n, indexUpdatedAt: 1000n,
  fundingRateX18PerHour: 0n, cumulativeFundingIndexX18: 0n, fundingLastUpdate: 1000n, premiumX18: 0n, sampleBidX18: 0n, sampleAskX18: 0n, markClampBps: 50n,
};
// 46,250 EUR long at 1.0811 with 975 USD of margin (a 50x position)
const long: PositionRow = {
  positionId: `0x${"33".repeat(32)}`, accountId: 1n, marketId: market.marketId,
  sizeQty: 46_250n * E18, openNotionalWad: 50_000_875n * 10n ** 15n, marginWad: 975n * E18,
  lastFundingIndexX18: 0n, lastSettledAt: 1000n, openBlock: 10n,
};

describe("health at the indexed block", () => {
  it("uses the time-weighted mark and flags liquidation below maintenance", () => {
    expect(markOf(market, 1000n)).toBe(market.indexPriceX18);
    expect(markOf(market, 1300n)).toBe(market.indexPriceX18); // the update's sample was 0
    // a sampled bid 0.2 % over the index (median of index, bid, ask): the premium moves towards +0.2 %, 30 s of the 300 s period
    const sampled = { ...market, sampleBidX18: 1_082_160_000_000_000_000n, sampleAskX18: 1_090_000_000_000_000_000n };
    expect(markOf(sampled, 1030n)).toBe(1_080_216_000_000_000_000n);
    // the index rose past the sampled bid since the update: the sample is the index itself
    expect(markOf({ ...sampled, indexPriceX18: 1_083_000_000_000_000_000n }, 1300n)).toBe(1_083_000_000_000_000_000n);
    const h = healthAt(long, market, 1000n);
    expect(h.isLiquidatable).toBe(false);
    // liquidation price: (openNotional − margin) / (size × (1 − 1 %))
    expect(h.liquidationPriceX18).toBe(((long.openNotionalWad - long.marginWad) * E18 * 10_000n) / (long.sizeQty * 9_900n));
    const dropped = { ...market, indexPriceX18: 1_047_600_000_000_000_000n };
    expect(healthAt(long, dropped, 1000n).isLiquidatable).toBe(true);
  });

  it("accrues funding to the block's timestamp (longs pay a positive rate)", () => {
    const paying = { ...market, fundingRateX18PerHour: 10n ** 15n }; // 0.1 %/h
    const h0 = healthAt(long, paying, 1000n);
    const h1 = healthAt(long, paying, 1000n + 3600n);
    expect(h0.pendingFundingWad).toBe(0n);
    // size × rate × index × 1h = 46,250 × 0.001 × 1.08 = 49.95 USD
    expect(h1.pendingFundingWad).toBe(49_950n * 10n ** 15n);
    expect(h1.equityWad).toBe(h0.equityWad - h1.pendingFundingWad);
  });

  it("a stale rate (a cancel since the last accrual) applies from its second, as the contract's view", () => {
    // 0.1 %/h stored at 1000; a cancel at 1000 + 1800 leaves a book whose rate is −0.1 %/h
    const stale = { ...market, fundingRateX18PerHour: 10n ** 15n, rateStaleSince: 2800n, staleRateX18PerHour: -(10n ** 15n) };
    expect(healthAt(long, stale, 2800n).pendingFundingWad).toBe(24_975n * 10n ** 15n); // half an hour paid
    expect(healthAt(long, stale, 4600n).pendingFundingWad).toBe(0n); // then half an hour received
    // closed: nothing accrues whatever the stale rate
    expect(healthAt(long, { ...stale, session: "CLOSED" }, 9000n).pendingFundingWad).toBe(0n);
  });

  it("aggregates an account: sums, ratio of sums, any position liquidatable", () => {
    const a = healthAt(long, market, 1000n);
    const b = healthAt({ ...long, sizeQty: -long.sizeQty, marginWad: 10n * E18 }, market, 1000n);
    const agg = aggregate([a, b]);
    expect(agg.positionValueWad).toBe(a.positionValueWad + b.positionValueWad);
    expect(agg.equityWad).toBe(a.equityWad + b.equityWad);
    expect(agg.marginRatioBps).toBe((agg.equityWad * 10_000n) / agg.positionValueWad);
    expect(agg.isLiquidatable).toBe(a.isLiquidatable || b.isLiquidatable);
    expect(aggregate([])).toMatchObject({ positionValueWad: 0n, marginRatioBps: 0n, isLiquidatable: false, liquidatableCount: 0 });
  });
});
