/**
 * Market v2's take-profit and stop-loss above the chain (TriggerBook; docs/CONTRACTS.md
 * "Triggers"), on the shared stack (real anvil, Ponder, relayer, gateway, streams, keeper), both
 * surfaces on one database: a fresh wallet opens a long, sets a take-profit through the
 * integration API and a stop-loss through /v1 (both one-cancels-other), reads them back on both
 * surfaces (the same triggers, camelCase and snake_case); the bad combinations (a trigger on the
 * wrong side of the mark, no position, a LIMIT without its price or off the tick, a MARKET with
 * one, a cancel of none) answer their error and send nothing (the relayer's nonce unchanged);
 * the stop-loss is cancelled and set again (the row active again). Then the index moves up past
 * the take-profit and it is fired on chain by a stranger's executeTrigger; the stack's keeper may
 * fire it first, so the assertions hold whoever did: the take-profit shows executed with the
 * order it placed, that order shows triggerKind TAKE_PROFIT (a reduce-only close), the stop-loss
 * shows cancelled TWIN_FIRED, the position is closed, and both surfaces agree. The account stream
 * carried every change (set, removed with its reason, executed with its order id).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseError, ContractFunctionRevertedError, parseUnits, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { depositTokenAbi, marketAbi, oracleAbi, triggerBookAbi } from "../../abis/index.js";
import { toSnakeCase } from "../../core/case.js";
import { gatewayClient, integrationClient, signIn } from "./helpers/http.js";
import { sharedStack } from "./helpers/stacks.js";
import { publicClient, walletClient } from "./helpers/chain.js";
import { until } from "./helpers/wait.js";
import { StreamClient } from "./helpers/stream-client.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const usd = (v: string) => parseUnits(v, 6);

/** Keys snake_cased all the way down (what /v1 answers for an integration API answer). */
const snake = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(snake) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [toSnakeCase(k), snake(x)])) : v;

