/** core/reads/depth.ts: a side's fillable levels as getFillableLevels lists them (MarketBackstop.sol). */
import { describe, expect, it } from "vitest";
import { parseUnits } from "viem";
import { MAX_DEPTH_ORDERS, bookOrders, fillableLevels, type BookOrder } from "./depth.js";
import type { FillableMarket } from "../math/index.js";

const px = (v: string) => parseUnits(v, 18);
const EUR: FillableMarket = { maxLeverage: 50n, maxPositionQty: px("1000000"), upliftBps: 10_000n, makerFeeBps: 1n, cumulativeIndexX18: 0n, open: true, nowSeconds: 0n };
const MARK = px("1.08");
/** A bid of `qty` at `price` (10×: fillable at the mark) or reduce-only with no position (never fillable). */
const order = (price: string, qty: string, kind: "ok" | "ro" = "ok"): BookOrder => ({
  order: { isBid: true, reduceOnly: kind === "ro", priceX18: px(price), leftQty: px(qty), marginRemainingWad: kind === "ro" ? 0n : px(qty) / 5n },
  position: { sizeQty: 0n, openNotionalWad: 0n, marginWad: 0n, lastFundingIndexX18: 0n },
});
const level = (price: string, qty: string, orderCount: number) => ({ priceX18: px(price), quantityQty: px(qty), orderCount });

describe("fillable levels (core/reads/depth.ts)", () => {
  it("counts only the orders that could fill, leaves out a level with none, stops at depth", () => {
    const book = [order("1.0801", "100", "ro"), order("1.0790", "100"), order("1.0790", "50", "ro"), order("1.0790", "30"), order("1.0780", "10"), order("1.0770", "5")];
    expect(fillableLevels(book, EUR, MARK, 10)).toEqual([level("1.0790", "130", 2), level("1.0780", "10", 1), level("1.0770", "5", 1)]);
    expect(fillableLevels(book, EUR, MARK, 2)).toEqual([level("1.0790", "130", 2), level("1.0780", "10", 1)]);
    expect(fillableLevels(book, EUR, MARK, 1)).toEqual([level("1.0790", "130", 2)]);
    // outside OPEN none of them can (no positions to reduce)
    expect(fillableLevels(book, { ...EUR, open: false }, MARK, 10)).toEqual([]);
  });

  it("reads at most MAX_DEPTH_ORDERS orders: a wall of unfillable ones hides what lies behind, a level cut there counts what was read", () => {
    const wall = Array.from({ length: MAX_DEPTH_ORDERS - 1 }, () => order("1.0799", "1", "ro"));
    expect(fillableLevels([...wall, order("1.0790", "7"), order("1.0790", "8"), order("1.0780", "9")], EUR, MARK, 10)).toEqual([level("1.0790", "7", 1)]);
    expect(fillableLevels([...wall, order("1.0799", "1", "ro"), order("1.0790", "7")], EUR, MARK, 10)).toEqual([]);
  });

  it("reads the statement's JSON column whether the driver parsed it or not; null is an empty side; no position is none", () => {
    const tuples = [["1080000000000000000", "5", false, "2", null, null, null, null, "0"], ["1070000000000000000", "6", true, "0", "-6", "7", "1", "3", "1700000000"]];
    for (const raw of [tuples, JSON.stringify(tuples)]) {
      expect(bookOrders(raw, false)).toEqual([
        { order: { isBid: false, reduceOnly: false, priceX18: px("1.08"), leftQty: 5n, marginRemainingWad: 2n, expiresAt: 0n }, position: { sizeQty: 0n, openNotionalWad: 0n, marginWad: 0n, lastFundingIndexX18: 0n } },
        { order: { isBid: false, reduceOnly: true, priceX18: px("1.07"), leftQty: 6n, marginRemainingWad: 0n, expiresAt: 1_700_000_000n }, position: { sizeQty: -6n, openNotionalWad: 7n, marginWad: 1n, lastFundingIndexX18: 3n } },
      ]);
    }
    expect(bookOrders(null, true)).toEqual([]);
  });

  it("a good-til-time order counts before its expiry second, never from it (MarketBase._expired); it is still read (the chain's view reads it too)", () => {
    const gtt = (price: string, qty: string, expiresAt: bigint): BookOrder => {
      const o = order(price, qty);
      return { ...o, order: { ...o.order, expiresAt } };
    };
    const book = [gtt("1.0795", "10", 1_000n), order("1.0790", "100"), gtt("1.0790", "20", 1_000n), order("1.0780", "10")];
    expect(fillableLevels(book, { ...EUR, nowSeconds: 999n }, MARK, 10)).toEqual([level("1.0795", "10", 1), level("1.0790", "120", 2), level("1.0780", "10", 1)]);
    for (const now of [1_000n, 5_000n]) expect(fillableLevels(book, { ...EUR, nowSeconds: now }, MARK, 10)).toEqual([level("1.0790", "100", 1), level("1.0780", "10", 1)]);
    // a wall of expired orders hides what lies behind, as on chain
    const wall = Array.from({ length: MAX_DEPTH_ORDERS }, () => gtt("1.0799", "1", 1_000n));
    expect(fillableLevels([...wall, order("1.0790", "7")], { ...EUR, nowSeconds: 1_000n }, MARK, 10)).toEqual([]);
  });
});
