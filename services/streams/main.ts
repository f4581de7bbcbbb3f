/**
 * The stream service (`npm run start:streams`): WebSocket channels of the book, trades, market,
 * candles and accounts, pushed once per indexed block (docs/STREAMS.md). Own process; any number
 * of replicas, each fed by the block push (Postgres LISTEN, or the read service's
 * /blocks/stream) and building its topics from the read service's per-block answers.
 */
import { serve } from "@hono/node-server";
import type { Server } from "node:http";
import pino from "pino";
import { trustedProxies } from "../../core/http/client-address.js";
import { keyRevocations } from "../../core/auth/key-revocations.js";
import { rawRequest } from "../../core/http/raw-request.js";
import { openBlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { profileFromEnv, secret } from "../../core/profiles.js";
import { createStreamsApp } from "./app.js";
import { ChainWatch } from "./chain-watch.js";
import { loadStreamsConfig } from "./config.js";
import { createStreamServer } from "./server.js";
import { RECENT_WRITES } from "./channels.js";
import { streamsMetrics, type BlockReads } from "./metrics.js";
import { Topics, UpstreamError, type AtBlock } from "./topics.js";
import { openWritesFeed } from "./writes-feed.js";

const cfg = (() => {
  try {
    return loadStreamsConfig();
  } catch (e) {
    process.stderr.write(`streams: ${(e as Error).message}\n`);
    process.exit(1);
  }
})();
const log = pino({ name: "streams", level: cfg.LOG_LEVEL });
// the gateway's token: the streams are the gateway's back end (its /v1/ws connections carry it)
// and read the integration API as it does, outside the per-client limit
const internal = { "X-Internal-Token": secret("GATEWAY_TOKEN") };

const feed = openBlockFeed({
  databaseUrl: cfg.DATABASE_URL,
  schema: cfg.DATABASE_SCHEMA,
  integrationUrl: cfg.INTEGRATION_URL,
  headers: internal,
  onError: (e) => log.warn({ err: String(e) }, "block feed"),
});

// (its gauges read the server below at scrape time)
const metrics = streamsMetrics(() => streams.stats());

/** The current block's reads (blocks are processed one at a time), counted with it when done. */
const tally: BlockReads = { first: 0, reread: 0 };
/** GETs of the integration API, counted by why they are sent (per block, or on subscribe). */
const readAt = (cause: "block" | "subscribe"): AtBlock => (minBlock, reread) => async (path) => {
  if (cause === "subscribe") metrics.subscribeRead("integration");
  else tally[reread ? "reread" : "first"]++;
  const url = new URL(cfg.INTEGRATION_URL + path);
  url.searchParams.set("minBlock", minBlock.toString());
  const res = await rawRequest(url, "GET", { accept: "application/json", ...internal }, undefined, cfg.UPSTREAM_TIMEOUT_MS);
  let body: { success?: boolean; data?: unknown; error?: { code: string; message: string } };
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new UpstreamError(res.status, "UPSTREAM_ERROR", `GET ${path}: not JSON (${res.status})`);
  }
  if (res.status !== 200 || !body.success) throw new UpstreamError(res.status, body.error?.code ?? "UPSTREAM_ERROR", body.error?.message ?? `GET ${path} answered ${res.status}`);
  const block = res.headers["x-indexed-block"];
  return { data: body.data, block: BigInt(typeof block === "string" ? block : minBlock) };
};
const read = readAt("subscribe");
const blockRead = readAt("block");

/** The caller's writes not final and its most recent ones (the transactions channel's snapshot). */
async function recentWrites(wallet: string): Promise<unknown[]> {
  metrics.subscribeRead("relayer");
  const url = `${cfg.RELAYER_URL}/internal/transactions?limit=${RECENT_WRITES}`;
  const res = await rawRequest(new URL(url), "GET", { accept: "application/json", ...internal, "x-caller-address": wallet }, undefined, cfg.UPSTREAM_TIMEOUT_MS);
  let body: { success?: boolean; data?: { transactions: unknown[] }; error?: { code: string; message: string } };
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new UpstreamError(503, "SERVICE_UNAVAILABLE", `the relayer answered ${res.status}, not JSON: retry`);
  }
  if (res.status !== 200 || !body.success || !body.data) throw new UpstreamError(503, "SERVICE_UNAVAILABLE", `the relayer answered ${res.status} (${body.error?.code ?? "no data"}): retry`);
  return body.data.transactions;
}

let marketIds: string[] = [];
async function loadMarkets() {
  const { data } = await read(0n)("/markets");
  const list = Array.isArray(data) ? data : (data as { markets: unknown[] }).markets;
  marketIds = (list as { marketId: string }[]).map((m) => m.marketId.toLowerCase());
}

const topics = new Topics(cfg.STREAMS_REPLAY_MESSAGES);

