/**
 * Market v2 above the chain, end to end (real anvil, Ponder, relayer, keeper, gateway): the
 * dead-man switch (set through the API, indexed, the keeper cancels once the chain's time passes
 * it; a stranger cannot before), cancel-all on both surfaces over several markets, batches of
 * places and cancels (per-item results, all-or-nothing, too many items), and the keeper removing
 * an expired good-til-time order for its bond.
 * Wallets: fresh random ones (ether from anvil_setBalance, tokens sent by demo wallet 9), so no
 * other test file's state is touched. The chain's clock is moved forward (evm_increaseTime) by
 * seconds only, as other files do.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import { depositTokenAbi, engineAbi, marketAbi } from "../../abis/index.js";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import { sharedStack } from "./helpers/stacks.js";
import { advanceClock, publicClient, waitIndexed, walletClient } from "./helpers/chain.js";
import { gatewayClient, integrationClient, signIn } from "./helpers/http.js";
import { until } from "./helpers/wait.js";
import { GatewayClient, VenueClient, order } from "../../packages/client/src/index.js";

const usd = (v: string) => parseUnits(v, 6);
const TICK = 10n ** 13n;
const atTick = (p: bigint) => (p / TICK) * TICK;
const REASON = { USER_CANCEL: 1, EXPIRED: 11, DEADMAN: 12 } as const;

describe.each([sharedStack()])("dead-man switch, cancel-all, batch ($kind)", (s) => {
  const req = integrationClient(s);
  const gw = gatewayClient(s);
  const client = publicClient(s);
  const engine = s.deployment.contracts.engine;
  const [m1, m2] = [s.deployment.markets[0]!, s.deployment.markets[1] ?? s.deployment.markets[0]!];
  const relayerAddress = privateKeyToAccount(s.keys.relayer).address;
  const keeperAddress = devAccount(KEY_INDEX.keeper).address;

  const keys = { a: generatePrivateKey(), x: generatePrivateKey() };
  const A = privateKeyToAccount(keys.a);
  const X = privateKeyToAccount(keys.x);
  const tokens: Record<string, string> = {};
  let id = 0;
  let apiKey = "";
  const marks = new Map<Hex, bigint>();

  const fund = async (key: Hex, tokens6: bigint, allowance6: bigint) => {
    const a = privateKeyToAccount(key);
    await client.request({ method: "anvil_setBalance" as never, params: [a.address, "0x8AC7230489E80000"] as never });
    const funder = walletClient(s, s.wallets[9]!.privateKey);
    await client.waitForTransactionReceipt({
      hash: await funder.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "transfer", args: [a.address, tokens6] }),
    });
    const me = walletClient(s, key);
    await client.waitForTransactionReceipt({
      hash: await me.writeContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "approve", args: [engine, allowance6] }),
    });
  };

  const approval = async (key: Hex) => {
    const a = privateKeyToAccount(key);
    const td = await req("GET", `/operators/typed-data?owner=${a.address}`);
    const { domain, types, message } = td.body.data;
    const { EIP712Domain: _, ...rest } = types;
    const signature = await a.signTypedData({
      domain, types: rest, primaryType: "OperatorApproval",
      message: { ...message, expiry: BigInt(message.expiry), nonce: BigInt(message.nonce), deadline: BigInt(message.deadline) },
    });
    return { expiry: message.expiry, deadline: message.deadline, signature };
  };

  const chainNow = async () => (await client.getBlock({ blockTag: "latest" })).timestamp;
  /** The chain's clock `seconds` ahead, a block at that time, the index pushed again (advanceClock). */
  const advance = (seconds: number) => advanceClock(s, seconds);
  const mark = async (marketAddress: Address) => client.readContract({ address: marketAddress, abi: marketAbi, functionName: "markPrice" });
  /** A resting bid `k` ticks under 99.5 % of the mark (within the relayer's operator band). */
  const bidPrice = (marketId: Hex, k = 0) => atTick((marks.get(marketId)! * 995n) / 1000n) - BigInt(k) * TICK;
  const limitBody = (marketId: Hex, k = 0, extra: Record<string, unknown> = {}) => ({
    marketId, collateralAmount: usd("50").toString(), side: "LONG", leverage: 5, orderType: "LIMIT", limitPrice: bidPrice(marketId, k).toString(), ...extra,
  });
  const place = async (marketId: Hex, k = 0) => {
    const r = await req("POST", `/accounts/${id}/orders`, { token: tokens.a, body: limitBody(marketId, k) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data as { orderId: string; clientKey: Hex; blockNumber: number };
  };
  const activeOrders = async (minBlock: number) => {
    const r = await req("GET", `/accounts/${id}/orders?status=active&limit=1000&minBlock=${minBlock}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.orders as Array<{ orderId: string; marketId: Hex; clientKey: Hex }>;
  };
  const orderState = async (marketAddress: Address, orderId: string | bigint) =>
    client.readContract({ address: marketAddress, abi: marketAbi, functionName: "getOrder", args: [BigInt(orderId)] });
  /**
   * The close of `orderId` on chain: its OrderClosed, or the OrdersCancelled that names it (a
   * cancelOrders: the dead-man's); its reason, the transaction's sender and the margin returned
   * (an OrdersCancelled's: all its orders').
   */
  const closedEvent = async (marketAddress: Address, orderId: bigint, fromBlock: bigint) => {
    const one = (await client.getContractEvents({ address: marketAddress, abi: marketAbi, eventName: "OrderClosed", args: { orderId }, fromBlock })).at(-1);
    const many = (await client.getContractEvents({ address: marketAddress, abi: marketAbi, eventName: "OrdersCancelled", fromBlock }))
      .filter((l) => l.args.orderIds!.includes(orderId)).at(-1);
    const l = one ?? many;
    if (!l) return undefined;
    const tx = await client.getTransaction({ hash: l.transactionHash! });
    return { reason: Number(l.args.reason), from: tx.from, marginReturnedWad: l.args.marginReturnedWad! };
  };

  beforeAll(async () => {
    await fund(keys.a, usd("30000"), usd("30000"));
    await fund(keys.x, usd("1000"), usd("1000"));
    tokens.a = await signIn(s, A);
    tokens.x = await signIn(s, X);
    const created = await req("POST", "/accounts", { token: tokens.a, body: { userAddress: A.address, operatorApproval: await approval(keys.a) } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    id = created.body.data.accountId;
    const dep = await req("POST", `/accounts/${id}/deposit`, { token: tokens.a, body: { amount: usd("20000").toString() } });
    expect(dep.status, JSON.stringify(dep.body)).toBe(200);
    const k = await fetch(`${s.gatewayUrl}/admin/keys`, {
      method: "POST", headers: { "X-Admin-Token": s.adminToken, "content-type": "application/json" },
      body: JSON.stringify({ wallet: A.address, label: "e2e deadman-batch" }),
    });
    expect(k.status).toBe(201);
    apiKey = ((await k.json()) as { data: { key: string } }).data.key;
    for (const m of [m1, m2]) marks.set(m.marketId as Hex, await mark(m.marketAddress));
  }, 120_000);

  afterAll(async () => {
    // leave nothing armed: the switch off, no open orders
    if (id) {
      await req("POST", `/accounts/${id}/deadman`, { token: tokens.a, body: { deadline: 0 } }).catch(() => {});
      await req("POST", `/accounts/${id}/orders/cancel-all`, { token: tokens.a, body: {} }).catch(() => {});
    }
  });

  describe("dead-man switch", () => {
    it("refuses a deadline in the past or sooner than now + 5 s (DEADMAN_TOO_SOON, nothing sent); a stranger may not set it", async () => {
      const now = await chainNow();
      for (const deadline of [Number(now) - 10, Number(now) + 2]) {
        const r = await req("POST", `/accounts/${id}/deadman`, { token: tokens.a, body: { deadline } });
        expect([r.status, r.body.error?.code], JSON.stringify(r.body)).toEqual([400, "DEADMAN_TOO_SOON"]);
        expect(r.body.data).toBeUndefined();
      }
      const bad = await req("POST", `/accounts/${id}/deadman`, { token: tokens.a, body: { deadline: "soon" } });
      expect([bad.status, bad.body.error?.code]).toEqual([400, "VALIDATION_ERROR"]);
      const stranger = await req("POST", `/accounts/${id}/deadman`, { token: tokens.x, body: { deadline: Number(now) + 100 } });
      expect([stranger.status, stranger.body.error?.code]).toEqual([403, "UNAUTHORIZED"]);
      const g = await gw("POST", `/v1/accounts/${id}/deadman`, { key: apiKey, body: { deadline: String(Number(now) - 1) } });
      expect([g.status, g.body.error?.code]).toEqual([400, "DEADMAN_TOO_SOON"]);
      expect(await client.readContract({ address: engine, abi: engineAbi, functionName: "deadmanOf", args: [BigInt(id)] })).toBe(0n);
    });

    it("set through the API, indexed in the account answer (both surfaces); a stranger cannot cancel before it; the keeper cancels every open order once it passes (DEADMAN, margin back)", async () => {
      const o1 = await place(m1.marketId as Hex, 0);
      const o2 = await place(m1.marketId as Hex, 1);
      const o3 = await place(m2.marketId as Hex, 0);
      const placedAt = BigInt(o1.blockNumber);
      const before = await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(id)] });
      expect(before.committedWad > 0n).toBe(true);

      const deadline = Number(await chainNow()) + 30;
      const set = await req("POST", `/accounts/${id}/deadman`, { token: tokens.a, body: { deadline } });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      expect(set.body.data).toMatchObject({ accountId: id, deadline, enabled: true, transactionStatus: "CONFIRMED", deadlineISO: new Date(deadline * 1000).toISOString() });
      expect(await client.readContract({ address: engine, abi: engineAbi, functionName: "deadmanOf", args: [BigInt(id)] })).toBe(BigInt(deadline));

      const acct = await req("GET", `/accounts/${id}?minBlock=${set.body.data.blockNumber}`);
      expect(acct.status).toBe(200);
      expect(acct.body.data.deadman).toEqual({ deadline, deadlineISO: new Date(deadline * 1000).toISOString(), enabled: true });
      const v1 = await gw("GET", `/v1/accounts/${id}?min_block=${set.body.data.blockNumber}`, { key: apiKey });
      expect(v1.body.data.deadman).toEqual({ deadline, deadline_iso: new Date(deadline * 1000).toISOString(), enabled: true });

      // before the deadline: a stranger's cancelOrders reverts (OperatorNotApproved), the orders stay
      await expect(
        client.simulateContract({ account: X.address, address: engine, abi: engineAbi, functionName: "cancelOrders", args: [BigInt(id), m1.marketId as Hex, [BigInt(o1.orderId)]] }),
      ).rejects.toThrow(/OperatorNotApproved/);
      const strangerApi = await req("POST", `/accounts/${id}/orders/cancel-all`, { token: tokens.x, body: {} });
      expect([strangerApi.status, strangerApi.body.error?.code]).toEqual([403, "UNAUTHORIZED"]);
      expect((await orderState(m1.marketAddress, o1.orderId)).status).toBe(1); // ACTIVE

      await advance(35);
      for (const [m, o] of [[m1, o1], [m1, o2], [m2, o3]] as const) {
        const ev = await until(`the keeper's dead-man cancel of order ${o.orderId}`, () => closedEvent(m.marketAddress, BigInt(o.orderId), placedAt), 60_000, 500);
        expect(ev.reason).toBe(REASON.DEADMAN);
        expect(ev.from.toLowerCase()).toBe(keeperAddress.toLowerCase());
        expect(ev.marginReturnedWad > 0n).toBe(true);
      }
      const after = await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(id)] });
      expect(after.committedWad).toBe(0n);
      expect(after.availableWad + after.committedWad).toBe(before.availableWad + before.committedWad);
      const head = await client.getBlockNumber();
      await waitIndexed(s, head);
      expect(await activeOrders(Number(head))).toEqual([]);

      // off again: later orders of this file stay
      const off = await gw("POST", `/v1/accounts/${id}/deadman`, { key: apiKey, body: { deadline: "0" } });
      expect(off.status, JSON.stringify(off.body)).toBe(200);
      expect(off.body.data).toMatchObject({ account_id: id, deadline: 0, deadline_iso: null, enabled: false, transaction_status: "CONFIRMED" });
    }, 120_000);
  });

  describe("cancel-all", () => {
    it("integration API: every open order of the account in several markets, in one transaction; the reads no longer show them", async () => {
      const placed = [await place(m1.marketId as Hex, 2), await place(m1.marketId as Hex, 3), await place(m2.marketId as Hex, 2)];
      const depth = async (marketId: Hex, minBlock: number) => {
        const r = await req("GET", `/markets/${marketId}/orderbook?depth=100&minBlock=${minBlock}`);
        expect(r.status).toBe(200);
        return r.body.data.bids as Array<{ price: string; orderCount: number }>;
      };
      const last = placed.at(-1)!.blockNumber;
      const levelBefore = (await depth(m1.marketId as Hex, last)).find((l) => l.price === bidPrice(m1.marketId as Hex, 2).toString());
      expect(levelBefore?.orderCount ?? 0).toBeGreaterThanOrEqual(1);

      // right after the places are mined (the relayer waits for the index to hold them)
      const r = await req("POST", `/accounts/${id}/orders/cancel-all`, { token: tokens.a, body: {} });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toMatchObject({ accountId: id, marketId: null, cancelled: 3, transactionStatus: "CONFIRMED" });
      const byMarket = Object.fromEntries((r.body.data.markets as Array<{ marketId: string; cancelled: number; orderIds: string[] }>).map((m) => [m.marketId, m]));
      expect(byMarket[m1.marketId]!.cancelled).toBe(2);
      expect(byMarket[m2.marketId]!.cancelled).toBe(1);
      expect([...byMarket[m1.marketId]!.orderIds].sort()).toEqual([placed[0]!.orderId, placed[1]!.orderId].sort());
      const receipt = await client.getTransactionReceipt({ hash: r.body.data.transactionHash });
      // one OrdersCancelled a market (no OrderClosed): 2 orders in one, 1 in the other
      expect(parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrderClosed" })).toEqual([]);
      const batches = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrdersCancelled" });
      expect(batches.map((e) => Number(e.args.reason))).toEqual([REASON.USER_CANCEL, REASON.USER_CANCEL]);
      expect(batches.map((e) => e.args.orderIds.length).sort()).toEqual([1, 2]);
      expect((await client.getTransaction({ hash: r.body.data.transactionHash })).from.toLowerCase()).toBe(relayerAddress.toLowerCase());

      expect(await activeOrders(r.body.data.blockNumber)).toEqual([]);
      const levelAfter = (await depth(m1.marketId as Hex, r.body.data.blockNumber)).find((l) => l.price === bidPrice(m1.marketId as Hex, 2).toString());
      expect(levelAfter?.orderCount ?? 0).toBe((levelBefore?.orderCount ?? 0) - 1);

      // nothing open: 200, nothing cancelled
      const none = await req("POST", `/accounts/${id}/orders/cancel-all`, { token: tokens.a, body: {} });
      expect(none.status, JSON.stringify(none.body)).toBe(200);
      expect(none.body.data).toMatchObject({ cancelled: 0, markets: [] });
    }, 120_000);

    it("gateway /v1: one market's open orders (market_id), snake_case answer; the other market's stay", async () => {
      const trade = (marketId: Hex, k: number) =>
        gw("POST", `/v1/accounts/${id}/trade`, {
          key: apiKey,
          body: { market_id: marketId, collateral: usd("50").toString(), side: 0, leverage: 5, order_type: 1, limit_price: bidPrice(marketId, k).toString() },
        });
      const t1 = await trade(m1.marketId as Hex, 4);
      expect(t1.status, JSON.stringify(t1.body)).toBe(201);
      const t2 = await trade(m1.marketId as Hex, 5);
      expect(t2.status).toBe(201);
      const t3 = await trade(m2.marketId as Hex, 4);
      expect(t3.status).toBe(201);
      const r = await gw("POST", `/v1/accounts/${id}/orders/cancel-all`, { key: apiKey, body: { market_id: m1.marketId } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toMatchObject({ account_id: id, market_id: m1.marketId, cancelled: 2, transaction_status: "CONFIRMED" });
      expect(r.body.data.markets).toEqual([expect.objectContaining({ market_id: m1.marketId, cancelled: 2, margin_returned: expect.any(String), order_ids: expect.any(Array) })]);
      const left = await activeOrders(r.body.data.block_number);
      expect(left.map((o) => o.orderId)).toEqual([t3.body.data.order_id]);
      const all = await gw("POST", `/v1/accounts/${id}/orders/cancel-all`, { key: apiKey, body: {} });
      expect(all.status).toBe(200);
      expect(all.body.data.cancelled).toBe(1);
    }, 120_000);
  });

  describe("batch", () => {
    it("atomic=false: 10 places and a failing one (bad price) answer per item; the 10 are placed", async () => {
      const items: Record<string, unknown>[] = Array.from({ length: 10 }, (_, k) => ({ action: "PLACE", ...limitBody(m1.marketId as Hex, 10 + k) }));
      items.splice(4, 0, { action: "PLACE", ...limitBody(m1.marketId as Hex, 0, { limitPrice: (bidPrice(m1.marketId as Hex) + 1n).toString() }) }); // off the tick
      const r = await req("POST", `/accounts/${id}/orders/batch`, { token: tokens.a, body: { items } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const d = r.body.data;
      expect(d).toMatchObject({ accountId: id, atomic: false, succeeded: 10, failed: 1, transactionStatus: "CONFIRMED" });
      expect(d.items).toHaveLength(11);
      expect(d.items[4]).toMatchObject({ index: 4, action: "PLACE", status: "FAILED", code: "INVALID_PRICE" });
      const single = await req("POST", `/accounts/${id}/orders`, { token: tokens.a, body: items[4] });
      expect(single.body.error?.code).toBe(d.items[4].code); // the code its single write answers
      for (const item of d.items.filter((i: { status: string }) => i.status === "OK")) {
        expect(item).toMatchObject({ action: "PLACE", marketId: m1.marketId, side: "LONG", orderType: "LIMIT", orderStatus: "active" });
        expect(await client.readContract({ address: m1.marketAddress, abi: marketAbi, functionName: "orderIdOf", args: [BigInt(id), item.clientKey] })).toBe(BigInt(item.orderId));
      }
      expect(await activeOrders(d.blockNumber)).toHaveLength(10);

      // cancels in a batch: by clientKey and by orderId (and one not open: FAILED ORDER_NOT_FOUND)
      const ok = d.items.filter((i: { status: string }) => i.status === "OK");
      const cancels = await req("POST", `/accounts/${id}/orders/batch`, {
        token: tokens.a,
        body: {
          items: [
            { action: "CANCEL", marketId: m1.marketId, clientKey: ok[0].clientKey },
            { action: "CANCEL", marketId: m1.marketId, orderId: ok[1].orderId },
            { action: "CANCEL", marketId: m1.marketId, clientKey: "0x" + "99".repeat(32) },
          ],
        },
      });
      expect(cancels.status, JSON.stringify(cancels.body)).toBe(200);
      expect(cancels.body.data.items.map((i: { status: string }) => i.status)).toEqual(["OK", "OK", "FAILED"]);
      expect(cancels.body.data.items[0]).toMatchObject({ orderId: ok[0].orderId, marginReturned: expect.stringMatching(/^[1-9]\d*$/) });
      expect(cancels.body.data.items[1]).toMatchObject({ orderId: ok[1].orderId });
      expect(cancels.body.data.items[2].code).toBe("ORDER_NOT_FOUND");
      expect(await activeOrders(cancels.body.data.blockNumber)).toHaveLength(8);
    }, 120_000);

    it("atomic=true: a failing item answers its single write's error and nothing changes", async () => {
      const before = await activeOrders(Number(await client.getBlockNumber()));
      const key = ("0x" + "a7".repeat(32)) as Hex;
      const items = [
        { action: "PLACE", ...limitBody(m1.marketId as Hex, 30, { clientKey: key }) },
        { action: "PLACE", ...limitBody(m1.marketId as Hex, 0, { limitPrice: (bidPrice(m1.marketId as Hex) + 1n).toString() }) },
      ];
      const r = await req("POST", `/accounts/${id}/orders/batch`, { token: tokens.a, body: { items, atomic: true } });
      expect([r.status, r.body.error?.code], JSON.stringify(r.body)).toEqual([400, "INVALID_PRICE"]);
      const head = await client.getBlockNumber();
      await waitIndexed(s, head);
      expect((await activeOrders(Number(head))).length).toBe(before.length);
      expect(await client.readContract({ address: m1.marketAddress, abi: marketAbi, functionName: "orderIdOf", args: [BigInt(id), key] })).toBe(0n);
    }, 60_000);

    it("33 items: 400 BATCH_TOO_LARGE on both surfaces, nothing sent", async () => {
      const nonce = await client.getTransactionCount({ address: relayerAddress });
      const items = Array.from({ length: 33 }, (_, k) => ({ action: "PLACE", ...limitBody(m1.marketId as Hex, 40 + k) }));
      const r = await req("POST", `/accounts/${id}/orders/batch`, { token: tokens.a, body: { items } });
      expect([r.status, r.body.error?.code]).toEqual([400, "BATCH_TOO_LARGE"]);
      const g = await gw("POST", `/v1/accounts/${id}/orders/batch`, {
        key: apiKey,
        body: { items: Array.from({ length: 33 }, () => ({ action: "CANCEL", market_id: m1.marketId, order_id: "1" })) },
      });
      expect([g.status, g.body.error?.code]).toEqual([400, "BATCH_TOO_LARGE"]);
      const bad = await req("POST", `/accounts/${id}/orders/batch`, { token: tokens.a, body: { items: [{ action: "MOVE" }] } });
      expect([bad.status, bad.body.error?.code]).toEqual([400, "VALIDATION_ERROR"]);
      expect(await client.getTransactionCount({ address: relayerAddress })).toBe(nonce);
    });

    it("gateway /v1: a batch in snake_case (place with order options, and cancel)", async () => {
      const expiresAt = Number(await chainNow()) + 3_600;
      const r = await gw("POST", `/v1/accounts/${id}/orders/batch`, {
        key: apiKey,
        body: {
          items: [
            {
              action: "PLACE", market_id: m2.marketId, collateral: usd("50").toString(), side: 0, leverage: 5, order_type: 1, limit_price: bidPrice(m2.marketId as Hex, 7).toString(),
              time_in_force: "POST_ONLY", expires_at: expiresAt,
            },
            { action: "CANCEL", market_id: m2.marketId, order_id: "1" },
          ],
        },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toMatchObject({ account_id: id, atomic: false, succeeded: 1, failed: 1, transaction_status: "CONFIRMED" });
      expect(r.body.data.items[0]).toMatchObject({ status: "OK", action: "PLACE", market_id: m2.marketId, order_status: "active" });
      expect(r.body.data.items[1]).toMatchObject({ status: "FAILED", code: expect.any(String) });
      // the options reached the chain (a batch item is placed as the single trade route places it)
      const placed = parseEventLogs({ abi: marketAbi, logs: (await client.getTransactionReceipt({ hash: r.body.data.transaction_hash })).logs, eventName: "OrderPlaced" });
      expect(placed.map((l) => [String(l.args.orderId), l.args.timeInForce, l.args.expiresAt])).toEqual([[r.body.data.items[0].order_id, 3, BigInt(expiresAt)]]);
    }, 60_000);
  });

  describe("the client package", () => {
    it("setDeadman, batch and cancelAll on both clients", async () => {
      const clean = await req("POST", `/accounts/${id}/orders/cancel-all`, { token: tokens.a, body: {} });
      expect(clean.status, JSON.stringify(clean.body)).toBe(200);
      const venue = new VenueClient({ baseUrl: s.integrationUrl, signer: A });
      const gwc = new GatewayClient({ baseUrl: s.gatewayUrl!, apiKey, retry: { retries: 3 } });
      const now = Number(await chainNow());
      const on = await venue.setDeadman(id, now + 3_600);
      expect(on).toMatchObject({ accountId: id, deadline: now + 3_600, enabled: true });
      expect((await venue.account(id)).deadman).toMatchObject({ deadline: now + 3_600, enabled: true });
      const off = await gwc.setDeadman(id, 0);
      expect(off).toMatchObject({ deadline: 0, enabled: false });
      await expect(venue.setDeadman(id, now - 1)).rejects.toMatchObject({ code: "DEADMAN_TOO_SOON" });

      const limit = (marketId: Hex, k: number) =>
        order.limit({ marketId, side: "LONG", collateral: usd("50"), leverage: 5, price: bidPrice(marketId, k) });
      const b = await venue.batch(id, [{ action: "PLACE", order: limit(m1.marketId as Hex, 80) }, { action: "PLACE", order: limit(m2.marketId as Hex, 80) }]);
      expect(b.items.map((i) => i.status)).toEqual(["OK", "OK"]);
      const g = await gwc.batch(id, [
        { action: "PLACE", order: limit(m1.marketId as Hex, 81) },
        { action: "CANCEL", marketId: m1.marketId as Hex, orderId: b.items[0]!.orderId as string },
      ]);
      expect(g).toMatchObject({ succeeded: 2, failed: 0 });
      await expect(venue.batch(id, Array.from({ length: 33 }, () => ({ action: "CANCEL" as const, marketId: m1.marketId as Hex, orderId: 1n })))).rejects.toMatchObject({ code: "BATCH_TOO_LARGE" });
      const one = await gwc.cancelAll(id, { marketId: m2.marketId as Hex });
      expect(one).toMatchObject({ cancelled: 1 });
      const all = await venue.cancelAll(id);
      expect(all).toMatchObject({ cancelled: 1 });
      expect(all.markets.map((m) => m.marketId)).toEqual([m1.marketId]);
    }, 120_000);
  });

  describe("expired orders", () => {
    it("the keeper removes a good-til-time order past its expiry (CloseReason EXPIRED); its bond goes to the keeper's wallet", async () => {
      const owner = walletClient(s, keys.a);
      const expiresAt = (await chainNow()) + 20n;
      const clientKey = ("0x" + "e1".repeat(32)) as Hex;
      const hash = await owner.writeContract({
        address: engine, abi: engineAbi, functionName: "placeOrder",
        args: [{
          accountId: BigInt(id), marketId: m1.marketId as Hex, side: 0, orderType: 1, collateral6: usd("50"), leverage: 5n,
          limitPriceX18: bidPrice(m1.marketId as Hex, 60), clientKey, timeInForce: 0, reduceOnly: false, expiresAt,
        }],
      });
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      const orderId = await client.readContract({ address: m1.marketAddress, abi: marketAbi, functionName: "orderIdOf", args: [BigInt(id), clientKey] });
      expect(orderId > 0n).toBe(true);
      const placedEv = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrderPlaced" });
      expect(placedEv[0]!.args.expiresAt).toBe(expiresAt);
      const balanceBefore = await client.readContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "balanceOf", args: [keeperAddress] });

      await advance(25);
      const ev = await until("the keeper's removal of the expired order", () => closedEvent(m1.marketAddress, orderId, receipt.blockNumber), 60_000, 500);
      expect(ev.reason).toBe(REASON.EXPIRED);
      expect(ev.from.toLowerCase()).toBe(keeperAddress.toLowerCase());
      const balanceAfter = await client.readContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "balanceOf", args: [keeperAddress] });
      expect(balanceAfter - balanceBefore >= 500_000n).toBe(true); // 0.50 per removed order
      const metrics = await (await fetch(`${s.keeperUrl}/metrics`)).text();
      expect(metrics).toMatch(/venue_keeper_expired_orders_removed_total\{[^}]*\} [1-9]/);
      expect(metrics).toMatch(/venue_keeper_deadman_orders_cancelled_total\{[^}]*\} [1-9]/);
    }, 120_000);
  });
});
