/** viem clients on a stack's chain (publicClient, and a wallet client for any local key). */
import type { Hex } from "viem";
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
