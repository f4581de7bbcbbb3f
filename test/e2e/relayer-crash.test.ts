/**
 * Crash safety on Postgres: the relayer is SIGKILLed at each step of a write (after queueing,
 * after signing, after broadcast, before recording the receipt), restarted, and every accepted
 * request ends on chain exactly once: none lost, none twice, no nonce gap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineAbi } from "../../abis/index.js";
import { CRASH_STEPS } from "../../services/relayer/config.js";
import { dropSchema, POSTGRES_URL, query, relayerCall, RELAYER, startRelayer, startTestChain, uniqueSchema, type TestChain } from "./relayer-harness.js";

let chain: TestChain;
const schema = uniqueSchema("crash");
const db = { url: POSTGRES_URL, schema };

beforeAll(async () => {
  chain = await startTestChain({ prepared: 1 });
});
afterAll(async () => {
  await chain?.stop();
  await dropSchema(schema).catch(() => {});
});

async function depositEvents(accountId: number, amount6: bigint) {
  const logs = await chain.client.getContractEvents({
    address: chain.deployment.contracts.engine, abi: engineAbi, eventName: "MarginUpdated", args: { accountId: BigInt(accountId) }, fromBlock: 0n,
  });
  return logs.filter((l) => (l.args as { reason: number; amount6: bigint }).reason === 0 && (l.args as { amount6: bigint }).amount6 === amount6);
}

describe("relayer crash safety (Postgres)", () => {
  it.each(CRASH_STEPS.map((s, i) => [s, i] as const))("killed at %s: restarted, the write ends on chain exactly once", async (step, i) => {
    const a = chain.accounts[0]!;
    const amount = 1_000_000n + BigInt(i); // a distinct amount per step, to count its events
    const key = `crash-${step}-${schema}`;
    const req = { caller: a.address, idempotencyKey: key, body: { amount: amount.toString() } };

    const doomed = await startRelayer(chain, db, { RELAYER_CRASH_AT: step }, { name: `crash-${step}` });
    try {
      const first = await relayerCall(doomed.url, "POST", `/internal/accounts/${a.accountId}/deposit`, req).catch((e) => e as Error);
      expect(first).toBeInstanceOf(Error); // the process died before answering
      for (let t = 0; t < 100 && !doomed.proc.exited(); t++) await new Promise((r) => setTimeout(r, 100));
      expect(doomed.proc.exited()).toBe(true);
    } finally {
      await doomed.stop();
    }

    const rows = await query<{ status: string }>(`SELECT status FROM "${schema}".request WHERE idempotency_key = $1`, [key]);
    expect(rows).toHaveLength(1); // accepted (queued) before the crash

    const relayer = await startRelayer(chain, db, {}, { name: `restart-${step}` });
    try {
      // The client retries with its key: the same request, finished by the restarted process.
      const again = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, req);
      expect(again.status).toBe(200);
      expect(again.body.data).toMatchObject({ accountId: a.accountId, depositedAmount: amount.toString(), transactionStatus: "CONFIRMED" });
      expect(await depositEvents(a.accountId, amount)).toHaveLength(1);
      const status = await relayerCall(relayer.url, "GET", `/internal/transactions/${again.body.data.requestId}`, { caller: a.address });
      expect(status.body.data).toMatchObject({ transactionStatus: "CONFIRMED", transactionHash: again.body.data.transactionHash });
    } finally {
      await relayer.stop();
    }
  });

  it("no nonce used twice, no gap: the database's nonces are exactly the chain's", async () => {
    const rows = await query<{ nonce: string; status: string }>(`SELECT nonce, status FROM "${schema}".request WHERE nonce IS NOT NULL ORDER BY nonce`);
    const chainNonce = await chain.client.getTransactionCount({ address: RELAYER.address, blockTag: "latest" });
    const [signer] = await query<{ next_nonce: string }>(`SELECT next_nonce FROM "${schema}".signer`);
    expect(rows.map((r) => Number(r.nonce))).toEqual(Array.from({ length: rows.length }, (_, i) => i));
    expect(rows.every((r) => r.status === "CONFIRMED")).toBe(true);
    expect(rows).toHaveLength(chainNonce);
    expect(Number(signer!.next_nonce)).toBe(chainNonce);
  });
});
