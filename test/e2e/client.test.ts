/**
 * The TypeScript client (packages/client, issue 30) against the real shared stack: every method of
 * the integration client (sign-in with a viem account, reads, writes, history, exports), of the
 * gateway client (an API key; /v1's liquidation and health routes too) and of the stream client
 * at least once. Read-your-writes: a read right after a write sees it. The live order book, through
 * a client-side transport that drops one update (no test switch in the server), goes stale,
 * resumes and then equals REST's book at each of the next blocks.
 *
 * Wallets: two fresh random ones (ether from anvil_setBalance, USDV minted by the deployer, as
 * the liquidation files do), so nothing another file relies on is touched. (The brief's "wallets
 * 13 and 14" are the stack's price-feed and market-maker keys, core/config.ts KEY_INDEX: the
 * keeper sends with them all the time.)
 */
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { maxUint256, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { depositTokenAbi } from "../../abis/index.js";
import { createApiKey } from "../../scripts/lib/api-keys.js";
import {
  GatewayClient, OrderBookView, StreamClient, VenueApiError, VenueClient, VenueInputError, amount6, meta, order, roundToTick, streamsOf,
  type BookLevel, type OperatorTypedData, type WebSocketLike, type WriteStatus,
} from "../../packages/client/src/index.js";
import { publicClient, walletClient } from "./helpers/chain.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";
import { until } from "./helpers/wait.js";

/** Signs the relayer's operator approval (EIP-712) as the server hands it out. */
async function signApproval(a: PrivateKeyAccount, td: OperatorTypedData) {
  const { EIP712Domain: _, ...types } = td.types;
  const m = td.message;
  const signature = await a.signTypedData({
    domain: { ...td.domain, verifyingContract: td.domain.verifyingContract as Hex },
    types, primaryType: "OperatorApproval",
    message: { ...m, expiry: BigInt(m.expiry), nonce: BigInt(m.nonce), deadline: BigInt(m.deadline) },
  });
  return { expiry: m.expiry, deadline: m.deadline, maxLeverage: m.maxLeverage, bandBps: m.bandBps, budgetBps: m.budgetBps, signature };
}

/** A WebSocket (ws) that drops the `n`-th `update` message it receives, and records what the client sends. */
function droppingTransport(n: number) {
  const state = { updates: 0, dropped: [] as Record<string, unknown>[], sent: [] as Record<string, unknown>[] };
  const factory = (url: string): WebSocketLike => {
    const real = new WebSocket(url);
    const w: WebSocketLike = {
      get readyState() {
        return real.readyState;
      },
      send: (d: string) => {
        state.sent.push(JSON.parse(d));
        real.send(d);
      },
      close: (code?: number, reason?: string) => real.close(code, reason),
      onopen: null, onmessage: null, onclose: null, onerror: null,
    };
    real.onopen = (e) => w.onopen?.(e);
    real.onerror = (e) => w.onerror?.(e);
    real.onclose = (e) => w.onclose?.({ code: e.code, reason: String(e.reason) });
    real.onmessage = (e) => {
      const m = JSON.parse(String(e.data));
      if (m.type === "update" && ++state.updates === n) {
        state.dropped.push(m);
        return;
      }
      w.onmessage?.({ data: String(e.data) });
    };
    return w;
  };
  return { state, factory };
}

describe.each([sharedStack()])("client package on $kind", (s: StackInfo) => {
  const client = publicClient(s);
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD")!.marketId.toLowerCase() as Hex;
  const keyA = generatePrivateKey();
  const keyB = generatePrivateKey();
  const A = privateKeyToAccount(keyA);
  const B = privateKeyToAccount(keyB);
  const wsBase = s.streamsUrl.replace(/^http/, "ws");
  const gwWs = s.gatewayUrl.replace(/^http/, "ws") + "/v1/ws";
  let venue: VenueClient;
  let gw: GatewayClient;
  let apiKeyB = "";
  let idA = 0;
  let idB = 0;
  const streams: StreamClient[] = [];

  const fund = async (key: Hex) => {
    const a = privateKeyToAccount(key);
    await client.request({ method: "anvil_setBalance" as never, params: [a.address, "0x8AC7230489E80000"] as never });
    const deployer = walletClient(s, s.keys.deployer);
    await client.waitForTransactionReceipt({
      hash: await deployer.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "mint", args: [a.address, amount6("10000")] }),
    });
    const me = walletClient(s, key);
    await client.waitForTransactionReceipt({
      hash: await me.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "approve", args: [s.deployment.contracts.engine, maxUint256] }),
    });
  };
  afterAll(() => {
    for (const c of streams) c.close();
  });

  it("setup: two fresh funded wallets; an API key for B", async () => {
    await fund(keyA);
    await fund(keyB);
    apiKeyB = await createApiKey(s.gatewayUrl, s.adminToken, B.address, "client-e2e");
    venue = new VenueClient({ baseUrl: s.integrationUrl, signer: A });
    gw = new GatewayClient({ baseUrl: s.gatewayUrl, apiKey: apiKeyB, retry: { retries: 3 } });
  });

  it("integration reads: markets, market, funding, book, price, insurance fund; the rate-limit headers on every answer", async () => {
    const { markets } = await venue.markets();
    expect(markets.map((m) => m.marketId.toLowerCase())).toContain(eur);
    const m = await venue.market(eur);
    expect(m.symbol).toBe("EUR/USD");
    expect(meta(m)).toMatchObject({ status: 200 });
    expect(meta(m)!.rateLimit.limit).toBeGreaterThan(0);
    expect(meta(m)!.indexedBlock).toBeGreaterThan(0);
    const book = await venue.orderBook(eur, { depth: 5 });
    expect(book.bids.length).toBeGreaterThan(0); // the keeper's market maker quotes
    expect(book.bids.length).toBeLessThanOrEqual(5);
    expect((await venue.funding(eur)).marketId.toLowerCase()).toBe(eur);
    expect(BigInt((await venue.price(eur)).markPrice)).toBeGreaterThan(0n);
    expect((await venue.insuranceFund()).updatedBlock).toBeGreaterThanOrEqual(0);
    const page = await venue.historyPage("insuranceHistory", undefined, { limit: 2 });
    expect(Array.isArray(page.items)).toBe(true);
    for await (const e of venue.insuranceHistory({ limit: 50 })) expect(e.id).toBeTruthy();
    await expect(venue.account(999_999)).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND", status: 404 });
    expect(await venue.accountByAddress(A.address)).toMatchObject({ exists: false, accountId: 0 });
  });

  it("sign-in (nonce, EIP-4361, token), whoami; creates an account with the relayer approved, deposits, withdraws", async () => {
    const n = await venue.nonce();
    expect(n.chainId).toBe(s.chainId);
    const t = await venue.signIn();
    expect(t.address.toLowerCase()).toBe(A.address.toLowerCase());
    expect((await venue.whoami()).address.toLowerCase()).toBe(A.address.toLowerCase());
    const td = await venue.operatorTypedData({ owner: A.address });
    const statuses: WriteStatus[] = [];
    const created = await venue.createAccount({ userAddress: A.address, operatorApproval: await signApproval(A, td) }, { onStatus: (x) => statuses.push(x) });
    idA = created.accountId;
    expect(idA).toBeGreaterThan(0);
    expect(statuses.at(-1)).toMatchObject({ transactionStatus: "CONFIRMED" });
    // read-your-writes: the very next reads see the account (minBlock = the write's block)
    expect(venue.minBlock).toBe(created.blockNumber);
    expect(await venue.accountByAddress(A.address)).toMatchObject({ exists: true, accountId: idA });
    const ops = await venue.accountOperators(idA);
    expect(ops.operators.some((o) => o.active), JSON.stringify({ ops, meta: meta(ops), created })).toBe(true);
    const dep = await venue.deposit(idA, amount6("3000"), { untilFinal: true });
    expect(dep).toMatchObject({ depositedAmount: "3000000000", final: true });
    expect((await venue.account(idA)).margin.availableFormatted).toBe("3000");
    await venue.withdraw(idA, amount6("1"));
    expect((await venue.account(idA)).margin.availableFormatted).toBe("2999");
    // following it to final (CONFIRMATIONS is 1 on the local profile: final at once)
    expect(await venue.follow(dep.requestId, { until: "final" })).toMatchObject({ transactionStatus: "CONFIRMED", final: true });
    // a second approval of the relayer (a new signature nonce) through POST /operators/approve
    const again = await signApproval(A, await venue.operatorTypedData({ owner: A.address }));
    expect((await venue.approveOperator({ owner: A.address, ...again })).owner.toLowerCase()).toBe(A.address.toLowerCase());
    // signed out, the next write signs in again by itself (a local account)
    venue.signOut();
    expect(venue.session!.token).toBeUndefined();
    expect((await venue.whoami()).address.toLowerCase()).toBe(A.address.toLowerCase());
    expect(venue.session!.token).toBeDefined();
    const tx = await venue.transaction(dep.requestId);
    expect(tx).toMatchObject({ transactionStatus: "CONFIRMED", kind: "deposit" });
    await expect(venue.cancelTransaction(dep.requestId)).rejects.toMatchObject({ code: "NOT_CANCELLABLE" });
  });

  it("integration trading: a resting limit order seen at once, cancelled; a market order fills; margin; close; refusals before sending", async () => {
    const rules = await venue.market(eur);
    const mark = BigInt((await venue.price(eur)).markPrice);
    const price = roundToTick((mark * 9_960n) / 10_000n, BigInt(rules.tickSize)); // 40 bps below the mark: rests
    const placed = await venue.placeOrder(idA, order.limit({ marketId: eur, side: "LONG", collateral: amount6("100"), leverage: 2, price }));
    const open = [];
    for await (const o of venue.orders(idA, { status: "active" })) open.push(o.clientKey);
    expect(open).toContain(placed.clientKey);
    const cancelled = await venue.cancelOrder(idA, eur, placed.clientKey as Hex);
    expect(cancelled.clientKey).toBe(placed.clientKey);
    expect((await venue.ordersPage(idA, { status: "cancelled", marketId: eur })).orders.map((o) => o.clientKey)).toContain(placed.clientKey);

    const sent = venue.http.last;
    await expect(venue.placeOrder(idA, { ...order.market({ marketId: eur, side: "LONG", collateral: amount6("1"), leverage: 2 }), price: 1n })).rejects.toBeInstanceOf(VenueInputError);
    await expect(venue.placeOrder(idA, order.market({ marketId: eur, side: "LONG", collateral: amount6("1"), leverage: rules.maxLeverage + 1 }))).rejects.toMatchObject({ code: "EXCEEDS_MAX_LEVERAGE" });
    expect(venue.http.last).toBe(sent); // nothing was sent

    const filled = await until("a market order filled", () => venue.placeOrder(idA, order.market({ marketId: eur, side: "LONG", collateral: amount6("100"), leverage: 2 })), 30_000);
    const pos = await venue.position(idA, eur);
    expect(pos).toMatchObject({ isOpen: true, side: "LONG" });
    expect(filled.blockNumber).toBeLessThanOrEqual(meta(pos)!.indexedBlock!);
    expect((await venue.positionFunding(idA, eur)).marketId.toLowerCase()).toBe(eur);
    const margin = await venue.adjustMargin(idA, eur, "ADD", amount6("10"));
    expect(margin.blockNumber).toBeGreaterThan(0);
    await expect(venue.withdraw(idA, amount6("1000000"))).rejects.toMatchObject({ code: "INSUFFICIENT_MARGIN" });
    const closed = await until("a close filled", () => venue.closePosition(idA, eur, { type: "MARKET" }), 30_000);
    expect(closed.closingSide).toBe("SHORT");
    expect(await venue.position(idA, eur)).toMatchObject({ isOpen: false });
  });

  it("history: every list iterates by cursor; fills export as CSV and NDJSON streams", async () => {
    const fills = [];
    for await (const f of venue.fills(idA, { limit: 1 })) fills.push(f); // one item per page: the cursor walks
    expect(fills.length).toBeGreaterThanOrEqual(2);
    expect(new Set(fills.map((f) => f.id)).size).toBe(fills.length);
    const transfers = [];
    for await (const t of venue.transfers(idA)) transfers.push(t.type);
    expect(transfers).toEqual(["WITHDRAWAL", "DEPOSIT"]);
    const orders = [];
    for await (const o of venue.orderHistory(idA, { marketId: eur })) orders.push(o.status);
    expect(orders.length).toBeGreaterThanOrEqual(3);
    for await (const _ of venue.liquidations(idA)) throw new Error("no liquidation expected");
    for await (const p of venue.fundingPayments(idA)) expect(p.marketId).toBeTruthy();
    let trades = 0;
    for await (const t of venue.trades(eur, { limit: 100 })) if (++trades >= 150) break; // more than a page, then stop early
    expect(trades).toBeGreaterThan(0);
    const rates = await venue.historyPage("fundingHistory", eur, { limit: 5 });
    expect(rates.items.length).toBeLessThanOrEqual(5);
    for await (const r of venue.fundingHistory(eur, { limit: 3 })) if (r) break;
    const candles = [];
    for await (const c of venue.candles(eur, { resolution: "1h", limit: 3 })) if (candles.push(c) >= 3) break;
    expect(candles.length).toBeGreaterThan(0);
    // PnL lists whole periods: none has ended since the account's first block
    const pnlPage = await venue.historyPage("pnl", idA, { resolution: "1h", limit: 2 });
    expect(pnlPage).toMatchObject({ hasMore: false, nextCursor: null });
    for await (const p of venue.pnl(idA, { resolution: "1d" })) expect(BigInt(p.equity)).toBeGreaterThan(0n);

    const csv = await new Response(await venue.export("fills", idA, "csv", { from: new Date(Date.now() - 31 * 86_400_000) })).text();
    const lines = csv.trim().split("\n");
    expect(lines.length).toBe(fills.length + 1); // header + one line per fill
    const items: { id: string; blockNumber: number; logIndex: number }[] = [];
    for await (const i of venue.exportItems<{ id: string; blockNumber: number; logIndex: number }>("fills", idA)) items.push(i);
    expect(items.map((i) => i.id).sort()).toEqual(fills.map((f) => f.id).sort());
    // an export runs oldest first (src/api/lib/exports.ts), the pages newest first
    const at = (i: { blockNumber: number; logIndex: number }) => i.blockNumber * 1e6 + i.logIndex;
    expect(items.map(at)).toEqual([...items.map(at)].sort((a, b) => a - b));
    expect(fills.map(at)).toEqual([...fills.map(at)].sort((a, b) => b - a));
  });

  it("gateway: health, reads, an account by API key, trading, liquidation routes, history and export", async () => {
    expect(await gw.health()).toMatchObject({ service: "gateway" });
    expect(await gw.serviceHealth("relayer")).toMatchObject({ service: "relayer" });
    const td = await gw.operatorTypedData({ owner: B.address });
    const approval = await signApproval(B, td);
    const created = await gw.createAccount({ owner: B.address, operatorApproval: approval });
    idB = created.accountId;
    expect(idB).toBeGreaterThan(idA);
    expect(await gw.accountByAddress(B.address)).toMatchObject({ exists: true, accountId: idB });
    expect((await gw.accountOperators(idB)).operators.length).toBeGreaterThan(0);
    // a second approval (a new signature nonce) through /v1/operators/approve
    const again = await signApproval(B, await gw.operatorTypedData({ owner: B.address }));
    const approved = await gw.approveOperator({ owner: B.address, ...again });
    expect(approved.owner.toLowerCase()).toBe(B.address.toLowerCase());
    await gw.deposit(idB, amount6("2000"));
    await gw.withdraw(idB, amount6("2"));
    expect((await gw.account(idB)).margin.availableFormatted).toBe("1998");
    const { markets } = await gw.markets();
    expect(markets.length).toBeGreaterThan(0);
    const rules = await gw.market(eur);
    expect((await gw.orderBook(eur, { depth: 3 })).asks.length).toBeLessThanOrEqual(3);
    expect((await gw.funding(eur)).direction).toMatch(/PAY|NEUTRAL/);
    const mark = BigInt((await gw.price(eur)).markPrice);
    expect((await gw.insuranceFund()).balance).toMatch(/^\d+$/);

    const price = roundToTick((mark * 10_040n) / 10_000n, BigInt(rules.tickSize)); // a resting ask
    const placed = await gw.placeOrder(idB, order.limit({ marketId: eur, side: "SHORT", collateral: amount6("50"), leverage: 2, price }));
    expect((await gw.ordersPage(idB, { status: "active" })).orders.map((o) => o.clientKey)).toContain(placed.clientKey);
    const c = await gw.cancelOrder(idB, eur, placed.clientKey as Hex);
    expect(c.orderId).toBe(placed.orderId);
    const t = await gw.transaction(c.requestId);
    expect(t.transactionStatus).toBe("CONFIRMED");
    await expect(gw.cancelTransaction(c.requestId)).rejects.toMatchObject({ code: "NOT_CANCELLABLE" });

    await until("a gateway market order filled", () => gw.placeOrder(idB, order.market({ marketId: eur, side: "SHORT", collateral: amount6("50"), leverage: 2 })), 30_000);
    const pos = await gw.position(idB, eur);
    expect(pos).toMatchObject({ isOpen: true, side: "SHORT" });
    expect((await gw.positionFunding(idB, eur)).accountId).toBe(idB);
    await gw.adjustMargin(idB, eur, "ADD", amount6("5"));
    expect(await gw.accountHealth(idB)).toBeTruthy();
    expect(await gw.marketLiquidations(eur)).toBeTruthy();
    expect(await gw.accountLiquidationData(idB)).toBeTruthy();
    expect(await gw.positionLiquidationData(pos.positionId as Hex)).toBeTruthy();
    await expect(gw.liquidateAccount(idB)).rejects.toMatchObject({ code: "NOT_LIQUIDATABLE" });
    await expect(gw.liquidatePosition(pos.positionId as Hex)).rejects.toMatchObject({ code: "NOT_LIQUIDATABLE" });
    await until("a gateway close filled", () => gw.closePosition(idB, eur, { type: "MARKET" }), 30_000);
    expect(await gw.position(idB, eur)).toMatchObject({ isOpen: false });

    const fills = [];
    for await (const f of gw.fills(idB, { marketId: eur })) fills.push(f);
    expect(fills.length).toBeGreaterThanOrEqual(2);
    expect(fills[0]).toHaveProperty("timestampISO"); // camelCase, from /v1's snake_case
    const csv = await new Response(await gw.export("fills", idB, "csv")).text();
    expect(csv.trim().split("\n").length).toBe(fills.length + 1);
    const page = await gw.historyPage("transfers", idB, { limit: 1 });
    expect(page.items).toHaveLength(1);
    expect(page.hasMore).toBe(true);
    expect(meta(page)!.rateLimit.limit).toBeGreaterThan(0);
    // a bad key: a typed 401
    await expect(new GatewayClient({ baseUrl: s.gatewayUrl, apiKey: "vgw_nope" }).account(idB)).rejects.toMatchObject({ code: "UNAUTHENTICATED", status: 401 });
  });

  it("streams: account fills and the gateway's transactions channel follow writes", async () => {
    const acct = streamsOf(venue, { url: `${wsBase}/ws` });
    streams.push(acct);
    const fills: string[] = [];
    let snapshot = false;
    const sub = acct.subscribe<{ fills?: { orderId: string }[] }>({ channel: "account", accountId: idA }, {
      snapshot: () => (snapshot = true),
      update: (m) => m.data.fills?.forEach((f) => fills.push(f.orderId)),
    });
    await until("the account snapshot", async () => snapshot, 20_000);
    const tx = new StreamClient({ url: gwWs, apiKey: apiKeyB });
    streams.push(tx);
    const statuses: string[] = [];
    const txSub = tx.subscribe<{ transactions?: { requestId: string; status: string }[] }>({ channel: "transactions" }, {
      update: (m) => m.data.transactions?.forEach((t) => statuses.push(`${t.requestId}:${t.status}`)),
      snapshot: () => statuses.push("snapshot"),
    });
    await until("the transactions snapshot", async () => statuses.includes("snapshot"), 20_000);
    const filled = await until("a market order filled", () => venue.placeOrder(idA, order.market({ marketId: eur, side: "SHORT", collateral: amount6("20"), leverage: 2 })), 30_000);
    await until("its fill on the account stream", async () => fills.includes(filled.orderId), 20_000);
    const dep = await gw.deposit(idB, amount6("1"));
    await until("the gateway write CONFIRMED on the transactions stream", async () => statuses.includes(`${dep.requestId}:CONFIRMED`), 20_000);
    sub.unsubscribe();
    txSub.unsubscribe();
    await until("a close filled", () => venue.closePosition(idA, eur, { type: "MARKET" }), 30_000);
  });

  it("the live book: a dropped update makes it stale, it resumes, then equals REST at each of the next blocks", async () => {
    const drop = droppingTransport(2);
    const sc = new StreamClient({ url: `${wsBase}/ws`, webSocket: drop.factory });
    streams.push(sc);
    await sc.connect();
    const pong = new Promise((r) => sc.on("message", (m) => m.type === "pong" && r(m)));
    sc.send({ op: "ping" });
    expect(await pong).toMatchObject({ type: "pong" });
    const book: OrderBookView = sc.orderBook(eur, 10);
    const events: string[] = [];
    book.on("stale", () => events.push("stale"));
    book.on("resynced", () => events.push("resynced"));
    const changed = () => new Promise<void>((r) => book.once("change", () => r()));
    const rules = await venue.market(eur);
    const tick = BigInt(rules.tickSize);

    /** REST's book at the view's block: the view catches up with REST, or REST with the view. */
    const equalAtSameBlock = async () => {
      for (let i = 0; i < 60; i++) {
        const res = await fetch(`${s.integrationUrl}/markets/${eur}/orderbook?depth=10&minBlock=${Math.max(book.blockNumber, 0)}`);
        const restBlock = Number(res.headers.get("x-indexed-block"));
        const rest = ((await res.json()) as { data: { bids: BookLevel[]; asks: BookLevel[] } }).data;
        while (book.blockNumber < restBlock || book.stale) await Promise.race([changed(), new Promise((r) => setTimeout(r, 2_000))]);
        if (book.blockNumber !== restBlock) continue; // the stream moved past REST's answer: ask REST again
        expect({ bids: book.bids, asks: book.asks }).toEqual({ bids: rest.bids, asks: rest.asks });
        expect(book.bestBid).toBe(rest.bids[0] ? BigInt(rest.bids[0].price) : null);
        expect(book.bestAsk).toBe(rest.asks[0] ? BigInt(rest.asks[0].price) : null);
        expect(book.levels("bids").map((l) => l.quantity)).toEqual(rest.bids.map((l) => BigInt(l.quantity)));
        return restBlock;
      }
      throw new Error("the stream's book and REST never described the same block");
    };

    // writes that change the book, one block each, until the transport has dropped an update
    const keys: Hex[] = [];
    let n = 0;
    /** places a resting bid when none is out, else cancels it: the book changes at each write's block */
    const step = async () => {
      n++;
      if (keys.length) return void (await venue.cancelOrder(idA, eur, keys.shift()!));
      const mark = BigInt((await venue.price(eur)).markPrice);
      const price = roundToTick((mark * BigInt(9_950 + n)) / 10_000n, tick);
      keys.push((await venue.placeOrder(idA, order.limit({ marketId: eur, side: "LONG", collateral: amount6("20"), leverage: 2, price }))).clientKey as Hex);
    };
    await until("the book's snapshot", async () => !book.stale, 20_000);
    expect(events).toEqual(["resynced"]); // from stale (nothing yet) to its snapshot
    events.length = 0;
    for (let i = 0; drop.state.dropped.length === 0 && i < 20; i++) await step();
    expect(drop.state.dropped).toHaveLength(1);
    await until("the book resynced", async () => events.includes("resynced"), 30_000);
    expect(events.slice(0, 2)).toEqual(["stale", "resynced"]);
    const resume = drop.state.sent.filter((m) => m.op === "subscribe" && m.resume);
    expect(resume).toHaveLength(1);
    expect(drop.state.sent.some((m) => m.op === "unsubscribe")).toBe(true);

    const blocks: number[] = [];
    for (let i = 0; i < 20; i++) {
      await step();
      blocks.push(await equalAtSameBlock());
    }
    while (keys.length) await venue.cancelOrder(idA, eur, keys.shift()!);
    await equalAtSameBlock();
    expect(new Set(blocks).size).toBe(blocks.length); // a new block each time
    expect(book.stale).toBe(false);
    book.close();
  });

  it("errors carry the envelope's code as typed classes", async () => {
    const e = await venue.placeOrder(idA, order.market({ marketId: `0x${"77".repeat(32)}`, side: "LONG", collateral: 1n, leverage: 1 })).catch((x) => x);
    expect(e).toBeInstanceOf(VenueApiError);
    expect(e).toMatchObject({ code: "MARKET_NOT_FOUND", status: 404 });
  });
});
