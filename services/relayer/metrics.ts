/**
 * The relayer's Prometheus series (core/metrics.ts serves them at GET /metrics), read from its
 * store and the chain at scrape time, so they hold across restarts and replicas sharing a store:
 * writes per state (queue depth), the age of the oldest unfinished write, the signer's balance
 * and nonces, and the fee bumps signed. Requests by route and status come from `httpMetrics`.
 */
import { count, countDistinct, inArray, min, sql } from "drizzle-orm";
import { formatEther } from "viem";
import { counter, gauge, initMetrics } from "../../core/metrics.js";
import type { Chain } from "./chain.js";
import type { RelayerDb } from "./db/client.js";
import { FINAL_STATUSES, REQUEST_STATUS } from "./db/schema.js";

const PENDING = REQUEST_STATUS.filter((s) => !FINAL_STATUSES.includes(s));

export function registerRelayerMetrics({ db: { db, t }, chain, signer }: { db: RelayerDb; chain: Chain; signer: `0x${string}` }): void {
  initMetrics("relayer");

  gauge({
    name: "venue_relayer_requests",
    help: "Writes in the relayer's store by state (QUEUED, SIGNED, SENT: the queue; CONFIRMED, REVERTED, FAILED: done)",
    labelNames: ["state"],
    async collect() {
      const rows = await db.select({ state: t.requests.status, n: count() }).from(t.requests).groupBy(t.requests.status);
      this.reset();
      for (const s of REQUEST_STATUS) this.set({ state: s }, 0);
      for (const r of rows) this.set({ state: r.state }, Number(r.n));
    },
  });

  gauge({
    name: "venue_relayer_oldest_pending_write_age_seconds",
    help: "Age of the oldest write not yet final (QUEUED, SIGNED or SENT); 0 when none",
    async collect() {
      const [r] = await db.select({ oldest: min(t.requests.createdAt) }).from(t.requests).where(inArray(t.requests.status, PENDING));
      const oldest = r?.oldest ? new Date(r.oldest).getTime() : undefined;
      this.set(oldest ? Math.max(0, (Date.now() - oldest) / 1000) : 0);
    },
  });

  gauge({
    name: "venue_relayer_signer_balance_eth",
    help: "The relayer signer's balance in ether (pays every write's gas)",
    async collect() {
      this.set(Number(formatEther(await chain.client.getBalance({ address: signer }))));
    },
  });

  gauge({
    name: "venue_relayer_signer_nonce",
    help: "The signer's nonces: next to assign (store), pending and mined (chain); next - mined = in flight",
    labelNames: ["source"],
    async collect() {
      const [stored, pending, mined] = await Promise.all([
        db.select({ n: t.signers.nextNonce }).from(t.signers).where(sql`${t.signers.address} = ${signer.toLowerCase()}`),
        chain.client.getTransactionCount({ address: signer, blockTag: "pending" }),
        chain.client.getTransactionCount({ address: signer, blockTag: "latest" }),
      ]);
      if (stored[0]) this.set({ source: "store_next" }, Number(stored[0].n));
      this.set({ source: "chain_pending" }, pending);
      this.set({ source: "chain_mined" }, mined);
    },
  });

  // a counter kept in the store (attempts beyond each request's first), so restarts don't reset it
  counter({
    name: "venue_relayer_fee_bumps_total",
    help: "Replacement transactions signed with a higher fee (fee bumps)",
    async collect() {
      const [r] = await db.select({ attempts: count(), requests: countDistinct(t.attempts.requestId) }).from(t.attempts);
      this.reset();
      this.inc(Math.max(0, Number(r?.attempts ?? 0) - Number(r?.requests ?? 0)));
    },
  });
}
