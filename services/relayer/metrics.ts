/**
 * The relayer's Prometheus series (core/metrics.ts serves them at GET /metrics), from the
 * relayer's own getters (`Relayer.stats()`: its store and the signer's last balance read) and
 * the chain's nonces, read at scrape time: writes per open state (queue depth), the age of the
 * oldest unfinished write, the signer's balance and nonces, fee bumps and the other events the
 * relayer counts since start. Requests by route and status come from `httpMetrics`.
 */
import { formatEther } from "viem";
import { counter, gauge, initMetrics } from "../../core/metrics.js";
import { OPEN_STATUSES } from "./db/schema.js";
import type { Relayer } from "./relayer.js";

type Stats = Awaited<ReturnType<Relayer["stats"]>>;

export function registerRelayerMetrics(relayer: Relayer): void {
  initMetrics("relayer");
  // one stats() per scrape, shared by the series below (collect() runs for each)
  let pending: { at: number; stats: Promise<Stats> } | undefined;
  const stats = () => {
    if (!pending || Date.now() - pending.at > 500) pending = { at: Date.now(), stats: relayer.stats() };
    return pending.stats;
  };

  gauge({
    name: "venue_relayer_queue_depth",
    help: "Writes not final, by state (QUEUED, SIGNED, SENT, REORGED)",
    labelNames: ["state"],
    async collect() {
      const { queue } = await stats();
      for (const state of OPEN_STATUSES) this.set({ state }, queue[state] ?? 0);
    },
  });

  gauge({
    name: "venue_relayer_oldest_pending_write_age_seconds",
    help: "Age of the oldest write not yet final; 0 when none",
    async collect() {
      this.set((await stats()).oldestPendingAgeMs / 1000);
    },
  });

  gauge({
    name: "venue_relayer_degraded",
    help: "1 while the oldest write not final is older than STUCK_AFTER_MS and the signer's mined nonce has not moved as long (or the signer is low on funds), else 0",
    async collect() {
      const s = await stats();
      this.set(s.stuck || s.fundsLow ? 1 : 0);
    },
  });

  gauge({
    name: "venue_relayer_signer_balance_eth",
    help: "The relayer signer's balance in ether (pays every write's gas), as last read",
    async collect() {
      const { balanceWei } = await stats();
      const wei = balanceWei ?? (await relayer.chain.client.getBalance({ address: relayer.signer }));
      this.set(Number(formatEther(wei)));
    },
  });

  gauge({
    name: "venue_relayer_signer_funds_low",
    help: "1 while the signer is below MIN_SIGNER_BALANCE_WEI and writes are refused (503), else 0",
    async collect() {
      this.set((await stats()).fundsLow ? 1 : 0);
    },
  });

  gauge({
    name: "venue_relayer_signer_nonce",
    help: "The signer's nonces: next to assign (store), pending and mined (chain); next - mined = in flight",
    labelNames: ["source"],
    async collect() {
      const { client } = relayer.chain;
      const [{ nextNonce }, chainPending, chainMined] = await Promise.all([
        stats(),
        client.getTransactionCount({ address: relayer.signer, blockTag: "pending" }),
        client.getTransactionCount({ address: relayer.signer, blockTag: "latest" }),
      ]);
      if (nextNonce !== null) this.set({ source: "store_next" }, Number(nextNonce));
      this.set({ source: "chain_pending" }, chainPending);
      this.set({ source: "chain_mined" }, chainMined);
    },
  });

  // the relayer's own counters (since this process started); Prometheus' rate() handles restarts
  const events: Array<[keyof Stats["counters"], string, string]> = [
    ["feeBumps", "venue_relayer_fee_bumps_total", "Replacement transactions signed with a higher fee"],
    ["feeCapReached", "venue_relayer_fee_cap_reached_total", "Fee bumps stopped at the configured fee cap"],
    ["noops", "venue_relayer_noop_replacements_total", "Expired writes whose nonce was replaced by a no-op"],
    ["expired", "venue_relayer_expired_total", "Writes that passed their validUntil unmined"],
    ["cancelled", "venue_relayer_cancelled_total", "Pending writes cancelled by their caller"],
    ["refusedOutOfFunds", "venue_relayer_refused_out_of_funds_total", "Writes refused (503) while the signer was low on funds"],
    ["reorged", "venue_relayer_reorged_total", "Mined writes whose receipt left the canonical chain (REORGED, then sent again)"],
    ["finalityViolations", "venue_relayer_finality_violations_total", "REORGED writes that were already final (a reorg deeper than CONFIRMATIONS)"],
    ["nonceGapFills", "venue_relayer_nonce_gap_fills_total", "No-ops sent to fill a nonce gap below the signer's transactions not mined"],
  ];
  for (const [field, name, help] of events) {
    counter({
      name,
      help,
      async collect() {
        const n = (await stats()).counters[field] ?? 0;
        this.reset();
        this.inc(n);
      },
    });
  }
}
