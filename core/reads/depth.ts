/**
 * The book's depth as the reads show it: only orders that could fill an ordinary taker now at the
 * snapshot's mark and session (core/math/fillable.ts, MarketBase._fillable), per price level from
 * the best outwards, levels with none left out: the chain's `getFillableLevels(side, depth)` at the
 * same block (MarketBackstop.sol). A good-til-time order at or past its expiry (the block's time)
 * is read (it is still in the chain's book until removed) but never counts. The stored levels (`order_book_level`, LevelUpdated) still hold
 * orders that cannot fill (reduce-only ones whose position is gone, bids at the maximum leverage
 * at or above the mark, ...), which a taker would only clear, never trade with.
 */
import { NO_POSITION, fillable, type FillableMarket, type RestingOrder, type SettlePosition } from "../math/index.js";
import type { MarketSnapshot } from "./snapshot.js";

/** Orders read per side at most, from the best price outwards in time order (MarketBackstop.MAX_DEPTH_ORDERS). */
export const MAX_DEPTH_ORDERS = 2_000;

export type BookOrder = { order: RestingOrder; position: SettlePosition };
export type BookLevel = { priceX18: bigint; quantityQty: bigint; orderCount: number };

/** One order of a side's read as the statement gives it (plans.ts `bookSide`): its decimal strings, in this order. */
type BookTuple = [price: string, left: string, reduceOnly: boolean, marginRemaining: string, size: string | null, openNotional: string | null, margin: string | null, lastFundingIndex: string | null, expiresAt?: string];

/** A side's orders from the statement's JSON column (parsed by the driver or not; null: none). */
export function bookOrders(raw: unknown, isBid: boolean): BookOrder[] {
  if (raw === null || raw === undefined) return [];
  const tuples = (typeof raw === "string" ? JSON.parse(raw) : raw) as BookTuple[];
  return tuples.map(([price, left, reduceOnly, marginRemaining, size, openNotional, margin, lastFundingIndex, expiresAt]) => ({
    order: { isBid, reduceOnly, priceX18: BigInt(price), leftQty: BigInt(left), marginRemainingWad: BigInt(marginRemaining), expiresAt: BigInt(expiresAt ?? "0") },
    position:
      size === null
        ? NO_POSITION
        : { sizeQty: BigInt(size), openNotionalWad: BigInt(openNotional!), marginWad: BigInt(margin!), lastFundingIndexX18: BigInt(lastFundingIndex!) },
  }));
}

/** What `_fillable` reads of the market at the snapshot (time `now`, the indexed block's): the stored cumulative index (a view accrues nothing), the session and its uplift, the time (an order's expiry). */
export function fillableMarket(snap: MarketSnapshot, now: bigint): FillableMarket {
  return {
    maxLeverage: BigInt(snap.market.maxLeverage),
    maxPositionQty: snap.market.maxPositionQty,
    makerFeeBps: BigInt(snap.market.makerFeeBps),
    upliftBps: BigInt(snap.state.marginUpliftBps),
    cumulativeIndexX18: snap.state.cumulativeFundingIndexX18,
    open: snap.state.session === "OPEN",
    nowSeconds: now,
  };
}

/**
 * Up to `depth` levels of one side's orders (best price first, time order within a price), each
 * with the remaining size and count of its orders that could fill now; reads at most
 * MAX_DEPTH_ORDERS orders, as the chain's view does (a level cut there counts what was read of it).
 */
export function fillableLevels(orders: readonly BookOrder[], m: FillableMarket, markX18: bigint, depth: number): BookLevel[] {
  const out: BookLevel[] = [];
  const n = Math.min(orders.length, MAX_DEPTH_ORDERS);
  let i = 0;
  while (out.length < depth && i < n) {
    const priceX18 = orders[i]!.order.priceX18;
    let quantityQty = 0n;
    let orderCount = 0;
    for (; i < n && orders[i]!.order.priceX18 === priceX18; i++) {
      const { order, position } = orders[i]!;
      if (!fillable(order, position, m, markX18)) continue;
      quantityQty += order.leftQty;
      orderCount++;
    }
    if (orderCount !== 0) out.push({ priceX18, quantityQty, orderCount });
  }
  return out;
}

/** Both sides' fillable levels of a snapshot's book read (the statement's `__bids` / `__asks`). */
export function fillableBook(snap: MarketSnapshot, now: bigint, rawBids: unknown, rawAsks: unknown, depth: number): { bids: BookLevel[]; asks: BookLevel[] } {
  const m = fillableMarket(snap, now);
  return {
    bids: fillableLevels(bookOrders(rawBids, true), m, snap.markX18, depth),
    asks: fillableLevels(bookOrders(rawAsks, false), m, snap.markX18, depth),
  };
}
