/**
 * Idempotency keys keep only outcomes that reached the chain or failed validation, on both
 * database kinds: a refusal the caller can fix (a missing allowance) or a transient failure
 * before anything was sent (an RPC blip, here a proxy in front of anvil that fails
 * eth_estimateGas while told to) frees the key, so a retry with it runs again; a validation
 * failure is replayed; keys expire (IDEMPOTENCY_TTL_MS, 24 h by default; short here).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxUint256 } from "viem";
import { depositTokenAbi } from "../../abis/index.js";
import { walletClientFor } from "../../scripts/lib/clients.js";
import { until } from "./helpers/wait.js";
import { dropSchema, POSTGRES_URL, query, RELAYER, relayerCall, startRelayer, startTestChain, uniqueSchema, type RelayerDbOpt, type RelayerProc, type TestChain } from "./relayer-harness.js";

let chain: TestChain;
let proxy: Server;
let proxyUrl: string;
/** While true, the proxy answers eth_estimateGas with HTTP 503 (an RPC provider's blip). */
let blip = false;

beforeAll(async () => {
  chain = await startTestChain({ prepared: 2 });
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString();
    if (blip && body.includes("eth_estimateGas")) {
      res.writeHead(503).end("blip");
      return;
    }
    const up = await fetch(chain.rpcUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    res.writeHead(up.status, { "Content-Type": "application/json" }).end(await up.text());
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy?.close();
  await chain?.stop();
});

const nonceNow = () => chain.client.getTransactionCount({ address: RELAYER.address, blockTag: "latest" });

describe.each(["pglite", "postgres"] as const)("idempotency keys on %s", (kind) => {
  let relayer: RelayerProc;
  const schema = uniqueSchema(`idem_${kind}`);

  beforeAll(async () => {
    const dbOpt: RelayerDbOpt = kind === "postgres" ? { url: POSTGRES_URL, schema } : { pgliteDir: join(chain.dir, `idem-${kind}`) };
    relayer = await startRelayer({ ...chain, rpcUrl: proxyUrl }, dbOpt, { IDEMPOTENCY_TTL_MS: "3000", TRACK_INTERVAL_MS: "100" }, { name: `idem-${kind}` });
  });
  afterAll(async () => {
    await relayer?.stop();
    if (kind === "postgres") await dropSchema(schema).catch(() => {});
  });

  const deposit = (key: string, amount = "1000000", who = chain.accounts[0]!) =>
    relayerCall(relayer.url, "POST", `/internal/accounts/${who.accountId}/deposit`, { caller: who.address, idempotencyKey: key, body: { amount } });

  it("a validation failure is kept under its key and answered again; nothing is sent", async () => {
    const a = chain.accounts[0]!;
    const before = await nonceNow();
    const key = `invalid-${kind}-${Date.now()}`;
    const eur = chain.deployment.markets[0]!;
    const body = { marketId: eur.marketId, collateralAmount: "1000000", side: "LONG", leverage: 1000, orderType: "LIMIT", limitPrice: "1000000000000000000" };
    const place = () => relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/orders`, { caller: a.address, idempotencyKey: key, body });
    const r1 = await place();
    const r2 = await place();
    expect([r1.status, r1.body.error.code]).toEqual([400, "EXCEEDS_MAX_LEVERAGE"]);
    expect(r2.body).toEqual(r1.body);
    expect(await nonceNow()).toBe(before);
    if (kind === "postgres") expect(await query(`SELECT id FROM "${schema}".request WHERE idempotency_key = $1 AND status = 'FAILED'`, [key])).toHaveLength(1);
  });

  it("a missing allowance is not stored as final: after approving, the retry with the same key deposits", async () => {
    const b = chain.accounts[1]!;
    const owner = walletClientFor(chain.rpcUrl, 31337, b.privateKey);
    const token = chain.deployment.contracts.depositToken;
    const approve = async (amount: bigint) =>
      chain.client.waitForTransactionReceipt({ hash: await owner.writeContract({ address: token, abi: depositTokenAbi, functionName: "approve", args: [chain.deployment.contracts.engine, amount] }) });
    await approve(0n);
    const key = `allowance-${kind}-${Date.now()}`;
    try {
      const refused = await deposit(key, "2000000", b);
      expect([refused.status, refused.body.error.code]).toEqual([422, "INSUFFICIENT_ALLOWANCE"]);
      await approve(maxUint256);
      const retried = await deposit(key, "2000000", b);
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body.data).toMatchObject({ depositedAmount: "2000000", transactionStatus: "CONFIRMED" });
      // from now on the key holds the deposit: replayed, nothing sent again
      const before = await nonceNow();
      expect((await deposit(key, "2000000", b)).body).toEqual(retried.body);
      expect(await nonceNow()).toBe(before);
    } finally {
      await approve(maxUint256);
    }
  });

  it("an RPC blip before sending is not stored as final: the retry with the same key goes through", async () => {
    const key = `blip-${kind}-${Date.now()}`;
    blip = true;
    let refused;
    try {
      refused = await deposit(key, "3000000");
    } finally {
      blip = false;
    }
    expect([refused.status, refused.body.error.code]).toEqual([502, "UPSTREAM_ERROR"]);
    const retried = await deposit(key, "3000000");
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.data.depositedAmount).toBe("3000000");
  });

  it("keys expire: after IDEMPOTENCY_TTL_MS the same key and body are a new write", async () => {
    const key = `ttl-${kind}-${Date.now()}`;
    const first = await deposit(key, "4000000");
    expect(first.status).toBe(200);
    const before = await nonceNow();
    expect((await deposit(key, "4000000")).body.data.requestId).toBe(first.body.data.requestId);
    expect(await nonceNow()).toBe(before);
    const second = await until("the key to expire", async () => {
      const r = await deposit(key, "4000000");
      return r.body.data.requestId !== first.body.data.requestId ? r : null;
    }, 20_000, 500);
    expect(second.status).toBe(200);
    expect(second.body.data.transactionHash).not.toBe(first.body.data.transactionHash);
    expect(await nonceNow()).toBe(before + 1);
  });
});
