/**
 * Issue 26's property on the reads: "reduce-only-without-position and under-margined orders never
 * count in the depth that reads show". On a venue of its own (nothing else trades), a book with an
 * honest maker's levels and orders that cannot fill: reduce-only bids of an account whose position
 * then went flat, a reduce-only bid of an account whose position turned to the bid's side, a
 * reduce-only ask of one that turned short, a bid at the maximum leverage (50× on EUR) above the
 * mark; and orders that can: a 50× bid well below the mark, a reduce-only ask that closes a long.
 * GET /markets/{id}/orderbook (Ponder's route and the read service) equals the market's
 * getFillableLevels(side, depth) at the block it reports, both sides, at several depths; the
 * unfillable levels the stored book (getLevels) has are absent; the price answer's best bid is the
 * fillable best. The indexer's order margins (orders.margin_remaining_wad) equal getOrder's,
 * partial fills included (a maker's twice, a taker's that rested its remainder).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Hex } from "viem";
import { marketAbi } from "../../abis/index.js";
import { secret } from "../../core/profiles.js";
import { createIndexerDb, schema } from "../../services/keeper/indexer/sql-client.js";
import { indexedBlock, startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { px, sessionActions } from "./reads-session.js";
import { getOnce } from "./helpers/http.js";
import { mainKind } from "./stack.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Levels = [bigint[], bigint[], bigint[]];
const LIMIT = 1;
const MARKET = 0;
const ZERO_KEY = `0x${"0".repeat(64)}` as Hex;

describe.each([mainKind()])("fillable depth on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let rd: { url: string };
  let EUR: Hex;
  let GBP: Hex;
  let block: bigint;
  const [H, R, S, X, Y, L] = [0, 1, 2, 3, 4, 5]; // honest maker, flat, turned long, 50× above the mark, 50× below it, turned short

  const addressOf = (marketId: Hex) => v.deployment.markets.find((m) => m.marketId === marketId)!.marketAddress as Hex;
  const view = <T>(marketId: Hex, functionName: string, args: readonly unknown[] = [], at = block) =>
    v.client.readContract({ address: addressOf(marketId), abi: marketAbi, functionName, args, blockNumber: at } as never) as Promise<T>;
  /** An answer of `base` and the block it reports; the venue is quiet, so every answer is at `block`. */
  const get = async (base: string, path: string) => {
    const res = await getOnce(`${base}${path}`, { headers: { "cache-control": "no-cache" } });
    const body = (await res.json()) as Json;
    expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(200);
    expect(res.headers.get("x-indexed-block"), path).toBe(block.toString());
    return body.data as Json;
  };
  const levels = ([prices, qtys, counts]: Levels) => prices.map((p, i) => ({ price: p.toString(), quantity: qtys[i]!.toString(), orderCount: Number(counts[i]) }));
  const shown = (ls: Json[]) => ls.map((l) => ({ price: l.price, quantity: l.quantity, orderCount: l.orderCount }));

  beforeAll(async () => {
    v = await startVenue(kind);
    ({ ix, rd } = await v.startIndexerAndReads("depth"));
    [EUR, GBP] = v.deployment.markets.map((m) => m.marketId as Hex) as [Hex, Hex];
    const { send, place, setPrice } = sessionActions(v);
    const id = (w: number) => v.accountIds[w]!;
    const close = (w: number, type: number, price = "0") => send(w, "closePosition", [id(w), EUR, type, px(price), ZERO_KEY]);

    await setPrice(EUR, "1.0800");
    // the honest maker's levels around the index (the mark's sample stays 0: the mark is the index)
    await place(H, EUR, "SHORT", "LIMIT", "2000", 10, "1.0810");
    await place(H, EUR, "SHORT", "LIMIT", "1000", 10, "1.0820");
    await place(H, EUR, "LONG", "LIMIT", "2000", 10, "1.0790");
    await place(H, EUR, "LONG", "LIMIT", "1000", 10, "1.0780");
    await place(H, EUR, "LONG", "LIMIT", "1000", 10, "1.0770");
    // L: long, a reduce-only ask, then short beyond it (the ask would now add to the short)
    await place(L, EUR, "LONG", "MARKET", "200", 10);
    await close(L, LIMIT, "1.0825");
    await place(L, EUR, "SHORT", "MARKET", "400", 10); // a first partial fill of H's 1.0790 bid
    // R and S short (two more partial fills of it)
    await place(R, EUR, "SHORT", "MARKET", "300", 10);
    await place(S, EUR, "SHORT", "MARKET", "300", 10);
    // R's reduce-only bids (one of them behind H's at 1.0790), S's; then R flat, S long beyond its short
    await close(R, LIMIT, "1.0795");
    await close(R, LIMIT, "1.0790");
    await close(S, LIMIT, "1.0798");
    await setPrice(EUR, "1.0800"); // fresh (the oracle's bound is 60 s)
    await close(R, MARKET);
    await place(S, EUR, "LONG", "MARKET", "600", 10);
    // S's reduce-only ask closes its long: it can fill
    await close(S, LIMIT, "1.0815");
    // 50× bids: above the mark (below initial margin at its fill), well below it (fills)
    await place(X, EUR, "LONG", "LIMIT", "1000", 50, "1.0801");
    await place(Y, EUR, "LONG", "LIMIT", "1000", 50, "1.0760");
    // GBP: a taker that crosses a level and rests its remainder (the taker's margin share)
    await setPrice(GBP, "1.2700");
    await place(H, GBP, "SHORT", "LIMIT", "500", 10, "1.2710");
    await place(L, GBP, "LONG", "LIMIT", "1000", 10, "1.2712");
    block = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(ix.url, block);
  }, 600_000);
  afterAll(async () => v?.stop());

  it("the book as stored holds the orders that cannot fill (the setup is what the test means)", async () => {
    const bids = levels(await view<Levels>(EUR, "getLevels", [0, 100n]));
    expect(bids.map((l) => l.price)).toEqual(["1.0801", "1.0798", "1.0795", "1.079", "1.078", "1.077", "1.076"].map((p) => px(p).toString()));
    expect(bids[3]!.orderCount).toBe(2); // H's and R's reduce-only one
    const asks = levels(await view<Levels>(EUR, "getLevels", [1, 100n]));
    expect(asks.map((l) => l.price)).toEqual(["1.081", "1.0815", "1.082", "1.0825"].map((p) => px(p).toString()));
    // the 50× bid is above the mark; R is flat, S long, L short
    expect(await view<bigint>(EUR, "markPrice")).toBeLessThan(px("1.0801"));
    const size = async (w: number) => ((await view<Json>(EUR, "getPosition", [v.accountIds[w]!])).sizeQty as bigint);
    expect(await size(R)).toBe(0n);
    expect(await size(S)).toBeGreaterThan(0n);
    expect(await size(L)).toBeLessThan(0n);
  });

  it("GET /markets/{id}/orderbook equals getFillableLevels at its block, both sides, at each depth, on both servers", async () => {
    for (const marketId of [EUR, GBP]) {
      for (const depth of [1, 2, 3, 100]) {
        const want = {
          bids: levels(await view<Levels>(marketId, "getFillableLevels", [0, BigInt(depth)])),
          asks: levels(await view<Levels>(marketId, "getFillableLevels", [1, BigInt(depth)])),
        };
        for (const base of [ix.url, rd.url]) {
          const book = await get(base, `/markets/${marketId}/orderbook?depth=${depth}`);
          expect({ bids: shown(book.bids), asks: shown(book.asks) }, `${marketId} depth ${depth} at ${base}`).toEqual(want);
        }
      }
    }
  });

  it("the unfillable levels are absent and a level counts only its fillable orders; the price answer's best bid is the fillable best", async () => {
    const book = await get(ix.url, `/markets/${EUR}/orderbook?depth=100`);
    expect(shown(book.bids).map((l) => l.price)).toEqual(["1.079", "1.078", "1.077", "1.076"].map((p) => px(p).toString()));
    expect(book.bids[0].orderCount).toBe(1); // R's reduce-only bid behind H's is not counted
    expect(shown(book.asks).map((l) => l.price)).toEqual(["1.081", "1.0815", "1.082"].map((p) => px(p).toString()));
    const [fillableBid] = await view<Levels>(EUR, "getFillableLevels", [0, 1n]);
    const [fillableAsk] = await view<Levels>(EUR, "getFillableLevels", [1, 1n]);
    for (const base of [ix.url, rd.url]) {
      const price = await get(base, `/markets/${EUR}/price`);
      expect(price.bestBid).toBe(fillableBid[0]!.toString());
      expect(price.bestBid).toBe(px("1.0790").toString());
      expect(price.bestAsk).toBe(fillableAsk[0]!.toString());
      expect(price.markPrice).toBe((await view<bigint>(EUR, "markPrice")).toString());
    }
    // the stored book's best bid is X's 50× one
    const [rawBid] = await view<Levels>(EUR, "getLevels", [0, 1n]);
    expect(rawBid[0]).toBe(px("1.0801"));
  });

  it("every resting order's margin equals the chain's getOrder(...).marginRemainingWad, partial fills included", async () => {
    const db = createIndexerDb(ix.url, { internalToken: secret("KEEPER_TOKEN", { ...process.env, PROFILE: "local" }) });
    expect(BigInt(await indexedBlock(ix.url))).toBe(block);
    const active = await db.select().from(schema.order).where(eq(schema.order.status, "active"));
    expect(active.length).toBe(13);
    for (const o of active) {
      const c = await view<Json>(o.marketId as Hex, "getOrder", [o.orderId]);
      expect({ order: o.orderId, margin: o.marginRemainingWad, remaining: o.remainingQty }).toEqual({ order: o.orderId, margin: c.marginRemainingWad, remaining: c.remainingQty });
    }
    // what the mirror had to follow: H's 1.0790 bid after three maker fills, L's GBP bid after its sweep
    const partial = active.filter((o) => o.filledQty > 0n && o.marginRemainingWad > 0n);
    expect(partial.map((o) => [o.marketId, o.priceX18])).toEqual(expect.arrayContaining([[EUR, px("1.0790")], [GBP, px("1.2712")]]));
    const h = partial.find((o) => o.marketId === EUR)!;
    expect(h.fillCount).toBe(3);
    expect(h.marginRemainingWad).toBeLessThan(h.marginAllocatedWad);
  });
});
