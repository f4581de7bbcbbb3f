/**
 * The relayer's gate, on both database kinds: the internal token, Idempotency-Key (20
 * concurrent identical requests give one transaction; another body under the same key is 409),
 * and the closed beta (invite-only: an unregistered wallet's writes get NOT_REGISTERED and send
 * nothing; the registry is managed with X-Admin-Token).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { selfRegistrationMessage } from "../../core/auth/service-tokens.js";
import { ADMIN_TOKEN, KEEPER_TOKEN, REGISTRATION_TOKEN, dropSchema, POSTGRES_URL, query, relayerCall, RELAYER, startRelayer, startTestChain, uniqueSchema, type RelayerDbOpt, type RelayerProc, type TestChain } from "./relayer-harness.js";

let chain: TestChain;
beforeAll(async () => {
  chain = await startTestChain({ prepared: 2 });
});
afterAll(async () => {
  await chain?.stop();
});

const nonceNow = () => chain.client.getTransactionCount({ address: RELAYER.address, blockTag: "latest" });

describe.each(["pglite", "postgres"] as const)("relayer gate on %s", (kind) => {
  let relayer: RelayerProc;
  let beta: RelayerProc;
  const schema = uniqueSchema(`access_${kind}`);
  const db = (tag: string): RelayerDbOpt => (kind === "postgres" ? { url: POSTGRES_URL, schema: `${schema}_${tag}` } : { pgliteDir: join(chain.dir, `${kind}-${tag}`) });

  beforeAll(async () => {
    relayer = await startRelayer(chain, db("open"), {}, { name: `${kind}-open` });
  });
  afterAll(async () => {
    await relayer?.stop();
    await beta?.stop();
    if (kind === "postgres") for (const t of ["open", "beta"]) await dropSchema(`${schema}_${t}`).catch(() => {});
  });

  it("refuses a request without the internal token (401)", async () => {
    for (const token of [null, "wrong"]) {
      const r = await relayerCall(relayer.url, "POST", `/internal/accounts/1/deposit`, { token, caller: chain.accounts[0]!.address, body: { amount: "1" } });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("UNAUTHENTICATED");
    }
    expect((await relayerCall(relayer.url, "GET", "/health", { token: null })).status).toBe(401);
  });

  it("each service's token has its scopes: the keeper's cannot trade for a user nor register anyone (403 in the envelope)", async () => {
    const a = chain.accounts[0]!;
    const before = await nonceNow();
    const order = { marketId: chain.deployment.markets[0]!.marketId, collateralAmount: "1000000", side: "LONG", leverage: 2, orderType: "MARKET" };
    for (const token of [KEEPER_TOKEN, REGISTRATION_TOKEN]) {
      const r = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/orders`, { token, caller: a.address, body: order });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ success: false, error: { code: "INSUFFICIENT_SCOPE" } });
    }
    // the keeper's token may liquidate (a healthy account: the chain says no, not the gate)
    const liq = await relayerCall(relayer.url, "POST", "/internal/liquidations/account", { token: KEEPER_TOKEN, caller: a.address, body: { accountId: String(a.accountId) } });
    expect(liq.body.error?.code).not.toBe("INSUFFICIENT_SCOPE");
    expect([200, 409]).toContain(liq.status);
    // the registry's admin routes need the admin token; the keeper's token is not it
    const adminTry = await relayerCall(relayer.url, "POST", "/internal/registry", { token: KEEPER_TOKEN, body: { address: a.address } });
    expect(adminTry.status).toBe(401);
    // the registration-only token registers the wallet that signs, and no other
    const self = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const issuedAt = Math.floor(Date.now() / 1000);
    const signature = await self.signMessage({ message: selfRegistrationMessage(self.address, issuedAt) });
    const forOther = await relayerCall(relayer.url, "POST", "/internal/registration", { token: REGISTRATION_TOKEN, body: { address: other.address, issuedAt, signature } });
    expect(forOther.status).toBe(403);
    expect(forOther.body.error.code).toBe("INSUFFICIENT_SCOPE");
    const withKeeperToken = await relayerCall(relayer.url, "POST", "/internal/registration", { token: KEEPER_TOKEN, body: { address: self.address, issuedAt, signature } });
    expect(withKeeperToken.status).toBe(403);
    const itself = await relayerCall(relayer.url, "POST", "/internal/registration", { token: REGISTRATION_TOKEN, body: { address: self.address, issuedAt, signature } });
    expect(itself.status).toBe(201);
    const list = await relayerCall(relayer.url, "GET", "/internal/registry", { token: null, headers: { "X-Admin-Token": ADMIN_TOKEN } });
    const registered = list.body.data.wallets.map((w: { address: string }) => w.address);
    expect(registered).toContain(self.address);
    expect(registered).not.toContain(other.address);
    expect(await nonceNow()).toBe(before + (liq.status === 200 ? 1 : 0));
  });

  it("20 concurrent identical requests with one key: one transaction, one answer", async () => {
    const a = chain.accounts[0]!;
    const before = await nonceNow();
    const key = `idem-${kind}-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, idempotencyKey: key, body: { amount: "3000000" } }),
      ),
    );
    for (const r of answers) expect(r.status).toBe(200);
    expect(new Set(answers.map((r) => r.body.data.requestId)).size).toBe(1);
    expect(new Set(answers.map((r) => r.body.data.transactionHash)).size).toBe(1);
    expect(await nonceNow()).toBe(before + 1);
    // later: the same answer again, nothing sent
    const later = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, idempotencyKey: key, body: { amount: "3000000" } });
    expect(later.body).toEqual(answers[0]!.body);
    expect(await nonceNow()).toBe(before + 1);
    // the same key with another body: 409
    const other = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, idempotencyKey: key, body: { amount: "3000001" } });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("IDEMPOTENCY_CONFLICT");
    // keys are scoped per caller: another wallet may use the same key
    const b = chain.accounts[1]!;
    const theirs = await relayerCall(relayer.url, "POST", `/internal/accounts/${b.accountId}/deposit`, { caller: b.address, idempotencyKey: key, body: { amount: "3000000" } });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.requestId).not.toBe(answers[0]!.body.data.requestId);
  });

  it("a refused check sends nothing, on a retry with the key too (re-checked: such refusals free the key, relayer-idempotency.test.ts)", async () => {
    const a = chain.accounts[0]!;
    const before = await nonceNow();
    const key = `fail-${kind}-${Date.now()}`;
    const req = { caller: a.address, idempotencyKey: key, body: { amount: "999999999999999" } };
    const r1 = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/withdraw`, req);
    const r2 = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/withdraw`, req);
    expect(r1.status).toBe(422);
    expect(r1.body.error.code).toBe("INSUFFICIENT_MARGIN");
    expect(r2.body).toEqual(r1.body);
    expect(await nonceNow()).toBe(before);
  });

  it("operator approval: typed data, a signature of another key is INVALID_SIGNATURE (nothing sent), the owner's is applied", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const td = await relayerCall(relayer.url, "GET", `/internal/operators/typed-data?owner=${owner.address}`);
    expect(td.status).toBe(200);
    const { domain, types, message } = td.body.data;
    const { EIP712Domain: _, ...rest } = types;
    const typed = { domain, types: rest, primaryType: "OperatorApproval" as const, message: { ...message, expiry: BigInt(message.expiry), nonce: BigInt(message.nonce), deadline: BigInt(message.deadline) } };
    const before = await nonceNow();
    const forged = await privateKeyToAccount(generatePrivateKey()).signTypedData(typed);
    const body = { owner: owner.address, expiry: message.expiry, deadline: message.deadline };
    const bad = await relayerCall(relayer.url, "POST", "/internal/operators/approve", { caller: owner.address, body: { ...body, signature: forged } });
    expect([bad.status, bad.body.error.code]).toEqual([400, "INVALID_SIGNATURE"]);
    expect(await nonceNow()).toBe(before);
    const good = await relayerCall(relayer.url, "POST", "/internal/operators/approve", { caller: owner.address, body: { ...body, signature: await owner.signTypedData(typed) } });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect(good.body.data).toMatchObject({
      owner: owner.address, operator: RELAYER.address, expiry: Number(message.expiry), maxLeverage: 10, bandBps: 100, budgetBps: 100,
    });
  });

  it("operator approval with a policy of the owner's choosing: signed with the approval, a different one is INVALID_SIGNATURE", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const td = await relayerCall(relayer.url, "GET", `/internal/operators/typed-data?owner=${owner.address}&maxLeverage=3&budgetBps=50`);
    expect(td.status).toBe(200);
    const { domain, types, message } = td.body.data;
    expect(message).toMatchObject({ maxLeverage: 3, bandBps: 100, budgetBps: 50 });
    const { EIP712Domain: _, ...rest } = types;
    const signature = await owner.signTypedData({
      domain, types: rest, primaryType: "OperatorApproval" as const,
      message: { ...message, expiry: BigInt(message.expiry), nonce: BigInt(message.nonce), deadline: BigInt(message.deadline) },
    });
    const body = { owner: owner.address, expiry: message.expiry, deadline: message.deadline, signature };
    // the defaults instead of the signed policy: the signature does not cover them
    const loose = await relayerCall(relayer.url, "POST", "/internal/operators/approve", { caller: owner.address, body });
    expect([loose.status, loose.body.error.code]).toEqual([400, "INVALID_SIGNATURE"]);
    const good = await relayerCall(relayer.url, "POST", "/internal/operators/approve", { caller: owner.address, body: { ...body, maxLeverage: 3, budgetBps: 50 } });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect(good.body.data).toMatchObject({ maxLeverage: 3, bandBps: 100, budgetBps: 50 });
  });

  it("invite-only: unregistered wallets get NOT_REGISTERED and nothing is sent; the admin registry opens the door", async () => {
    beta = await startRelayer(chain, db("beta"), { ACCESS_POLICY: "invite-only" }, { name: `${kind}-beta` });
    const a = chain.accounts[1]!;
    const before = await nonceNow();
    const deposit = () => relayerCall(beta.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, body: { amount: "1000000" } });
    const refused = await deposit();
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("NOT_REGISTERED");
    const fresh = "0x00000000000000000000000000000000000000aa";
    const create = await relayerCall(beta.url, "POST", "/internal/accounts", { caller: fresh, body: { userAddress: fresh } });
    expect(create.body.error.code).toBe("NOT_REGISTERED");
    expect(await nonceNow()).toBe(before);
    if (kind === "postgres") expect(await query(`SELECT id FROM "${schema}_beta".request`)).toHaveLength(0);

    const admin = (method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) =>
      relayerCall(beta.url, method, `/internal/registry${path}`, { body, headers: token ? { "X-Admin-Token": token } : {} });
    expect((await admin("POST", "", { address: a.address }, null)).status).toBe(401);
    expect((await admin("POST", "", { address: a.address }, "wrong")).status).toBe(401);
    expect((await admin("POST", "", { address: "nope" })).status).toBe(400);
    expect((await admin("POST", "", { address: a.address, note: "beta tester" })).status).toBe(201);
    expect((await admin("GET", `/${a.address}`)).body.data.registered).toBe(true);
    expect((await admin("GET", "")).body.data.wallets.map((w: { address: string }) => w.address)).toContain(a.address);

    const allowed = await deposit();
    expect(allowed.status).toBe(200);
    expect(await nonceNow()).toBe(before + 1);

    expect((await admin("DELETE", `/${a.address}`)).status).toBe(200);
    expect((await deposit()).body.error.code).toBe("NOT_REGISTERED");
    expect(await nonceNow()).toBe(before + 1);
  });
});
