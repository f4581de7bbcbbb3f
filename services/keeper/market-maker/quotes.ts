/**
 * The demo market maker's quoting logic, pure: which LIMIT levels to keep around the index, and
 * which orders to cancel or place to get there. Chain access lives in `maker.ts`.
 */
import { encodeAbiParameters, keccak256, type Hex } from "viem";
import { abs } from "../../../core/math/ints.js";
import { toWad } from "../../../core/units.js";
import { MAX_BATCH_ITEMS } from "../../../core/schemas/writes.js";

export const SIDE_LONG = 0; // a bid
export const SIDE_SHORT = 1; // an ask
export type Side = typeof SIDE_LONG | typeof SIDE_SHORT;

export type QuoteParams = {
  levels: number;
  spreadBps: bigint;
  levelStepBps: bigint;
  /** Quantity per level (base units, 18 decimals). */
  levelQty: bigint;
  leverage: bigint;
  /** An order is kept while its price is within this many bps of the wanted price (must be < spread). */
  requoteBps: bigint;
  tickX18: bigint;
  lotQty: bigint;
};

export type Quote = {
  side: Side;
  /** 0 = best level. */
  level: number;
  priceX18: bigint;
  /** Collateral (deposit-token units) that buys at least `levelQty` at `priceX18`. */
  collateral6: bigint;
  /** The quantity the contract will size: floor(collateralWad × leverage × 1e18 / price / lot) × lot. */
  qty: bigint;
};

export type Slot = 0 | 1;
export const SLOTS: readonly Slot[] = [0, 1];

export type RestingOrder = { slot: Slot; priceX18: bigint; remainingQty: bigint };

/**
 * Two fixed client keys per (market, side, level), slots 0 and 1: a re-quote places the new order
 * in the free slot before it cancels the old one, so a side of the book is never empty while the
 * maker moves it. Fixed keys let the maker find its orders again after a restart; slot 0 keeps the
 * key of the single-slot maker, whose orders are then found too.
 */
export function quoteClientKey(marketId: Hex, side: Side, level: number, slot: Slot = 0): Hex {
  return slot === 0
    ? keccak256(
      encodeAbiParameters(
        [{ type: "string" }, { type: "bytes32" }, { type: "uint8" }, { type: "uint16" }],
        ["venue-market-maker", marketId, side, level],
      ),
    )
    : keccak256(
      encodeAbiParameters(
        [{ type: "string" }, { type: "bytes32" }, { type: "uint8" }, { type: "uint16" }, { type: "uint8" }],
        ["venue-market-maker", marketId, side, level, slot],
      ),
    );
}

const floorTo = (x: bigint, step: bigint) => (x / step) * step;
const ceilTo = (x: bigint, step: bigint) => ((x + step - 1n) / step) * step;

/** Contract sizing (docs/CONTRACTS.md "Orders"). */
export function orderQty(collateral6: bigint, leverage: bigint, priceX18: bigint, lotQty: bigint): bigint {
  const collateralWad = toWad(collateral6);
  return floorTo((collateralWad * leverage * 10n ** 18n) / priceX18, lotQty);
}

/** Smallest collateral whose sized quantity reaches `qty` (then the sized quantity is ≥ qty). */
export function collateralFor(qty: bigint, leverage: bigint, priceX18: bigint): bigint {
  // collateralWad × leverage × 1e18 / price ≥ qty  ⇐  collateral6 ≥ qty × price / (leverage × 1e18 × 1e12)
  const denominator = leverage * 10n ** 30n;
  return (qty * priceX18 + denominator - 1n) / denominator;
}

/**
 * The wanted ladder around the index: bid i at floor_tick(index × (1 − (spread + i·step)/1e4)),
 * ask i at ceil_tick(index × (1 + (spread + i·step)/1e4)). Bids are strictly below the index and
 * asks strictly above, so the ladder never crosses itself; levels on one side are distinct.
 */
