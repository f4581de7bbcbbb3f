/**
 * The relayer's spending is bounded and its failures are visible (anvil's automine off, so
 * transactions wait in the pool until a test mines): fee bumps stop at the caps; out of ether a
 * write is refused with 503 before anything is stored or a nonce taken; a write not mined by its
 * validUntil has its nonce replaced by a no-op and ends EXPIRED; when ether returns, an expired
 * MARKET order is not mined; a caller cancels its own pending write (before or after sending).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, type Hex } from "viem";
import { engineAbi, marketAbi } from "../../abis/index.js";
import { usd } from "../../scripts/lib/demo-wallets.js";
import { until } from "./helpers/wait.js";
import { dropSchema, POSTGRES_URL, query, RELAYER, relayerCall, rpc, startRelayer, startTestChain, uniqueSchema, type RelayerProc, type TestChain } from "./relayer-harness.js";
import { readFileSync } from "node:fs";

let chain: TestChain;
const schema = uniqueSchema("spend");
const db = { url: POSTGRES_URL, schema };
const TICK = 10n ** 13n;

beforeAll(async () => {
  chain = await startTestChain({ prepared: 2 });
  await rpc(chain.rpcUrl, "evm_setAutomine", [false]);
});
afterAll(async () => {
  await chain?.stop();
  await dropSchema(schema).catch(() => {});
});

const mine = () => rpc(chain.rpcUrl, "evm_mine");
const setBalance = (wei: bigint) => rpc(chain.rpcUrl, "anvil_setBalance", [RELAYER.address, `0x${wei.toString(16)}`]);
const txStatus = async (r: RelayerProc, id: string) => (await relayerCall(r.url, "GET", `/internal/transactions/${id}`)).body.data;
const final = (r: RelayerProc, id: string, status: string) =>
  until(status, async () => {
    const s = await txStatus(r, id);
    return s.transactionStatus === status ? s : null;
  }, 30_000, 100);
const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;
const pendingNonce = () => chain.client.getTransactionCount({ address: RELAYER.address, blockTag: "pending" });
const base = { WRITE_TIMEOUT_MS: "1000", BALANCE_CHECK_MS: "200", REBROADCAST_AFTER_MS: "300", BUMP_AFTER_MS: "600000" };

describe("the relayer's spending (automine off, Postgres)", () => {
  it("fee bumps stop at the caps", async () => {
    const head = await chain.client.getBlock();
    const tip = 1_000_000_000n; // PRIORITY_FEE_WEI's default
    const first = head.baseFeePerGas! * 2n + tip;
    // room for two bumps of × 1.125 (1.266) but not a third (1.424)
    const caps = { maxFee: (first * 13n) / 10n, tip: (tip * 13n) / 10n };
    const relayer = await startRelayer(chain, db, { ...base, BUMP_AFTER_MS: "300", MAX_FEE_PER_GAS_WEI: caps.maxFee.toString(), MAX_PRIORITY_FEE_WEI: caps.tip.toString() }, { name: "cap" });
    try {
      const a = chain.accounts[0]!;
      const r = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, body: { amount: "1000000" } });
      expect(r.status).toBe(202);
      await until("the cap", async () => readFileSync(relayer.logFile, "utf8").includes("fee cap reached"), 30_000, 100);
      const fees = async () =>
        query<{ max_fee_per_gas: string; max_priority_fee_per_gas: string }>(`SELECT max_fee_per_gas, max_priority_fee_per_gas FROM "${schema}".tx_attempt WHERE request_id = $1 ORDER BY created_at`, [r.body.data.requestId]);
      const attempts = await fees();
      expect(attempts).toHaveLength(3);
      for (const f of attempts) {
        expect(BigInt(f.max_fee_per_gas)).toBeLessThanOrEqual(caps.maxFee);
        expect(BigInt(f.max_priority_fee_per_gas)).toBeLessThanOrEqual(caps.tip);
      }
      // several bump periods later: still no attempt above the cap
      await new Promise((res) => setTimeout(res, 1_500));
      expect(await fees()).toHaveLength(3);
      await mine();
      const done = await final(relayer, r.body.data.requestId, "CONFIRMED");
      expect(done.transactionHash).toBe(done.transactionHashes[2]);
    } finally {
      await relayer.stop();
    }
  });

  it("out of ether: 503 RELAYER_OUT_OF_FUNDS, nothing queued, no nonce taken; funded again, writes pass", async () => {
    const relayer = await startRelayer(chain, db, base, { name: "funds" });
    const funded = await chain.client.getBalance({ address: RELAYER.address });
    try {
      const a = chain.accounts[0]!;
      await setBalance(1_000n);
      const health = await until("health to see it", async () => {
        const h = await relayerCall(relayer.url, "GET", "/health");
        return h.body.data.outOfFunds ? h : null;
      }, 10_000, 100);
      expect(health.status).toBe(200); // it still serves statuses and cancels
      expect(health.body.data).toMatchObject({ status: "degraded", signerBalance: "1000", outOfFunds: true });
      expect(health.body.data.oldestPendingAgeMs).toBeTypeOf("number");
      const [rowsBefore] = await query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".request`);
      const [signerBefore] = await query<{ next_nonce: string }>(`SELECT next_nonce FROM "${schema}".signer`);
      const nonceBefore = await pendingNonce();
      const r = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, body: { amount: "1000000" }, idempotencyKey: `broke-${schema}` });
      expect([r.status, r.body.error.code]).toEqual([503, "RELAYER_OUT_OF_FUNDS"]);
      expect(r.headers.get("retry-after")).toBeTruthy();
      expect(await pendingNonce()).toBe(nonceBefore);
      expect((await query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".request`))[0]!.n).toBe(rowsBefore!.n);
      expect((await query<{ next_nonce: string }>(`SELECT next_nonce FROM "${schema}".signer`))[0]!.next_nonce).toBe(signerBefore!.next_nonce);

      await setBalance(funded);
      await until("funds back", async () => !(await relayerCall(relayer.url, "GET", "/health")).body.data.outOfFunds, 10_000, 100);
      const again = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, body: { amount: "1000000" }, idempotencyKey: `broke-${schema}` });
      expect(again.status).toBe(202);
      await mine();
      await final(relayer, again.body.data.requestId, "CONFIRMED");
    } finally {
      await setBalance(funded);
      await relayer.stop();
    }
  });

  it("a write stuck past its validUntil: its nonce goes to a no-op, it reports EXPIRED; the 202 carries the fields known before mining", async () => {
    const relayer = await startRelayer(chain, db, base, { name: "expiry" });
    try {
      const a = chain.accounts[0]!;
      const amount = "1234567";
      const r = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, body: { amount, validUntil: inSeconds(2) } });
      expect(r.status).toBe(202);
      expect(r.body.data).toMatchObject({
        accountId: a.accountId, depositedAmount: amount, depositedAmountFormatted: "1.234567", newAvailableMargin: null,
        newAvailableMarginFormatted: null, transactionStatus: "PENDING", blockNumber: null,
      });
      const original = r.body.data.transactionHash as Hex;
      const replaced = await until("the no-op", async () => {
        const s = await txStatus(relayer, r.body.data.requestId);
        return s.transactionHashes.length === 2 ? s : null;
      }, 30_000, 100);
      const noop = replaced.transactionHashes[1] as Hex;
      const tx = await chain.client.getTransaction({ hash: noop });
      expect([tx.to?.toLowerCase(), tx.value, tx.input]).toEqual([RELAYER.address.toLowerCase(), 0n, "0x"]);
      expect(tx.nonce).toBe(replaced.nonce);
      await mine();
      const done = await final(relayer, r.body.data.requestId, "EXPIRED");
      expect(done.error.code).toBe("EXPIRED");
      expect(done.transactionHash).toBe(noop);
      await expect(chain.client.getTransactionReceipt({ hash: original })).rejects.toThrow();
      const deposits = await chain.client.getContractEvents({ address: chain.deployment.contracts.engine, abi: engineAbi, eventName: "MarginUpdated", args: { accountId: BigInt(a.accountId) }, fromBlock: 0n });
      expect(deposits.some((l) => (l.args as { amount6: bigint }).amount6 === BigInt(amount))).toBe(false);
    } finally {
      await relayer.stop();
    }
  });

  it("an expired MARKET order sent before the ether ran out is not mined when it returns", async () => {
    const relayer = await startRelayer(chain, db, base, { name: "market" });
    const funded = await chain.client.getBalance({ address: RELAYER.address });
    try {
      const [a, maker] = [chain.accounts[0]!, chain.accounts[1]!];
      const eur = chain.deployment.markets[0]!;
      const mark = await chain.client.readContract({ address: eur.marketAddress, abi: marketAbi, functionName: "markPrice" });
      const ask = ((mark * 1002n) / 1000n / TICK) * TICK;
      const quote = await relayerCall(relayer.url, "POST", `/internal/accounts/${maker.accountId}/orders`, {
        caller: maker.address, body: { marketId: eur.marketId, collateralAmount: usd("1000").toString(), side: "SHORT", leverage: 5, orderType: "LIMIT", limitPrice: ask.toString() },
      });
      expect(quote.status, JSON.stringify(quote.body)).toBe(202);
      await mine();
      await final(relayer, quote.body.data.requestId, "CONFIRMED");

      const order = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/orders`, {
        caller: a.address, body: { marketId: eur.marketId, collateralAmount: usd("100").toString(), side: "LONG", leverage: 5, orderType: "MARKET", validUntil: inSeconds(2) },
      });
      expect(order.status, JSON.stringify(order.body)).toBe(202);
      expect(order.body.data).toMatchObject({ side: "LONG", orderType: "MARKET", marketId: eur.marketId, orderId: null, size: null });
      expect(order.body.data.clientKey).toMatch(/^0x[0-9a-f]{64}$/);
      await setBalance(0n);
      // expired while broke: the no-op is signed, but nothing can be sent
      const replaced = await until("the no-op", async () => {
        const s = await txStatus(relayer, order.body.data.requestId);
        return s.transactionHashes.length === 2 ? s : null;
      }, 30_000, 100);
      const noop = replaced.transactionHashes[1] as Hex;
      await setBalance(funded);
      await until("the no-op in the pool", async () => (await rpc(chain.rpcUrl, "eth_getTransactionByHash", [noop])) !== null, 30_000, 100);
      await mine();
      const done = await final(relayer, order.body.data.requestId, "EXPIRED");
      expect(done.transactionHash).toBe(noop);
      const pos = await chain.client.readContract({ address: eur.marketAddress, abi: marketAbi, functionName: "getPosition", args: [BigInt(a.accountId)] });
      expect(pos.sizeQty).toBe(0n);
      const placed = await chain.client.getContractEvents({ address: eur.marketAddress, abi: marketAbi, eventName: "OrderPlaced", fromBlock: 0n });
      expect(placed.some((l) => (l.args as { clientKey: Hex }).clientKey === order.body.data.clientKey)).toBe(false);
    } finally {
      await setBalance(funded);
      await relayer.stop();
    }
  });

  it("a caller cancels its own pending writes: queued → CANCELLED at once (nothing sent), sent → replaced by a no-op", async () => {
    const relayer = await startRelayer(chain, db, base, { name: "cancel" });
    try {
      const [a, b] = [chain.accounts[0]!, chain.accounts[1]!];
      const deposit = (amount: string) => relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, body: { amount } });
      const sent = await deposit("2000001"); // holds the lane until mined
      const queued = await deposit("2000002"); // waits behind it, not signed
      expect([sent.status, queued.status]).toEqual([202, 202]);
      expect(queued.body.data.transactionHash).toBeNull();
      const cancel = (id: string, caller = a.address) => relayerCall(relayer.url, "POST", `/internal/transactions/${id}/cancel`, { caller });

      expect((await cancel(queued.body.data.requestId, b.address)).status).toBe(404); // not theirs
      const c1 = await cancel(queued.body.data.requestId);
      expect(c1.status).toBe(200);
      expect(c1.body.data).toMatchObject({ transactionStatus: "CANCELLED", transactionHashes: [], nonce: null });
      expect((await cancel(queued.body.data.requestId)).body.error.code).toBe("NOT_CANCELLABLE");

      const c2 = await cancel(sent.body.data.requestId);
      expect(c2.status).toBe(202);
      expect(c2.body.data).toMatchObject({ transactionStatus: "PENDING", cancelRequested: true });
      await until("the no-op", async () => (await txStatus(relayer, sent.body.data.requestId)).transactionHashes.length === 2, 30_000, 100);
      await mine();
      const done = await final(relayer, sent.body.data.requestId, "CANCELLED");
      expect(done.error.code).toBe("CANCELLED");
      const deposits = await chain.client.getContractEvents({ address: chain.deployment.contracts.engine, abi: engineAbi, eventName: "MarginUpdated", args: { accountId: BigInt(a.accountId) }, fromBlock: 0n });
      expect(deposits.some((l) => [2000001n, 2000002n].includes((l.args as { amount6: bigint }).amount6))).toBe(false);
    } finally {
      await relayer.stop();
    }
  });
});
