/**
 * Market v2's modify (`Engine.modifyOrder`, one OrderModified, no LevelUpdated) as the index
 * follows it. On a venue of its own (nothing else trades), resting LIMIT orders modified straight
 * on the chain by their owner: by id and by client key, a smaller size at the same price (time
 * kept: the order stays ahead of a later one in its level), a larger size (tail), a new price
 * (the level it left and the one it joins, one of them emptied), a crossing price (reverts
 * PostOnlyWouldCross, nothing changes). After each step: every indexed order (the orders table
 * and GET /accounts/{id}/orders) equals the chain's getOrder (price, original and remaining size,
 * margin remaining to the wei), the stored levels (order_book_level) equal getLevels, GET
 * /markets/{id}/orderbook equals getFillableLevels at its block, the market state's resting
 * sizes are the levels' sums, and each modify has its order_modified_event row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { BaseError, ContractFunctionRevertedError, parseEventLogs, type Hex } from "viem";
import { engineAbi, marketAbi } from "../../abis/index.js";
import { secret } from "../../core/profiles.js";
import { createIndexerDb, schema, type IndexerDb } from "../../services/keeper/indexer/sql-client.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { px, sessionActions } from "./reads-session.js";
import { getOnce } from "./helpers/http.js";
import { mainKind } from "./stack.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Levels = [bigint[], bigint[], bigint[]];
const key = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
const ZERO_KEY = key(0);

describe.each([mainKind()])("modify: the index follows OrderModified on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let db: IndexerDb;
  let EUR: Hex;
  let actions: ReturnType<typeof sessionActions>;
  const [H, A] = [0, 1];
  const ids: Record<string, bigint> = {};
  let lot = 0n;

  const addressOf = (marketId: Hex) => v.deployment.markets.find((m) => m.marketId === marketId)!.marketAddress as Hex;
  const view = <T>(functionName: string, args: readonly unknown[] = [], at?: bigint) =>
    v.client.readContract({ address: addressOf(EUR), abi: marketAbi, functionName, args, ...(at === undefined ? {} : { blockNumber: at }) } as never) as Promise<T>;
  const levels = ([prices, qtys, counts]: Levels) => prices.map((p, i) => ({ price: p.toString(), quantity: qtys[i]!.toString(), orderCount: Number(counts[i]) }));
  const shown = (ls: Json[]) => ls.map((l) => ({ price: l.price, quantity: l.quantity, orderCount: l.orderCount }));
  const modify = (w: number, orderId: bigint, clientKey: Hex, price: string, remaining: bigint) =>
    actions.send(w, "modifyOrder", [v.accountIds[w]!, EUR, orderId, clientKey, px(price), remaining]);
  const placed = async (w: number, side: "LONG" | "SHORT", collateral: string, price: string, clientKey = ZERO_KEY) => {
    const r = await actions.place(w, EUR, side, "LIMIT", collateral, 10, price, clientKey);
    const [e] = parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderPlaced" });
    return e!.args.orderId;
  };

  /** The index at the chain's head equals the chain: orders, stored levels, fillable book, resting sizes. */
  const indexEqualsChain = async () => {
    const block = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(ix.url, block);
    const active = await db.select().from(schema.order).where(and(eq(schema.order.marketId, EUR), eq(schema.order.status, "active")));
    expect(active.length).toBeGreaterThan(0);
    for (const o of active) {
      const c = await view<Json>("getOrder", [o.orderId], block);
      expect({ order: o.orderId, price: o.priceX18, original: o.originalQty, remaining: o.remainingQty, filled: o.filledQty, margin: o.marginRemainingWad }).toEqual({
        order: o.orderId, price: c.priceX18, original: c.originalQty, remaining: c.remainingQty, filled: c.filledQty, margin: c.marginRemainingWad,
      });
    }
    // the answers show the same orders
    for (const w of [H, A]) {
      const res = await getOnce(`${ix.url}/accounts/${v.accountIds[w]}/orders?marketId=${EUR}&status=active&limit=1000&minBlock=${block}`, { headers: { "cache-control": "no-cache" } });
      const body = (await res.json()) as Json;
      expect(res.status, JSON.stringify(body)).toBe(200);
      for (const o of body.data.orders as Json[]) {
        const c = await view<Json>("getOrder", [BigInt(o.orderId)], block);
        expect({ price: o.price, original: o.originalQuantity, remaining: o.remainingQuantity }).toEqual({
          price: c.priceX18.toString(), original: c.originalQty.toString(), remaining: c.remainingQty.toString(),
        });
      }
    }
    // stored levels = getLevels
    const stored = await db.select().from(schema.orderBookLevel).where(eq(schema.orderBookLevel.marketId, EUR)).orderBy(asc(schema.orderBookLevel.priceX18));
    const side = (s: string, desc: boolean) => {
      const ls = stored.filter((l) => l.side === s).map((l) => ({ price: l.priceX18.toString(), quantity: l.quantityQty.toString(), orderCount: l.orderCount }));
      return desc ? ls.reverse() : ls;
    };
    const chainBids = levels(await view<Levels>("getLevels", [0, 100n], block));
    const chainAsks = levels(await view<Levels>("getLevels", [1, 100n], block));
    expect({ bids: side("LONG", true), asks: side("SHORT", false) }).toEqual({ bids: chainBids, asks: chainAsks });
    // the market state's resting sizes are the levels' sums
    const [st] = await db.select().from(schema.marketState).where(eq(schema.marketState.marketAddress, addressOf(EUR).toLowerCase() as Hex));
    const sum = (ls: { quantity: string }[]) => ls.reduce((a, l) => a + BigInt(l.quantity), 0n);
    expect({ bids: st!.restingBidQty, asks: st!.restingAskQty }).toEqual({ bids: sum(chainBids), asks: sum(chainAsks) });
    // the book answer = getFillableLevels at its block
    const res = await getOnce(`${ix.url}/markets/${EUR}/orderbook?depth=100&minBlock=${block}`, { headers: { "cache-control": "no-cache" } });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const at = BigInt(res.headers.get("x-indexed-block")!);
    expect({ bids: shown(body.data.bids), asks: shown(body.data.asks) }).toEqual({
      bids: levels(await view<Levels>("getFillableLevels", [0, 100n], at)),
      asks: levels(await view<Levels>("getFillableLevels", [1, 100n], at)),
    });
    return block;
  };
  const modifiedRows = (orderId: bigint) =>
    db.select().from(schema.orderModifiedEvent).where(eq(schema.orderModifiedEvent.orderId, orderId)).orderBy(asc(schema.orderModifiedEvent.seq));

  beforeAll(async () => {
    v = await startVenue(kind);
    ix = await v.startIndexer("modify");
    db = createIndexerDb(ix.url, { internalToken: secret("KEEPER_TOKEN", { ...process.env, PROFILE: "local" }) });
    EUR = v.deployment.markets[0]!.marketId as Hex;
    actions = sessionActions(v);
    lot = (await view<Json>("params")).lotSizeQty as bigint;
    await actions.setPrice(EUR, "1.0800");
    ids.h1 = await placed(H, "LONG", "1000", "1.0790", key(11));
    ids.a1 = await placed(A, "LONG", "500", "1.0790", key(21)); // behind H's at 1.0790
    ids.h2 = await placed(H, "LONG", "800", "1.0780");
    ids.h3 = await placed(H, "SHORT", "1000", "1.0810", key(13));
    ids.a2 = await placed(A, "SHORT", "600", "1.0820", key(22));
  }, 600_000);
  afterAll(async () => {
    await ix?.stop();
    await v?.stop();
  });

  it("the placed book is indexed as the chain has it", async () => {
    await indexEqualsChain();
  });

  it("a smaller size at the same price (by id): time kept, margin ceil-scaled, one level row changed", async () => {
    const before = await view<Json>("getOrder", [ids.h1]);
    const half = (before.remainingQty / 2n / lot) * lot;
    const r = await modify(H, ids.h1!, ZERO_KEY, "1.0790", half);
    const logs = parseEventLogs({ abi: marketAbi, logs: r.logs });
    expect(logs.map((l) => l.eventName)).not.toContain("LevelUpdated");
    const [e] = parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderModified" });
    expect(e!.args).toMatchObject({ orderId: ids.h1, remainingQty: half, priceX18: px("1.0790"), fromPriceX18: px("1.0790") });
    const block = await indexEqualsChain();
    const [row] = await modifiedRows(ids.h1!);
    expect(row).toMatchObject({ orderId: ids.h1, fromPriceX18: px("1.0790"), fromRemainingQty: before.remainingQty, remainingQty: half, keptPriority: true, blockNumber: block });
    expect(row!.marginRemainingWad).toBeLessThan(row!.fromMarginRemainingWad);
  });

  it("a new price by client key: it leaves its level and joins another (an emptied level is gone from the stored book)", async () => {
    const r = await modify(H, 0n, key(13), "1.0830", (await view<Json>("getOrder", [ids.h3])).remainingQty); // 1.0810 ask → 1.0830 (1.0810 emptied)
    const [e] = parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderModified" });
    expect(e!.args).toMatchObject({ orderId: ids.h3, fromPriceX18: px("1.0810"), fromTotalQty: 0n, fromOrderCount: 0n, levelOrderCount: 1n });
    await indexEqualsChain();
    const [row] = await modifiedRows(ids.h3!);
    expect(row).toMatchObject({ fromPriceX18: px("1.0810"), priceX18: px("1.0830"), keptPriority: false });
  });

  it("a larger size at the same price (tail) and a move into an existing level (by key), margins committed", async () => {
    const a1 = await view<Json>("getOrder", [ids.a1]);
    await modify(A, 0n, key(21), "1.0790", a1.remainingQty * 2n);
    await indexEqualsChain();
    // H's unkeyed 1.0780 bid joins 1.0790 by id; A's 1.0820 ask joins 1.0830 behind H's
    await modify(H, ids.h2!, ZERO_KEY, "1.0790", (await view<Json>("getOrder", [ids.h2])).remainingQty);
    await modify(A, ids.a2!, ZERO_KEY, "1.0830", (await view<Json>("getOrder", [ids.a2])).remainingQty - lot);
    await indexEqualsChain();
    expect(levels(await view<Levels>("getLevels", [0, 100n]))).toHaveLength(1);
    expect(levels(await view<Levels>("getLevels", [1, 100n]))).toEqual([expect.objectContaining({ price: px("1.0830").toString(), orderCount: 2 })]);
    const rows = await modifiedRows(ids.a1!);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.marginRemainingWad).toBeGreaterThan(rows[0]!.fromMarginRemainingWad);
  });

  it("a taker fills the modified orders in the chain's order; the index follows (maker margins to the wei)", async () => {
    // A long market order sweeps part of the 1.0830 asks (H's first there, then A's)
    await actions.place(H + 2, EUR, "LONG", "MARKET", "300", 10);
    await indexEqualsChain();
    // and a short one the 1.0790 bids (H's h1 kept its time ahead of A's a1; A's a1 moved to the tail, then h2 joined behind)
    await actions.place(H + 3, EUR, "SHORT", "MARKET", "300", 10);
    await indexEqualsChain();
    // H's h1 kept its time (a smaller size at the same price): it filled first, A's a1 (tail) after it
    const [h1, a1] = [await view<Json>("getOrder", [ids.h1]), await view<Json>("getOrder", [ids.a1])];
    expect(h1.filledQty).toBeGreaterThan(0n);
    if (h1.remainingQty > 0n) expect(a1.filledQty).toBe(0n);
  });

  it("a crossing price reverts PostOnlyWouldCross: nothing changes, nothing indexed", async () => {
    const before = await view<Json>("getOrder", [ids.h1]);
    const rows = (await modifiedRows(ids.h1!)).length;
    const err = await modify(H, ids.h1!, ZERO_KEY, "1.0830", before.remainingQty).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BaseError);
    const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    expect(reverted?.data?.errorName).toBe("PostOnlyWouldCross");
    expect(await view<Json>("getOrder", [ids.h1])).toEqual(before);
    await indexEqualsChain();
    expect(await modifiedRows(ids.h1!)).toHaveLength(rows);
  });
});
