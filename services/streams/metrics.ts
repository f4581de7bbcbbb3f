/**
 * The stream service's Prometheus series (core/metrics.ts serves them at GET /metrics): what one
 * replica costs its upstreams. `venue_streams_upstream_reads_total{upstream,cause}` counts every
 * GET it sends: to the integration API per indexed block (`cause="block"`: one build per followed
 * topic, however many subscribe) or when a topic is first built / an account's owner checked
 * (`cause="subscribe"`), and to the relayer for a transactions snapshot. Divided by
 * `venue_streams_blocks_total` it is the per-block upstream cost of the replica.
 */
import { counter, gauge, initMetrics } from "../../core/metrics.js";

export type UpstreamCause = "block" | "subscribe";

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
    read: (upstream: "integration" | "relayer", cause: UpstreamCause) => reads.inc({ upstream, cause }),
    block: () => blocks.inc(),
  };
}
