import { describe, expect, it } from "vitest";
import { adlCandidates, MAX_ADL_CANDIDATES } from "./adl.js";
import type { MarketContext, PositionRow } from "./health.js";

const E18 = 10n ** 18n;
const market: MarketContext = {
  marketId: `0x${"11".repeat(32)}`, symbol: "EUR/USD", marketAddress: `0x${"22".repeat(20)}`,
  maintenanceMarginBps: 100n, liquidationFeeBps: 50n, isActive: true,
  indexPriceX18: 1_066_000_000_000_000_000n, indexUpdatedAt: 1000n,
  fundingRateX18PerHour: 0n, cumulativeFundingIndexX18: 0n, fundingLastUpdate: 1000n, premiumX18: 0n, sampleBidX18: 0n, sampleAskX18: 0n, markClampBps: 50n,
};
const row = (accountId: bigint, sizeQty: bigint, openNotionalWad: bigint, marginWad: bigint): PositionRow => ({
  positionId: `0x${accountId.toString(16).padStart(64, "0")}`, accountId, marketId: market.marketId, sizeQty, openNotionalWad,
  marginWad, lastFundingIndexX18: 0n, lastSettledAt: 1000n, openBlock: 1n,
});

describe("ADL candidates", () => {
  // alice long 1,000 at 1.08, liquidatable at 1.066
  const alice = row(1n, 1_000n * E18, 1_080n * E18, 22n * E18);
  it("names the opposite positions in profit, best profit × leverage first, any account id", () => {
    const lo = row(300n, -500n * E18, 540n * E18, 108n * E18); // 5×
    const hi = row(301n, -500n * E18, 540n * E18, 27n * E18); // 20×: same profit, more leverage
    const losing = row(302n, -500n * E18, 520n * E18, 27n * E18); // sold at 1.04: a loss at 1.066
    const sameSide = row(303n, 500n * E18, 540n * E18, 27n * E18);
    const other = { ...row(304n, -500n * E18, 540n * E18, 27n * E18), marketId: `0x${"99".repeat(32)}` as const };
    expect(adlCandidates(alice, [alice, lo, losing, hi, sameSide, other], market, 1000n)).toEqual([301n, 300n]);
  });

  it("names at most 64", () => {
    const many = Array.from({ length: 100 }, (_, i) => row(10n + BigInt(i), -E18, 1_080n * 10n ** 15n, 1n * E18));
    expect(adlCandidates(alice, many, market, 1000n)).toHaveLength(MAX_ADL_CANDIDATES);
  });
});
