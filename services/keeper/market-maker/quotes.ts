/**
 * The demo market maker's quoting logic, pure: which LIMIT levels to keep around the index, and
 * which orders to cancel or place to get there. Chain access lives in `maker.ts`.
 */
import { encodeAbiParameters, keccak256, type Hex } from "viem";
import { toWad } from "../../../core/units.js";

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

export type RestingOrder = { priceX18: bigint; remainingQty: bigint };

/** A fixed client key per (market, side, level): the maker finds its orders again after a restart. */
export function quoteClientKey(marketId: Hex, side: Side, level: number): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "string" }, { type: "bytes32" }, { type: "uint8" }, { type: "uint16" }],
      ["venue-market-maker", marketId, side, level],
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

export type RequotePlan = {
  /** Levels whose resting order must go (cancel first: frees margin and avoids self-trades). */
  cancel: Quote[];
  place: Quote[];
  keep: Quote[];
};

/**
 * Keeps a resting order when its price is within `requoteBps` of the wanted price and at least half
 * its quantity remains; otherwise cancels it (if resting) and places the wanted quote. A kept bid is
 * then below index × (1 − (spread − requote)/1e4) < index, a kept ask above it: still no self-cross.
 */
export function planRequote(
  wanted: Quote[],
  resting: (q: Quote) => RestingOrder | undefined,
  p: Pick<QuoteParams, "requoteBps">,
): RequotePlan {
  const plan: RequotePlan = { cancel: [], place: [], keep: [] };
  for (const q of wanted) {
    const r = resting(q);
    if (r && r.remainingQty > 0n) {
      const diff = r.priceX18 > q.priceX18 ? r.priceX18 - q.priceX18 : q.priceX18 - r.priceX18;
      const closeEnough = diff * 10_000n <= q.priceX18 * p.requoteBps;
      if (closeEnough && r.remainingQty * 2n >= q.qty) {
        plan.keep.push(q);
        continue;
      }
      plan.cancel.push(q);
    }
    plan.place.push(q);
  }
  return plan;
}
