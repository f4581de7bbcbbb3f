/**
 * The feed straight from Postgres (the read service and the streams with DATABASE_URL): LISTEN on
 * Ponder's live-query channel and the revert signal's, one state read per push.
 */
import pg from "pg";
import { feedHub, liveQueryChannel, revertTracker, revertedChannel, type BlockFeed } from "./feed.js";
import { indexedStateSql, stateFromRow, type StateRow } from "./indexed-state.js";
import { overlappingReader } from "./overlapping-reader.js";

/**
 * The feed straight from Postgres: LISTEN on a dedicated connection, a small pool for the state
 * reads (a prepared statement, reads overlapping: `revalidate`, a no-cache read's, is one round trip).
 */
export function pgBlockFeed(o: { databaseUrl: string; schema: string; safetyPollMs?: number; onError?: (e: unknown) => void }): BlockFeed {
  const h = feedHub();
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: 4 });
  let listener: pg.Client | undefined;
  let closed = false;
  const stateQuery = { name: "venue_indexed_state", text: indexedStateSql(o.schema) };
  const reverts = revertTracker(async () => stateFromRow((await pool.query<StateRow>(stateQuery)).rows[0]));
  const refresh = overlappingReader(reverts.read, h.push);
  const connect = async (): Promise<void> => {
    while (!closed) {
      let c: pg.Client | undefined;
      try {
        c = new pg.Client({ connectionString: o.databaseUrl });
        c.on("notification", (n) => {
          if (n.channel === revertedChannel(o.schema)) reverts.reverted();
          void refresh().catch((e) => o.onError?.(e));
        });
        const client = c;
        client.on("error", (e) => {
          o.onError?.(e);
          client.end().catch(() => {});
          if (listener === client) listener = undefined;
          h.setLive(false);
          if (!closed) setTimeout(() => void connect(), 250);
        });
        await c.connect();
        await c.query(`LISTEN "${liveQueryChannel(o.schema)}"`);
        await c.query(`LISTEN "${revertedChannel(o.schema)}"`);
        listener = c;
        await refresh(); // what was indexed before we listened
        h.setLive(true);
        return;
      } catch (e) {
        o.onError?.(e);
        // this attempt's connection is closed before the next one (a failed first read, e.g. while
        // Ponder has not created its tables yet, left one open per try: dozens under a slow start)
        if (c) {
          if (listener === c) listener = undefined;
          c.removeAllListeners("error");
          c.on("error", () => {});
          c.end().catch(() => {});
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  void connect();
  const poll = setInterval(() => void refresh().catch((e) => o.onError?.(e)), o.safetyPollMs ?? 1_000);
  poll.unref();
  return {
    current: h.current,
    subscribe: h.subscribe,
    ready: h.ready,
    live: h.live,
    revalidate: () => refresh(),
    async close() {
      closed = true;
      clearInterval(poll);
      await listener?.end().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}

