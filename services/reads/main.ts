/**
 * The read service (`npm run start:reads`): the integration API's hot reads from memory, one
 * rebuild per indexed block (on Postgres built here from the tables, on PGlite by Ponder's
 * process, a block's in one request), everything else passed to Ponder's server. Own process, so indexing never queues its
 * answers (docs/ARCHITECTURE.md).
 */
import { createServer } from "node:http";
import pino from "pino";
import { rawRequest } from "../../core/http/raw-request.js";
import { openBlockFeed } from "../../core/indexer/blocks.js";
import { memoryLastWrites, sharedLastWrites } from "../../core/indexer/last-writes.js";
import { AnswerStore } from "./answers.js";
import { createReadsListener } from "./app.js";
import { loadReadsConfig } from "./config.js";
import { historyServer } from "./history.js";
import { tableAnswers } from "./tables.js";
import { batchBuilds } from "./batch.js";
import { MAX_ANSWER_PATHS } from "../../core/reads/plans.js";
import { secret } from "../../core/profiles.js";

const cfg = (() => {
  try {
    return loadReadsConfig();
  } catch (e) {
    process.stderr.write(`reads: ${(e as Error).message}\n`);
    process.exit(1);
  }
})();
const log = pino({ name: "reads", level: cfg.LOG_LEVEL });

const feed = openBlockFeed({
  databaseUrl: cfg.DATABASE_URL,
  schema: cfg.DATABASE_SCHEMA,
  integrationUrl: cfg.INDEXER_URL,
  onError: (e) => log.warn({ err: String(e) }, "block feed"),
});

/** A build through Ponder's server (PGlite, whose database only its process may open). */
async function buildThroughIndexer(path: string, minBlock: bigint) {
  const url = new URL(cfg.INDEXER_URL + path);
  url.searchParams.set("minBlock", minBlock.toString());
  const res = await rawRequest(url, "GET", { accept: "application/json" }, undefined, cfg.UPSTREAM_TIMEOUT_MS);
  const block = res.headers["x-indexed-block"];
  return { status: res.status, body: res.text, block: typeof block === "string" ? block : null };
}

// the hot answers (core/reads/plans.ts): on Postgres built here, one statement each; on PGlite by
// Ponder's process, a block's in one request (batch.ts; a key too long for it: Ponder's route)
const tables =
  cfg.DATABASE_URL && cfg.DATABASE_SCHEMA
    ? tableAnswers({ databaseUrl: cfg.DATABASE_URL, schema: cfg.DATABASE_SCHEMA, feed, minBlockWaitMs: cfg.MIN_BLOCK_WAIT_MS, poolMax: cfg.READS_REBUILD_CONCURRENCY })
    : undefined;
const batch = tables
  ? undefined
  : batchBuilds({ indexerUrl: cfg.INDEXER_URL, token: secret("INTEGRATION_TOKEN"), timeoutMs: cfg.UPSTREAM_TIMEOUT_MS, single: buildThroughIndexer });
const store = new AnswerStore(feed, tables?.build ?? batch!.build, {
  hotMs: cfg.READS_HOT_MS,
  maxAnswers: cfg.READS_MAX_ANSWERS,
  eagerMax: cfg.READS_EAGER_MAX,
  eagerBytes: cfg.READS_EAGER_BYTES,
  // batched: a request's worth of builds at once (with 8, a block's 11 answers took two requests, one after the other)
  concurrency: batch ? Math.max(cfg.READS_REBUILD_CONCURRENCY, MAX_ANSWER_PATHS) : cfg.READS_REBUILD_CONCURRENCY,
  // where a block's freshness goes on this side (push → every rebuild landed): LOG_LEVEL=debug
  onSettle: log.isLevelEnabled("debug") ? (o) => log.debug({ block: String(o.block), ms: Math.round(o.ms), rebuilds: o.buildsMs.map(Math.round) }, "block settled") : undefined,
});
// read-your-writes of sign-in sessions: with Postgres the gateway's table, shared by every replica
const lastWrites =
  cfg.DATABASE_URL && cfg.LAST_WRITE_DB_SCHEMA
    ? await sharedLastWrites({ databaseUrl: cfg.DATABASE_URL, schema: cfg.LAST_WRITE_DB_SCHEMA, log })
    : memoryLastWrites();
// on Postgres the history lists are answered here (one statement per page); on PGlite by Ponder
const history =
  cfg.DATABASE_URL && cfg.DATABASE_SCHEMA
    ? historyServer({ databaseUrl: cfg.DATABASE_URL, schema: cfg.DATABASE_SCHEMA, feed, minBlockWaitMs: cfg.MIN_BLOCK_WAIT_MS, poolMax: cfg.READS_HISTORY_POOL_MAX })
    : undefined;
const { listener } = createReadsListener({
  history,
  store,
  feed,
  indexerUrl: cfg.INDEXER_URL,
  minBlockWaitMs: cfg.MIN_BLOCK_WAIT_MS,
  lastWrites,
  readYourWritesWaitMs: cfg.READ_YOUR_WRITES_WAIT_MS,
});

// a plain node server: held answers are written by the listener's hot path, the rest by Hono
const server = createServer(listener).listen(cfg.PORT, cfg.HOST, () =>
  log.info({ port: cfg.PORT, feed: cfg.DATABASE_URL ? "postgres LISTEN" : "indexer /blocks/stream", answers: tables ? "tables" : "batch" }, "reads listening"),
);

const shutdown = () => {
  server.close();
  void Promise.allSettled([feed.close(), "close" in lastWrites ? lastWrites.close() : undefined, history?.close(), tables?.close()]).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 3_000).unref();
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
