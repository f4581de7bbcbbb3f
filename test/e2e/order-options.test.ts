/**
 * Market v2's order options end to end (real anvil, Ponder, relayer, keeper, gateway) through both
 * write surfaces on one database: the integration API (camelCase `timeInForce`, `reduceOnly`,
 * `expiresAt`) and the /v1 gateway (`time_in_force`, `reduce_only`, `expires_at`).
 *   - an IOC LIMIT fills what it meets and its remainder closes UNFILLED_IOC, as indexed;
 *   - a FOK that cannot fill whole: 409 FILL_OR_KILL_UNFILLED, nothing sent, nothing changed;
 *   - POST_ONLY: crossing 409 POST_ONLY_WOULD_CROSS, behind the best price it rests;
 *   - a good-til-time order rests, then from its expiry second (the chain clock moved on) the
 *     reads show it cancelled, not active, absent from the book, which equals the chain's
 *     getFillableLevels at the block the answer reports; removed (removeExpired): EXPIRED;
 *   - a reduce-only order sized by collateral is capped at the position and commits nothing; a
 *     FOK one beyond the position: 422 REDUCE_ONLY_EXCEEDS_POSITION before anything is sent;
 *   - each combination that does not exist, and an expiry not after now: 400 VALIDATION_ERROR
 *     naming the field, no transaction.
 * Wallets: fresh random ones (ether from anvil_setBalance, tokens from demo wallet 9); the keeper's
 * market maker quotes EUR/USD meanwhile, so prices are read from the chain right before use.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import { depositTokenAbi, engineAbi, marketAbi } from "../../abis/index.js";
import { sharedStack } from "./helpers/stacks.js";
import { advanceClock, publicClient, waitIndexed, walletClient } from "./helpers/chain.js";
import { gatewayClient, integrationClient, signIn } from "./helpers/http.js";

const usd = (v: string) => parseUnits(v, 6);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Levels = readonly [readonly bigint[], readonly bigint[], readonly bigint[]];

describe.each([sharedStack()])("order options: time in force, reduce-only, good-til-time ($kind)", (s) => {
  const api = integrationClient(s);
  const gw = gatewayClient(s);
  const client = publicClient(s);
  const engine = s.deployment.contracts.engine;
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD") ?? s.deployment.markets[0]!;
  const EUR = eur.marketId as Hex;
  const eurAddress = eur.marketAddress as Address;
  const relayer = privateKeyToAccount(s.keys.relayer).address;

  const keys = { w: generatePrivateKey(), x: generatePrivateKey() };
  const W = privateKeyToAccount(keys.w);
  const X = privateKeyToAccount(keys.x);
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let gwKey = "";
  let tick = 0n;
  const placed: Record<string, Json> = {};

  const fund = async (key: Hex) => {
    const a = privateKeyToAccount(key);
    await client.request({ method: "anvil_setBalance" as never, params: [a.address, "0x8AC7230489E80000"] as never });
    const funder = walletClient(s, s.wallets[9]!.privateKey);
    await client.waitForTransactionReceipt({
      hash: await funder.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "transfer", args: [a.address, usd("20000")] }),
    });
    const me = walletClient(s, key);
    await client.waitForTransactionReceipt({
      hash: await me.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "approve", args: [engine, usd("20000")] }),
    });
  };
  const approval = async (key: Hex) => {
    const a = privateKeyToAccount(key);
    const td = await api("GET", `/operators/typed-data?owner=${a.address}`);
    const { domain, types, message } = td.body.data;
    const { EIP712Domain: _, ...rest } = types;
    const signature = await a.signTypedData({
      domain, types: rest, primaryType: "OperatorApproval",
      message: { ...message, expiry: BigInt(message.expiry), nonce: BigInt(message.nonce), deadline: BigInt(message.deadline) },
    });
    return { expiry: message.expiry, deadline: message.deadline, signature };
  };

  const atTick = (p: bigint) => (p / tick) * tick;
  const mark = () => client.readContract({ address: eurAddress, abi: marketAbi, functionName: "markPrice" });
  /** The stored book's best bid and ask (getLevels: what a new order would cross). */
  const best = async () => {
    const [bids] = (await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getLevels", args: [0, 1n] })) as Levels;
    const [asks] = (await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getLevels", args: [1, 1n] })) as Levels;
    return { bid: bids[0] ?? 0n, ask: asks[0] ?? 0n };
  };
  const headTime = async () => (await client.getBlock({ blockTag: "latest" })).timestamp;
  const relayerNonce = () => client.getTransactionCount({ address: relayer, blockTag: "pending" });
  const account = (id: number) => client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(id)] });
  const position = async (id: number) => (await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getPosition", args: [BigInt(id)] })).sizeQty;

  const order = (who: "w" | "x", body: Json) =>
    api("POST", `/accounts/${ids[who]}/orders`, { token: tokens[who], body: { marketId: EUR, leverage: 5, ...body } });
  const trade = (body: Json) => gw("POST", `/v1/accounts/${ids.w}/trade`, { key: gwKey, body: { market_id: EUR, leverage: 5, ...body } });
  /** W's indexed order `orderId` from GET /accounts/{id}/orders (and /v1), once its block is indexed. */
  const indexedOrder = async (orderId: string, minBlock: number, query = "") => {
    const r = await api("GET", `/accounts/${ids.w}/orders?marketId=${EUR}&limit=1000&minBlock=${minBlock}${query}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body.data.orders as Json[]).find((o) => o.orderId === orderId);
  };
  const historyOrder = async (orderId: string, minBlock: number) => {
    const r = await api("GET", `/accounts/${ids.w}/orders/history?marketId=${EUR}&limit=1000&minBlock=${minBlock}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body.data.orders as Json[]).find((o) => o.orderId === orderId);
  };
  const levelsOf = ([prices, qtys, counts]: Levels) => prices.map((p, i) => ({ price: p.toString(), quantity: qtys[i]!.toString(), orderCount: Number(counts[i]) }));
  /** The book answer (depth 100) and the chain's getFillableLevels at the block it reports. */
  const bookAndChain = async (minBlock: number) => {
    const res = await fetch(`${s.integrationUrl}/markets/${EUR}/orderbook?depth=100&minBlock=${minBlock}`, { headers: { "cache-control": "no-cache" } });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const at = BigInt(res.headers.get("x-indexed-block")!);
    const view = async (side: 0 | 1) =>
      levelsOf((await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getFillableLevels", args: [side, 100n], blockNumber: at })) as Levels);
    const shown = (ls: Json[]) => ls.map((l) => ({ price: l.price, quantity: l.quantity, orderCount: l.orderCount }));
    return { at, book: { bids: shown(body.data.bids), asks: shown(body.data.asks) }, chain: { bids: await view(0), asks: await view(1) } };
  };

  beforeAll(async () => {
    tick = (await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "params" })).tickSizeX18;
    await fund(keys.w);
    await fund(keys.x);
    for (const [name, acct, key] of [["w", W, keys.w], ["x", X, keys.x]] as const) {
      tokens[name] = await signIn(s, acct);
      const r = await api("POST", "/accounts", { token: tokens[name], body: { userAddress: acct.address, operatorApproval: await approval(key) } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.data.operatorApproval).toMatchObject({ success: true });
      ids[name] = r.body.data.accountId;
      const d = await api("POST", `/accounts/${ids[name]}/deposit`, { token: tokens[name], body: { amount: usd("10000").toString() } });
      expect(d.status, JSON.stringify(d.body)).toBe(200);
    }
    const created = await fetch(`${s.gatewayUrl}/admin/keys`, {
      method: "POST",
      headers: { "X-Admin-Token": s.adminToken, "content-type": "application/json" },
      body: JSON.stringify({ wallet: W.address, label: "e2e order options" }),
    });
    gwKey = ((await created.json()) as { data: { key: string } }).data.key;
    expect(gwKey).toMatch(/^vgw_/);
  }, 180_000);

  it("IOC LIMIT: fills what it meets at once, its remainder closes UNFILLED_IOC; the indexed order shows it (both surfaces' answers carry the options)", async () => {
    const { bid, ask } = await best();
    const p = atTick((bid + ask) / 2n);
    expect(p > bid && p < ask, `${bid} < ${p} < ${ask}`).toBe(true);
    // X's ask at p: the best ask, rests (GTC by default, as before)
    const maker = await order("x", { side: "SHORT", orderType: "LIMIT", limitPrice: p.toString(), collateralAmount: usd("100").toString() });
    expect(maker.status, JSON.stringify(maker.body)).toBe(201);
    expect(maker.body.data).toMatchObject({ orderStatus: "active", filledQuantity: "0", timeInForce: "GTC", reduceOnly: false, expiresAt: null });
    // W's IOC bid at p, three times X's size: X's quantity fills, the rest is cancelled at once
    const r = await order("w", { side: "LONG", orderType: "LIMIT", limitPrice: p.toString(), collateralAmount: usd("300").toString(), timeInForce: "IOC" });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const d = r.body.data;
    expect(d).toMatchObject({ timeInForce: "IOC", reduceOnly: false, expiresAt: null, orderStatus: "cancelled", transactionStatus: "CONFIRMED" });
    const filled = BigInt(d.filledQuantity);
    expect(filled).toBeGreaterThan(0n);
    expect(filled).toBeLessThan(BigInt(d.size));
    // the chain: OrderClosed UNFILLED_IOC (10) of the rest
    const receipt = await client.getTransactionReceipt({ hash: d.transactionHash });
    const closed = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrderClosed" }).find((l) => l.args.orderId === BigInt(d.orderId))!;
    expect(closed.args).toMatchObject({ reason: 10, filledQty: filled, cancelledQty: BigInt(d.size) - filled });
    expect(await position(ids.w!)).toBe(filled);
    placed.ioc = d;
    // indexed: cancelled, nothing remaining, IOC; the history's close reason
    const o = await indexedOrder(d.orderId, d.blockNumber);
    expect(o).toMatchObject({ status: "cancelled", isActive: false, timeInForce: "IOC", reduceOnly: false, expiresAt: null, filledQuantity: filled.toString(), remainingQuantity: "0" });
    expect(await historyOrder(d.orderId, d.blockNumber)).toMatchObject({ closeReason: "UNFILLED_IOC", timeInForce: "IOC", cancelledQuantity: (BigInt(d.size) - filled).toString() });
    // /v1 shows the same order in snake_case
    const v1 = await gw("GET", `/v1/accounts/${ids.w}/orders?market_id=${EUR}&limit=1000&min_block=${d.blockNumber}`, { key: gwKey });
    expect(v1.status).toBe(200);
    expect((v1.body.data.orders as Json[]).find((x) => x.order_id === d.orderId)).toMatchObject({ status: "cancelled", time_in_force: "IOC", reduce_only: false, expires_at: null });
  });

  it("FOK that cannot fill whole: 409 FILL_OR_KILL_UNFILLED on both surfaces, nothing sent, nothing changed", async () => {
    const { bid } = await best();
    const before = { nonce: await relayerNonce(), acct: await account(ids.w!) };
    // a bid below the best ask meets nothing
    const r = await order("w", { side: "LONG", orderType: "LIMIT", limitPrice: bid.toString(), collateralAmount: usd("100").toString(), timeInForce: "FOK" });
    expect([r.status, r.body.error?.code], JSON.stringify(r.body)).toEqual([409, "FILL_OR_KILL_UNFILLED"]);
    const v = await trade({ side: 0, order_type: 1, limit_price: bid.toString(), collateral: usd("100").toString(), time_in_force: "FOK" });
    expect([v.status, v.body.error?.code], JSON.stringify(v.body)).toEqual([409, "FILL_OR_KILL_UNFILLED"]);
    expect(await relayerNonce()).toBe(before.nonce);
    expect(await account(ids.w!)).toEqual(before.acct);
  });

  it("POST_ONLY: crossing is 409 POST_ONLY_WOULD_CROSS (both surfaces, nothing sent); behind the best price it rests whole", async () => {
    const nonce = await relayerNonce();
    const { bid, ask } = await best();
    const cross = await order("w", { side: "LONG", orderType: "LIMIT", limitPrice: ask.toString(), collateralAmount: usd("100").toString(), timeInForce: "POST_ONLY" });
    expect([cross.status, cross.body.error?.code], JSON.stringify(cross.body)).toEqual([409, "POST_ONLY_WOULD_CROSS"]);
    const v = await trade({ side: 1, order_type: 1, limit_price: bid.toString(), collateral: usd("100").toString(), time_in_force: "POST_ONLY" });
    expect([v.status, v.body.error?.code], JSON.stringify(v.body)).toEqual([409, "POST_ONLY_WOULD_CROSS"]);
    expect(await relayerNonce()).toBe(nonce);

    const p = atTick(((await mark()) * 996n) / 1000n);
    const r = await order("w", { side: "LONG", orderType: "LIMIT", limitPrice: p.toString(), collateralAmount: usd("100").toString(), timeInForce: "POST_ONLY" });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({ orderStatus: "active", filledQuantity: "0", timeInForce: "POST_ONLY", expiresAt: null });
    const o = await indexedOrder(r.body.data.orderId, r.body.data.blockNumber);
    expect(o).toMatchObject({ status: "active", isActive: true, timeInForce: "POST_ONLY", remainingQuantity: r.body.data.size, expiresAt: null });
  });

  it("good-til-time (/v1): rests; from its expiry second the reads show it cancelled, not active, out of the book (= getFillableLevels); removed: EXPIRED", async () => {
    const p = atTick(((await mark()) * 994n) / 1000n);
    const expiresAt = Number(await headTime()) + 20;
    const r = await trade({ side: 0, order_type: 1, limit_price: p.toString(), collateral: usd("150").toString(), time_in_force: "GTC", expires_at: expiresAt });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({ time_in_force: "GTC", reduce_only: false, expires_at: expiresAt, status: "PLACED" });
    const orderId = r.body.data.order_id as string;
    const size = r.body.data.size as string;
    // the chain: OrderPlaced carries GTC (0) and the expiry (getOrder's expiresAt is not filled by
    // MarketBackstop.getOrder at this commit: the event is the chain's word here)
    const placedLog = parseEventLogs({ abi: marketAbi, logs: (await client.getTransactionReceipt({ hash: r.body.data.transaction_hash })).logs, eventName: "OrderPlaced" })
      .find((l) => l.args.orderId === BigInt(orderId))!;
    expect(placedLog.args).toMatchObject({ timeInForce: 0, expiresAt: BigInt(expiresAt) });

    // before: active, in the book at p, and the book is the chain's
    const live = await indexedOrder(orderId, r.body.data.block_number, "&status=active");
    expect(live).toMatchObject({ status: "active", isActive: true, timeInForce: "GTC", expiresAt, expiresAtISO: new Date(expiresAt * 1000).toISOString(), remainingQuantity: size });
    const b0 = await bookAndChain(r.body.data.block_number);
    expect(b0.book).toEqual(b0.chain);
    const level0 = b0.book.bids.find((l) => l.price === p.toString());
    expect(level0, `a bid level at ${p}`).toBeDefined();
    expect(BigInt(level0!.quantity)).toBeGreaterThanOrEqual(BigInt(size));

    // the chain clock passes the expiry; nobody removes it
    const mined = await advanceClock(s, 30);
    expect(mined.timestamp).toBeGreaterThanOrEqual(BigInt(expiresAt));
    await waitIndexed(s, mined.number);
    // still ACTIVE on chain at the first block at or past its expiry: other senders (the feed, the
    // maker) may mine blocks after the clock moved, and the keeper removes an expired order only
    // once it has indexed such a block, so its removal lands in a later one
    let first = mined.number;
    while ((await client.getBlock({ blockNumber: first - 1n })).timestamp >= BigInt(expiresAt)) first -= 1n;
    expect((await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getOrder", args: [BigInt(orderId)], blockNumber: first })).status).toBe(1);

    const gone = await indexedOrder(orderId, Number(mined.number));
    expect(gone).toMatchObject({ status: "cancelled", isActive: false, remainingQuantity: "0", expiresAt, timeInForce: "GTC" });
    expect(await indexedOrder(orderId, Number(mined.number), "&status=active")).toBeUndefined();
    expect(await indexedOrder(orderId, Number(mined.number), "&status=cancelled")).toMatchObject({ orderId, status: "cancelled" });
    const v1 = await gw("GET", `/v1/accounts/${ids.w}/orders?market_id=${EUR}&status=cancelled&limit=1000&min_block=${mined.number}`, { key: gwKey });
    expect((v1.body.data.orders as Json[]).find((x) => x.order_id === orderId)).toMatchObject({ status: "cancelled", is_active: false, expires_at: expiresAt, time_in_force: "GTC" });
    // the book: without it, still the chain's (whose _fillable skips it from its expiry)
    const b1 = await bookAndChain(Number(mined.number));
    expect(b1.book).toEqual(b1.chain);
    const level1 = b1.book.bids.find((l) => l.price === p.toString());
    expect(level1 === undefined || BigInt(level1.quantity) <= BigInt(level0!.quantity) - BigInt(size), JSON.stringify(level1)).toBe(true);

    // anyone removes it for its bond: EXPIRED (this wallet, or the stack's keeper if it came first;
    // removeExpired skips an order that is no longer open, so the call succeeds either way)
    const sweeper = walletClient(s, keys.x);
    const hash = await sweeper.writeContract({ address: eurAddress, abi: marketAbi, functionName: "removeExpired", args: [[BigInt(orderId)]] });
    const rc = await client.waitForTransactionReceipt({ hash });
    expect(rc.status).toBe("success");
    expect((await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getOrder", args: [BigInt(orderId)], blockNumber: rc.blockNumber })).status).toBe(3); // CANCELLED
    await waitIndexed(s, rc.blockNumber);
    expect(await historyOrder(orderId, Number(rc.blockNumber))).toMatchObject({ status: "cancelled", closeReason: "EXPIRED", expiresAt });
    expect(await indexedOrder(orderId, Number(rc.blockNumber))).toMatchObject({ status: "cancelled", isActive: false, remainingQuantity: "0" });
  });

  it("reduce-only sized by collateral: capped at the position, commits no margin (only a resting order's bond); FOK beyond the position 422 REDUCE_ONLY_EXCEEDS_POSITION before anything is sent; on the position's side NO_POSITION", async () => {
    const size = await position(ids.w!);
    expect(size).toBeGreaterThan(0n); // long from the IOC fill
    const p = atTick(((await mark()) * 1004n) / 1000n);
    const r = await order("w", { side: "SHORT", orderType: "LIMIT", limitPrice: p.toString(), collateralAmount: usd("1000").toString(), reduceOnly: true });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({ reduceOnly: true, timeInForce: "GTC", orderStatus: "active", size: size.toString() });
    // no margin committed (OrderPlaced's margin 0): W's only commit in its transaction is the resting order's bond, not the collateral
    const logs = (await client.getTransactionReceipt({ hash: r.body.data.transactionHash })).logs;
    const commits = parseEventLogs({ abi: engineAbi, logs, eventName: "MarginUpdated" }).filter((l) => l.args.accountId === BigInt(ids.w!));
    expect(commits.reduce((a, l) => a + l.args.deltaCommittedWad, 0n)).toBeLessThan(10n ** 18n);
    expect(parseEventLogs({ abi: marketAbi, logs, eventName: "OrderPlaced" })[0]!.args).toMatchObject({ reduceOnly: true, marginWad: 0n, quantityQty: size });
    const o = await indexedOrder(r.body.data.orderId, r.body.data.blockNumber);
    expect(o).toMatchObject({ reduceOnly: true, status: "active", originalQuantity: size.toString(), marginAllocated: "0" });

    const nonce = await relayerNonce();
    const { bid } = await best();
    const fok = await order("w", { side: "SHORT", orderType: "LIMIT", limitPrice: bid.toString(), collateralAmount: usd("1000").toString(), reduceOnly: true, timeInForce: "FOK" });
    expect([fok.status, fok.body.error?.code], JSON.stringify(fok.body)).toEqual([422, "REDUCE_ONLY_EXCEEDS_POSITION"]);
    const v = await trade({ side: 1, order_type: 1, limit_price: bid.toString(), collateral: usd("1000").toString(), reduce_only: true, time_in_force: "FOK" });
    expect([v.status, v.body.error?.code], JSON.stringify(v.body)).toEqual([422, "REDUCE_ONLY_EXCEEDS_POSITION"]);
    const wrongSide = await order("w", { side: "LONG", orderType: "LIMIT", limitPrice: bid.toString(), collateralAmount: usd("100").toString(), reduceOnly: true });
    expect([wrongSide.status, wrongSide.body.error?.code], JSON.stringify(wrongSide.body)).toEqual([404, "NO_POSITION"]);
    expect(await relayerNonce()).toBe(nonce);
    expect(await position(ids.w!)).toBe(size);
  });

  it("combinations that do not exist and an expiry not after now: 400 VALIDATION_ERROR naming the field, on both surfaces, no transaction", async () => {
    const nonce = await relayerNonce();
    const p = atTick(((await mark()) * 995n) / 1000n).toString();
    const later = Number(await headTime()) + 3_600;
    const past = Number(await headTime()) - 10;
    const camel: [Json, string][] = [
      [{ side: "LONG", orderType: "MARKET", collateralAmount: "100000000", timeInForce: "POST_ONLY" }, "timeInForce"],
      [{ side: "LONG", orderType: "MARKET", collateralAmount: "100000000", expiresAt: later }, "expiresAt"],
      [{ side: "LONG", orderType: "LIMIT", limitPrice: p, collateralAmount: "100000000", timeInForce: "IOC", expiresAt: later }, "expiresAt"],
      [{ side: "LONG", orderType: "LIMIT", limitPrice: p, collateralAmount: "100000000", timeInForce: "FOK", expiresAt: later }, "expiresAt"],
      [{ side: "LONG", orderType: "LIMIT", limitPrice: p, collateralAmount: "100000000", expiresAt: past }, "expiresAt"],
      [{ side: "LONG", orderType: "LIMIT", limitPrice: p, collateralAmount: "100000000", timeInForce: "GTD" }, "timeInForce"],
    ];
    for (const [body, field] of camel) {
      const r = await order("w", body);
      expect([r.status, r.body.error?.code], JSON.stringify(body)).toEqual([400, "VALIDATION_ERROR"]);
      expect(r.body.error!.message, JSON.stringify(body)).toContain(field);
    }
    const snake: [Json, string][] = [
      [{ side: 0, order_type: 0, collateral: "100000000", time_in_force: "POST_ONLY" }, "time_in_force"],
      [{ side: 0, order_type: 0, collateral: "100000000", expires_at: later }, "expires_at"],
      [{ side: 0, order_type: 1, limit_price: p, collateral: "100000000", time_in_force: "IOC", expires_at: later }, "expires_at"],
      [{ side: 0, order_type: 1, limit_price: p, collateral: "100000000", time_in_force: "FOK", expires_at: later }, "expires_at"],
      [{ side: 0, order_type: 1, limit_price: p, collateral: "100000000", expires_at: past }, "expires"],
    ];
    for (const [body, field] of snake) {
      const r = await trade(body);
      expect([r.status, r.body.error?.code], JSON.stringify(body)).toEqual([400, "VALIDATION_ERROR"]);
      expect(r.body.error!.message, JSON.stringify(body)).toContain(field);
    }
    expect(await relayerNonce()).toBe(nonce);
  });

  afterAll(async () => {
    // W's resting orders out of the shared book (the next file starts from a book it knows)
    const open = await api("GET", `/accounts/${ids.w}/orders?marketId=${EUR}&status=active&limit=1000`);
    for (const o of (open.body.data?.orders ?? []) as Json[]) await api("DELETE", `/accounts/${ids.w}/orders/${o.clientKey}?marketId=${EUR}`, { token: tokens.w });
  });
});