// the transactions channel: the relayer's write events, to the caller's topic when followed
const writes = openWritesFeed({
  relayerUrl: cfg.RELAYER_URL,
  headers: internal,
  onError: (e) => log.warn({ err: String(e) }, "write events"),
  onEvent: (e) => {
    // followed or kept for resume: its state stays current for the next snapshot
    const t = topics.map.get(`transactions:${e.caller.toLowerCase()}`);
    if (!t) return;
    const { caller: _caller, ...tx } = e;
    void t.push(e.blockNumber !== null ? BigInt(e.blockNumber) : feed.current().number, { transactions: [tx] });
  },
});
const chain = new ChainWatch(cfg.RPC_URL);
const stats = { blocks: 0, lastBlockAt: 0 };

// one block at a time: reorg check, then every topic rebuilt once (topics in parallel)
let pending: IndexedState | null = null;
let running = false;
async function onBlock(s: IndexedState) {
  pending = s;
  if (running) return;
  running = true;
  try {
    while (pending) {
      const b = pending;
      pending = null;
      // the reorg check (one RPC read) runs while the topics read their REST answers
      const ancestor = chain.check(b.number).then(
        (a) => {
          if (a !== null) log.info({ block: b.number.toString(), ancestor: a.toString() }, "reorg");
          return a;
        },
        (e) => {
          log.warn({ err: String(e) }, "chain read");
          return null;
        },
      );
      tally.first = tally.reread = 0;
      await Promise.all([...topics.map.values()].map((t) => t.onBlock(blockRead, b.number, ancestor)));
      metrics.block(tally);
      stats.blocks++;
      stats.lastBlockAt = Date.now();
      topics.sweep();
    }
  } finally {
    running = false;
  }
}
feed.subscribe((s) => void onBlock(s).catch((e) => log.warn({ err: String(e) }, "block")));

const streams = createStreamServer({
  topics,
  read,
  recentWrites,
  currentBlock: () => feed.current().number,
  markets: () => marketIds,
  limits: {
    connectionsPerKey: cfg.STREAMS_MAX_CONNECTIONS_PER_KEY,
    subscriptionsPerConnection: cfg.STREAMS_MAX_SUBSCRIPTIONS_PER_CONNECTION,
    messagesPerSecond: cfg.STREAMS_MAX_MESSAGES_PER_SECOND,
    pingIntervalMs: cfg.STREAMS_PING_INTERVAL_MS,
    maxPayloadBytes: 16 * 1024,
    maxBufferBytes: cfg.WS_MAX_BUFFER_BYTES,
  },
  trustedProxies: trustedProxies(cfg.TRUSTED_PROXIES),
  jwtSecret: () => secret("JWT_SECRET"),
  gatewayToken: () => secret("GATEWAY_TOKEN"),
  testHooks: cfg.STREAMS_TEST_HOOKS === "1",
  log,
});

// API-key revocations from any gateway (Redis pub/sub): the key's connections here close with 4401
const revocations = keyRevocations(cfg.REDIS_URL || undefined, (e) => log.warn({ err: String(e) }, "key revocations (redis)"));
revocations.subscribe((keyId) => streams.closeKey(keyId));

const app = createStreamsApp({
  ready: () => marketIds.length > 0 && feed.live(),
  writeEvents: () => writes.live(),
  markets: () => marketIds,
  stats: () => ({ ...streams.stats(), ...stats, indexedBlock: feed.current().number.toString(), feed: cfg.DATABASE_URL ? "postgres" : "sse", writeEvents: writes.live(), rssBytes: process.memoryUsage().rss }),
  // Prometheus: open locally, else the admin token (none set: no metrics route)
  metrics: { open: profileFromEnv().name === "local", adminToken: process.env.ADMIN_TOKEN },
});

async function main() {
  // until the indexer has indexed the deployment's markets: its first answers may be an empty
  // list, which is "not yet" (waiting for the 30 s refresh below kept /health at 503 that long)
  for (;;) {
    try {
      await loadMarkets();
      if (marketIds.length > 0) break;
    } catch (e) {
      log.warn({ err: String(e) }, "markets not readable yet");
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  // markets are created by governance: pick new ones up now and then
  setInterval(() => void loadMarkets().catch(() => {}), 30_000).unref();
  const server = serve({ fetch: app.fetch, port: cfg.PORT, hostname: cfg.HOST }, (info) =>
    log.info({ port: info.port, feed: cfg.DATABASE_URL ? "postgres LISTEN" : "read service /blocks/stream" }, "streams listening"),
  ) as Server;
  server.on("upgrade", (req, socket, head) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/ws") return socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    streams.handleUpgrade(req, socket, head);
  });
  const shutdown = () => {
    streams.close();
    writes.close();
    void revocations.close();
    server.close();
    void feed.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 3_000).unref();
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

void main();
