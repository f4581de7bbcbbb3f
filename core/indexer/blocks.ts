/**
 * The indexed-block feed: learn of each block Ponder has indexed, by push, after its rows are
 * committed. The read service holds per-block answers on it; the streams reuse it.
 *
 * The push is Ponder's own: every live block is committed in one transaction that updates
 * `_ponder_checkpoint`, whose statement trigger sends `NOTIFY "<schema>_live_query"` (the
 * channel of Ponder's live queries), delivered only after the commit. On each push the feed
 * reads the indexed state once (checkpoint + `indexed_head`, one statement) and tells its
 * listeners the block's number, time and hash. Two sources, one interface:
 *   - `pgBlockFeed`: `LISTEN` on Postgres directly (DATABASE_URL), any number of replicas;
 *   - `sseBlockFeed`: the integration API's `GET /blocks/stream` (server-sent events), which
 *     Ponder's process feeds from the same NOTIFY (in-process on PGlite, which no other
 *     process may open); its `revalidate` asks a thread of Ponder's process that indexing does
 *     not block, when Ponder advertises one (`STATE_URL_HEADER`).
 * No query runs per request: only one per pushed block, `revalidate()` on demand, and one every
 * `safetyPollMs` (1 s) in case a push was missed: Ponder sends none for blocks of its backfill;
 * the revert of a reorg is pushed by the indexer's own trigger (src/ponder/internals.ts
 * `revertSignalSql`), flagged `reverted`. The parts: indexed-state.ts (the state, its statement
 * and wire form), feed.ts (the interface and its bookkeeping), pg-feed.ts, sse-feed.ts.
 */
import type { BlockFeed } from "./feed.js";
import { pgBlockFeed } from "./pg-feed.js";
import { sseBlockFeed } from "./sse-feed.js";

// the feed's parts, by concern (this module opens a feed; its importers may import the parts directly)
export * from "./indexed-state.js";
export * from "./feed.js";
export { pgBlockFeed } from "./pg-feed.js";
export { sseBlockFeed, STATE_URL_HEADER } from "./sse-feed.js";

/** The feed for a service's environment: Postgres when it has the indexer's database, else the API's stream. */
export function openBlockFeed(o: { databaseUrl?: string; schema?: string; integrationUrl: string; headers?: Record<string, string>; onError?: (e: unknown) => void }): BlockFeed {
  if (o.databaseUrl && o.schema) return pgBlockFeed({ databaseUrl: o.databaseUrl, schema: o.schema, onError: o.onError });
  return sseBlockFeed({ url: o.integrationUrl, headers: o.headers, onError: o.onError });
}
