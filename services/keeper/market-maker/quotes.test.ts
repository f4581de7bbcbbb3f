import { MAX_BATCH_ITEMS } from "../../../core/schemas/writes.js";
import { describe, expect, it } from "vitest";
import {
  batchDeadline, chunkSteps, classifyItem, quietDeadline,
  collateralFor, desiredQuotes, orderQty, planRequote, quoteClientKey, SIDE_LONG, SIDE_SHORT,
  type Quote, type QuoteParams, type RequotePlan, type RestingOrder,
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
    const keys = new Set([0, 1, 2].flatMap((l) => ([0, 1] as const).flatMap((slot) => [quoteClientKey(m, SIDE_LONG, l, slot), quoteClientKey(m, SIDE_SHORT, l, slot)])));
    expect(keys.size).toBe(12);
    expect(quoteClientKey(m, SIDE_LONG, 0)).toBe(quoteClientKey(m, SIDE_LONG, 0));
    expect(quoteClientKey(("0x" + "22".repeat(32)) as `0x${string}`, SIDE_LONG, 0)).not.toBe(quoteClientKey(m, SIDE_LONG, 0));
  });
});

describe("planRequote", () => {
  const key = (q: Pick<Quote, "side" | "level">) => `${q.side}:${q.level}`;
  const restingFrom = (
    qs: Quote[],
    f: (q: Quote) => Omit<RestingOrder, "slot"> | undefined = (q) => ({ priceX18: q.priceX18, remainingQty: q.qty }),
  ) => {
    const m = new Map(qs.map((q) => {
      const r = f(q);
      return [key(q), r ? [{ slot: 0 as const, ...r }] : []] as const;
    }));
    return (q: Quote) => m.get(key(q)) ?? [];
  };
  const places = (plan: RequotePlan) => plan.steps.filter((s) => s.kind === "place");
  const cancels = (plan: RequotePlan) => plan.steps.filter((s) => s.kind === "cancel");

  it("places every level on a fresh start", () => {
    const plan = planRequote(desiredQuotes(INDEX, p), () => [], p);
    expect(places(plan)).toHaveLength(6);
    expect(cancels(plan)).toHaveLength(0);
  });

  it("does nothing while the index has not moved", () => {
    const qs = desiredQuotes(INDEX, p);
    const plan = planRequote(qs, restingFrom(qs), p);
    expect(plan.keep).toHaveLength(6);
    expect(plan.steps).toHaveLength(0);
  });

  it("keeps quotes through a small move; through a large one places every level in the free slot before cancelling", () => {
    const before = desiredQuotes(INDEX, p);
    const small = planRequote(desiredQuotes(INDEX + INDEX / 10_000n, p), restingFrom(before), p); // 1 bp
    expect(small.keep).toHaveLength(6);
    const large = planRequote(desiredQuotes(INDEX + (INDEX * 10n) / 10_000n, p), restingFrom(before), p); // 10 bps
    expect(large.steps.map((s) => `${s.kind}:${s.slot}`)).toEqual([...Array(6).fill("place:1"), ...Array(6).fill("cancel:0")]);
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
    expect(plan.steps.map((s) => `${s.kind}:${key(s.quote)}:${s.slot}`)).toEqual([
      `place:${SIDE_LONG}:0:0`, `place:${SIDE_SHORT}:0:1`, `cancel:${SIDE_SHORT}:0:0`,
    ]);
    expect(plan.keep).toHaveLength(4);
  });

  it("cancels a duplicate beside a kept order, and frees slot 0 first when both slots hold stale orders", () => {
    const qs = desiredQuotes(INDEX, p);
    const far = (q: Quote) => (q.side === SIDE_LONG ? q.priceX18 - 100n * TICK : q.priceX18 + 100n * TICK);
    const plan = planRequote(qs, (q) =>
      q.level === 0 && q.side === SIDE_LONG ? [{ slot: 0, priceX18: far(q), remainingQty: q.qty }, { slot: 1, priceX18: q.priceX18, remainingQty: q.qty }]
        : q.level === 0 ? [{ slot: 0, priceX18: far(q), remainingQty: q.qty }, { slot: 1, priceX18: far(q), remainingQty: q.qty }]
          : [{ slot: 1, priceX18: q.priceX18, remainingQty: q.qty }], p);
    expect(plan.keep).toHaveLength(5);
    expect(plan.steps.map((s) => `${s.kind}:${key(s.quote)}:${s.slot}`)).toEqual([
      `cancel:${SIDE_SHORT}:0:0`, `place:${SIDE_SHORT}:0:0`, `cancel:${SIDE_LONG}:0:0`, `cancel:${SIDE_SHORT}:0:1`,
    ]);
  });

  // Property: whatever the maker holds and however far the index jumps, sending the steps in order
  // never leaves a side of its book empty (when it held both before), never places an order that
  // crosses one of its own resting orders or reuses an occupied slot, and ends with exactly one
  // order per wanted level, at the wanted price or a kept one.
  it("never empties a side, never self-crosses, ends with the wanted ladder (random moves and fills)", () => {
    let seed = 0x5eed_1234n;
    const rand = (n: number) => {
      seed = (seed * 6_364_136_223_846_793_005n + 1_442_695_040_888_963_407n) % 2n ** 64n;
      return Number((seed >> 33n) % BigInt(n));
    };
    for (let run = 0; run < 500; run++) {
      const params = { ...p, levels: 1 + rand(4) };
      type Held = { side: Quote["side"]; level: number; slot: 0 | 1; priceX18: bigint; remainingQty: bigint };
      let book: Held[] = [];
      let index = INDEX;
      for (let round = 0; round < 6; round++) {
        // The index moves by up to ±300 bps (larger than the spread: the ladder crosses its old self).
        const bps = BigInt(rand(601) - 300);
        index = index + (index * bps) / 10_000n;
        const wanted = desiredQuotes(index, params);
        // Takers fill some resting orders partly or fully.
        book = book.flatMap((o) => {
          const r = rand(5);
          return r === 0 ? [] : r === 1 ? [{ ...o, remainingQty: o.remainingQty / 3n }] : [o];
        });
        const plan = planRequote(wanted, (q) => book.filter((o) => o.side === q.side && o.level === q.level), params);
        const hadBoth = [SIDE_LONG, SIDE_SHORT].every((side) => book.some((o) => o.side === side));
        for (const step of plan.steps) {
          const q = step.quote;
          if (step.kind === "place") {
            expect(book.some((o) => o.side === q.side && o.level === q.level && o.slot === step.slot)).toBe(false);
            const crossed = book.some((o) => o.side !== q.side && (q.side === SIDE_LONG ? q.priceX18 >= o.priceX18 : q.priceX18 <= o.priceX18));
            expect(crossed).toBe(false);
            book.push({ side: q.side, level: q.level, slot: step.slot, priceX18: q.priceX18, remainingQty: q.qty });
          } else {
            const before = book.length;
            book = book.filter((o) => !(o.side === q.side && o.level === q.level && o.slot === step.slot));
            expect(book.length).toBe(before - 1);
          }
          if (hadBoth) for (const side of [SIDE_LONG, SIDE_SHORT]) expect(book.some((o) => o.side === side)).toBe(true);
        }
        expect(book.length).toBe(wanted.length);
        for (const q of wanted) {
          const held = book.filter((o) => o.side === q.side && o.level === q.level);
          expect(held).toHaveLength(1);
          const diff = held[0]!.priceX18 > q.priceX18 ? held[0]!.priceX18 - q.priceX18 : q.priceX18 - held[0]!.priceX18;
          expect(diff * 10_000n <= q.priceX18 * params.requoteBps).toBe(true);
        }
      }
    }
  });
});

