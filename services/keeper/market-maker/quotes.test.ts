import { describe, expect, it } from "vitest";
import {
  collateralFor, desiredQuotes, orderQty, planRequote, quoteClientKey, SIDE_LONG, SIDE_SHORT,
  type Quote, type QuoteParams, type RestingOrder,
} from "./quotes.js";

const E18 = 10n ** 18n;
const TICK = 10n ** 13n;
const p: QuoteParams = {
  levels: 3, spreadBps: 5n, levelStepBps: 5n, levelQty: 50_000n * E18, leverage: 5n, requoteBps: 2n,
  tickX18: TICK, lotQty: 10n ** 16n,
};
const INDEX = 1_080_000_000_000_000_000n;

describe("desiredQuotes", () => {
  it("puts levels on both sides, on the tick, bids below and asks above the index", () => {
    const qs = desiredQuotes(INDEX, p);
    const bids = qs.filter((q) => q.side === SIDE_LONG).map((q) => q.priceX18);
    const asks = qs.filter((q) => q.side === SIDE_SHORT).map((q) => q.priceX18);
    expect(bids).toEqual([1_079_460_000_000_000_000n, 1_078_920_000_000_000_000n, 1_078_380_000_000_000_000n]);
    expect(asks).toEqual([1_080_540_000_000_000_000n, 1_081_080_000_000_000_000n, 1_081_620_000_000_000_000n]);
    for (const q of qs) {
      expect(q.priceX18 % TICK).toBe(0n);
      expect(q.qty >= p.levelQty).toBe(true);
      expect(q.qty % p.lotQty).toBe(0n);
      // the minimal collateral: one unit less would size below the level quantity
      expect(orderQty(q.collateral6 - 1n, p.leverage, q.priceX18, p.lotQty) < p.levelQty).toBe(true);
    }
  });

  it("rounds bids down and asks up to the tick, and keeps levels distinct with a coarse tick", () => {
    const coarse = { ...p, tickX18: 10n ** 16n, spreadBps: 1n, levelStepBps: 1n };
    const qs = desiredQuotes(1_000_000_000_000_000_000n, coarse);
    const bids = qs.filter((q) => q.side === SIDE_LONG).map((q) => q.priceX18);
    const asks = qs.filter((q) => q.side === SIDE_SHORT).map((q) => q.priceX18);
    expect(bids).toEqual([990n * 10n ** 15n, 980n * 10n ** 15n, 970n * 10n ** 15n]);
    expect(asks).toEqual([1010n * 10n ** 15n, 1020n * 10n ** 15n, 1030n * 10n ** 15n]);
  });

  it("sizes like the contract", () => {
    expect(orderQty(1_000_000_000n, 10n, INDEX, 10n ** 16n)).toBe(9_259_250_000_000_000_000_000n);
    expect(collateralFor(0n, 5n, INDEX)).toBe(0n);
    expect(collateralFor(E18, 1n, E18)).toBe(1_000_000n);
    expect(collateralFor(E18 + 1n, 1n, E18)).toBe(1_000_001n);
  });

  it("gives each (market, side, level) its own stable client key", () => {
    const m = ("0x" + "11".repeat(32)) as `0x${string}`;
    const keys = new Set([0, 1, 2].flatMap((l) => [quoteClientKey(m, SIDE_LONG, l), quoteClientKey(m, SIDE_SHORT, l)]));
    expect(keys.size).toBe(6);
    expect(quoteClientKey(m, SIDE_LONG, 0)).toBe(quoteClientKey(m, SIDE_LONG, 0));
    expect(quoteClientKey(("0x" + "22".repeat(32)) as `0x${string}`, SIDE_LONG, 0)).not.toBe(quoteClientKey(m, SIDE_LONG, 0));
  });
});

describe("planRequote", () => {
  const key = (q: Quote) => `${q.side}:${q.level}`;
  const restingFrom = (qs: Quote[], f: (q: Quote) => RestingOrder | undefined = (q) => ({ priceX18: q.priceX18, remainingQty: q.qty })) => {
    const m = new Map(qs.map((q) => [key(q), f(q)] as const));
    return (q: Quote) => m.get(key(q));
  };

  it("places every level on a fresh start", () => {
    const plan = planRequote(desiredQuotes(INDEX, p), () => undefined, p);
    expect(plan.place).toHaveLength(6);
    expect(plan.cancel).toHaveLength(0);
  });

  it("does nothing while the index has not moved", () => {
    const qs = desiredQuotes(INDEX, p);
    const plan = planRequote(qs, restingFrom(qs), p);
    expect(plan.keep).toHaveLength(6);
    expect(plan.place.length + plan.cancel.length).toBe(0);
  });

  it("keeps quotes through a small move, re-quotes through a large one", () => {
    const before = desiredQuotes(INDEX, p);
    const small = planRequote(desiredQuotes(INDEX + INDEX / 10_000n, p), restingFrom(before), p); // 1 bp
    expect(small.keep).toHaveLength(6);
    const large = planRequote(desiredQuotes(INDEX + (INDEX * 10n) / 10_000n, p), restingFrom(before), p); // 10 bps
    expect(large.cancel).toHaveLength(6);
    expect(large.place).toHaveLength(6);
    // after the move, no new bid reaches a kept (or new) ask: the ladder cannot self-trade
    const bids = large.place.filter((q) => q.side === SIDE_LONG).map((q) => q.priceX18);
    const asks = large.place.filter((q) => q.side === SIDE_SHORT).map((q) => q.priceX18);
    expect(bids.every((b) => asks.every((a) => b < a))).toBe(true);
  });

  it("replenishes a level that is mostly filled, and places a level that was filled away", () => {
    const qs = desiredQuotes(INDEX, p);
    const plan = planRequote(
      qs,
      restingFrom(qs, (q) =>
        q.side === SIDE_SHORT && q.level === 0 ? { priceX18: q.priceX18, remainingQty: q.qty / 3n }
          : q.side === SIDE_LONG && q.level === 0 ? undefined
            : { priceX18: q.priceX18, remainingQty: q.qty }),
      p,
    );
    expect(plan.cancel.map(key)).toEqual([`${SIDE_SHORT}:0`]);
    expect(plan.place.map(key).sort()).toEqual([`${SIDE_LONG}:0`, `${SIDE_SHORT}:0`].sort());
    expect(plan.keep).toHaveLength(4);
  });
});