describe.each([sharedStack()])("take-profit and stop-loss through both surfaces ($kind)", (s) => {
  const api = integrationClient(s);
  const gw = gatewayClient(s);
  const client = publicClient(s);
  const engine = s.deployment.contracts.engine;
  const triggerBook = s.deployment.contracts.triggerBook;
  const oracle = s.deployment.contracts.oracle;
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD") ?? s.deployment.markets[0]!;
  const other = s.deployment.markets.find((m) => m.marketId !== eur.marketId)!;
  const EUR = eur.marketId as Hex;
  const eurAddress = eur.marketAddress as Address;
  const relayer = privateKeyToAccount(s.keys.relayer).address;
  const wKey = generatePrivateKey();
  const W = privateKeyToAccount(wKey);
  const xKey = generatePrivateKey(); // a stranger who fires the trigger
  let token = "";
  let id = 0;
  let gwKey = "";
  let tick = 0n;
  let startIndex = 0n;
  let stream: StreamClient | undefined;

  const read = <T>(functionName: string, args: readonly unknown[] = []) =>
    client.readContract({ address: eurAddress, abi: marketAbi, functionName, args } as never) as Promise<T>;
  const mark = () => read<bigint>("markPrice");
  const onTick = (p: bigint) => (p / tick) * tick;
  const relayerNonce = () => client.getTransactionCount({ address: relayer, blockTag: "pending" });
  const triggers = async (query: string, minBlock: number | bigint) => {
    const r = await api("GET", `/accounts/${id}/triggers?${query}${query ? "&" : ""}minBlock=${minBlock}`, { headers: { "cache-control": "no-cache" } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data as Json;
  };
  const triggersV1 = async (query: string, minBlock: number | bigint) => {
    const r = await gw("GET", `/v1/accounts/${id}/triggers?${query}${query ? "&" : ""}min_block=${minBlock}`, { key: gwKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data as Json;
  };
  const fund = async (key: Hex) => {
    const a = privateKeyToAccount(key);
    await client.request({ method: "anvil_setBalance" as never, params: [a.address, "0x8AC7230489E80000"] as never });
    const funder = walletClient(s, s.wallets[9]!.privateKey);
    await client.waitForTransactionReceipt({
      hash: await funder.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "transfer", args: [a.address, usd("5000")] }),
    });
    await client.waitForTransactionReceipt({
      hash: await walletClient(s, key).writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "approve", args: [engine, usd("5000")] }),
    });
  };
  const setIndex = async (p: bigint) => {
    const deployer = walletClient(s, s.keys.deployer);
    const hash = await deployer.writeContract({ address: oracle, abi: oracleAbi, functionName: "setPrice", args: [EUR, p] });
    return (await client.waitForTransactionReceipt({ hash })).blockNumber;
  };

  beforeAll(async () => {
    tick = (await read<Json>("params")).tickSizeX18 as bigint;
    [startIndex] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [EUR] });
    await fund(wKey);
    await client.request({ method: "anvil_setBalance" as never, params: [privateKeyToAccount(xKey).address, "0x8AC7230489E80000"] as never });
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
    const d = await api("POST", `/accounts/${id}/deposit`, { token, body: { amount: usd("2000").toString() } });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    const created = await fetch(`${s.gatewayUrl}/admin/keys`, {
      method: "POST",
      headers: { "X-Admin-Token": s.adminToken, "content-type": "application/json" },
      body: JSON.stringify({ wallet: W.address, label: "e2e triggers" }),
    });
    gwKey = ((await created.json()) as { data: { key: string } }).data.key;
    // the account channel, from before the first trigger
    stream = await StreamClient.open(`${s.streamsUrl!.replace(/^http/, "ws")}/ws`, { Authorization: `Bearer ${token}` });
    await stream.subscribe({ channel: "account", accountId: id });
    // a long on EUR/USD (the stack's market maker quotes the book)
    const open = await api("POST", `/accounts/${id}/orders`, {
      token, body: { marketId: EUR, side: "LONG", orderType: "MARKET", collateralAmount: usd("100").toString(), leverage: 5 },
    });
    expect(open.status, JSON.stringify(open.body)).toBe(201);
    const pos = await read<Json>("getPosition", [BigInt(id)]);
    expect(pos.sizeQty).toBeGreaterThan(0n);
  }, 180_000);

  afterAll(async () => {
    stream?.close();
    if (startIndex) await setIndex(startIndex).catch(() => undefined);
  });

  let tpPrice = 0n;
  let slPrice = 0n;
  let slLimit = 0n;

  it("sets a take-profit (integration API, MARKET, oco) and a stop-loss (/v1, LIMIT, oco); Idempotency-Key: the same answer, nothing sent again", async () => {
    const m = await mark();
    tpPrice = onTick((m * 1003n) / 1000n) + tick;
    slPrice = onTick((m * 990n) / 1000n);
    slLimit = onTick((m * 985n) / 1000n);
    const body = { marketId: EUR, kind: "TAKE_PROFIT", triggerPrice: tpPrice.toString(), orderType: "MARKET", oco: true };
    const tp = await api("POST", `/accounts/${id}/triggers`, { token, body, headers: { "Idempotency-Key": `tp-${id}` } });
    expect(tp.status, JSON.stringify(tp.body)).toBe(200);
    expect(tp.body.data).toMatchObject({
      triggerId: `${id}-${EUR.toLowerCase()}-TAKE_PROFIT`, accountId: id, marketId: EUR.toLowerCase(), kind: "TAKE_PROFIT", status: "active",
      triggerPrice: tpPrice.toString(), orderType: "MARKET", limitPrice: null, oco: true, positionSide: "LONG", operator: relayer,
      endReason: null, orderId: null, transactionStatus: "CONFIRMED",
    });
    const nonce = await relayerNonce();
    const again = await api("POST", `/accounts/${id}/triggers`, { token, body, headers: { "Idempotency-Key": `tp-${id}` } });
    expect(again.body.data.transactionHash).toBe(tp.body.data.transactionHash);
    expect(await relayerNonce()).toBe(nonce);

    const sl = await gw("POST", `/v1/accounts/${id}/triggers`, {
      key: gwKey, body: { market_id: EUR, kind: "STOP_LOSS", trigger_price: slPrice.toString(), order_type: 1, limit_price: slLimit.toString(), oco: true },
    });
    expect(sl.status, JSON.stringify(sl.body)).toBe(200);
    expect(sl.body.data).toMatchObject({
      kind: "STOP_LOSS", status: "active", trigger_price: slPrice.toString(), order_type: "LIMIT", limit_price: slLimit.toString(), oco: true, position_side: "LONG",
    });
    // the chain has both
    const onChain = await client.readContract({ address: triggerBook, abi: triggerBookAbi, functionName: "triggerOf", args: [BigInt(id), EUR, 1] });
    expect({ set: onChain.set, price: onChain.triggerPriceX18, limit: onChain.limitPriceX18, oco: onChain.oco }).toEqual({ set: true, price: slPrice, limit: slLimit, oco: true });

    // read back: both surfaces, the same two active triggers
    const block = sl.body.data.block_number as number;
    const a = await triggers("", block);
    expect(a.triggers.map((t: Json) => [t.kind, t.status, t.triggerPrice])).toEqual([
      ["TAKE_PROFIT", "active", tpPrice.toString()],
      ["STOP_LOSS", "active", slPrice.toString()],
    ]);
    const { transactionHash: _h, requestId: _r, transactionStatus: _s, blockNumber: _b, confirmations: _c, final: _f, ...tpAsSet } = tp.body.data;
    expect(a.triggers[0]).toEqual(tpAsSet);
    const v = await triggersV1(`market_id=${EUR}`, block);
    expect(v).toEqual(snake(a));
  });

  it("bad combinations answer their error and send nothing: wrong side of the mark, no position, LIMIT without a price or off the tick, MARKET with one, a cancel of none", async () => {
    const nonce = await relayerNonce();
    const m = await mark();
    const set = (body: Json) => api("POST", `/accounts/${id}/triggers`, { token, body: { marketId: EUR, oco: false, ...body } });
    // a long's take-profit at or below the mark would fire at once
    const wrongTp = await set({ kind: "TAKE_PROFIT", triggerPrice: onTick((m * 995n) / 1000n).toString(), orderType: "MARKET" });
    expect([wrongTp.status, wrongTp.body.error?.code], JSON.stringify(wrongTp.body)).toEqual([400, "VALIDATION_ERROR"]);
    expect(wrongTp.body.error?.message).toMatch(/triggerPrice/);
    const wrongSl = await gw("POST", `/v1/accounts/${id}/triggers`, {
      key: gwKey, body: { market_id: EUR, kind: "STOP_LOSS", trigger_price: onTick((m * 1005n) / 1000n).toString(), order_type: 0 },
    });
    expect([wrongSl.status, wrongSl.body.error?.code], JSON.stringify(wrongSl.body)).toEqual([400, "VALIDATION_ERROR"]);
    expect(wrongSl.body.error?.message).toMatch(/trigger_?[pP]rice/);
    const noPosition = await api("POST", `/accounts/${id}/triggers`, {
      token, body: { marketId: other.marketId, kind: "TAKE_PROFIT", triggerPrice: "2000000000000000000", orderType: "MARKET" },
    });
    expect([noPosition.status, noPosition.body.error?.code], JSON.stringify(noPosition.body)).toEqual([404, "NO_POSITION"]);
    const noLimit = await set({ kind: "TAKE_PROFIT", triggerPrice: tpPrice.toString(), orderType: "LIMIT" });
    expect([noLimit.status, noLimit.body.error?.code], JSON.stringify(noLimit.body)).toEqual([400, "VALIDATION_ERROR"]);
    expect(noLimit.body.error?.message).toMatch(/limitPrice/);
    const marketWithLimit = await gw("POST", `/v1/accounts/${id}/triggers`, {
      key: gwKey, body: { market_id: EUR, kind: "TAKE_PROFIT", trigger_price: tpPrice.toString(), order_type: 0, limit_price: tpPrice.toString() },
    });
    expect([marketWithLimit.status, marketWithLimit.body.error?.code], JSON.stringify(marketWithLimit.body)).toEqual([400, "VALIDATION_ERROR"]);
    const offTick = await set({ kind: "TAKE_PROFIT", triggerPrice: tpPrice.toString(), orderType: "LIMIT", limitPrice: (tpPrice + 1n).toString() });
    expect([offTick.status, offTick.body.error?.code], JSON.stringify(offTick.body)).toEqual([400, "INVALID_PRICE"]);
    const badKind = await set({ kind: "TRAILING", triggerPrice: tpPrice.toString(), orderType: "MARKET" });
    expect([badKind.status, badKind.body.error?.code], JSON.stringify(badKind.body)).toEqual([400, "VALIDATION_ERROR"]);
    const zero = await set({ kind: "TAKE_PROFIT", triggerPrice: "0", orderType: "MARKET" });
    expect([zero.status, zero.body.error?.code], JSON.stringify(zero.body)).toEqual([400, "VALIDATION_ERROR"]);
    const none = await api("POST", `/accounts/${id}/triggers/cancel`, { token, body: { marketId: other.marketId, kind: "STOP_LOSS" } });
    expect([none.status, none.body.error?.code], JSON.stringify(none.body)).toEqual([404, "TRIGGER_NOT_FOUND"]);
    expect(await relayerNonce()).toBe(nonce);
    // nothing changed
    const [tp, sl] = await Promise.all([0, 1].map((k) => client.readContract({ address: triggerBook, abi: triggerBookAbi, functionName: "triggerOf", args: [BigInt(id), EUR, k] })));
    expect([tp!.triggerPriceX18, tp!.orderType, sl!.triggerPriceX18]).toEqual([tpPrice, 0, slPrice]);
  });

  it("cancels the stop-loss (/v1): cancelled CANCELLED on both surfaces; set again (integration API): active again, end fields cleared", async () => {
    const c = await gw("POST", `/v1/accounts/${id}/triggers/cancel`, { key: gwKey, body: { market_id: EUR, kind: "STOP_LOSS" } });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body.data).toMatchObject({ account_id: id, market_id: EUR.toLowerCase(), kind: "STOP_LOSS", end_reason: "CANCELLED" });
    const block = c.body.data.block_number as number;
    expect((await triggers("", block)).triggers.map((t: Json) => t.kind)).toEqual(["TAKE_PROFIT"]);
    const cancelled = await triggers("status=cancelled", block);
    expect(cancelled.triggers).toEqual([expect.objectContaining({ kind: "STOP_LOSS", status: "cancelled", endReason: "CANCELLED" })]);
    expect(await triggersV1("status=cancelled", block)).toEqual(snake(cancelled));

    const again = await api("POST", `/accounts/${id}/triggers`, {
      token, body: { marketId: EUR, kind: "STOP_LOSS", triggerPrice: slPrice.toString(), orderType: "LIMIT", limitPrice: slLimit.toString(), oco: true },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const all = await triggers("status=all", again.body.data.blockNumber);
    expect(all.triggers.map((t: Json) => [t.kind, t.status, t.endReason])).toEqual([
      ["TAKE_PROFIT", "active", null],
      ["STOP_LOSS", "active", null],
    ]);
  });

  it("the mark passes the take-profit: fired on chain (by a stranger, or the keeper first); executed with its order, the order shows triggerKind, the twin TWIN_FIRED, both surfaces agree", async () => {
    // the index up until the mark is past the take-profit (the oracle bounds one update's move)
    await until("the mark at or above the take-profit", async () => {
      const m = await mark();
      if (m >= tpPrice) return true;
      const [index] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [EUR] });
      await setIndex(onTick((index * 1004n) / 1000n));
      return false;
    }, 60_000, 500);
    const X = walletClient(s, xKey);
    // fire it (retried: the close needs the maker's re-quoted book within the band); the keeper may come first
    await until("the take-profit fired", async () => {
      const t = await client.readContract({ address: triggerBook, abi: triggerBookAbi, functionName: "triggerOf", args: [BigInt(id), EUR, 0] });
      if (!t.set) return true;
      try {
        const hash = await X.writeContract({ address: triggerBook, abi: triggerBookAbi, functionName: "executeTrigger", args: [BigInt(id), EUR, 0] });
        await client.waitForTransactionReceipt({ hash });
      } catch (e) {
        const reverted = e instanceof BaseError ? (e.walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null) : null;
        // TriggerNotFound: someone (the keeper) fired it first; anything else: try again
        if (reverted?.data?.errorName === "TriggerNotFound") return true;
      }
      return false;
    }, 90_000, 1_000);
    const head = await client.getBlockNumber();
    const all = await until("the index shows the take-profit executed", async () => {
      const d = await triggers("status=all", head);
      const tp = d.triggers.find((t: Json) => t.kind === "TAKE_PROFIT");
      return tp?.status === "executed" ? d : undefined;
    });
    const [tp, sl] = all.triggers as Json[];
    expect(tp).toMatchObject({ kind: "TAKE_PROFIT", status: "executed", endReason: null, triggerPrice: tpPrice.toString() });
    expect(tp!.orderId).toMatch(/^[1-9]\d*$/);
    expect(BigInt(tp!.executedMarkPrice)).toBeGreaterThanOrEqual(tpPrice);
    expect(tp!.executor).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(sl).toMatchObject({ kind: "STOP_LOSS", status: "cancelled", endReason: "TWIN_FIRED", orderId: null });
    // the order it placed: the owner's reduce-only close, marked with the kind
    const orders = await api("GET", `/accounts/${id}/orders?marketId=${EUR}&limit=10&minBlock=${head}`, { headers: { "cache-control": "no-cache" } });
    expect(orders.status, JSON.stringify(orders.body)).toBe(200);
    const placed = (orders.body.data.orders as Json[]).find((o) => o.orderId === tp!.orderId);
    expect(placed).toMatchObject({ triggerKind: "TAKE_PROFIT", side: "SHORT", orderType: "MARKET", reduceOnly: true });
    expect((orders.body.data.orders as Json[]).filter((o) => o.orderId !== tp!.orderId).every((o) => o.triggerKind === null)).toBe(true);
    // it closed the whole position (a filled order leaves the chain's storage: the index keeps it)
    expect(placed!.status).toBe("filled");
    expect((await read<Json>("getPosition", [BigInt(id)])).sizeQty).toBe(0n);
    // both surfaces agree
    expect(await triggersV1("status=all", head)).toEqual(snake(all));
    const v1Orders = await gw("GET", `/v1/accounts/${id}/orders?market_id=${EUR}&limit=10&min_block=${head}`, { key: gwKey });
    expect((v1Orders.body.data.orders as Json[]).find((o) => o.order_id === tp!.orderId)).toMatchObject({ trigger_kind: "TAKE_PROFIT" });
    const history = await api("GET", `/accounts/${id}/orders/history?marketId=${EUR}&minBlock=${head}`);
    expect(history.status, JSON.stringify(history.body)).toBe(200);
    expect((history.body.data.orders as Json[]).find((o) => o.orderId === tp!.orderId)).toMatchObject({ triggerKind: "TAKE_PROFIT" });
    // nothing active is left
    expect((await triggers("", head)).triggers).toEqual([]);
  });

  it("the account stream carried every change: set, removed (CANCELLED, TWIN_FIRED) and executed (its order id)", async () => {
    const seen = await until("the stream's trigger changes", async () => {
      // the account channel's snapshot and updates (camelCase on the stream service's /ws)
      const changes = stream!.messages.filter((m) => (m.type === "snapshot" || m.type === "update") && m.channel === "account").flatMap((m) => (m.data?.triggers as Json[] | undefined) ?? []);
      const key = (t: Json) => `${t.kind}:${t.status}:${t.endReason ?? ""}`;
      const keys = new Set(changes.map(key));
      return ["TAKE_PROFIT:active:", "STOP_LOSS:active:", "STOP_LOSS:cancelled:CANCELLED", "STOP_LOSS:cancelled:TWIN_FIRED", "TAKE_PROFIT:executed:"].every((k) => keys.has(k))
        ? changes
        : undefined;
    }, 30_000);
    const executed = seen.find((t) => t.kind === "TAKE_PROFIT" && t.status === "executed");
    expect(executed?.orderId).toMatch(/^[1-9]\d*$/);
  });
});
