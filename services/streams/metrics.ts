/**
 * The stream service's Prometheus series (core/metrics.ts serves them at GET /metrics): what one
 * replica costs its upstreams. `venue_streams_upstream_reads_total{upstream,cause}` counts every
 * GET it sends: to the integration API per indexed block (`cause="block"`: one build per followed
 * topic, however many subscribe; `"block-reread"`: a build's answers named different blocks and
 * were read again), when a topic is first built or an account's owner checked
 * (`cause="subscribe"`), and to the relayer for a transactions snapshot. A block's reads are added
 * when the block is done, with `venue_streams_blocks_total`, so the two divide exactly into the
 * replica's upstream reads per block.
 */
import { counter, gauge, initMetrics } from "../../core/metrics.js";

export type BlockReads = { first: number; reread: number };

export function streamsMetrics(live: () => { connections: number; subscriptions: number; topics: number }) {
  initMetrics("streams");
  const reads = counter({
    name: "venue_streams_upstream_reads_total",
    help: "GETs sent upstream: integration API per indexed block (cause=block) or on subscribe; relayer for transactions snapshots",
    labelNames: ["upstream", "cause"],
  });
  const blocks = counter({ name: "venue_streams_blocks_total", help: "Indexed blocks processed (each rebuilds every followed topic once)" });
  for (const k of ["connections", "subscriptions", "topics"] as const)
    gauge({
      name: `venue_streams_${k}`,
      help: `Open ${k} of this replica`,
      collect() {
        this.set(live()[k]);
      },
    });
  return {
    /** A GET sent when a client subscribes (integration API or relayer). */
    subscribeRead: (upstream: "integration" | "relayer") => reads.inc({ upstream, cause: "subscribe" }),
    /** A block is done: its reads, counted with it. */
    block: (r: BlockReads) => {
      blocks.inc();
      reads.inc({ upstream: "integration", cause: "block" }, r.first);
      reads.inc({ upstream: "integration", cause: "block-reread" }, r.reread);
    },
  };
}
