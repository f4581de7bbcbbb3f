/**
 * The stream service (issue 14) on the real stack: a client applying snapshot + updates holds,
 * at the block of its last message, exactly what the REST routes answer at that block (book,
 * trades, market, account) through a session of writes (limit, market, cancel, close, funding
 * poke); a dropped message (test hook) is detected by its sequence number and resumed; another
 * wallet's token is refused on an account channel; limits; malformed messages and abrupt
 * disconnects leave no subscription behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUnits, type Hex } from "viem";
import WebSocket from "ws";
import { devAccount } from "../../core/config.js";
import { issueToken } from "../../core/auth/siwe.js";
import { publicClient } from "./helpers/chain.js";
import { jsonClient } from "./helpers/http.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";
import { StreamClient, type SubState } from "./helpers/stream-client.js";
import { until } from "./helpers/wait.js";

const WALLET = 3; // account 4 in the harness
const OTHER = 2;

/** How long a mined write may take to reach the stream (with two busy loops beside a full e2e run, one took over 20 s). */
const WRITE_SEEN_MS = 60_000;

describe.each([sharedStack()])("streams on $kind", (s: StackInfo) => {
  const wsUrl = () => `${s.streamsUrl!.replace(/^http/, "ws")}/ws`;
  const api = jsonClient(s.integrationUrl);
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD")!.marketId.toLowerCase() as Hex;
  const me = devAccount(WALLET);
  const accountId = s.wallets[WALLET]!.accountId!;
  let token = "";
  let c: StreamClient;
  const subs: Record<string, SubState> = {};

  /** The REST answer and its block. */
  const rest = async (path: string) => {
    const res = await fetch(`${s.integrationUrl}${path}`);
    const body = (await res.json()) as { data: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    return { data: body.data, block: BigInt(res.headers.get("x-indexed-block") ?? "-1") };
  };

  /** What the client holds equals what REST answers at the same block (retried until both describe one block). */
  async function consistent(label: string) {
    for (let attempt = 0; attempt < 40; attempt++) {
      const [book, trades, market, price, funding, account, orders, position] = await Promise.all([
        rest(`/markets/${eur}/orderbook?depth=10`),
        rest(`/markets/${eur}/trades?limit=100`),
        rest(`/markets/${eur}`),
        rest(`/markets/${eur}/price`),
        rest(`/markets/${eur}/funding`),
        rest(`/accounts/${accountId}`),
        rest(`/accounts/${accountId}/orders`),
        rest(`/accounts/${accountId}/positions/${eur}`),
      ]);
      const blocks = new Set([book, trades, market, price, funding, account, orders, position].map((r) => r.block));
      const b = book.block;
      const all = Object.values(subs);
      if (blocks.size !== 1 || all.some((x) => x.block !== b)) {
        // wait for the stream to reach REST's block (or REST to settle on one)
        await c.until(() => all.every((x) => x.block >= b), 10_000).catch(() => {});
        continue;
      }
      expect({ bids: subs.book!.data!.bids, asks: subs.book!.data!.asks }, `${label}: book at ${b}`).toEqual({ bids: book.data.bids, asks: book.data.asks });
      const n = Math.min(subs.trades!.trades.length, trades.data.trades.length);
      expect(subs.trades!.trades.slice(0, n), `${label}: trades at ${b}`).toEqual(trades.data.trades.slice(0, n));
      expect(subs.market!.data, `${label}: market at ${b}`).toEqual({ market: market.data, price: price.data, funding: funding.data });
      expect(subs.account!.data!.account, `${label}: account at ${b}`).toEqual(account.data);
      expect(subs.account!.data!.orders, `${label}: orders at ${b}`).toEqual(orders.data);
      expect(subs.account!.data!.positions[eur], `${label}: position at ${b}`).toEqual(position.data);
      return b;
    }
    throw new Error(`${label}: the stream and REST never described one block`);
  }

  const write = async (method: string, path: string, body?: unknown) => {
    const r = await api(method, path, { token, body, headers: { Prefer: "wait" } });
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body.data;
  };

  beforeAll(async () => {
    token = (await issueToken(s.jwtSecret, me.address)).token;
    c = await StreamClient.open(wsUrl(), { Authorization: `Bearer ${token}` });
    subs.book = await c.subscribe({ channel: "orderbook", marketId: eur, depth: 10 });
    subs.trades = await c.subscribe({ channel: "trades", marketId: eur });
    subs.market = await c.subscribe({ channel: "market", marketId: eur });
    subs.account = await c.subscribe({ channel: "account", accountId });
  }, 60_000);
  afterAll(() => c?.close());

  it("snapshot + updates equal the REST answers at each block through a session of writes", async () => {
    await consistent("start");
    const book = (await rest(`/markets/${eur}/orderbook?depth=10`)).data;
    const bestBid = BigInt(book.bids[0]?.price ?? parseUnits("1.079", 18));
    // rests below the book (a new level), within the relayer's operator band of the mark
    const low = ((bestBid * 998n) / 1000n / 10n ** 14n) * 10n ** 14n;
    const key = `0x${"5e".repeat(31)}01` as Hex;
    await write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "LIMIT", limitPrice: low.toString(), clientKey: key });
    await c.until(() => subs.book!.data!.bids.some((l: { price: string }) => BigInt(l.price) === low), WRITE_SEEN_MS);
    await consistent("after a limit order");
    await write("DELETE", `/accounts/${accountId}/orders/${key}?marketId=${eur}`);
    await c.until(() => !subs.book!.data!.bids.some((l: { price: string }) => BigInt(l.price) === low), WRITE_SEEN_MS);
    await consistent("after the cancel");
    const fills = subs.account!.data!.fills.length;
    await write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "MARKET" });
    await c.until(() => subs.account!.data!.fills.length > fills, WRITE_SEEN_MS);
    await consistent("after a market order");
    // the taker's fill is on the trades channel too, with both sides and each one's fee
    const mine = subs.account!.data!.fills[0];
    expect(mine.liquidity).toBe("TAKER");
    const trade = subs.trades!.trades.find((t) => `${t.id}:T` === mine.id);
    expect(trade, "the fill on the trades channel").toBeDefined();
    expect(trade).toMatchObject({ transactionHash: mine.transactionHash, takerSide: mine.side, makerSide: mine.side === "LONG" ? "SHORT" : "LONG", takerFee: mine.fee, takerFeeFormatted: mine.feeFormatted });
    expect(BigInt(trade!.makerFee)).toBeGreaterThanOrEqual(0n);
    expect(BigInt(trade!.takerFee)).toBeGreaterThan(0n);
    await write("POST", `/accounts/${accountId}/positions/${eur}/close`, { orderType: "MARKET" });
    await c.until(() => subs.account!.data!.positions[eur]?.isOpen === false, WRITE_SEEN_MS);
    await consistent("after the close");
    for (const x of Object.values(subs)) expect(x.gaps, `${x.channel}: no gap`).toBe(0);
  }, 180_000);

  it("transactions: the caller's writes as they move (queued, sent, mined with its block; failed with its code), to their owner only", async () => {
    const tx = await c.subscribe({ channel: "transactions" });
    // the snapshot: the writes of the session above, newest first, all final by now
    expect(tx.data!.wallet).toBe(me.address.toLowerCase());
    const earlier = tx.data!.transactions as { kind: string; status: string }[];
    expect(earlier.map((t) => t.kind).slice(0, 4)).toEqual(["closePosition", "placeOrder", "cancelOrder", "placeOrder"]);
    expect(earlier.slice(0, 4).map((t) => t.status)).toEqual(["CONFIRMED", "CONFIRMED", "CONFIRMED", "CONFIRMED"]);
    const other = await StreamClient.open(wsUrl(), { Authorization: `Bearer ${(await issueToken(s.jwtSecret, devAccount(OTHER).address)).token}` });
    const theirs = await other.subscribe({ channel: "transactions" });
    const anon = await StreamClient.open(wsUrl());
    await expect(anon.subscribe({ channel: "transactions" })).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    anon.close();

    const placed = await write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "MARKET" });
    await c.until(() => tx.events.some((e) => e.requestId === placed.requestId && e.status === "CONFIRMED"), 20_000);
    const mine = tx.events.filter((e) => e.requestId === placed.requestId);
    expect(mine[0]!.status).toBe("QUEUED");
    expect(mine.map((e) => e.status)).toContain("SENT");
    const done = mine.at(-1)!;
    expect(done).toMatchObject({ kind: "placeOrder", status: "CONFIRMED", transactionHash: placed.transactionHash, code: null });
    const receipt = await publicClient(s).getTransactionReceipt({ hash: placed.transactionHash });
    expect(done.blockNumber).toBe(receipt.blockNumber.toString());
    // the mined message names the mined block
    const minedMsg = c.messages.find((m) => m.channel === "transactions" && m.data?.transactions?.some((e: { requestId: string; status: string }) => e.requestId === placed.requestId && e.status === "CONFIRMED"))!;
    expect(minedMsg.blockNumber).toBe(receipt.blockNumber.toString());

    // queued, then refused before sending: FAILED with the code the write answered
    const refused = await api("POST", `/accounts/${accountId}/orders`, { token, body: { marketId: eur, collateralAmount: "1000000000000", side: "LONG", leverage: 2, orderType: "MARKET" }, headers: { Prefer: "wait" } });
    expect(refused.body.error?.code).toBe("INSUFFICIENT_MARGIN");
    await c.until(() => tx.events.some((e) => e.status === "FAILED" && e.code === "INSUFFICIENT_MARGIN"), 20_000);
    expect(tx.gaps).toBe(0);
    // another wallet heard none of it: the events above went out before this ping's pong
    await other.roundTrip();
    expect(theirs.events).toEqual([]);
    other.close();
    await write("POST", `/accounts/${accountId}/positions/${eur}/close`, { orderType: "MARKET" });
  }, 120_000);

  it("transactions: the snapshot carries the caller's writes in flight (and its recent ones), so a client that reconnects sees a write sent before it subscribed, then its mined message", async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const first = await StreamClient.open(wsUrl(), auth);
    const seen = await first.subscribe({ channel: "transactions" });
    const before = new Set((seen.data!.transactions as { requestId: string }[]).map((t) => t.requestId));
    const book = (await rest(`/markets/${eur}/orderbook?depth=10`)).data;
    const low = ((BigInt(book.bids[0]?.price ?? parseUnits("1.079", 18)) * 997n) / 1000n / 10n ** 14n) * 10n ** 14n;
    const key = `0x${"5e".repeat(31)}02` as Hex;
    const chain = publicClient(s);
    const automine = (on: boolean) => chain.request({ method: "evm_setAutomine" as never, params: [on] as never });
    // nothing is mined meanwhile: the write stays SENT while a second client subscribes
    await automine(false);
    let placing: Promise<any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
    let second: StreamClient | undefined;
    let requestId = "";
    let snap: SubState;
    try {
      placing = write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "LIMIT", limitPrice: low.toString(), clientKey: key });
      placing.catch(() => {});
      await first.until(() => seen.events.some((e) => !before.has(e.requestId) && e.status === "SENT"), 30_000);
      requestId = seen.events.find((e) => !before.has(e.requestId) && e.status === "SENT")!.requestId;
      second = await StreamClient.open(wsUrl(), auth);
      snap = await second.subscribe({ channel: "transactions" });
      const listed = snap.data!.transactions as { requestId: string; status: string; transactionHash: string }[];
      expect(listed[0]).toMatchObject({ requestId, kind: "placeOrder", status: "SENT", blockNumber: null, clientKey: key, code: null });
      expect(listed[0]!.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
      // and the recent ones, final, as the first client's snapshot had them
      expect(listed.slice(1, 5)).toEqual((seen.data!.transactions as unknown[]).slice(0, 4));
    } finally {
      await automine(true);
      await chain.request({ method: "evm_mine" as never, params: [] as never });
    }
    const placed = await placing!;
    expect(placed.requestId).toBe(requestId);
    await second!.until(() => snap.events.some((e) => e.requestId === requestId && e.status === "CONFIRMED"), 30_000);
    const mined = second!.messages.find((m) => m.channel === "transactions" && m.data?.transactions?.some((e: { requestId: string; status: string }) => e.requestId === requestId && e.status === "CONFIRMED"))!;
    const receipt = await chain.getTransactionReceipt({ hash: placed.transactionHash });
    expect(mined.blockNumber).toBe(receipt.blockNumber.toString());
    expect(snap.gaps).toBe(0);
    first.close();
    second!.close();
    await write("DELETE", `/accounts/${accountId}/orders/${key}?marketId=${eur}`);
  }, 120_000);

  it("a dropped message is detected by its sequence number and resumed from the replay buffer", async () => {
    const first = await StreamClient.open(wsUrl());
    const sub = await first.subscribe({ channel: "market", marketId: eur });
    first.send({ op: "testDrop", subscriptionId: sub.id });
    // the market's next changes come from this test's own fills (open interest), not from waiting
    // for the stack's price feed: the dropped message, the one that shows the gap, one after the resume
    const buy = () => write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "MARKET" });
    const close = () => write("POST", `/accounts/${accountId}/positions/${eur}/close`, { orderType: "MARKET" });
    await buy();
    await close();
    await first.until(() => first.resumed.length === 1, 30_000);
    const resumed = first.resumed[0]!;
    const at = resumed.block;
    await buy();
    await first.until(() => resumed.block > at, 30_000);
    await close();
    expect(resumed.gaps).toBe(1);
    expect(resumed.snapshots).toBe(1); // replayed, not re-snapshotted
    // the resumed state equals REST's once the three answers and the stream describe one block (the
    // feed keeps moving the market, so either side may be a block ahead at first)
    let compared = false;
    for (let attempt = 0; attempt < 40 && !compared; attempt++) {
      const [m, p, f] = await Promise.all([rest(`/markets/${eur}`), rest(`/markets/${eur}/price`), rest(`/markets/${eur}/funding`)]);
      if (m.block === p.block && p.block === f.block && resumed.block === m.block) {
        expect(resumed.data, `resumed market at ${m.block}`).toEqual({ market: m.data, price: p.data, funding: f.data });
        compared = true;
      } else await first.until(() => resumed.block >= m.block, 10_000).catch(() => {});
    }
    expect(compared, "the resumed stream and REST never described one block").toBe(true);
    first.close();
  }, 60_000);

  it("an account channel refuses another wallet's token, and needs one", async () => {
    const other = (await issueToken(s.jwtSecret, devAccount(OTHER).address)).token;
    const o = await StreamClient.open(wsUrl(), { Authorization: `Bearer ${other}` });
    await expect(o.subscribe({ channel: "account", accountId })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const anon = await StreamClient.open(wsUrl());
    await expect(anon.subscribe({ channel: "account", accountId })).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    // signing in by message works the same
    anon.send({ op: "auth", token: other });
    await anon.until(() => anon.messages.some((m) => m.type === "authenticated"));
    await expect(anon.subscribe({ channel: "account", accountId })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    // a bad token on the upgrade: 401 before the upgrade
    await expect(StreamClient.open(wsUrl(), { Authorization: "Bearer nope" })).rejects.toMatchObject({ status: 401 });
    o.close();
    anon.close();
  }, 30_000);

  it("/v1/ws: the API key on the upgrade (401 before it when bad) or in the first message; snake_case; account channels only for the key's wallet", async () => {
    const gw = `${s.gatewayUrl!.replace(/^http/, "ws")}/v1/ws`;
    await expect(StreamClient.open(gw, { "X-API-Key": "vgw_bad" })).rejects.toMatchObject({ status: 401 });
    const mine = s.wallets[WALLET]!.apiKey!;
    const g = await StreamClient.open(gw, { "X-API-Key": mine });
    g.send({ op: "subscribe", channel: "orderbook", market_id: eur, depth: 5 });
    await g.until(() => g.messages.some((m) => m.type === "snapshot"));
    const snap = g.messages.find((m) => m.type === "snapshot")!;
    expect(Object.keys(snap)).toEqual(expect.arrayContaining(["subscription_id", "block_number", "seq", "epoch", "market_id", "data"]));
    const book = await rest(`/markets/${eur}/orderbook?depth=5`);
    if (BigInt(snap.block_number) === book.block) expect(snap.data.bids.map((l: { price: string }) => l.price)).toEqual(book.data.bids.map((l: { price: string }) => l.price));
    g.send({ op: "subscribe", channel: "account", account_id: accountId });
    await g.until(() => g.messages.filter((m) => m.type === "snapshot").length === 2, 20_000);
    g.close();
    // another wallet's key: refused on this account
    const theirs = s.wallets[OTHER]!.apiKey!;
    const t = await StreamClient.open(gw, { "X-API-Key": theirs });
    t.send({ op: "subscribe", channel: "account", account_id: accountId });
    await t.until(() => t.errors.length > 0);
    expect(t.errors[0]!.code).toBe("UNAUTHORIZED");
    t.close();
    // browsers: the key in the first message
    const b = await StreamClient.open(gw);
    b.send({ op: "auth", api_key: mine });
    b.send({ op: "subscribe", channel: "market", market_id: eur });
    await b.until(() => b.messages.some((m) => m.type === "snapshot"), 20_000);
    expect(b.messages[0]!.type).toBe("authenticated");
    expect(b.messages.find((m) => m.type === "snapshot")!.data.market.open_interest).toBeDefined();
    b.close();
    // the key's own writes on /v1/ws, snake_case
    const w = await StreamClient.open(gw, { "X-API-Key": mine });
    w.send({ op: "subscribe", channel: "transactions" });
    await w.until(() => w.messages.some((m) => m.type === "snapshot"), 20_000);
    const wsnap = w.messages.find((m) => m.type === "snapshot")!.data;
    expect(wsnap.wallet).toBe(me.address.toLowerCase());
    expect(wsnap.transactions[0]).toMatchObject({ request_id: expect.any(String), transaction_hash: expect.any(String), block_number: expect.any(String), status: "CONFIRMED" });
    w.close();
    // the AsyncAPI documents: the gateway's beside its OpenAPI (snake_case, /v1/ws, no key needed), the service's camelCase
    const v1 = (await (await fetch(`${s.gatewayUrl}/v1/asyncapi.json`)).json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(v1.asyncapi).toBe("3.0.0");
    expect(v1.servers.local.pathname).toBe("/v1/ws");
    const sub = v1.channels.ws.messages.subscribe.payload.properties;
    expect(Object.keys(sub)).toEqual(expect.arrayContaining(["market_id", "account_id", "channel"]));
    expect(sub.channel.enum).toEqual(expect.arrayContaining(["orderbook", "trades", "market", "candles", "account", "transactions"]));
    expect(v1.channels.ws.messages.snapshot.payload.required).toContain("subscription_id");
    const own = (await (await fetch(`${s.streamsUrl}/asyncapi.json`)).json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(Object.keys(own.channels.ws.messages.subscribe.payload.properties)).toContain("marketId");
    const bad = await StreamClient.open(gw);
    bad.send({ op: "auth", api_key: "vgw_nope" });
    await bad.until(() => bad.errors.length > 0);
    expect(bad.errors[0]!.code).toBe("UNAUTHENTICATED");
  }, 60_000);

  it("malformed messages get a clear error; the limits are enforced; abrupt disconnects leave no subscription", async () => {
    const stats = async () => ((await (await fetch(`${s.streamsUrl}/stats`)).json()) as { data: { connections: number; subscriptions: number } }).data;
    const before = await stats();
    const x = await StreamClient.open(wsUrl());
    for (const bad of ["not json", "[]", '{"op":"nope"}', '{"op":"subscribe","channel":"orderbook","marketId":"0x12"}', '{"op":"subscribe","channel":"orderbook","marketId":"' + eur + '","depth":1000}']) x.ws.send(bad);
    await x.until(() => x.errors.length >= 5);
    expect(x.errors.map((e) => e.code)).toEqual(["VALIDATION_ERROR", "VALIDATION_ERROR", "VALIDATION_ERROR", "VALIDATION_ERROR", "VALIDATION_ERROR"]);
    expect(x.errors[4]!.message).toMatch(/depth/);
    await expect(x.subscribe({ channel: "trades", marketId: `0x${"ab".repeat(32)}` })).rejects.toMatchObject({ code: "MARKET_NOT_FOUND" });
    // subscriptions per connection (50), sent below the message rate limit
    const acks = () => x.messages.filter((m) => m.type === "subscribed").length;
    for (let i = 0; i < 51; i++) {
      x.send({ op: "subscribe", channel: "orderbook", marketId: eur, depth: 1 + (i % 50) });
      await new Promise((r) => setTimeout(r, 70));
    }
    await x.until(() => x.errors.some((e) => e.code === "LIMIT_EXCEEDED"), 20_000);
    expect(acks()).toBe(50);
    expect(x.errors.find((e) => e.code === "LIMIT_EXCEEDED")!.message).toMatch(/at most 50 subscriptions per connection/);
    // messages per second (20)
    for (let i = 0; i < 40; i++) x.send({ op: "ping" });
    await x.until(() => x.errors.some((e) => e.code === "RATE_LIMITED"));
    // abrupt disconnects: terminated sockets, subscriptions released
    const ws = await Promise.all(Array.from({ length: 5 }, () => StreamClient.open(wsUrl())));
    await Promise.all(ws.map((w) => w.subscribe({ channel: "orderbook", marketId: eur, depth: 10 })));
    x.ws.terminate();
    for (const w of ws) w.ws.terminate();
    const raw = new WebSocket(wsUrl());
    await new Promise((r) => raw.once("open", r));
    raw.send('{"op":"subscribe","channel":"trades","marketId":"' + eur + '"}');
    raw.terminate();
    // the server notices the closes as they come (a liveness bound, not a sleep)
    const after = await until("the terminated connections released", async () => {
      const a = await stats();
      return a.connections === before.connections && a.subscriptions === before.subscriptions ? a : undefined;
    }, 30_000, 100);
    expect([after.connections, after.subscriptions]).toEqual([before.connections, before.subscriptions]);
    // connections per key (20) — the harness's loopback address is one key
    const open: StreamClient[] = [];
    let refused: { status?: number; body?: string } | undefined;
    for (let i = 0; i < 25 && !refused; i++) {
      try {
        open.push(await StreamClient.open(wsUrl()));
      } catch (e) {
        refused = e as never;
      }
    }
    expect(refused?.status).toBe(429);
    expect(refused?.body).toMatch(/connections per key/);
    for (const o of open) o.close();
  }, 120_000);
});
