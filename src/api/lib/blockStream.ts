/**
 * The indexed-block push of this process, for the read service and the streams
 * (core/indexer/sse-feed.ts `sseBlockFeed`): `GET /blocks/stream` (server-sent events: the
 * indexed state at once, then each new one) and `GET /blocks/current` (one state read now).
 *
 * Ponder commits each live block in one transaction that updates `_ponder_checkpoint`, whose
 * trigger sends NOTIFY on its live-query channel after the commit. This process listens on it
 * (PGlite: in-process, the only way another process can learn of it; Postgres: a connection of
 * its own), reads the state once per push and fans it out to every subscriber. Nothing runs
 * while nobody listens but that one LISTEN; a reorg's revert is pushed by our trigger (flagged
 * `reverted`, src/ponder/internals.ts revertSignalSql); a slow poll (1 s) covers what Ponder does
 * not push (the backfill's blocks).
 *
 * On PGlite the database runs in this process's one thread, so a request here waits behind each
 * indexed block's transaction: each pushed state is also written to shared memory that a worker
 * thread serves as `GET /blocks/current` (stateServer.ts), whose URL both routes advertise
 * (`STATE_URL_HEADER`) for `sseBlockFeed.revalidate`. The revert signal's trigger is installed
 * at the API's load (src/ponder/internals.ts `installRevertSignal`).
 */
import { createApiApp } from "./app.js";
import { streamSSE } from "hono/streaming";
import pg from "pg";
import { feedHub, liveQueryChannel, revertTracker, revertedChannel, serialReader } from "../../../core/indexer/feed.js";
import { stateToJson, type IndexedState } from "../../../core/indexer/indexed-state.js";
import { STATE_URL_HEADER } from "../../../core/indexer/sse-feed.js";
import { listenPglite, ponderDialect, ponderSchema } from "../../ponder/internals.js";
import { readIndexedBlock } from "./indexedBlock.js";
import { startStateServer, type StateServer } from "./stateServer.js";

const SAFETY_POLL_MS = 1_000;
const KEEPALIVE_MS = 15_000;

const feed = feedHub();
let started = false;
let dialect: "pglite" | "postgres" | undefined;
let stateServer: StateServer | undefined;
/** One state read at a time; pushes during a read share the one read after it; reverts flagged. */
const reverts = revertTracker(readIndexedBlock);
// from a revert's signal until a state read started after it is pushed, the state held is
// possibly the orphaned branch's: not served from memory (here nor by the state server)
let signals = 0;
let readAt = 0;
let holding = false;
const refresh = serialReader(
  () => {
    readAt = signals;
    return reverts.read();
  },
  (s) => {
    feed.push(s);
    if (readAt !== signals || !holding) return;
    holding = false;
    stateServer?.hold(false);
  },
);
function revertSignalled() {
  signals++;
  holding = true;
  stateServer?.hold(true);
  reverts.reverted();
  void refresh().catch(() => {});
}

async function listenPostgres(channel: string) {
  for (;;) {
    try {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      const lost = new Promise<void>((resolve) => c.on("error", () => resolve()));
      c.on("notification", (n) => {
        if (n.channel === revertedChannel(ponderSchema())) revertSignalled();
        else void refresh().catch(() => {});
      });
      await c.connect();
      await c.query(`LISTEN "${channel}"`);
      await c.query(`LISTEN "${revertedChannel(ponderSchema())}"`);
      await lost;
      await c.end().catch(() => {});
    } catch {
      // retried below
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

function start() {
  if (started) return;
  started = true;
  dialect = ponderDialect();
  const channel = liveQueryChannel(ponderSchema());
  if (dialect === "pglite") {
    void listenPglite(channel, () => void refresh().catch(() => {}));
    void listenPglite(revertedChannel(ponderSchema()), revertSignalled);
    // the state served from a thread indexing does not block (on Postgres the read service reads the database itself)
    const g = globalThis as unknown as { venueStateServer?: StateServer };
    void g.venueStateServer?.close(); // a reload of this module (ponder dev)
    const server = (g.venueStateServer = stateServer = startStateServer());
    // first, so the state is in shared memory before any stream sends it
    feed.subscribe(server.publish);
    if (feed.current().state) server.publish(feed.current());
  } else void listenPostgres(channel);
  setInterval(() => void refresh().catch(() => {}), SAFETY_POLL_MS).unref();
}

/** The state server's URL in a response's headers, once it listens (a stream waits for it, briefly). */
async function advertise(c: { header: (name: string, value: string) => void }, wait: boolean) {
  if (wait && stateServer && !stateServer.url()) await Promise.race([stateServer.ready, new Promise((r) => setTimeout(r, 2_000))]);
  const url = stateServer?.url();
  if (url) c.header(STATE_URL_HEADER, url);
}

export const blockStreamRoutes = createApiApp()
  .get("/blocks/current", async (c) => {
    start();
    // PGlite lives in this process: its NOTIFY reaches the feed as the commit returns, so the
    // feed's state is the committed one (a revert's is read first); Postgres is read
    const s = dialect === "pglite" && feed.current().state && !holding ? feed.current() : await refresh();
    await advertise(c, false);
    return c.body(stateToJson(s), 200, { "Content-Type": "application/json", "Cache-Control": "no-store" });
  })
  .get("/blocks/stream", async (c) => {
    start();
    await advertise(c, true);
    return streamSSE(c, async (stream) => {
      let last = "";
      const send = (s: IndexedState) => {
        if (s.state === last) return;
        last = s.state;
        void stream.writeSSE({ event: "block", data: stateToJson(s) }).catch(() => {});
      };
      const unsubscribe = feed.subscribe(send);
      stream.onAbort(unsubscribe);
      send(await refresh());
      while (!stream.aborted) {
        await stream.sleep(KEEPALIVE_MS);
        if (!stream.aborted) await stream.write(": keep-alive\n\n").catch(() => {});
      }
      unsubscribe();
    });
  });
