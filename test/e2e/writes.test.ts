/**
 * The integration API's write routes end to end (real anvil, Ponder, relayer, keeper): sign-in
 * with SIWE, every write's success path with its fields checked against the chain and then the
 * read routes once indexed, and every error code of the spec's table with its status.
 * Wallets: fresh random ones (ether from anvil_setBalance, tokens sent by demo wallet 9), so no
 * other test file's state is touched; AUD/USD is paused for one request and resumed.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import { depositTokenAbi, engineAbi, marketAbi } from "../../abis/index.js";
import { DEFAULT_OPERATOR_POLICY } from "../../core/operator-policy.js";
import { sharedStack } from "./helpers/stacks.js";
import { publicClient, waitIndexed, walletClient } from "./helpers/chain.js";
import { createSiweMessage } from "viem/siwe";
import { integrationClient, signIn } from "./helpers/http.js";

const usd = (v: string) => parseUnits(v, 6);

/** POST JSON with a chosen Host header. */
function postWithHost(url: string, host: string, body: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const r = request(url, { method: "POST", headers: { host, "content-type": "application/json", "content-length": Buffer.byteLength(data) } }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    r.on("error", reject);
    r.end(data);
  });
}
const TICK = 10n ** 13n;

describe.each([sharedStack()])("integration write routes ($kind)", (s) => {
  const req = integrationClient(s);
  const client = publicClient(s);
  const engine = s.deployment.contracts.engine;
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD") ?? s.deployment.markets[0]!;
  const aud = s.deployment.markets.find((m) => m.symbol === "AUD/USD") ?? s.deployment.markets[s.deployment.markets.length - 1]!;
  const unknownMarket = ("0x" + "77".repeat(32)) as Hex;
  const relayerAddress = privateKeyToAccount(s.keys.relayer).address;

  // W trades; X is "another wallet" and provides liquidity; Y never approves the relayer.
  const keys = { w: generatePrivateKey(), x: generatePrivateKey(), y: generatePrivateKey() };
  const W = privateKeyToAccount(keys.w);
  const X = privateKeyToAccount(keys.x);
  const Y = privateKeyToAccount(keys.y);
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

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

  /** The owner's EIP-712 approval of the relayer, from GET /operators/typed-data. */
  const approval = async (key: Hex) => {
    const a = privateKeyToAccount(key);
    const td = await req("GET", `/operators/typed-data?owner=${a.address}`);
    expect(td.status, JSON.stringify(td.body)).toBe(200);
    const { domain, types, message } = td.body.data;
    expect(message.operator).toBe(relayerAddress);
    // the policy the approval sets, stated before signing: the conservative defaults
    expect(message).toMatchObject(DEFAULT_OPERATOR_POLICY);
    const { EIP712Domain: _, ...rest } = types;
    const signature = await a.signTypedData({
      domain, types: rest, primaryType: "OperatorApproval",
      message: { ...message, expiry: BigInt(message.expiry), nonce: BigInt(message.nonce), deadline: BigInt(message.deadline) },
    });
    return { expiry: message.expiry, deadline: message.deadline, signature };
  };

  beforeAll(async () => {
    await fund(keys.w, usd("50000"), usd("20000"));
    await fund(keys.x, usd("50000"), usd("50000"));
    await fund(keys.y, usd("1000"), usd("1000"));
    for (const [name, acct] of [["w", W], ["x", X], ["y", Y]] as const) tokens[name] = await signIn(s, acct);
  });

  describe("sign-in and POST /accounts", () => {
    it("a nonce signs in once; a forged domain or a foreign URI never (the Host header is not trusted)", async () => {
      const message = async (o: { domain?: string; uri?: string } = {}) => {
        const n = await req("GET", "/auth/nonce");
        const host = new URL(s.integrationUrl).host;
        const m = createSiweMessage({ address: W.address, chainId: s.chainId, domain: o.domain ?? host, nonce: n.body.data.nonce, uri: o.uri ?? s.integrationUrl, version: "1" });
        return { message: m, signature: await W.signMessage({ message: m }) };
      };
      const good = await message();
      expect((await req("POST", "/auth/login", { body: good })).status).toBe(200);
      const replay = await req("POST", "/auth/login", { body: good });
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatchObject({ code: "UNAUTHENTICATED", message: expect.stringContaining("already used") });
      // the request's Host header names the forged domain (fetch cannot set Host; node:http can): still refused
      const forged = await postWithHost(`${s.integrationUrl}/auth/login`, "evil.example", await message({ domain: "evil.example" }));
      expect(forged.status).toBe(401);
      expect(forged.body.error.message).toContain("domain evil.example");
      const wrongUri = await req("POST", "/auth/login", { body: await message({ uri: "https://evil.example/login" }) });
      expect(wrongUri.status).toBe(401);
      expect(wrongUri.body.error!.message).toContain("URI https://evil.example");
    });

    it("401 without a token; 403 UNAUTHORIZED for another wallet's userAddress", async () => {
      const none = await req("POST", "/accounts", { body: { userAddress: W.address } });
      expect(none.status).toBe(401);
      expect(none.body.error!.code).toBe("UNAUTHENTICATED");
      const bad = await req("POST", "/accounts", { token: "x.y.z", body: { userAddress: W.address } });
      expect(bad.status).toBe(401);
      const other = await req("POST", "/accounts", { token: tokens.x, body: { userAddress: W.address } });
      expect(other.status).toBe(403);
      expect(other.body.error!.code).toBe("UNAUTHORIZED");
    });

    it("201 with the account's fields from AccountCreated, and the operator approval in the same request", async () => {
      const r = await req("POST", "/accounts", { token: tokens.w, body: { userAddress: W.address, operatorApproval: await approval(keys.w) } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      const d = r.body.data;
      expect(d).toMatchObject({ owner: W.address, transactionStatus: "CONFIRMED" });
      expect(typeof d.accountId).toBe("number");
      expect(d.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(typeof d.blockNumber).toBe("number");
      expect(typeof d.requestId).toBe("string");
      expect(d.operatorApproval).toMatchObject({ success: true, data: { owner: W.address, operator: relayerAddress, transactionStatus: "CONFIRMED" } });
      ids.w = d.accountId;
      // against the chain
      const onChain = await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(d.accountId)] });
      expect(onChain.owner).toBe(W.address);
      expect(onChain.accountAddress).toBe(d.accountAddress);
      const receipt = await client.getTransactionReceipt({ hash: d.transactionHash });
      expect(Number(receipt.blockNumber)).toBe(d.blockNumber);
      const expiry = await client.readContract({ address: engine, abi: engineAbi, functionName: "operatorExpiry", args: [W.address, relayerAddress] });
      expect(expiry).toBeGreaterThan(BigInt(Math.floor(Date.now() / 1000)));
      const state = await client.readContract({ address: engine, abi: engineAbi, functionName: "operatorState", args: [W.address, relayerAddress] });
      expect(state).toMatchObject({ ...DEFAULT_OPERATOR_POLICY, usedWad: 0n });
      // against the read routes
      await waitIndexed(s, d.blockNumber);
      const read = await req("GET", `/accounts/${d.accountId}`);
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ accountId: d.accountId, accountAddress: d.accountAddress, owner: W.address });
      const byAddr = await req("GET", `/accounts/by-address/${W.address}`);
      expect(byAddr.body.data).toMatchObject({ accountId: d.accountId, exists: true });
    });

    it("400 ACCOUNT_EXISTS for a second account", async () => {
      const r = await req("POST", "/accounts", { token: tokens.w, body: { userAddress: W.address } });
      expect(r.status).toBe(400);
      expect(r.body.error!.code).toBe("ACCOUNT_EXISTS");
    });

    it("X (through POST /operators/approve) and Y (no approval) get accounts too", async () => {
      const x = await req("POST", "/accounts", { token: tokens.x, body: { userAddress: X.address } });
      expect(x.status).toBe(201);
      ids.x = x.body.data.accountId;
      // X's own signature submitted by W's session: the owner must be the signed-in wallet
      const signedByX = await approval(keys.x);
      const foreign = await req("POST", "/operators/approve", { token: tokens.w, body: { owner: X.address, ...signedByX } });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error!.code).toBe("UNAUTHORIZED");
      const ap = await req("POST", "/operators/approve", { token: tokens.x, body: { owner: X.address, ...signedByX } });
      expect(ap.status, JSON.stringify(ap.body)).toBe(200);
      expect(ap.body.data).toMatchObject({ owner: X.address, operator: relayerAddress, transactionStatus: "CONFIRMED" });
      const y = await req("POST", "/accounts", { token: tokens.y, body: { userAddress: Y.address } });
      expect(y.status).toBe(201);
      ids.y = y.body.data.accountId;
    });
  });

  describe("browser and operator hygiene", () => {
    it("CORS: the local profile lets any origin read, and exposes the headers a frontend needs", async () => {
      const r = await fetch(`${s.integrationUrl}/markets`, { headers: { Origin: "http://localhost:5173" } });
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
      expect(r.headers.get("access-control-expose-headers")).toContain("X-Indexed-Block");
    });

    it("X-Request-Id: a plain one is kept, a long or odd one replaced before it reaches any log", async () => {
      const plain = await fetch(`${s.integrationUrl}/markets`, { headers: { "X-Request-Id": "trace-123_abc" } });
      expect(plain.headers.get("x-request-id")).toBe("trace-123_abc");
      for (const bad of ["x".repeat(300), "evil\" level=60 msg=forged", "a b"]) {
        const r = await fetch(`${s.integrationUrl}/markets`, { headers: { "X-Request-Id": bad } });
        expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      }
    });

    it("/sql refuses what could stall the indexer before it is planned, with a 4xx envelope", async () => {
      const q = (sqlText: string) => fetch(`${s.integrationUrl}/sql/db?sql=${encodeURIComponent(JSON.stringify({ json: { sql: sqlText, params: [] } }))}`);
      const join = await q("select count(*) from generate_series(1, 100000) a, generate_series(1, 100000) b, generate_series(1, 100000) c");
      expect(join.status).toBe(400);
      expect(await join.json()).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", message: expect.stringContaining("generate_series is not allowed") } });
      const two = await q("select 1; select 2");
      expect(two.status).toBe(400);
      // a whole small table: priced on Postgres (a Seq Scan), not PGlite's shape (no indexed equality, no LIMIT)
      const all = await q('select "market_id" from "market"');
      if (s.kind === "postgres") expect(all.status, await all.clone().text()).toBe(200);
      else expect(await all.json()).toMatchObject({ success: false, error: { code: "SQL_NOT_SUPPORTED_ON_PGLITE" } });
      const one = await q(`select "market_id" from "market" where "market_id" = '0x00' limit 1`);
      expect(one.status, await one.clone().text()).toBe(200);
    });
  });

  describe("deposit and withdraw", () => {
    it("deposit: INVALID_AMOUNT, INSUFFICIENT_BALANCE, INSUFFICIENT_ALLOWANCE, UNAUTHORIZED, OPERATOR_NOT_APPROVED", async () => {
      const dep = (token: string, id: number, amount: string) => req("POST", `/accounts/${id}/deposit`, { token, body: { amount } });
      const zero = await dep(tokens.w!, ids.w!, "0");
      expect([zero.status, zero.body.error!.code]).toEqual([400, "INVALID_AMOUNT"]);
      const balance = await dep(tokens.w!, ids.w!, usd("60000").toString());
      expect([balance.status, balance.body.error!.code]).toEqual([422, "INSUFFICIENT_BALANCE"]);
      const allowance = await dep(tokens.w!, ids.w!, usd("30000").toString());
      expect([allowance.status, allowance.body.error!.code]).toEqual([422, "INSUFFICIENT_ALLOWANCE"]);
      const notOwner = await dep(tokens.x!, ids.w!, "1000000");
      expect([notOwner.status, notOwner.body.error!.code]).toEqual([403, "UNAUTHORIZED"]);
      const noOperator = await dep(tokens.y!, ids.y!, "1000000");
      expect([noOperator.status, noOperator.body.error!.code]).toEqual([403, "OPERATOR_NOT_APPROVED"]);
      const missing = await dep(tokens.w!, 999_999, "1000000");
      expect([missing.status, missing.body.error!.code]).toEqual([404, "ACCOUNT_NOT_FOUND"]);
    });

    it("deposit 200: fields from MarginUpdated, equal to the chain and then to GET /accounts/{id}", async () => {
      const r = await req("POST", `/accounts/${ids.w}/deposit`, { token: tokens.w, body: { amount: usd("10000").toString() } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const d = r.body.data;
      expect(d).toMatchObject({ accountId: ids.w, depositedAmount: "10000000000", depositedAmountFormatted: "10000", transactionStatus: "CONFIRMED" });
      const onChain = await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(ids.w!)] });
      expect(d.newAvailableMargin).toBe(onChain.availableWad.toString());
      expect(d.newAvailableMargin).toBe((10_000n * 10n ** 18n).toString());
      await waitIndexed(s, d.blockNumber);
      const read = await req("GET", `/accounts/${ids.w}`);
      expect(read.body.data.margin.available).toBe(d.newAvailableMargin);
      // X funds itself for providing liquidity below
      const x = await req("POST", `/accounts/${ids.x}/deposit`, { token: tokens.x, body: { amount: usd("40000").toString() } });
      expect(x.status).toBe(200);
      // validUntil reaches the relayer (one in the past: 400); a mined write cannot be cancelled, another's is not found
      const past = await req("POST", `/accounts/${ids.w}/deposit`, { token: tokens.w, body: { amount: "1", validUntil: 1000 } });
      expect([past.status, past.body.error!.code]).toEqual([400, "VALIDATION_ERROR"]);
      const cancel = (token: string) => req("POST", `/transactions/${r.body.data.requestId}/cancel`, { token });
      const mined = await cancel(tokens.w!);
      expect([mined.status, mined.body.error!.code]).toEqual([409, "NOT_CANCELLABLE"]);
      expect((await cancel(tokens.x!)).status).toBe(404);
      const status = await req("GET", `/transactions/${r.body.data.requestId}`, { token: tokens.w });
      expect(status.body.data).toMatchObject({ transactionStatus: "CONFIRMED", cancelRequested: false });
      expect(status.body.data.validUntil).toBeGreaterThan(Math.floor(Date.now() / 1000));
    });

    it("withdraw: INVALID_AMOUNT, INSUFFICIENT_MARGIN, UNAUTHORIZED; 200 with the new margin", async () => {
      const wd = (token: string, amount: string) => req("POST", `/accounts/${ids.w}/withdraw`, { token, body: { amount } });
      const zero = await wd(tokens.w!, "0");
      expect([zero.status, zero.body.error!.code]).toEqual([400, "INVALID_AMOUNT"]);
      const tooMuch = await wd(tokens.w!, usd("10001").toString());
      expect([tooMuch.status, tooMuch.body.error!.code]).toEqual([422, "INSUFFICIENT_MARGIN"]);
      const notOwner = await wd(tokens.x!, "1");
      expect([notOwner.status, notOwner.body.error!.code]).toEqual([403, "UNAUTHORIZED"]);
      const before = await client.readContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "balanceOf", args: [W.address] });
      const r = await wd(tokens.w!, usd("1000").toString());
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toMatchObject({ accountId: ids.w, withdrawnAmount: "1000000000", withdrawnAmountFormatted: "1000", newAvailableMargin: (9_000n * 10n ** 18n).toString() });
      const after = await client.readContract({ address: s.deployment.contracts.depositToken, abi: depositTokenAbi, functionName: "balanceOf", args: [W.address] });
      expect(after - before).toBe(usd("1000")); // paid to the owner
      await waitIndexed(s, r.body.data.blockNumber);
      expect((await req("GET", `/accounts/${ids.w}`)).body.data.margin.available).toBe(r.body.data.newAvailableMargin);
    });

    it("Idempotency-Key through the integration API: 20 concurrent identical deposits, one transaction", async () => {
      const key = `writes-${s.kind}-${Date.now()}`;
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => req("POST", `/accounts/${ids.w}/deposit`, { token: tokens.w, body: { amount: "1000000" }, headers: { "Idempotency-Key": key } })),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(new Set(answers.map((a) => a.body.data.transactionHash)).size).toBe(1);
      const logs = await client.getContractEvents({ address: engine, abi: engineAbi, eventName: "MarginUpdated", args: { accountId: BigInt(ids.w!) }, fromBlock: 0n });
      expect(logs.filter((l) => l.transactionHash === answers[0]!.body.data.transactionHash)).toHaveLength(1);
      const conflict = await req("POST", `/accounts/${ids.w}/deposit`, { token: tokens.w, body: { amount: "1000001" }, headers: { "Idempotency-Key": key } });
      expect([conflict.status, conflict.body.error!.code]).toEqual([409, "IDEMPOTENCY_CONFLICT"]);
    });
  });

  describe("orders and positions", () => {
    let mark = 0n;
    let eurAddress: Address;
    const limitBody = (side: "LONG" | "SHORT", price: bigint, collateral = usd("100"), extra: Record<string, unknown> = {}) => ({
      marketId: eur.marketId, collateralAmount: collateral.toString(), side, leverage: 5, orderType: "LIMIT", limitPrice: price.toString(), ...extra,
    });
    const atTick = (p: bigint) => (p / TICK) * TICK;

    beforeAll(async () => {
      eurAddress = eur.marketAddress;
      mark = await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "markPrice" });
    });

    it("errors: MARKET_NOT_FOUND, MARKET_NOT_ACTIVE, EXCEEDS_MAX_LEVERAGE (0 and above max), INSUFFICIENT_MARGIN, UNAUTHORIZED", async () => {
      const place = (token: string, body: unknown, id = ids.w) => req("POST", `/accounts/${id}/orders`, { token, body });
      const price = atTick((mark * 995n) / 1000n);
      const unknown = await place(tokens.w!, { ...limitBody("LONG", price), marketId: unknownMarket });
      expect([unknown.status, unknown.body.error!.code]).toEqual([404, "MARKET_NOT_FOUND"]);
      const lev0 = await place(tokens.w!, { ...limitBody("LONG", price), leverage: 0 });
      expect([lev0.status, lev0.body.error!.code]).toEqual([400, "EXCEEDS_MAX_LEVERAGE"]);
      const lev51 = await place(tokens.w!, { ...limitBody("LONG", price), leverage: 51 });
      expect([lev51.status, lev51.body.error!.code]).toEqual([400, "EXCEEDS_MAX_LEVERAGE"]);
      // within the market's 50x, beyond the 10x W's approval let the relayer open
      const beyondPolicy = await place(tokens.w!, { ...limitBody("LONG", price), leverage: 20 });
      expect([beyondPolicy.status, beyondPolicy.body.error!.code]).toEqual([403, "OPERATOR_LIMIT_EXCEEDED"]);
      const margin = await place(tokens.w!, limitBody("LONG", price, usd("1000000")));
      expect([margin.status, margin.body.error!.code]).toEqual([422, "INSUFFICIENT_MARGIN"]);
      const notOwner = await place(tokens.x!, limitBody("LONG", price));
      expect([notOwner.status, notOwner.body.error!.code]).toEqual([403, "UNAUTHORIZED"]);
      const noLimit = await place(tokens.w!, { ...limitBody("LONG", price), limitPrice: undefined });
      expect([noLimit.status, noLimit.body.error!.code]).toEqual([400, "VALIDATION_ERROR"]);
      expect(noLimit.body.error!.message).toContain("limitPrice");

      // paused market: the engine owner pauses AUD/USD for this one request
      const owner = walletClient(s, s.keys.deployer);
      const setActive = async (active: boolean) =>
        client.waitForTransactionReceipt({ hash: await owner.writeContract({ address: engine, abi: engineAbi, functionName: "setMarketActive", args: [aud.marketId, active] }) });
      await setActive(false);
      try {
        const audMark = await client.readContract({ address: aud.marketAddress, abi: marketAbi, functionName: "markPrice" });
        const paused = await place(tokens.w!, { ...limitBody("LONG", atTick((audMark * 995n) / 1000n)), marketId: aud.marketId });
        expect([paused.status, paused.body.error!.code]).toEqual([409, "MARKET_NOT_ACTIVE"]);
        // a reduce-only order passes the pause (the chain takes it) to the next check: W holds no AUD/USD position
        const reducing = await place(tokens.w!, { ...limitBody("SHORT", atTick((audMark * 1005n) / 1000n)), marketId: aud.marketId, reduceOnly: true });
        expect([reducing.status, reducing.body.error!.code]).toEqual([404, "NO_POSITION"]);
      } finally {
        await setActive(true);
      }
    });

    let resting: { clientKey: Hex; orderId: string };
    it("LIMIT order 201 PLACED: fields from OrderPlaced, equal to the chain, then listed by GET /accounts/{id}/orders", async () => {
      const price = atTick((mark * 995n) / 1000n); // rests below the book
      const r = await req("POST", `/accounts/${ids.w}/orders`, { token: tokens.w, body: limitBody("LONG", price) });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      const d = r.body.data;
      expect(d).toMatchObject({ marketId: eur.marketId, side: "LONG", orderType: "LIMIT", status: "PLACED", transactionStatus: "CONFIRMED" });
      expect(d.clientKey).toMatch(/^0x[0-9a-f]{64}$/); // made by the server
      const expectedSize = ((usd("100") * 10n ** 12n * 5n * 10n ** 18n) / price / 10n ** 16n) * 10n ** 16n;
      expect(d.size).toBe(expectedSize.toString());
      const order = await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getOrder", args: [BigInt(d.orderId)] });
      expect(order.accountId).toBe(BigInt(ids.w!));
      // the key is not stored with the order: the market's map leads from it to the order
      expect(await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "orderIdOf", args: [BigInt(ids.w!), d.clientKey] })).toBe(BigInt(d.orderId));
      expect(order.originalQty.toString()).toBe(d.size);
      expect(order.priceX18).toBe(price);
      resting = { clientKey: d.clientKey, orderId: d.orderId };
      await waitIndexed(s, d.blockNumber);
      const list = await req("GET", `/accounts/${ids.w}/orders?marketId=${eur.marketId}&status=active`);
      expect(list.status).toBe(200);
      const mine = list.body.data.orders.find((o: { orderId: string }) => o.orderId === d.orderId);
      expect(mine).toMatchObject({ clientKey: d.clientKey, side: "LONG", orderType: "LIMIT", isActive: true, originalQuantity: d.size });
    });

    it("a client key of the caller's choosing; reusing it while open is CLIENT_KEY_IN_USE", async () => {
      const key = ("0x" + "c1".repeat(32)) as Hex;
      const price = atTick((mark * 994n) / 1000n);
      const r = await req("POST", `/accounts/${ids.w}/orders`, { token: tokens.w, body: limitBody("LONG", price, usd("50"), { clientKey: key }) });
      expect(r.status).toBe(201);
      expect(r.body.data.clientKey).toBe(key);
      const again = await req("POST", `/accounts/${ids.w}/orders`, { token: tokens.w, body: limitBody("LONG", price, usd("50"), { clientKey: key }) });
      expect([again.status, again.body.error!.code]).toEqual([409, "CLIENT_KEY_IN_USE"]);
      const cancel = await req("DELETE", `/accounts/${ids.w}/orders/${key}?marketId=${eur.marketId}`, { token: tokens.w });
      expect(cancel.status).toBe(200);
    });

    it("cancel: ORDER_NOT_FOUND, MARKET_NOT_FOUND, UNAUTHORIZED; 200 with the margin returned, then listed as cancelled", async () => {
      const del = (token: string, key: string, market: string) => req("DELETE", `/accounts/${ids.w}/orders/${key}?marketId=${market}`, { token });
      const nf = await del(tokens.w!, "0x" + "99".repeat(32), eur.marketId);
      expect([nf.status, nf.body.error!.code]).toEqual([404, "ORDER_NOT_FOUND"]);
      const mk = await del(tokens.w!, resting.clientKey, unknownMarket);
      expect([mk.status, mk.body.error!.code]).toEqual([404, "MARKET_NOT_FOUND"]);
      const notOwner = await del(tokens.x!, resting.clientKey, eur.marketId);
      expect([notOwner.status, notOwner.body.error!.code]).toEqual([403, "UNAUTHORIZED"]);
      const r = await del(tokens.w!, resting.clientKey, eur.marketId);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toMatchObject({ clientKey: resting.clientKey, orderId: resting.orderId, marginReturned: (100n * 10n ** 18n).toString(), marginReturnedFormatted: "100" });
      expect(await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "orderIdOf", args: [BigInt(ids.w!), resting.clientKey] })).toBe(0n);
      const again = await del(tokens.w!, resting.clientKey, eur.marketId);
      expect([again.status, again.body.error!.code]).toEqual([404, "ORDER_NOT_FOUND"]);
      await waitIndexed(s, r.body.data.blockNumber);
      const list = await req("GET", `/accounts/${ids.w}/orders?marketId=${eur.marketId}&status=cancelled`);
      expect(list.body.data.orders.map((o: { orderId: string }) => o.orderId)).toContain(resting.orderId);
      // the Engine emits no MarginUpdated for a single cancel: the indexer moves the margin and the
      // bond from committed to available by the OrderCancelled alone, to the chain's figures
      const logs = (await client.getTransactionReceipt({ hash: r.body.data.transactionHash })).logs;
      expect(parseEventLogs({ abi: engineAbi, logs, eventName: "MarginUpdated" })).toEqual([]);
      const onChain = await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(ids.w!)] });
      const read = await req("GET", `/accounts/${ids.w}`);
      expect([read.body.data.margin.available, read.body.data.margin.committed]).toEqual([onChain.availableWad.toString(), onChain.committedWad.toString()]);
    });

    it("close: NO_POSITION, MARKET_NOT_FOUND, UNAUTHORIZED; a MARKET order opens a position and the close route closes it", async () => {
      const close = (token: string, market: string, body: unknown = { orderType: "MARKET" }) => req("POST", `/accounts/${ids.w}/positions/${market}/close`, { token, body });
      const none = await close(tokens.w!, eur.marketId);
      expect([none.status, none.body.error!.code]).toEqual([404, "NO_POSITION"]);
      const mk = await close(tokens.w!, unknownMarket);
      expect([mk.status, mk.body.error!.code]).toEqual([404, "MARKET_NOT_FOUND"]);
      const notOwner = await close(tokens.x!, eur.marketId);
      expect([notOwner.status, notOwner.body.error!.code]).toEqual([403, "UNAUTHORIZED"]);

      // X quotes both sides near the mark so that W's MARKET orders fill
      const fresh = await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "markPrice" });
      for (const [side, p] of [["SHORT", atTick((fresh * 1002n) / 1000n)], ["LONG", atTick((fresh * 998n) / 1000n)]] as const) {
        const q = await req("POST", `/accounts/${ids.x}/orders`, { token: tokens.x, body: limitBody(side, p, usd("5000")) });
        expect(q.status, JSON.stringify(q.body)).toBe(201);
      }
      const open = await req("POST", `/accounts/${ids.w}/orders`, { token: tokens.w, body: { marketId: eur.marketId, collateralAmount: usd("100").toString(), side: "LONG", leverage: 5, orderType: "MARKET" } });
      expect(open.status, JSON.stringify(open.body)).toBe(201);
      expect(open.body.data).toMatchObject({ side: "LONG", orderType: "MARKET", status: "PLACED" });
      const pos = await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getPosition", args: [BigInt(ids.w!)] });
      expect(pos.sizeQty).toBeGreaterThan(0n);
      // read-your-writes: the session's next read waits for its write's block by itself (no minBlock)
      const readPos = await req("GET", `/accounts/${ids.w}/positions/${eur.marketId}`, { token: tokens.w });
      expect(readPos.body.data).toMatchObject({ isOpen: true, side: "LONG", size: pos.sizeQty.toString() });
      expect(BigInt(readPos.headers.get("x-indexed-block")!)).toBeGreaterThanOrEqual(BigInt(open.body.data.blockNumber));

      // isolated margin: in and out of the position, what the chain and the next read show
      const margin = (token: string, body: unknown) => req("POST", `/accounts/${ids.w}/positions/${eur.marketId}/margin`, { token, body });
      const added = await margin(tokens.w!, { action: "ADD", amount: usd("40").toString() });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      const posAdded = await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getPosition", args: [BigInt(ids.w!)] });
      const acctAdded = await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(ids.w!)] });
      expect(added.body.data).toMatchObject({
        accountId: ids.w, marketId: eur.marketId, action: "ADD", amount: usd("40").toString(), amountFormatted: "40",
        positionMargin: posAdded.marginWad.toString(), newAvailableMargin: acctAdded.availableWad.toString(), transactionStatus: "CONFIRMED",
      });
      // the move settles the position's pending funding first (its PositionUpdated says how much)
      const receipt = await client.getTransactionReceipt({ hash: added.body.data.transactionHash });
      const [moved] = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "PositionUpdated" });
      expect(moved!.args.reason).toBe(3); // MARGIN
      expect(posAdded.marginWad).toBe(pos.marginWad - moved!.args.fundingPaidWad + 40n * 10n ** 18n);
      const readAdded = await req("GET", `/accounts/${ids.w}/positions/${eur.marketId}`, { token: tokens.w });
      expect(readAdded.body.data.margin).toBe(posAdded.marginWad.toString());
      const removed = await margin(tokens.w!, { action: "REMOVE", amount: usd("40").toString() });
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      expect(removed.body.data).toMatchObject({ action: "REMOVE", amount: usd("40").toString() });
      // beyond initial margin: 422 INSUFFICIENT_MARGIN from the chain's own check; nothing moved
      const tooMuch = await margin(tokens.w!, { action: "REMOVE", amount: usd("99").toString() });
      expect([tooMuch.status, tooMuch.body.error!.code], JSON.stringify(tooMuch.body)).toEqual([422, "INSUFFICIENT_MARGIN"]);
      const notOwner2 = await margin(tokens.x!, { action: "ADD", amount: "1" });
      expect([notOwner2.status, notOwner2.body.error!.code]).toEqual([403, "UNAUTHORIZED"]);
      const badAction = await margin(tokens.w!, { action: "MOVE", amount: "1" });
      expect([badAction.status, badAction.body.error!.code]).toEqual([400, "VALIDATION_ERROR"]);
      const posAfterMoves = await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getPosition", args: [BigInt(ids.w!)] });
      expect(posAfterMoves.marginWad).toBe(BigInt(removed.body.data.positionMargin)); // the refused removal moved nothing

      const r = await close(tokens.w!, eur.marketId);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.data).toMatchObject({ marketId: eur.marketId, closingSide: "SHORT", orderType: "MARKET", size: pos.sizeQty.toString(), transactionStatus: "CONFIRMED" });
      expect(r.body.data.clientKey).toMatch(/^0x[0-9a-f]{64}$/);
      const after = await client.readContract({ address: eurAddress, abi: marketAbi, functionName: "getPosition", args: [BigInt(ids.w!)] });
      expect(after.sizeQty).toBe(0n);
      const closed = await req("GET", `/accounts/${ids.w}/positions/${eur.marketId}`, { token: tokens.w });
      expect(closed.body.data).toMatchObject({ isOpen: false, size: "0" });
      const noPosition = await margin(tokens.w!, { action: "ADD", amount: "1" });
      expect([noPosition.status, noPosition.body.error!.code]).toEqual([404, "NO_POSITION"]);

      const status = await req("GET", `/transactions/${r.body.data.requestId}`, { token: tokens.w });
      expect(status.body.data).toMatchObject({ transactionStatus: "CONFIRMED", transactionHash: r.body.data.transactionHash, kind: "closePosition" });
      const foreign = await req("GET", `/transactions/${r.body.data.requestId}`, { token: tokens.x });
      expect([foreign.status, foreign.body.error!.code]).toEqual([404, "TRANSACTION_NOT_FOUND"]);
    });

    it("GET /accounts/{id} of an unknown account: 404 ACCOUNT_NOT_FOUND", async () => {
      const r = await req("GET", "/accounts/987654321");
      expect([r.status, r.body.error!.code]).toEqual([404, "ACCOUNT_NOT_FOUND"]);
    });
  });
});
