/**
 * The gateway process (`npm run start:gateway`). Refuses to start under the development or
 * production profile with default or missing secrets (non-zero exit, one clear line).
 */
import { createServer } from "node:http";
import pino from "pino";
import { closeRateLimitStores } from "../../core/http/rate-limit.js";
import { createGatewayListener } from "./app.js";
import { loadGatewayConfig, type GatewayConfig } from "./config.js";
import { openGatewayStore } from "./db/open.js";
import { KeyStore } from "./keys.js";
import { createUpstream } from "./upstream.js";
import { memoryLastWrites, sharedLastWrites } from "../../core/indexer/last-writes.js";
import { cachedReads, recordWrites } from "./block-cache.js";
import { sseBlockFeed } from "../../core/indexer/blocks.js";
import type { Server } from "node:http";
import { attachWebSocket } from "./ws.js";
import { keyRevocations } from "../../core/auth/key-revocations.js";

async function main() {
  let config: GatewayConfig;
  try {
    config = loadGatewayConfig();
  } catch (err) {
    process.stderr.write(`gateway: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const log = pino({ name: "gateway", level: config.logLevel });
  const store = await openGatewayStore({
    databaseUrl: config.databaseUrl,
    pgliteDir: config.pgliteDir,
    schema: config.dbSchema,
  });
  // the gateway's own token: it acts for its keys' wallets, and the integration API's limits know it
  const internal = { "X-Internal-Token": config.gatewayToken };
  // the read service's push of each indexed block: the per-block copy of reads, read-your-writes
  const feed = sseBlockFeed({ url: config.integrationUrl, headers: internal, onError: (e) => log.debug({ err: String(e) }, "block feed") });
  // with Postgres the notes are shared by every replica (table + NOTIFY); PGlite: one process
  const lastWrites = config.databaseUrl
    ? await sharedLastWrites({ databaseUrl: config.databaseUrl, schema: config.dbSchema, log })
    : memoryLastWrites();
  const upstreams = {
    integration: cachedReads(createUpstream("integration", config.integrationUrl, config.timeouts.integrationMs, internal), feed, lastWrites, config.readYourWritesWaitMs),
    relayer: recordWrites(createUpstream("relayer", config.relayerUrl, config.timeouts.relayerMs, internal), lastWrites),
    keeper: createUpstream("keeper", config.keeperUrl, config.timeouts.keeperMs, internal),
  };
  // revocations reach every replica on the shared Redis (their caches and open sockets)
  const revocations = keyRevocations(config.redisUrl, (e) => log.warn({ err: String(e) }, "key revocations (redis)"));
  const keys = new KeyStore(store, config.keyCacheMs, revocations);
  const { listener } = createGatewayListener({ config, store, keys, log, upstreams, feed, lastWrites });

  // a plain node server: reads from the per-block copy are written by the listener's hot path, the rest by Hono
  const server = createServer(listener).listen(config.port, config.host, () => {
    log.info(
      { port: config.port, host: config.host, profile: config.profile.name, db: store.kind, baseUrl: config.profile.gatewayBaseUrl, rateLimitStore: config.redisUrl ? "redis" : "memory" },
      "gateway listening",
    );
  });

  // /v1/ws: the stream service behind the API key (snake_case)
  const ws = attachWebSocket(server as Server, { keys, streamsUrl: config.streamsUrl, gatewayToken: config.gatewayToken, revocations, maxBufferBytes: config.wsMaxBufferBytes, log });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, "gateway stopping");
    void feed.close();
    ws.close();
    server.close(() => {
      Promise.all([store.close(), closeRateLimitStores(), revocations.close()]).finally(() => process.exit(0));
    });
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((err) => {
  process.stderr.write(`gateway: failed to start: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
