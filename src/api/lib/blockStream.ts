/**
 * The indexed-block push of this process, for the read service and the streams
 * (core/indexer/blocks.ts `sseBlockFeed`): `GET /blocks/stream` (server-sent events: the
 * indexed state at once, then each new one) and `GET /blocks/current` (one state read now).
 *
 * Ponder commits each live block in one transaction that updates `_ponder_checkpoint`, whose
 * trigger sends NOTIFY on its live-query channel after the commit. This process listens on it
 * (PGlite: in-process, the only way another process can learn of it; Postgres: a connection of
 * its own), reads the state once per push and fans it out to every subscriber. Nothing runs
 * while nobody listens but that one LISTEN; a reorg's revert is pushed by our trigger (flagged
 * `reverted`, core/indexer/blocks.ts revertSignalSql); a slow poll (1 s) covers what Ponder does
 * not push (the backfill's blocks).
 */
import { createApiApp } from "./app.js";
import { streamSSE } from "hono/streaming";
import pg from "pg";
import { sql } from "ponder";
import { db } from "ponder:api";
import { feedHub, liveQueryChannel, revertSignalSql, revertTracker, revertedChannel, serialReader, stateToJson, type IndexedState } from "../../../core/indexer/blocks.js";
import { ponderSchema, readIndexedBlock } from "./indexedBlock.js";

const SAFETY_POLL_MS = 1_000;
const KEEPALIVE_MS = 15_000;

type PgliteDriver = { dialect: "pglite"; instance: { listen: (channel: string, cb: (payload: string) => void) => Promise<unknown> } };
type Driver = PgliteDriver | { dialect: "postgres" };

const feed = feedHub();
let started = false;
let dialect: Driver["dialect"] | undefined;
/** One state read at a time; pushes during a read share the one read after it; reverts flagged. */
const reverts = revertTracker(readIndexedBlock);
const refresh = serialReader(reverts.read, feed.push);

async function listenPostgres(channel: string) {
  for (;;) {
    try {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      const lost = new Promise<void>((resolve) => c.on("error", () => resolve()));
      c.on("notification", (n) => {
        if (n.channel === revertedChannel(ponderSchema())) reverts.reverted();
        void refresh().catch(() => {});
      });
      await c.connect();
      await c.query(`LISTEN "${channel}"`);
      await c.query(`LISTEN "${revertedChannel(ponderSchema())}"`);
      // the revert signal's trigger (Ponder's API pool is read-only on Postgres); retried until
      // Ponder's tables exist
      const run = async () => {
        for (const q of revertSignalSql(ponderSchema())) await c.query(q);
      };
      const install = setInterval(() => void run().then(() => clearInterval(install), () => {}), SAFETY_POLL_MS);
      void run().then(() => clearInterval(install), () => {});
      void lost.then(() => clearInterval(install));
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
  const driver = (globalThis as unknown as { PONDER_DATABASE: { driver: Driver } }).PONDER_DATABASE.driver;
  dialect = driver.dialect;
  const channel = liveQueryChannel(ponderSchema());
  if (driver.dialect === "pglite") {
    void driver.instance.listen(channel, () => void refresh().catch(() => {}));
    void driver.instance.listen(revertedChannel(ponderSchema()), () => {
      reverts.reverted();
      void refresh().catch(() => {});
    });
  } else void listenPostgres(channel);
  // PGlite: the revert signal's trigger (core/indexer/blocks.ts), retried until Ponder's tables exist
  let installed = driver.dialect !== "pglite";
  const install = () => {
    if (installed) return;
    void (async () => {
      for (const q of revertSignalSql(ponderSchema())) await db.execute(sql.raw(q));
      installed = true;
    })().catch(() => {});
  };
  install();
  setInterval(() => {
    install();
    void refresh().catch(() => {});
  }, SAFETY_POLL_MS).unref();
}

export const blockStreamRoutes = createApiApp()
  .get("/blocks/current", async (c) => {
    start();
    // PGlite lives in this process: its NOTIFY reaches the feed as the commit returns, so the
    // feed's state is the committed one (the safety poll covers reverts); Postgres is read
    const s = dialect === "pglite" && feed.current().state ? feed.current() : await refresh();
    return c.body(stateToJson(s), 200, { "Content-Type": "application/json", "Cache-Control": "no-store" });
  })
  .get("/blocks/stream", (c) => {
    start();
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
