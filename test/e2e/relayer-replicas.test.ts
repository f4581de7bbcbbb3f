/**
 * Two relayer processes on one Postgres database, one signer, under concurrent load: every
 * nonce is used once (the signer row is locked while a nonce is taken), none is skipped, and
 * every request ends on chain exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineAbi } from "../../abis/index.js";
import { dropSchema, POSTGRES_URL, query, relayerCall, RELAYER, startRelayer, startTestChain, uniqueSchema, type RelayerProc, type TestChain } from "./relayer-harness.js";

let chain: TestChain;
let replicas: RelayerProc[] = [];
const schema = uniqueSchema("replicas");

beforeAll(async () => {
  chain = await startTestChain({ prepared: 4 });
  const db = { url: POSTGRES_URL, schema };
  // 15 writes per account run one after another in its lane: give them time on a busy machine
  const env = { WRITE_TIMEOUT_MS: "90000" };
  replicas = await Promise.all([startRelayer(chain, db, env, { name: "replica-a" }), startRelayer(chain, db, env, { name: "replica-b" })]);
});
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await chain?.stop();
  await dropSchema(schema).catch(() => {});
});

describe("two relayer replicas on one database", () => {
  it("60 concurrent writes through both: no nonce twice, no gap, each write once on chain", async () => {
    const startNonce = await chain.client.getTransactionCount({ address: RELAYER.address, blockTag: "latest" });
    const jobs = Array.from({ length: 60 }, (_, i) => {
      const a = chain.accounts[i % chain.accounts.length]!;
      const amount = (2_000_000n + BigInt(i)).toString();
      const r = replicas[i % 2]!;
      const op = i % 3 === 2 ? "withdraw" : "deposit";
      return relayerCall(r.url, "POST", `/internal/accounts/${a.accountId}/${op}`, { caller: a.address, body: { amount } }).then((res) => ({ res, op, amount, a }));
    });
    const results = await Promise.all(jobs);
    for (const { res } of results) expect(res.status, JSON.stringify(res.body)).toBe(200);

    const rows = await query<{ nonce: string; status: string; tx_hash: string }>(`SELECT nonce, status, tx_hash FROM "${schema}".request ORDER BY nonce`);
    expect(rows).toHaveLength(60);
    const nonces = rows.map((r) => Number(r.nonce));
    expect(nonces).toEqual(Array.from({ length: 60 }, (_, i) => startNonce + i)); // unique and contiguous
    expect(rows.every((r) => r.status === "CONFIRMED")).toBe(true);
    expect(await chain.client.getTransactionCount({ address: RELAYER.address, blockTag: "latest" })).toBe(startNonce + 60);

    // each write's event exactly once, from the transaction the relayer reported
    const logs = await chain.client.getContractEvents({ address: chain.deployment.contracts.engine, abi: engineAbi, eventName: "MarginUpdated", fromBlock: 0n });
    for (const { res, op, amount } of results) {
      const mine = logs.filter((l) => {
        const a = l.args as { reason: number; amount6: bigint };
        return a.reason === (op === "deposit" ? 0 : 1) && a.amount6 === BigInt(amount);
      });
      expect(mine).toHaveLength(1);
      expect(mine[0]!.transactionHash).toBe(res.body.data.transactionHash);
    }
  });
});