export function desiredQuotes(indexX18: bigint, p: QuoteParams): Quote[] {
  const out: Quote[] = [];
  let lastBid = 0n;
  let lastAsk = 0n;
  for (let i = 0; i < p.levels; i++) {
    const bps = p.spreadBps + BigInt(i) * p.levelStepBps;
    let bid = floorTo((indexX18 * (10_000n - bps)) / 10_000n, p.tickX18);
    if (bid >= indexX18) bid = floorTo(indexX18 - 1n, p.tickX18);
    if (lastBid !== 0n && bid >= lastBid) bid = lastBid - p.tickX18;
    let ask = ceilTo((indexX18 * (10_000n + bps) + 9_999n) / 10_000n, p.tickX18);
    if (ask <= indexX18) ask = ceilTo(indexX18 + 1n, p.tickX18);
    if (lastAsk !== 0n && ask <= lastAsk) ask = lastAsk + p.tickX18;
    lastAsk = ask;
    if (bid > 0n) {
      lastBid = bid;
      out.push(quote(SIDE_LONG, i, bid, p));
    }
    out.push(quote(SIDE_SHORT, i, ask, p));
  }
  return out;
}

function quote(side: Side, level: number, priceX18: bigint, p: QuoteParams): Quote {
  const collateral6 = collateralFor(p.levelQty, p.leverage, priceX18);
  return { side, level, priceX18, collateral6, qty: orderQty(collateral6, p.leverage, priceX18, p.lotQty) };
}

/** One transaction of a re-quote: place `quote` in `slot`, or cancel the order resting there. */
export type Step =
  | { kind: "place"; quote: Quote; slot: Slot }
  | { kind: "cancel"; quote: Quote; slot: Slot; priceX18: bigint };

export type RequotePlan = {
  /** In the order to send them: see `planRequote`. */
  steps: Step[];
  keep: Quote[];
};

const crosses = (side: Side, priceX18: bigint, other: { side: Side; priceX18: bigint }) =>
  side !== other.side && (side === SIDE_LONG ? priceX18 >= other.priceX18 : priceX18 <= other.priceX18);

/**
 * Keeps a resting order when its price is within `requoteBps` of the wanted price and at least half
 * its quantity remains; otherwise places the wanted quote in a free slot and cancels the old order
 * after it (a level's other slot, or a duplicate beside a kept order, is cancelled too). A kept bid
 * is below index × (1 − (spread − requote)/1e4) < index, a kept ask above it: no self-cross.
 *
 * Steps are ordered so that the maker's side of the book never empties and it never trades with
 * itself: first the places that cross none of its resting orders, then the cancels of stale orders
 * that a remaining place would cross (only after a move of more than about twice the spread, when
 * the other side already holds its new levels), then the remaining places, then the other cancels.
 */
export function planRequote(
  wanted: Quote[],
  resting: (q: Quote) => RestingOrder[],
  p: Pick<QuoteParams, "requoteBps">,
): RequotePlan {
  type Place = Extract<Step, { kind: "place" }>;
  type Cancel = Extract<Step, { kind: "cancel" }>;
  const keep: Quote[] = [];
  const cancels: Cancel[] = [];
  /** Each place with the cancels that must be sent before it. */
  const places: { step: Place; after: Cancel[] }[] = [];
  for (const q of wanted) {
    const orders = resting(q).filter((r) => r.remainingQty > 0n);
    const good = orders.find((r) => abs(r.priceX18 - q.priceX18) * 10_000n <= q.priceX18 * p.requoteBps && r.remainingQty * 2n >= q.qty);
    const mine = orders.filter((r) => r !== good).map((r): Cancel => ({ kind: "cancel", quote: q, slot: r.slot, priceX18: r.priceX18 }));
    cancels.push(...mine);
    if (good) {
      keep.push(q);
      continue;
    }
    const free = SLOTS.find((slot) => !orders.some((r) => r.slot === slot));
    // Both slots hold stale orders: the one in slot 0 goes first.
    places.push({ step: { kind: "place", quote: q, slot: free ?? 0 }, after: free === undefined ? mine.filter((c) => c.slot === 0) : [] });
  }
  for (const pl of places) {
    const { side, priceX18 } = pl.step.quote;
    pl.after.push(...cancels.filter((c) => crosses(side, priceX18, { side: c.quote.side, priceX18: c.priceX18 }) && !pl.after.includes(c)));
  }
  const first = new Set(places.flatMap((pl) => pl.after));
  const steps: Step[] = [
    ...places.filter((pl) => pl.after.length === 0).map((pl) => pl.step),
    ...cancels.filter((c) => first.has(c)),
    ...places.filter((pl) => pl.after.length > 0).map((pl) => pl.step),
    ...cancels.filter((c) => !first.has(c)),
  ];
  return { steps, keep };
}

