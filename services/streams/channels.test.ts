import { describe, expect, it } from "vitest";
import { applyBookUpdate } from "../../core/streams/book.js";
import { applyWrite, orderbook, RECENT_WRITES, trades } from "./channels.js";

/** A deterministic PRNG (mulberry32). */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const level = (p: number, q: number) => ({ price: String(p), priceFormatted: String(p), quantity: String(q), quantityFormatted: String(q), orderCount: 1 + (q % 3) });
function randomBook(r: () => number, depth: number) {
  const side = (lo: number, desc: boolean) => {
    const prices = new Set<number>();
    const n = Math.floor(r() * 15);
    while (prices.size < n) prices.add(lo + Math.floor(r() * 30));
    const ls = [...prices].map((p) => level(p, 1 + Math.floor(r() * 5)));
    ls.sort((a, b) => (desc ? Number(b.price) - Number(a.price) : Number(a.price) - Number(b.price)));
    return ls.slice(0, depth);
  };
  return { marketId: "0x", bids: side(100, true), asks: side(131, false) };
}

describe("orderbook channel", () => {
  it("snapshot + diffs reproduce every book (random sequences, depth-truncated views)", () => {
    const r = prng(7);
    for (let run = 0; run < 200; run++) {
      const depth = 1 + Math.floor(r() * 10);
      const def = orderbook("0x", depth);
      let prev = randomBook(r, depth);
      let client = structuredClone(def.snapshot(prev)) as typeof prev;
      for (let step = 0; step < 10; step++) {
        const next = randomBook(r, depth);
        client = applyBookUpdate(client, def.diff(prev, next) as never) as typeof prev;
        expect(client.bids).toEqual(next.bids);
        expect(client.asks).toEqual(next.asks);
        prev = next;
      }
    }
  });
});

describe("trades channel", () => {
  const t = (id: string, blockNumber: number) => ({ id, blockNumber, logIndex: 0, transactionHash: `0x${id}` });
  const def = trades("0x");
  it("sends only new fills, and names the block before a vanished one as the common ancestor", () => {
    const a = { trades: [t("b", 11), t("a", 10)], full: false };
    const b = { trades: [t("c", 12), t("b", 11), t("a", 10)], full: false };
    expect((def.diff(a, b) as { trades: unknown[] }).trades).toEqual([t("c", 12)]);
    expect(def.orphaned!(a, b)).toBeNull();
    // block 11 replaced: its fill is gone, another one at 12 took its place
    const c = { trades: [t("d", 12), t("a", 10)], full: false };
    expect(def.orphaned!(b, c)).toBe(10n);
    // a full window that pushed old fills out is not a reorg
    const d = { trades: [t("e", 13), t("c", 12)], full: true };
    expect(def.orphaned!(b, d)).toBeNull();
  });
});

describe("transactions channel", () => {
  const tx = (i: number, status: string) => ({ requestId: `r${i}`, status });
  it("keeps every write not final and the last RECENT_WRITES, newest first; a change replaces its write in place", () => {
    let s = { transactions: [tx(0, "SENT"), ...Array.from({ length: RECENT_WRITES }, (_, i) => tx(i + 1, "CONFIRMED"))] };
    s = applyWrite(s, tx(99, "QUEUED"));
    expect(s.transactions.map((t) => t.requestId)).toEqual(["r99", "r0", ...Array.from({ length: RECENT_WRITES }, (_, i) => `r${i + 1}`)]);
    s = applyWrite(s, tx(0, "CONFIRMED"));
    expect(s.transactions[1]).toEqual(tx(0, "CONFIRMED"));
    expect(s.transactions).toHaveLength(RECENT_WRITES + 1); // r99 is open, the 20 newest final (r20 dropped)
    expect(s.transactions.at(-1)!.requestId).toBe(`r${RECENT_WRITES - 1}`);
    s = applyWrite(s, tx(99, "FAILED"));
    expect(s.transactions).toHaveLength(RECENT_WRITES);
    expect(s.transactions[0]).toEqual(tx(99, "FAILED"));
  });
});
