/**
 * The closed beta end to end, through both public surfaces: a stack of its own whose relayer and
 * gateway run `ACCESS_POLICY=invite-only` (the development and production default). An
 * unregistered wallet gets 403 NOT_REGISTERED on every write of the integration API (SIWE
 * session) and of the gateway (API key), and nothing is sent: the relayer's nonce does not move
 * and (on Postgres) its queue stays empty. The gateway refuses to make a key for an unregistered
 * wallet; once the admin registers the wallet, the same writes go through on both surfaces. The
 * keeper registers itself at start.
 * Runs on one database kind (Postgres when the run has it): the gate itself is the relayer's,
 * tested on both kinds in relayer-access.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import type { Address } from "viem";
import { createApiKey } from "../../scripts/lib/api-keys.js";
import { query } from "./relayer-harness.js";
import { until } from "./helpers/wait.js";
import { publicClient } from "./helpers/chain.js";
import { gatewayClient, integrationClient, jsonClient, signIn } from "./helpers/http.js";
import { dbKinds, startStack, type RunningStack, type StackInfo } from "./stack.js";

const kind = dbKinds().includes("postgres") ? "postgres" : "pglite";

describe(`closed beta (invite-only) on ${kind}`, () => {
  let stack: RunningStack;
  let s: StackInfo;

  beforeAll(async () => {
    stack = await startStack(kind, `beta${Date.now().toString(36).slice(-5)}`, { accessPolicy: "invite-only" });
    s = stack.info;
  }, 300_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const relayerNonce = () => publicClient(s).getTransactionCount({ address: privateKeyToAccount(s.keys.relayer).address, blockTag: "pending" });
  const registry = (method: "POST" | "DELETE", wallet: Address) =>
    jsonClient(s.relayerUrl!)(method, method === "POST" ? "/internal/registry" : `/internal/registry/${wallet}`, {
      headers: { "X-Internal-Token": s.internalToken, "X-Admin-Token": s.adminToken },
      body: method === "POST" ? { address: wallet, note: "closed-beta e2e" } : undefined,
    });
  /** Rows in the relayer's queue (Postgres only: a PGlite database belongs to its one process). */
  const queuedRows = async () =>
    s.databaseUrl ? (await query<{ n: number }>(`SELECT count(*)::int AS n FROM "${s.schemas.relayer}".request`, [], s.databaseUrl))[0]!.n : 0;

  it("unregistered wallets get NOT_REGISTERED on both surfaces and nothing is sent; registering opens the door", async () => {
    const trader = s.wallets[0]!; // account 1, deposit made, relayer approved as operator
    const newcomer = s.wallets[5]!; // tokens and engine approval, no account
    const accountId = trader.accountId!;
    const market = s.deployment.markets[0]!;
    const api = integrationClient(s);
    const gw = gatewayClient(s);
    const nonce0 = await relayerNonce();
    const queued0 = await queuedRows();

    // The gateway makes no key for an uninvited wallet.
    const refusedKey = await jsonClient(s.gatewayUrl!)("POST", "/admin/keys", { headers: { "X-Admin-Token": s.adminToken }, body: { wallet: trader.address } });
    expect([refusedKey.status, refusedKey.body.error?.code]).toEqual([403, "NOT_REGISTERED"]);

    // Keys exist only for invited wallets: invite both, make their keys, then withdraw the invitations.
    for (const w of [trader, newcomer]) expect((await registry("POST", w.address)).status).toBe(201);
    const keys = { trader: await createApiKey(s.gatewayUrl!, s.adminToken, trader.address, "beta"), newcomer: await createApiKey(s.gatewayUrl!, s.adminToken, newcomer.address, "beta") };
    for (const w of [trader, newcomer]) expect((await registry("DELETE", w.address)).status).toBe(200);

    // Sign-in itself is open (it sends nothing); every write behind it is refused.
    const tokens = { trader: await signIn(s, privateKeyToAccount(trader.privateKey)), newcomer: await signIn(s, privateKeyToAccount(newcomer.privateKey)) };
    const clientKey = `0x${"be".repeat(32)}`;
    const order = { marketId: market.marketId, collateralAmount: "10000000", side: "LONG", leverage: 2, orderType: "MARKET" };
    const integrationWrites = [
      api("POST", "/accounts", { token: tokens.newcomer, body: { userAddress: newcomer.address } }),
      api("POST", `/accounts/${accountId}/deposit`, { token: tokens.trader, body: { amount: "1000000" } }),
      api("POST", `/accounts/${accountId}/withdraw`, { token: tokens.trader, body: { amount: "1000000" } }),
      api("POST", `/accounts/${accountId}/orders`, { token: tokens.trader, body: order }),
      api("DELETE", `/accounts/${accountId}/orders/${clientKey}?marketId=${market.marketId}`, { token: tokens.trader }),
      api("POST", `/accounts/${accountId}/positions/${market.marketId}/close`, { token: tokens.trader, body: { orderType: "MARKET" } }),
    ];
    const gatewayWrites = [
      gw("POST", "/v1/accounts/create", { key: keys.newcomer, body: { owner: newcomer.address } }),
      gw("POST", `/v1/accounts/${accountId}/deposit`, { key: keys.trader, body: { amount: "1000000" } }),
      gw("POST", `/v1/accounts/${accountId}/withdraw`, { key: keys.trader, body: { amount: "1000000" } }),
      gw("POST", `/v1/accounts/${accountId}/trade`, { key: keys.trader, body: { market_id: market.marketId, collateral: "10000000", side: 0, leverage: 2, order_type: 0 } }),
      gw("POST", `/v1/accounts/${accountId}/orders/cancel`, { key: keys.trader, body: { market_id: market.marketId, client_key: clientKey } }),
    ];
    const answers = await Promise.all([...integrationWrites, ...gatewayWrites]);
    answers.forEach((r, i) => {
      expect(r.status, `write ${i}: ${JSON.stringify(r.body)}`).toBe(403);
      expect(r.body).toMatchObject({ success: false, error: { code: "NOT_REGISTERED" } });
    });
    expect(await relayerNonce()).toBe(nonce0);
    expect(await queuedRows()).toBe(queued0);

    // Invited again: the same deposit goes through on both surfaces, one transaction each.
    expect((await registry("POST", trader.address)).status).toBe(201);
    const viaApi = await api("POST", `/accounts/${accountId}/deposit`, { token: tokens.trader, body: { amount: "1000000" } });
    expect(viaApi.status, JSON.stringify(viaApi.body)).toBe(200);
    expect(viaApi.body.data).toMatchObject({ depositedAmount: "1000000", transactionStatus: "CONFIRMED" });
    const viaGateway = await gw("POST", `/v1/accounts/${accountId}/deposit`, { key: keys.trader, body: { amount: "1000000" } });
    expect(viaGateway.status, JSON.stringify(viaGateway.body)).toBe(200);
    expect(viaGateway.body.data).toMatchObject({ deposited_amount: "1000000" });
    expect(await relayerNonce()).toBe(nonce0 + 2);
    // the newcomer is still outside
    const still = await gw("POST", "/v1/accounts/create", { key: keys.newcomer, body: { owner: newcomer.address } });
    expect(still.body.error?.code).toBe("NOT_REGISTERED");
    expect(await relayerNonce()).toBe(nonce0 + 2);
  });

  it("the keeper registers itself (it has the admin token), so its liquidations are not refused", async () => {
    const keeper = privateKeyToAccount(s.keys.keeper).address;
    // it retries every 3 s until the relayer answers
    const registered = await until("the keeper in the registry", async () => {
      const r = await jsonClient(s.relayerUrl!)("GET", `/internal/registry/${keeper}`, {
        headers: { "X-Internal-Token": s.internalToken, "X-Admin-Token": s.adminToken },
      });
      return r.body.data?.registered === true;
    }, 40_000, 500);
    expect(registered).toBe(true);
  });
});
