/** core/math/fillable.ts mirrors MarketBase._fillable (and _trade, _computeSettle, _meetsInitialMargin): cases that flip the answer. */
import { describe, expect, it } from "vitest";
import { parseUnits } from "viem";
import { NO_POSITION, computeSettle, fillable, marginPortion, orderQuantity, positionTrade, type FillableMarket, type RestingOrder, type SettlePosition } from "./index.js";

const px = (v: string) => parseUnits(v, 18);
/** EUR on the devnet: 50×, maker fee 1 bps, OPEN, no funding accrued. */
const EUR: FillableMarket = { maxLeverage: 50n, maxPositionQty: px("1000000"), upliftBps: 10_000n, makerFeeBps: 1n, cumulativeIndexX18: 0n, open: true, nowSeconds: 0n };
const bid = (o: Partial<RestingOrder> = {}): RestingOrder => ({ isBid: true, reduceOnly: false, priceX18: px("1.08"), leftQty: px("1000"), marginRemainingWad: px("200"), ...o });
const pos = (sizeQty: string, openNotional: string, margin: string, lastFundingIndexX18 = 0n): SettlePosition => ({
  sizeQty: px(sizeQty),
  openNotionalWad: px(openNotional),
  marginWad: px(margin),
  lastFundingIndexX18,
});

describe("positionTrade (MarketBase._trade): rounding of a partial reduce", () => {
  it("a short's reduce part rounds up, its basis down; a long's reduce part down, its basis up", () => {
    // short 3 bought back 2 for 5: basis floor(10 × 2 / 3) = 6, released floor(7 × 2 / 3) = 4
    expect(positionTrade(-3n, 10n, 7n, true, 2n, 5n, 0n)).toEqual({ size: -1n, openNotional: 4n, pnl: 1n, released: 4n, mInc: 0n });
    // short 3 bought 4 for 9: reduce part ceil(9 × 3 / 4) = 7, then long 1 at 9 − 7
    expect(positionTrade(-3n, 10n, 0n, true, 4n, 9n, 0n)).toEqual({ size: 1n, openNotional: 2n, pnl: 3n, released: 0n, mInc: 0n });
    // long 3 sold 2 for 5: basis ceil(10 × 2 / 3) = 7
    expect(positionTrade(3n, 10n, 7n, false, 2n, 5n, 0n)).toEqual({ size: 1n, openNotional: 3n, pnl: -2n, released: 4n, mInc: 0n });
    // long 3 sold 4 for 9: reduce part floor(9 × 3 / 4) = 6, basis 10; short 1 takes floor(8 × 1 / 4) of the order's margin
    expect(positionTrade(3n, 10n, 7n, false, 4n, 9n, 8n)).toEqual({ size: -1n, openNotional: 3n, pnl: -4n, released: 7n, mInc: 2n });
  });

  it("the order's margin portion: all of it for the whole remainder, else truncated pro rata in whole 1e-6 units", () => {
    const u = 10n ** 12n; // 1e-6 in WAD
    expect(marginPortion(10n * u, 3n, 3n)).toBe(10n * u);
    expect(marginPortion(10n * u, 2n, 3n)).toBe(6n * u); // floor(10 × 2 / 3) = 6 units, not 6.67
    expect(marginPortion(1n * u, 1n, 3n)).toBe(0n);
  });
});

