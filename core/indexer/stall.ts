/**
 * The live sync's stall detector (issue 28): Ponder can stop indexing without an error (an open
 * Ponder issue reports a 7-day silent stall on 0.16) while its process, `/health` and `/ready`
 * look fine. The detector is fed samples of the chain's head (from the node, not from Ponder) and
 * of the latest indexed block; it reports a stall when the indexed block has not moved for
 * `boundMs` while the head moved past it. Time is passed in (`at`), never read here.
 */
export type StallSample = { at: number; head: bigint; indexed: bigint };
export type StallStatus =
  | { stalled: false }
  | { stalled: true; indexed: bigint; head: bigint; sinceMs: number; reason: string };

export function stallDetector(boundMs: number) {
  if (!(boundMs > 0)) throw new Error(`stall bound must be > 0 ms (got ${boundMs})`);
  // the indexed block, when it was first seen, and the head at that time
  let last: { indexed: bigint; at: number; head: bigint } | undefined;
  return {
    observe(s: StallSample): StallStatus {
      if (!last || s.indexed !== last.indexed) {
        last = { indexed: s.indexed, at: s.at, head: s.head };
        return { stalled: false };
      }
      const sinceMs = s.at - last.at;
      if (sinceMs < boundMs || s.head <= s.indexed || s.head <= last.head) return { stalled: false };
      return {
        stalled: true,
        indexed: s.indexed,
        head: s.head,
        sinceMs,
        reason: `live sync stalled: indexed block ${s.indexed} unchanged for ${Math.round(sinceMs / 1000)} s while the chain head moved from ${last.head} to ${s.head}`,
      };
    },
  };
}
