/** viem clients on a stack's chain (publicClient, and a wallet client for any local key). */
import type { Address, Hex } from "viem";
import { oracleAbi } from "../../../abis/index.js";
import { publicClientFor, walletClientFor } from "../../../scripts/lib/clients.js";
import type { StackInfo } from "../stack.js";

export const publicClient = (s: StackInfo) => publicClientFor(s.rpcUrl, s.chainId);
export const walletClient = (s: StackInfo, privateKey: Hex) => walletClientFor(s.rpcUrl, s.chainId, privateKey);

/** Resolves once the stack's indexer has indexed `block` (via GET /status). */
export async function waitIndexed(s: StackInfo, block: bigint | number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${s.integrationUrl}/status`).catch(() => null);
    const status = (await res?.json().catch(() => null)) as Record<string, { block?: { number?: number } }> | null;
    const indexed = status ? Math.max(...Object.values(status).map((c) => c.block?.number ?? 0)) : 0;
    if (indexed >= Number(block)) return indexed;
    if (Date.now() > deadline) throw new Error(`indexer at block ${indexed}, expected ${block} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The chain's clock `seconds` ahead (evm_increaseTime) and a block at that time, then each
 * market's index pushed again at its price (the price feed's key): on a shared stack the oracle's
 * 60 s bound counts these jumps too, and the next test (in any file) must not meet a stale index
 * before the feed's next round. Returns the block mined at the new time (the push comes after it).
 */
export async function advanceClock(s: StackInfo, seconds: number): Promise<{ number: bigint; timestamp: bigint }> {
  const client = publicClient(s);
  await client.request({ method: "evm_increaseTime" as never, params: [seconds] as never });
  await client.request({ method: "evm_mine" as never, params: [] as never });
  const mined = await client.getBlock({ blockTag: "latest" });
  const oracle = s.deployment.contracts.oracle as Address;
  const ids = s.deployment.markets.map((m) => m.marketId as Hex);
  const prices = await Promise.all(
    ids.map(async (id) => (await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [id] }))[0]),
  );
  const feed = walletClient(s, s.keys.priceFeed);
  await client.waitForTransactionReceipt({ hash: await feed.writeContract({ address: oracle, abi: oracleAbi, functionName: "setPrices", args: [ids, prices] }) });
  return { number: mined.number, timestamp: mined.timestamp };
}
