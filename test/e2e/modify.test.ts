/**
 * Market v2's modify (`Engine.modifyOrder`, one OrderModified, no LevelUpdated) as the index
 * follows it. On a venue of its own (nothing else trades), resting LIMIT orders modified straight
 * on the chain by their owner: by id and by client key, a smaller size at the same price (time
 * kept: the order stays ahead of a later one in its level), a larger size (tail), a new price
 * (the level it left and the one it joins, one of them emptied), a crossing price (reverts
 * PostOnlyWouldCross, nothing changes), and a cancel of several (Engine.cancelOrders: one
 * OrdersCancelled, no OrderClosed or LevelUpdated). After each step: every indexed order (the orders table
 * and GET /accounts/{id}/orders) equals the chain's getOrder (price, original and remaining size,
 * margin remaining to the wei), the stored levels (order_book_level) equal getLevels, GET
 * /markets/{id}/orderbook equals getFillableLevels at its block, the market state's resting
 * sizes are the levels' sums, and each modify has its order_modified_event row.
 * Then both write surfaces on the shared stack (relayer, gateway; the market maker quotes
 * meanwhile, so every comparison is at the block an answer reports): POST
 * /accounts/{id}/orders/modify (by clientKey, by orderId) and POST /v1/accounts/{id}/orders/modify
 * (snake_case); after each the indexed order equals getOrder and the book answer getFillableLevels;
 * a crossing price is 409 POST_ONLY_WOULD_CROSS, a price off the tick 400 INVALID_PRICE, a size
 * off the lot 400 VALIDATION_ERROR, an unknown order 404 ORDER_NOT_FOUND: nothing sent, nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq, inArray } from "drizzle-orm";
import { BaseError, ContractFunctionRevertedError, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { depositTokenAbi, marketAbi } from "../../abis/index.js";
import { secret } from "../../core/profiles.js";
import { createIndexerDb, schema, type IndexerDb } from "../../services/keeper/indexer/sql-client.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { px, sessionActions } from "./reads-session.js";
import { gatewayClient, getOnce, integrationClient, signIn } from "./helpers/http.js";
import { sharedStack } from "./helpers/stacks.js";
import { StreamClient } from "./helpers/stream-client.js";
import { publicClient, walletClient } from "./helpers/chain.js";
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

  it("a cancel of several (Engine.cancelOrders: one OrdersCancelled, no OrderClosed or LevelUpdated): each order closed with its remaining size and margin, its levels follow", async () => {
    // two bids at a new level and one at another, then all three cancelled at once
    const more = [await placed(H, "LONG", "100", "1.0785"), await placed(H, "LONG", "100", "1.0785"), await placed(H, "LONG", "100", "1.0775")];
    await indexEqualsChain();
    const before = await Promise.all(more.map((id) => view<Json>("getOrder", [id])));
    const r = await actions.send(H, "cancelOrders", [v.accountIds[H]!, EUR, more]);
    const [e] = parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrdersCancelled" });
    expect(e!.args.orderIds).toEqual(more);
    expect(parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderClosed" })).toEqual([]);
    expect(parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "LevelUpdated" })).toEqual([]);
    await indexEqualsChain();
    const rows = await db.select().from(schema.order).where(inArray(schema.order.orderId, more));
    for (const [i, id] of more.entries()) {
      const row = rows.find((o) => o.orderId === id)!;
      expect({ status: row.status, reason: row.closeReason, remaining: row.remainingQty, cancelled: row.cancelledQty, returned: row.marginReturnedWad }).toEqual({
        status: "cancelled", reason: "USER_CANCEL", remaining: 0n, cancelled: before[i]!.remainingQty, returned: before[i]!.marginRemainingWad,
      });
    }
    expect(rows.reduce((a, o) => a + (o.marginReturnedWad ?? 0n), 0n)).toBe(e!.args.marginReturnedWad);
    // the emptied levels are gone from the stored book
    const stored = await db.select().from(schema.orderBookLevel).where(and(eq(schema.orderBookLevel.marketId, EUR), inArray(schema.orderBookLevel.priceX18, [px("1.0785"), px("1.0775")])));
    expect(stored).toEqual([]);
  });

  it("the indexed queue is the chain's: a larger size puts an earlier order behind a later one (queueSeq, not the order id); a taker fills the level in that order", async () => {
    // a fresh level between the book's sides: H's bid, then A's behind it
    ids.x1 = await placed(H, "LONG", "500", "1.0800");
    ids.y1 = await placed(A, "LONG", "500", "1.0800");
    const x1 = await view<Json>("getOrder", [ids.x1]);
    await modify(H, ids.x1!, ZERO_KEY, "1.0800", x1.remainingQty * 2n); // H's grows: to the tail, behind A's
    await indexEqualsChain();
    const queue = async () =>
      (await db.select().from(schema.order)
        .where(and(eq(schema.order.marketId, EUR), eq(schema.order.status, "active"), eq(schema.order.side, "LONG"), eq(schema.order.priceX18, px("1.0800"))))
        .orderBy(asc(schema.order.queueSeq))).map((o) => o.orderId);
    const indexed = await queue();
    expect(indexed).toEqual([ids.y1, ids.x1]); // the ids are the other way round
    expect(ids.x1!).toBeLessThan(ids.y1!);
    // a short taker smaller than A's bid: the chain fills the head of the level's queue
    const r = await actions.place(H + 3, EUR, "SHORT", "MARKET", "100", 10);
    const makers = parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderFilled" }).map((e) => e.args.makerOrderId);
    expect(makers.length).toBeGreaterThan(0);
    expect(makers).toEqual(indexed.slice(0, makers.length));
    expect((await view<Json>("getOrder", [ids.x1])).filledQty).toBe(0n);
    await indexEqualsChain();
  });

  it("every order answer shows its modifications, and GET /accounts/{id}/orders/modifications lists them (newest first, by order, paged) as the chain emitted them", async () => {
    const block = await indexEqualsChain();
    const get = async (path: string) => {
      const res = await getOnce(`${ix.url}${path}${path.includes("?") ? "&" : "?"}minBlock=${block}`, { headers: { "cache-control": "no-cache" } });
      return { status: res.status, body: (await res.json()) as Json };
    };
    for (const w of [H, A]) {
      const account = v.accountIds[w]!;
      const rows = await db.select().from(schema.orderModifiedEvent).where(eq(schema.orderModifiedEvent.accountId, account));
      expect(rows.length).toBeGreaterThan(0);
      const byOrder = new Map<string, typeof rows>();
      for (const r of [...rows].sort((a, b) => Number(a.seq - b.seq))) byOrder.set(r.orderId.toString(), [...(byOrder.get(r.orderId.toString()) ?? []), r]);
      const expected = (orderId: string) => {
        const mine = byOrder.get(orderId) ?? [];
        const last = mine.at(-1);
        return { modificationCount: mine.length, modifiedAt: last ? Number(last.timestamp) : null, modifiedBlock: last ? Number(last.blockNumber) : null };
      };
      // the orders read (all statuses) and the order history
      const list = await get(`/accounts/${account}/orders?marketId=${EUR}&limit=1000`);
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      const history = await get(`/accounts/${account}/orders/history?marketId=${EUR}&limit=1000`);
      expect(history.status, JSON.stringify(history.body)).toBe(200);
      for (const o of [...(list.body.data.orders as Json[]), ...(history.body.data.orders as Json[])]) {
        expect({ orderId: o.orderId, modificationCount: o.modificationCount, modifiedAt: o.modifiedAt, modifiedBlock: o.modifiedBlock }).toEqual({ orderId: o.orderId, ...expected(o.orderId) });
        expect(o.modifiedAtISO).toBe(o.modifiedAt === null ? null : new Date(o.modifiedAt * 1000).toISOString());
      }
      expect((list.body.data.orders as Json[]).some((o) => o.modificationCount > 0)).toBe(true);
      // the account's modifications, newest first: each as its row
      const all = await get(`/accounts/${account}/orders/modifications?limit=1000`);
      expect(all.status, JSON.stringify(all.body)).toBe(200);
      const items = all.body.data.modifications as Json[];
      const want = [...rows].sort((a, b) => (a.timestamp !== b.timestamp ? Number(b.timestamp - a.timestamp) : a.blockNumber !== b.blockNumber ? Number(b.blockNumber - a.blockNumber) : b.logIndex - a.logIndex));
      expect(items.map((i) => [i.orderId, i.fromPrice, i.price, i.fromRemainingQuantity, i.remainingQuantity, i.originalQuantity, i.marginRemaining, i.keptPriority, i.blockNumber, i.transactionHash])).toEqual(
        want.map((r) => [r.orderId.toString(), r.fromPriceX18.toString(), r.priceX18.toString(), r.fromRemainingQty.toString(), r.remainingQty.toString(), r.originalQty.toString(), r.marginRemainingWad.toString(), r.keptPriority, Number(r.blockNumber), r.transactionHash]),
      );
      // each is the chain's OrderModified of its transaction (log index, post-state)
      for (const i of items) {
        const receipt = await v.client.getTransactionReceipt({ hash: i.transactionHash });
        const [e] = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrderModified" }).filter((l) => l.logIndex === i.logIndex);
        expect(e, `${i.transactionHash}#${i.logIndex}`).toBeDefined();
        expect({ orderId: e!.args.orderId.toString(), price: e!.args.priceX18.toString(), fromPrice: e!.args.fromPriceX18.toString(), remaining: e!.args.remainingQty.toString(), margin: e!.args.marginRemainingWad.toString() }).toEqual({
          orderId: i.orderId, price: i.price, fromPrice: i.fromPrice, remaining: i.remainingQuantity, margin: i.marginRemaining,
        });
      }
      // one order's, and page by page (limit 1) the same
      for (const [orderId, mine] of byOrder) {
        const one = await get(`/accounts/${account}/orders/modifications?orderId=${orderId}`);
        expect(one.status, JSON.stringify(one.body)).toBe(200);
        expect((one.body.data.modifications as Json[]).map((i) => i.blockNumber)).toEqual([...mine].reverse().map((r) => Number(r.blockNumber)));
      }
      const paged: Json[] = [];
      let cursor: string | null = null;
      do {
        const p = await get(`/accounts/${account}/orders/modifications?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
        expect(p.status, JSON.stringify(p.body)).toBe(200);
        paged.push(...(p.body.data.modifications as Json[]));
        cursor = p.body.data.nextCursor;
      } while (cursor);
      expect(paged).toEqual(items);
      // another market's: none
      const gbp = await get(`/accounts/${account}/orders/modifications?marketId=${v.deployment.markets[1]!.marketId}`);
      expect([gbp.status, gbp.body.data?.modifications]).toEqual([200, []]);
    }
    // an order of another account: 404 ORDER_NOT_FOUND; a malformed id 400; an unknown account 404
    const other = await get(`/accounts/${v.accountIds[H]}/orders/modifications?orderId=${ids.a1}`);
    expect([other.status, other.body.error?.code]).toEqual([404, "ORDER_NOT_FOUND"]);
    const bad = await get(`/accounts/${v.accountIds[H]}/orders/modifications?orderId=abc`);
    expect([bad.status, bad.body.error?.code]).toEqual([400, "VALIDATION_ERROR"]);
    const nobody = await get(`/accounts/999999/orders/modifications`);
    expect([nobody.status, nobody.body.error?.code]).toEqual([404, "ACCOUNT_NOT_FOUND"]);
  });
});

const usd = (v: string) => parseUnits(v, 6);

describe.each([sharedStack()])("modify through the integration API and /v1 ($kind)", (s) => {
  const api = integrationClient(s);
  const gw = gatewayClient(s);
  const client = publicClient(s);
  const engine = s.deployment.contracts.engine;
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD") ?? s.deployment.markets[0]!;
  const EUR = eur.marketId as Hex;
  const eurAddress = eur.marketAddress as Address;
  const relayer = privateKeyToAccount(s.keys.relayer).address;
  const wKey = generatePrivateKey();
  const W = privateKeyToAccount(wKey);
  let token = "";
  let id = 0;
  let gwKey = "";
  let tick = 0n;
  let lot = 0n;
  const KEY = `0x${"7e".repeat(32)}` as Hex;
  let orderId = "";

  const read = <T>(functionName: string, args: readonly unknown[] = [], at?: bigint) =>
    client.readContract({ address: eurAddress, abi: marketAbi, functionName, args, ...(at === undefined ? {} : { blockNumber: at }) } as never) as Promise<T>;
  const atTick = (p: bigint) => (p / tick) * tick;
  const mark = () => read<bigint>("markPrice");
  const relayerNonce = () => client.getTransactionCount({ address: relayer, blockTag: "pending" });
  const levels = ([prices, qtys, counts]: Levels) => prices.map((p, i) => ({ price: p.toString(), quantity: qtys[i]!.toString(), orderCount: Number(counts[i]) }));
  const bestAsk = async () => (await read<Levels>("getLevels", [1, 1n]))[0][0] ?? 0n;
  const modify = (body: Json, headers: Record<string, string> = {}) =>
    api("POST", `/accounts/${id}/orders/modify`, { token, body: { marketId: EUR, ...body }, headers });
  const modifyV1 = (body: Json) => gw("POST", `/v1/accounts/${id}/orders/modify`, { key: gwKey, body: { market_id: EUR, ...body } });

  /** The indexed order (the API's answer at `minBlock` or later) equals getOrder at the block it reports; the book answer equals getFillableLevels at its block. */
  const indexedEqualsChain = async (minBlock: number | bigint) => {
    const res = await fetch(`${s.integrationUrl}/accounts/${id}/orders?marketId=${EUR}&status=active&limit=1000&minBlock=${minBlock}`, {
      headers: { authorization: `Bearer ${token}`, "cache-control": "no-cache" },
    });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const at = BigInt(res.headers.get("x-indexed-block")!);
    const o = (body.data.orders as Json[]).find((x) => x.orderId === orderId);
    const c = await read<Json>("getOrder", [BigInt(orderId)], at);
    expect({ price: o?.price, original: o?.originalQuantity, remaining: o?.remainingQuantity }).toEqual({
      price: c.priceX18.toString(), original: c.originalQty.toString(), remaining: c.remainingQty.toString(),
    });
    const book = await fetch(`${s.integrationUrl}/markets/${EUR}/orderbook?depth=100&minBlock=${minBlock}`, { headers: { "cache-control": "no-cache" } });
    const b = (await book.json()) as Json;
    expect(book.status, JSON.stringify(b)).toBe(200);
    const bAt = BigInt(book.headers.get("x-indexed-block")!);
    const shown = (ls: Json[]) => ls.map((l) => ({ price: l.price, quantity: l.quantity, orderCount: l.orderCount }));
    expect({ bids: shown(b.data.bids), asks: shown(b.data.asks) }).toEqual({
      bids: levels(await read<Levels>("getFillableLevels", [0, 100n], bAt)),
      asks: levels(await read<Levels>("getFillableLevels", [1, 100n], bAt)),
    });
    return c;
  };

  beforeAll(async () => {
    const params = await read<Json>("params");
    [tick, lot] = [params.tickSizeX18, params.lotSizeQty];
    await client.request({ method: "anvil_setBalance" as never, params: [W.address, "0x8AC7230489E80000"] as never });
    const funder = walletClient(s, s.wallets[9]!.privateKey);
    await client.waitForTransactionReceipt({
      hash: await funder.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "transfer", args: [W.address, usd("20000")] }),
    });
    const me = walletClient(s, wKey);
    await client.waitForTransactionReceipt({
      hash: await me.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "approve", args: [engine, usd("20000")] }),
    });
    token = await signIn(s, W);
    const td = await api("GET", `/operators/typed-data?owner=${W.address}`);
    const { domain, types, message } = td.body.data;
    const { EIP712Domain: _, ...rest } = types;
    const signature = await W.signTypedData({
      domain, types: rest, primaryType: "OperatorApproval",
      message: { ...message, expiry: BigInt(message.expiry), nonce: BigInt(message.nonce), deadline: BigInt(message.deadline) },
    });
    const r = await api("POST", "/accounts", { token, body: { userAddress: W.address, operatorApproval: { expiry: message.expiry, deadline: message.deadline, signature } } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    id = r.body.data.accountId;
    const d = await api("POST", `/accounts/${id}/deposit`, { token, body: { amount: usd("10000").toString() } });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    const created = await fetch(`${s.gatewayUrl}/admin/keys`, {
      method: "POST",
      headers: { "X-Admin-Token": s.adminToken, "content-type": "application/json" },
      body: JSON.stringify({ wallet: W.address, label: "e2e modify" }),
    });
    gwKey = ((await created.json()) as { data: { key: string } }).data.key;
    // W's bid half a percent under the mark, keyed
    const p = atTick(((await mark()) * 995n) / 1000n);
    const placed = await api("POST", `/accounts/${id}/orders`, {
      token, body: { marketId: EUR, side: "LONG", orderType: "LIMIT", limitPrice: p.toString(), collateralAmount: usd("200").toString(), leverage: 5, clientKey: KEY },
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    expect(placed.body.data.orderStatus).toBe("active");
    orderId = placed.body.data.orderId;
  }, 180_000);
  afterAll(async () => {
    if (id) await api("DELETE", `/accounts/${id}/orders/${KEY}?marketId=${EUR}`, { token });
  });

  it("by clientKey (integration API): a smaller size at the same price; the answer is the chain's OrderModified, the index follows", async () => {
    const before = await read<Json>("getOrder", [BigInt(orderId)]);
    const quantity = ((before.remainingQty / 2n) / lot) * lot;
    const r = await modify({ clientKey: KEY, price: before.priceX18.toString(), quantity: quantity.toString() }, { "Idempotency-Key": `modify-${orderId}-1` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const d = r.body.data;
    expect(d).toMatchObject({ orderId, clientKey: KEY, marketId: EUR, price: before.priceX18.toString(), fromPrice: before.priceX18.toString(), remainingQuantity: quantity.toString(), transactionStatus: "CONFIRMED" });
    // the same key and body again: the same answer, nothing sent
    const nonce = await relayerNonce();
    const again = await modify({ clientKey: KEY, price: before.priceX18.toString(), quantity: quantity.toString() }, { "Idempotency-Key": `modify-${orderId}-1` });
    expect(again.body.data.transactionHash).toBe(d.transactionHash);
    expect(await relayerNonce()).toBe(nonce);
    const c = await indexedEqualsChain(d.blockNumber);
    expect(c.marginRemainingWad.toString()).toBe(d.marginRemaining);
    expect(c.marginRemainingWad).toBeLessThan(before.marginRemainingWad);
    // the log: one OrderModified, no LevelUpdated
    const logs = parseEventLogs({ abi: marketAbi, logs: (await client.getTransactionReceipt({ hash: d.transactionHash })).logs });
    expect(logs.filter((l) => l.eventName === "OrderModified")).toHaveLength(1);
    expect(logs.filter((l) => l.eventName === "LevelUpdated")).toHaveLength(0);
  });

  it("by order_id (/v1): a new price (it moves level); snake_case answer; the index follows", async () => {
    const before = await read<Json>("getOrder", [BigInt(orderId)]);
    const p = atTick(((await mark()) * 994n) / 1000n);
    expect(p).not.toBe(before.priceX18);
    const r = await modifyV1({ order_id: orderId, price: p.toString(), quantity: before.remainingQty.toString() });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ order_id: orderId, client_key: null, market_id: EUR, price: p.toString(), from_price: before.priceX18.toString(), remaining_quantity: before.remainingQty.toString() });
    const c = await indexedEqualsChain(r.body.data.block_number);
    expect(c.priceX18).toBe(p);
    expect(c.marginRemainingWad.toString()).toBe(r.body.data.margin_remaining);
  });

  it("a crossing price: 409 POST_ONLY_WOULD_CROSS on both surfaces, nothing sent, nothing changed", async () => {
    const before = await read<Json>("getOrder", [BigInt(orderId)]);
    const nonce = await relayerNonce();
    const ask = await bestAsk();
    expect(ask).toBeGreaterThan(0n);
    const r = await modify({ orderId, price: ask.toString(), quantity: before.remainingQty.toString() });
    expect([r.status, r.body.error?.code], JSON.stringify(r.body)).toEqual([409, "POST_ONLY_WOULD_CROSS"]);
    const v = await modifyV1({ client_key: KEY, price: ask.toString(), quantity: before.remainingQty.toString() });
    expect([v.status, v.body.error?.code], JSON.stringify(v.body)).toEqual([409, "POST_ONLY_WOULD_CROSS"]);
    expect(await relayerNonce()).toBe(nonce);
    expect(await read<Json>("getOrder", [BigInt(orderId)])).toEqual(before);
  });

  it("bad input: off the tick 400 INVALID_PRICE, off the lot 400 VALIDATION_ERROR, both names 400, an unknown order 404 ORDER_NOT_FOUND: nothing sent", async () => {
    const before = await read<Json>("getOrder", [BigInt(orderId)]);
    const nonce = await relayerNonce();
    const q = before.remainingQty.toString();
    const offTick = await modify({ orderId, price: (before.priceX18 + 1n).toString(), quantity: q });
    expect([offTick.status, offTick.body.error?.code], JSON.stringify(offTick.body)).toEqual([400, "INVALID_PRICE"]);
    const zero = await modify({ orderId, price: "0", quantity: q });
    expect([zero.status, zero.body.error?.code], JSON.stringify(zero.body)).toEqual([400, "INVALID_PRICE"]);
    const offLot = await modify({ orderId, price: before.priceX18.toString(), quantity: (before.remainingQty + 1n).toString() });
    expect([offLot.status, offLot.body.error?.code], JSON.stringify(offLot.body)).toEqual([400, "VALIDATION_ERROR"]);
    const both = await modify({ orderId, clientKey: KEY, price: before.priceX18.toString(), quantity: q });
    expect([both.status, both.body.error?.code], JSON.stringify(both.body)).toEqual([400, "VALIDATION_ERROR"]);
    const none = await modifyV1({ price: before.priceX18.toString(), quantity: q });
    expect([none.status, none.body.error?.code], JSON.stringify(none.body)).toEqual([400, "VALIDATION_ERROR"]);
    const unknown = await modify({ clientKey: `0x${"01".repeat(32)}`, price: before.priceX18.toString(), quantity: q });
    expect([unknown.status, unknown.body.error?.code], JSON.stringify(unknown.body)).toEqual([404, "ORDER_NOT_FOUND"]);
    const notMine = await modifyV1({ order_id: "1", price: before.priceX18.toString(), quantity: q });
    expect([notMine.status, notMine.body.error?.code], JSON.stringify(notMine.body)).toEqual([404, "ORDER_NOT_FOUND"]);
    expect(await relayerNonce()).toBe(nonce);
    expect(await read<Json>("getOrder", [BigInt(orderId)])).toEqual(before);
  });

  it("the order's modifications on both surfaces: the orders read and the order history (count, last time and block), the modifications list (camelCase and snake_case, by order)", async () => {
    // two modifies so far (by clientKey, then by order_id on /v1); the last one's block and time
    const rows = await fetch(`${s.integrationUrl}/accounts/${id}/orders/modifications?orderId=${orderId}&minBlock=${await client.getBlockNumber()}`, {
      headers: { authorization: `Bearer ${token}`, "cache-control": "no-cache" },
    });
    const list = (await rows.json()) as Json;
    expect(rows.status, JSON.stringify(list)).toBe(200);
    const mods = list.data.modifications as Json[];
    expect(mods).toHaveLength(2);
    const [last, first] = mods as [Json, Json];
    expect(first).toMatchObject({ orderId, marketId: EUR, keptPriority: true });
    expect(BigInt(first.remainingQuantity)).toBeLessThan(BigInt(first.fromRemainingQuantity));
    expect(last).toMatchObject({ orderId, fromPrice: first.price, keptPriority: false, fromRemainingQuantity: first.remainingQuantity });
    for (const m of mods) {
      const c = await read<Json>("getOrder", [BigInt(orderId)], BigInt(m.blockNumber));
      expect({ price: m.price, remaining: m.remainingQuantity, margin: m.marginRemaining }).toEqual({ price: c.priceX18.toString(), remaining: c.remainingQty.toString(), margin: c.marginRemainingWad.toString() });
    }
    const want = { modificationCount: 2, modifiedAt: last.timestamp, modifiedAtISO: last.timestampISO, modifiedBlock: last.blockNumber };
    const mine = (os: Json[]) => os.find((o) => o.orderId === orderId || o.order_id === orderId);
    const ordersRead = await api("GET", `/accounts/${id}/orders?marketId=${EUR}&status=active`, { token });
    expect(mine(ordersRead.body.data.orders)).toMatchObject(want);
    const history = await api("GET", `/accounts/${id}/orders/history?marketId=${EUR}`, { token });
    expect(mine(history.body.data.orders)).toMatchObject(want);
    // /v1, snake_case
    const snake = { modification_count: 2, modified_at: last.timestamp, modified_at_iso: last.timestampISO, modified_block: last.blockNumber };
    const v1Orders = await gw("GET", `/v1/accounts/${id}/orders?market_id=${EUR}&status=active`, { key: gwKey });
    expect(v1Orders.status, JSON.stringify(v1Orders.body)).toBe(200);
    expect(mine(v1Orders.body.data.orders)).toMatchObject(snake);
    const v1History = await gw("GET", `/v1/accounts/${id}/orders/history?market_id=${EUR}`, { key: gwKey });
    expect(mine(v1History.body.data.orders)).toMatchObject(snake);
    const v1Mods = await gw("GET", `/v1/accounts/${id}/orders/modifications?order_id=${orderId}`, { key: gwKey });
    expect(v1Mods.status, JSON.stringify(v1Mods.body)).toBe(200);
    expect(v1Mods.body.data).toMatchObject({ has_more: false, next_cursor: null });
    expect(v1Mods.body.data.modifications.map((m: Json) => [m.order_id, m.from_price, m.price, m.from_remaining_quantity, m.remaining_quantity, m.kept_priority, m.block_number, m.transaction_hash])).toEqual(
      mods.map((m) => [m.orderId, m.fromPrice, m.price, m.fromRemainingQuantity, m.remainingQuantity, m.keptPriority, m.blockNumber, m.transactionHash]),
    );
    const v1NotMine = await gw("GET", `/v1/accounts/${id}/orders/modifications?order_id=1`, { key: gwKey });
    expect([v1NotMine.status, v1NotMine.body.error?.code]).toEqual([404, "ORDER_NOT_FOUND"]);
    // the OpenAPI documents describe the route and the fields
    const doc = (await (await fetch(`${s.integrationUrl}/openapi.json`)).json()) as Json;
    expect(doc.paths).toHaveProperty(["/accounts/{accountId}/orders/modifications"]);
    expect(doc.components.schemas.Order.properties).toHaveProperty("modificationCount");
    const v1Doc = (await (await fetch(`${s.gatewayUrl}/v1/openapi.json`)).json()) as Json;
    expect(v1Doc.paths).toHaveProperty(["/v1/accounts/{account_id}/orders/modifications"]);
    expect(JSON.stringify(v1Doc.components.schemas)).toContain("modification_count");
  });

  it("batch items (both surfaces): MODIFY by key OK with its OrderModified fields, a crossing one FAILED POST_ONLY_WOULD_CROSS, one off the lot FAILED VALIDATION_ERROR (as its single write); the index follows", async () => {
    const before = await read<Json>("getOrder", [BigInt(orderId)]);
    const smaller = before.remainingQty - lot;
    const ask = await bestAsk();
    const r = await api("POST", `/accounts/${id}/orders/batch`, {
      token,
      body: {
        items: [
          { action: "MODIFY", marketId: EUR, clientKey: KEY, price: before.priceX18.toString(), quantity: smaller.toString() },
          { action: "MODIFY", marketId: EUR, orderId, price: ask.toString(), quantity: smaller.toString() },
          // off the lot: the chain says OrderTooSmall; the item answers as the single write (400 VALIDATION_ERROR)
          { action: "MODIFY", marketId: EUR, orderId, price: before.priceX18.toString(), quantity: (smaller + 1n).toString() },
        ],
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.items[2]).toMatchObject({ index: 2, action: "MODIFY", status: "FAILED", code: "VALIDATION_ERROR" });
    expect(r.body.data.items[2].message).toContain("lot");
    expect(r.body.data.items[0]).toMatchObject({ index: 0, action: "MODIFY", status: "OK", orderId, remainingQuantity: smaller.toString(), price: before.priceX18.toString() });
    expect(r.body.data.items[1]).toMatchObject({ index: 1, action: "MODIFY", status: "FAILED", code: "POST_ONLY_WOULD_CROSS" });
    const c = await indexedEqualsChain(r.body.data.blockNumber);
    expect(c.remainingQty).toBe(smaller);
    // /v1: by order_id, a tick further from the book
    const p = before.priceX18 - tick;
    const v = await gw("POST", `/v1/accounts/${id}/orders/batch`, {
      key: gwKey, body: { items: [{ action: "MODIFY", market_id: EUR, order_id: orderId, price: p.toString(), quantity: smaller.toString() }] },
    });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(v.body.data.items[0], JSON.stringify(v.body.data.items[0])).toMatchObject({ action: "MODIFY", status: "OK", order_id: orderId, price: p.toString(), from_price: before.priceX18.toString() });
    expect((await indexedEqualsChain(v.body.data.block_number)).priceX18).toBe(p);
  });

  it("an atomic batch's CANCEL and MODIFY items are checked before sending (unknown order, another account's, off the tick, off the lot, cancelled earlier in the batch): the item's error names it, nothing sent; items after a PLACE of the same key pass", async () => {
    const before = await read<Json>("getOrder", [BigInt(orderId)]);
    const q = before.remainingQty.toString();
    const p = before.priceX18.toString();
    const nonce = await relayerNonce();
    const atomic = (items: Json[]) => api("POST", `/accounts/${id}/orders/batch`, { token, body: { atomic: true, items } });
    const bid = atTick(((await mark()) * 996n) / 1000n).toString(); // within the operator band
    const K2 = `0x${"7f".repeat(32)}` as Hex;
    const place = { action: "PLACE", marketId: EUR, side: "LONG", orderType: "LIMIT", limitPrice: bid, collateralAmount: usd("100").toString(), leverage: 5, clientKey: K2 };
    const cases: [Json[], number, string, string][] = [
      [[{ action: "MODIFY", marketId: EUR, clientKey: `0x${"01".repeat(32)}`, price: p, quantity: q }], 404, "ORDER_NOT_FOUND", "items.0 (MODIFY)"],
      [[{ action: "MODIFY", marketId: EUR, orderId, price: p, quantity: q }, { action: "CANCEL", marketId: EUR, orderId: "1" }], 404, "ORDER_NOT_FOUND", "items.1 (CANCEL)"],
      [[{ action: "MODIFY", marketId: EUR, orderId: "1", price: p, quantity: q }], 404, "ORDER_NOT_FOUND", "items.0 (MODIFY)"],
      [[place, { action: "MODIFY", marketId: EUR, orderId, price: (before.priceX18 + 1n).toString(), quantity: q }], 400, "INVALID_PRICE", "items.1 (MODIFY)"],
      [[{ action: "MODIFY", marketId: EUR, clientKey: KEY, price: p, quantity: (before.remainingQty + 1n).toString() }], 400, "VALIDATION_ERROR", "items.0 (MODIFY)"],
      [[{ action: "CANCEL", marketId: EUR, clientKey: KEY }, { action: "MODIFY", marketId: EUR, orderId, price: p, quantity: q }], 404, "ORDER_NOT_FOUND", "items.1 (MODIFY)"],
      [[place, { action: "CANCEL", marketId: EUR, clientKey: K2 }, { action: "MODIFY", marketId: EUR, clientKey: K2, price: bid, quantity: q }], 404, "ORDER_NOT_FOUND", "items.2 (MODIFY)"],
    ];
    for (const [items, status, code, named] of cases) {
      const r = await atomic(items);
      expect([r.status, r.body.error?.code], JSON.stringify(r.body)).toEqual([status, code]);
      expect(r.body.error!.message).toContain(named);
    }
    const v = await gw("POST", `/v1/accounts/${id}/orders/batch`, {
      key: gwKey, body: { atomic: true, items: [{ action: "CANCEL", market_id: EUR, order_id: "1" }] },
    });
    expect([v.status, v.body.error?.code], JSON.stringify(v.body)).toEqual([404, "ORDER_NOT_FOUND"]);
    expect(await relayerNonce()).toBe(nonce);
    expect(await read<Json>("getOrder", [BigInt(orderId)])).toEqual(before);
    // an order placed by an earlier item may be modified and cancelled by later ones (by its key): sent, all OK
    const ok = await atomic([place, { action: "MODIFY", marketId: EUR, clientKey: K2, price: bid, quantity: q }, { action: "CANCEL", marketId: EUR, clientKey: K2 }]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toMatchObject({ atomic: true, succeeded: 3, failed: 0, transactionStatus: "CONFIRMED" });
    // atomic=false: as a bad PLACE item, each bad item is sent and answers FAILED with its code, the others go through
    const loose = await api("POST", `/accounts/${id}/orders/batch`, {
      token,
      body: { items: [{ action: "MODIFY", marketId: EUR, clientKey: `0x${"01".repeat(32)}`, price: p, quantity: q }, { action: "MODIFY", marketId: EUR, orderId, price: p, quantity: q }] },
    });
    expect(loose.status, JSON.stringify(loose.body)).toBe(200);
    expect(loose.body.data.items.map((i: Json) => [i.status, i.code])).toEqual([["FAILED", "ORDER_NOT_FOUND"], ["OK", undefined]]);
    await indexedEqualsChain(loose.body.data.blockNumber);
  });

  it("each batch item answers from its own events: PLACE k, CANCEL k, PLACE k are two orders (each active when placed); two MODIFYs of one order answer each its own price", async () => {
    const bid = atTick(((await mark()) * 996n) / 1000n); // within the operator band
    const K3 = `0x${"6e".repeat(32)}` as Hex;
    const place = { action: "PLACE", marketId: EUR, side: "LONG", orderType: "LIMIT", limitPrice: bid.toString(), collateralAmount: usd("100").toString(), leverage: 5, clientKey: K3 };
    const r = await api("POST", `/accounts/${id}/orders/batch`, { token, body: { items: [place, { action: "CANCEL", marketId: EUR, clientKey: K3 }, place] } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [first, cancel, second] = r.body.data.items as [Json, Json, Json];
    expect(first).toMatchObject({ status: "OK", clientKey: K3, orderStatus: "active" });
    expect(cancel).toMatchObject({ status: "OK", orderId: first.orderId });
    expect(second).toMatchObject({ status: "OK", clientKey: K3, orderStatus: "active" });
    expect(second.orderId).not.toBe(first.orderId);
    expect(await read<bigint>("orderIdOf", [BigInt(id), K3])).toBe(BigInt(second.orderId));

    const [p1, p2] = [bid - tick, bid - 2n * tick];
    const m = await api("POST", `/accounts/${id}/orders/batch`, {
      token,
      body: { items: [p1, p2].map((p) => ({ action: "MODIFY", marketId: EUR, orderId: second.orderId, price: p.toString(), quantity: second.size })) },
    });
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body.data.items.map((i: Json) => [i.status, i.price, i.fromPrice])).toEqual([
      ["OK", p1.toString(), bid.toString()],
      ["OK", p2.toString(), p1.toString()],
    ]);
    await indexedEqualsChain(m.body.data.blockNumber);
    const done = await api("DELETE", `/accounts/${id}/orders/${K3}?marketId=${EUR}`, { token });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
  });

  it("the account stream carries a modify: its order's new price and size in the account channel's orders", async () => {
    const c = await StreamClient.open(`${s.streamsUrl!.replace(/^http/, "ws")}/ws`, { Authorization: `Bearer ${token}` });
    try {
      const sub = await c.subscribe({ channel: "account", accountId: id });
      const before = await read<Json>("getOrder", [BigInt(orderId)]);
      const p = before.priceX18 - 2n * tick;
      const quantity = before.remainingQty - lot;
      const r = await modify({ orderId, price: p.toString(), quantity: quantity.toString() });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const streamed = () => {
        const o = sub.data?.orders as Json | Json[] | undefined;
        return ((Array.isArray(o) ? o : o?.orders) as Json[] | undefined)?.find((x) => x.orderId === orderId);
      };
      await c.until(() => streamed()?.price === p.toString(), 30_000);
      expect(streamed()).toMatchObject({ price: p.toString(), remainingQuantity: quantity.toString(), status: "active", modifiedBlock: r.body.data.blockNumber });
      expect(streamed()!.modificationCount).toBeGreaterThanOrEqual(3);
      expect(sub.block).toBeGreaterThanOrEqual(BigInt(r.body.data.blockNumber));
    } finally {
      c.close();
    }
  });
});
