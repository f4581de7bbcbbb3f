/**
 * Stuck and dropped transactions, with anvil's automine off: a transaction the node dropped
 * (`anvil_dropTransaction`) is sent again and mined; a transaction left unmined is replaced with
 * the same nonce and bumped fees, and the replacement is what gets mined.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { engineAbi } from "../../abis/index.js";
import { walletClientFor } from "../../scripts/lib/clients.js";
import { dropSchema, POSTGRES_URL, relayerCall, rpc, startRelayer, startTestChain, uniqueSchema, type TestChain } from "./relayer-harness.js";

let chain: TestChain;
const schema = uniqueSchema("stuck");
const db = { url: POSTGRES_URL, schema };

beforeAll(async () => {
  chain = await startTestChain({ prepared: 1 });
  await rpc(chain.rpcUrl, "evm_setAutomine", [false]);
});
afterAll(async () => {
  await chain?.stop();
  await dropSchema(schema).catch(() => {});
});

const until = async <T>(what: string, f: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe("stuck and dropped transactions (automine off)", () => {
  it("a dropped transaction is sent again and mined", async () => {
    const relayer = await startRelayer(chain, db, { WRITE_TIMEOUT_MS: "1000", REBROADCAST_AFTER_MS: "500", BUMP_AFTER_MS: "600000" }, { name: "dropped" });
    try {
      const a = chain.accounts[0]!;
      const r = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, body: { amount: "7000000" } });
      expect(r.status).toBe(202);
      expect(r.body.data.transactionStatus).toBe("PENDING");
      const hash = r.body.data.transactionHash as Hex;
      expect(await rpc(chain.rpcUrl, "eth_getTransactionByHash", [hash])).not.toBeNull();
      await rpc(chain.rpcUrl, "anvil_dropTransaction", [hash]);
      expect(await rpc(chain.rpcUrl, "eth_getTransactionByHash", [hash])).toBeNull();
      // the tracker notices and hands the same signed transaction to the node again
      await until("re-send", async () => (await rpc(chain.rpcUrl, "eth_getTransactionByHash", [hash])) !== null);
      await rpc(chain.rpcUrl, "evm_mine");
      const status = await until("confirmed", async () => {
        const s = await relayerCall(relayer.url, "GET", `/internal/transactions/${r.body.data.requestId}`);
        return s.body.data.transactionStatus === "CONFIRMED" ? s.body.data : null;
      });
      expect(status.transactionHash).toBe(hash);
      expect(status.result).toMatchObject({ depositedAmount: "7000000" });
      const receipt = await chain.client.getTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
    } finally {
      await relayer.stop();
    }
  });

  it("a transaction left unmined is replaced with bumped fees; the replacement is mined", async () => {
    const relayer = await startRelayer(chain, db, { WRITE_TIMEOUT_MS: "1000", BUMP_AFTER_MS: "1500", REBROADCAST_AFTER_MS: "600000" }, { name: "bump" });
    try {
      const a = chain.accounts[0]!;
      const r = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/deposit`, { caller: a.address, body: { amount: "8000000" } });
      expect(r.status).toBe(202);
      const first = r.body.data.transactionHash as Hex;
      const original = await chain.client.getTransaction({ hash: first });
      const bumped = await until("fee bump", async () => {
        const s = await relayerCall(relayer.url, "GET", `/internal/transactions/${r.body.data.requestId}`);
        return s.body.data.transactionHash !== first ? s.body.data : null;
      });
      expect(bumped.transactionStatus).toBe("PENDING");
      expect(bumped.transactionHashes).toEqual([first, bumped.transactionHash]);
      const [t1, t2] = await Promise.all([chain.client.getTransaction({ hash: first }).catch(() => null), chain.client.getTransaction({ hash: bumped.transactionHash })]);
      expect(t1).toBeNull(); // replaced in the pool
      // fees × ≥ 1.125 (FEE_BUMP_BPS 11250)
      expect(t2.maxFeePerGas! * 10_000n).toBeGreaterThanOrEqual(original.maxFeePerGas! * 11_250n);
      expect(t2.maxPriorityFeePerGas! * 10_000n).toBeGreaterThanOrEqual(original.maxPriorityFeePerGas! * 11_250n);
      expect(t2.nonce).toBe(original.nonce);
      await rpc(chain.rpcUrl, "evm_mine");
      const done = await until("confirmed", async () => {
        const s = await relayerCall(relayer.url, "GET", `/internal/transactions/${r.body.data.requestId}`);
        return s.body.data.transactionStatus === "CONFIRMED" ? s.body.data : null;
      });
      const replacement = done.transactionHashes[done.transactionHashes.length - 1] as Hex;
      expect(done.transactionHash).toBe(replacement);
      const receipt = await chain.client.getTransactionReceipt({ hash: replacement });
      expect(receipt.status).toBe("success");
      await expect(chain.client.getTransactionReceipt({ hash: first })).rejects.toThrow();
      const mined = await chain.client.getTransaction({ hash: replacement });
      expect(mined.nonce).toBe(original.nonce);
      expect(mined.maxFeePerGas! * 10_000n).toBeGreaterThanOrEqual(original.maxFeePerGas! * 11_250n);
    } finally {
      await relayer.stop();
    }
  });

  it("a write that passed its checks but reverts on chain is answered with the spec's code", async () => {
    const relayer = await startRelayer(chain, db, { WRITE_TIMEOUT_MS: "1000", BUMP_AFTER_MS: "600000", REBROADCAST_AFTER_MS: "600000" }, { name: "reverted" });
    try {
      const a = chain.accounts[0]!;
      const acct = await chain.client.readContract({ address: chain.deployment.contracts.engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(a.accountId)] });
      const all6 = acct.availableWad / 10n ** 12n;
      // the relayer's withdrawal of everything passes its checks and waits in the pool…
      const r = await relayerCall(relayer.url, "POST", `/internal/accounts/${a.accountId}/withdraw`, { caller: a.address, body: { amount: all6.toString() } });
      expect(r.status).toBe(202);
      // …while the owner withdraws 1 USDV directly, paying more to go first in the block
      const owner = walletClientFor(chain.rpcUrl, 31337, a.privateKey);
      await owner.writeContract({
        address: chain.deployment.contracts.engine, abi: engineAbi, functionName: "withdraw", args: [BigInt(a.accountId), 1_000_000n],
        gas: 300_000n, maxPriorityFeePerGas: 50_000_000_000n, maxFeePerGas: 200_000_000_000n, // explicit gas: no estimate on the pending state
      });
      await rpc(chain.rpcUrl, "evm_mine");
      const done = await until("reverted", async () => {
        const s = await relayerCall(relayer.url, "GET", `/internal/transactions/${r.body.data.requestId}`);
        return s.body.data.transactionStatus === "REVERTED" ? s.body.data : null;
      });
      expect(done.error.code).toBe("INSUFFICIENT_MARGIN");
      expect(done.httpStatus).toBe(422);
      const receipt = await chain.client.getTransactionReceipt({ hash: done.transactionHash });
      expect(receipt.status).toBe("reverted");
    } finally {
      await relayer.stop();
    }
  });
});