// ─── batches ────────────────────────────────────────────────────────────────────────────────


export type BatchItemKind = "place" | "cancel" | "deadman";

/**
 * A re-quote's steps in batches of at most MAX_BATCH_ITEMS (Engine.MAX_BATCH) items, one item of each kept free for the
 * dead-man refresh when `withDeadman`; the order of the steps is kept (each batch runs its items in
 * order). A ladder of up to 7 levels a side fits one batch.
 */
export function chunkSteps<T>(steps: readonly T[], withDeadman: boolean): T[][] {
  const size = MAX_BATCH_ITEMS - (withDeadman ? 1 : 0);
  const out: T[][] = [];
  for (let i = 0; i < steps.length; i += size) out.push(steps.slice(i, i + size));
  return out;
}

/**
 * What a batch item's result means to the maker:
 *   ok;
 *   gone: a cancel of an order filled (or cancelled) in between (OrderNotFound), nothing to do;
 *   skipped: a place the book refuses now (PostOnlyWouldCross, InvalidPrice, SelfTrade,
 *     ClientKeyInUse), the next round tries again;
 *   short: a place refused for margin (InsufficientMargin): the round tops up;
 *   empty: failed with empty revert data, a bug (the item ran out of gas): logged loudly;
 *   error: anything else, logged with its name.
 */
export type ItemOutcome = "ok" | "gone" | "skipped" | "short" | "empty" | "error";

const SKIPPED = new Set(["PostOnlyWouldCross", "InvalidPrice", "SelfTrade", "ClientKeyInUse"]);

export function classifyItem(kind: BatchItemKind, ok: boolean, errorName: string): ItemOutcome {
  if (ok) return "ok";
  if (errorName === "") return "empty";
  if (kind === "cancel" && errorName === "OrderNotFound") return "gone";
  if (kind === "place" && SKIPPED.has(errorName)) return "skipped";
  if (kind === "place" && errorName === "InsufficientMargin") return "short";
  return "error";
}

/**
 * The dead-man deadline a batch sets (the chain's time `now` and the period in seconds): now +
 * period; with the switch off (period 0), 0 when a deadline is still armed (an earlier run's),
 * else null (no item).
 */
export function batchDeadline(now: bigint, current: bigint, periodSeconds: number): bigint | null {
  if (periodSeconds > 0) return now + BigInt(periodSeconds);
  return current !== 0n ? 0n : null;
}

/**
 * The deadline a round that sends no batch sets alone, or null: with the switch on, when none is
 * armed or less than half the period is left (or more than the period, the period was shortened);
 * off, 0 when one is still armed.
 */
export function quietDeadline(now: bigint, current: bigint, periodSeconds: number): bigint | null {
  if (periodSeconds <= 0) return current !== 0n ? 0n : null;
  const period = BigInt(periodSeconds);
  const left = current - now;
  return current === 0n || left * 2n < period || left > period ? now + period : null;
}
