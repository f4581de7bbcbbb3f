/**
 * The live sync's watchdog (core/indexer/stall.ts): every few seconds the chain's head from the
 * node (RPC_URL, not through Ponder) and the latest indexed block (`_ponder_checkpoint`); when the
 * indexed block has not moved for INDEXER_STALL_MS (default 120 s) while the head moved past it,
 * Ponder's `/health` answers 503 with the reason, the gauge `venue_indexer_sync_stalled` is 1
 * (`venue_indexer_blocks_behind` the distance), and a warning is logged once per stall (and an
 * info line when indexing resumes). A failed sample (node or database down) changes nothing.
 */
import { createPublicClient, http } from "viem";
import { gauge } from "../../../core/metrics.js";
import { stallDetector, type StallStatus } from "../../../core/indexer/stall.js";
import { ponderLogger, setHealthCheck } from "../../ponder/internals.js";
import { readIndexedBlock } from "./indexedBlock.js";
import { positiveIntEnv } from "./env.js";

export function stallBoundMs(env: Record<string, string | undefined> = process.env): number {
  return positiveIntEnv("INDEXER_STALL_MS", 120_000, env);
}

export function startSyncWatchdog(o: { rpcUrl: string; boundMs: number }): () => void {
  const stalled = gauge({ name: "venue_indexer_sync_stalled", help: "1 while the live sync is stalled (no new indexed block for INDEXER_STALL_MS while the chain head moved)" });
  const behind = gauge({ name: "venue_indexer_blocks_behind", help: "The chain head (from the node) less the latest indexed block, at the watchdog's last sample" });
  const node = createPublicClient({ transport: http(o.rpcUrl, { retryCount: 0, timeout: 5_000 }) });
  const detector = stallDetector(o.boundMs);
  let status: StallStatus = { stalled: false };
  setHealthCheck(() => (status.stalled ? status.reason : undefined));
  const sample = async () => {
    const [head, indexed] = await Promise.all([node.getBlockNumber({ cacheTime: 0 }), readIndexedBlock()]);
    if (indexed.number === 0n) return; // nothing indexed yet (the backfill's first range; /ready covers it)
    const next = detector.observe({ at: performance.now(), head, indexed: indexed.number });
    behind.set(Number(head > indexed.number ? head - indexed.number : 0n));
    if (next.stalled && !status.stalled) ponderLogger().warn({ msg: "Live sync stalled", reason: next.reason });
    if (!next.stalled && status.stalled) ponderLogger().info({ msg: "Live sync resumed", indexed: indexed.number.toString() });
    stalled.set(next.stalled ? 1 : 0);
    status = next;
  };
  const timer = setInterval(() => void sample().catch(() => {}), Math.min(5_000, Math.max(250, Math.floor(o.boundMs / 4))));
  timer.unref();
  return () => clearInterval(timer);
}