describe("the maker's batches", () => {
  it("keeps a re-quote in one batch up to MAX_BATCH_ITEMS items (one kept for the dead-man), in order", () => {
    const steps = Array.from({ length: 70 }, (_, i) => i);
    expect(chunkSteps(steps.slice(0, 18), true)).toEqual([steps.slice(0, 18)]);
    expect(chunkSteps(steps.slice(0, 31), true)).toHaveLength(1);
    expect(chunkSteps(steps.slice(0, 32), true).map((c) => c.length)).toEqual([31, 1]);
    expect(chunkSteps(steps.slice(0, 32), false).map((c) => c.length)).toEqual([32]);
    expect(chunkSteps(steps, true).flat()).toEqual(steps);
    expect(chunkSteps(steps, true).every((c) => c.length <= MAX_BATCH_ITEMS - 1)).toBe(true);
    expect(chunkSteps([], true)).toEqual([]);
    // the default ladder (3 levels a side) at its worst: 6 places and 12 cancels, one batch
    const wanted = desiredQuotes(INDEX, p);
    const far = (q: Quote, d: bigint) => (q.side === SIDE_LONG ? q.priceX18 - d * TICK : q.priceX18 + d * TICK);
    const plan = planRequote(wanted, (q) => [{ slot: 0, priceX18: far(q, 100n), remainingQty: q.qty }, { slot: 1, priceX18: far(q, 200n), remainingQty: q.qty }], p);
    expect(plan.steps).toHaveLength(18);
    expect(chunkSteps(plan.steps, true)).toHaveLength(1);
  });

  it("reads each item's result: a filled order's cancel is fine, a refused place is skipped, margin is short, no data is a bug", () => {
    expect(classifyItem("place", true, "")).toBe("ok");
    expect(classifyItem("cancel", false, "OrderNotFound")).toBe("gone");
    for (const e of ["PostOnlyWouldCross", "InvalidPrice", "SelfTrade", "ClientKeyInUse"]) expect(classifyItem("place", false, e)).toBe("skipped");
    expect(classifyItem("place", false, "InsufficientMargin")).toBe("short");
    expect(classifyItem("place", false, "")).toBe("empty");
    expect(classifyItem("cancel", false, "")).toBe("empty");
    expect(classifyItem("deadman", false, "")).toBe("empty");
    expect(classifyItem("place", false, "OrderNotFound")).toBe("error");
    expect(classifyItem("cancel", false, "PostOnlyWouldCross")).toBe("error");
    expect(classifyItem("deadman", false, "DeadmanTooSoon")).toBe("error");
    expect(classifyItem("place", false, "MarketPaused")).toBe("error");
  });

  it("sets the dead-man deadline from the chain's time with every batch, alone when less than half is left", () => {
    const now = 1_000_000n;
    // on: every batch moves it to now + period
    expect(batchDeadline(now, 0n, 60)).toBe(now + 60n);
    expect(batchDeadline(now, now + 59n, 60)).toBe(now + 60n);
    // off: cleared once when an earlier run left one armed, else no item
    expect(batchDeadline(now, now + 30n, 0)).toBe(0n);
    expect(batchDeadline(now, 0n, 0)).toBeNull();
    // quiet rounds: none armed, or less than half left (or passed), or more than the period (shortened)
    expect(quietDeadline(now, 0n, 60)).toBe(now + 60n);
    expect(quietDeadline(now, now + 60n, 60)).toBeNull();
    expect(quietDeadline(now, now + 30n, 60)).toBeNull();
    expect(quietDeadline(now, now + 29n, 60)).toBe(now + 60n);
    expect(quietDeadline(now, now - 5n, 60)).toBe(now + 60n);
    expect(quietDeadline(now, now + 600n, 60)).toBe(now + 60n);
    expect(quietDeadline(now, now + 600n, 0)).toBe(0n);
    expect(quietDeadline(now, 0n, 0)).toBeNull();
  });
});
