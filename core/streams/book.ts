/**
 * A client's order book: a snapshot plus the `orderbook` channel's updates (a level with quantity
 * "0" is gone). The one implementation: the TypeScript client's `OrderBookView` (packages/client,
 * bundled in), the stream service's channel tests and the e2e tests' stream client.
 */

/** One price level as the orderbook channel sends it (decimal strings on the wire). */
export type BookLevel = { price: string; priceFormatted: string; quantity: string; quantityFormatted: string; orderCount: number };

/** A client's book after an update (the reference client of the docs and tests). */
export function applyBookUpdate(book: { bids: BookLevel[]; asks: BookLevel[] }, u: { bids: BookLevel[]; asks: BookLevel[] }) {
  const side = (levels: BookLevel[], changes: BookLevel[], desc: boolean) => {
    const m = new Map(levels.map((l) => [l.price, l]));
    for (const c of changes) {
      if (c.quantity === "0") m.delete(c.price);
      else m.set(c.price, c);
    }
    return [...m.values()].sort((a, b) => {
      const x = BigInt(a.price), y = BigInt(b.price);
      return (desc ? x < y : x > y) ? 1 : x === y ? 0 : -1;
    });
  };
  return { ...book, bids: side(book.bids, u.bids, true), asks: side(book.asks, u.asks, false) };
}