describe("fillable (MarketBase._fillable)", () => {
  it("a reduce-only bid: not when its position is flat or long (turned to the bid's side), yes while short", () => {
    const ro = bid({ reduceOnly: true, marginRemainingWad: 0n });
    expect(fillable(ro, NO_POSITION, EUR, px("1.08"))).toBe(false);
    // long with margin enough to carry the increase: still not (a reduce-only order never adds)
    expect(fillable(ro, pos("500", "540", "100"), EUR, px("1.08"))).toBe(false);
    expect(fillable(ro, pos("-500", "540", "20"), EUR, px("1.08"))).toBe(true);
  });

  it("outside OPEN any order fills only up to its reduce room: none without a position, the reduce part only with one", () => {
    const closed = { ...EUR, open: false };
    expect(fillable(bid(), NO_POSITION, EUR, px("1.08"))).toBe(true);
    expect(fillable(bid(), NO_POSITION, closed, px("1.08"))).toBe(false);
    // 3000 bid with 1 of margin against a short of 1000: opening 2000 at 50× with 1 fails in OPEN;
    // outside OPEN only the 1000 that reduce count, which pass
    const thin = bid({ leftQty: px("3000"), marginRemainingWad: px("1") });
    const short = pos("-1000", "1080", "30");
    expect(fillable(thin, short, EUR, px("1.08"))).toBe(false);
    expect(fillable(thin, short, closed, px("1.08"))).toBe(true);
  });

  it("a bid at the maximum leverage fails at or below its price's mark and passes once the mark is above it", () => {
    const q = orderQuantity(px("1000"), 50n, px("1.08"), px("0.01"));
    const max = bid({ leftQty: q, marginRemainingWad: px("1000") });
    expect(fillable(max, NO_POSITION, EUR, px("1.08"))).toBe(false);
    expect(fillable(max, NO_POSITION, EUR, px("1.07"))).toBe(false);
    expect(fillable(max, NO_POSITION, EUR, px("1.10"))).toBe(true);
    // 10× at the same price passes at the mark
    expect(fillable(bid({ leftQty: q / 5n, marginRemainingWad: px("1000") }), NO_POSITION, EUR, px("1.08"))).toBe(true);
  });

  it("initial margin to the wei: margin − fee ≥ ceil(value / maxLeverage), at the mark", () => {
    // 50 at 1 = 50 notional: fee ceil(50 × 1 / 1e4) = 0.005, initial margin 1
    const at = (margin: bigint) => fillable(bid({ priceX18: px("1"), leftQty: px("50"), marginRemainingWad: margin }), NO_POSITION, EUR, px("1"));
    expect(at(px("1.005"))).toBe(true);
    expect(at(px("1.005") - 1n)).toBe(false);
    // one wei more of size: both the fee and the requirement round up (5e15 + 1 and 1e18 + 1)
    const up = (margin: bigint) => fillable(bid({ priceX18: px("1"), leftQty: px("50") + 1n, marginRemainingWad: margin }), NO_POSITION, EUR, px("1"));
    expect(up(px("1.005") + 2n)).toBe(true);
    expect(up(px("1.005") + 1n)).toBe(false);
    // the close uplift raises the requirement (the check reads it whatever the session)
    expect(fillable(bid({ priceX18: px("1"), leftQty: px("50"), marginRemainingWad: px("1.005") }), NO_POSITION, { ...EUR, upliftBps: 15_000n }, px("1"))).toBe(false);
  });

  it("the position cap: a fill that takes |size| beyond it fails, up to it passes; a reduce past it passes", () => {
    const o = bid({ priceX18: px("1"), leftQty: px("50"), marginRemainingWad: px("10") });
    expect(fillable(o, NO_POSITION, { ...EUR, maxPositionQty: px("50") }, px("1"))).toBe(true);
    expect(fillable(o, NO_POSITION, { ...EUR, maxPositionQty: px("50") - 1n }, px("1"))).toBe(false);
    expect(fillable(o, pos("30", "30", "10"), { ...EUR, maxPositionQty: px("79") }, px("1"))).toBe(false);
    expect(fillable(o, pos("-80", "80", "10"), { ...EUR, maxPositionQty: px("50") }, px("1"))).toBe(true);
  });

  it("funding owed beyond the margin is a debt: a close it leaves short of its loss fails, as does an increase it thins", () => {
    // long 1000 at 1 with 10 margin; a reduce-only ask at 1 for all of it
    const ask: RestingOrder = { isBid: false, reduceOnly: true, priceX18: px("1"), leftQty: px("1000"), marginRemainingWad: 0n };
    const long = pos("1000", "1000", "10", px("0.5"));
    expect(fillable(ask, long, { ...EUR, cumulativeIndexX18: px("0.5") }, px("1"))).toBe(true);
    // 0.015 per unit owed: 15 > 10 of margin, the close leaves 5.1 (fee included) uncovered
    expect(fillable(ask, long, { ...EUR, cumulativeIndexX18: px("0.515") }, px("1"))).toBe(false);
    const st = computeSettle(long, px("0.515"), false, px("1000"), px("1000"), 0n, px("0.1"));
    expect(st).toMatchObject({ size: 0n, shortfall: px("5.1") });
    // funding the position receives (the index moved its way) adds to the margin netted: the close passes
    expect(fillable(ask, long, { ...EUR, cumulativeIndexX18: px("0.4") }, px("1"))).toBe(true);
    // an increase: 50 more at 1 with 1.005 margin passes with no debt and fails with 0.002 per unit owed on the 1000
    const add = bid({ priceX18: px("1"), leftQty: px("50"), marginRemainingWad: px("21.005") });
    const held = pos("1000", "1000", "0", px("0.5"));
    expect(fillable(add, held, { ...EUR, cumulativeIndexX18: px("0.5") }, px("1"))).toBe(true);
    expect(fillable(add, held, { ...EUR, cumulativeIndexX18: px("0.502") }, px("1"))).toBe(false);
  });
});
