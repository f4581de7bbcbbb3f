/**
 * The relayer process (`npm run start:relayer`): loads its config and the deployment, opens its
 * database (Postgres with DATABASE_URL, else PGlite), reconciles its nonce with the chain,
 * recovers every unfinished request, and serves the internal API on 127.0.0.1:24070 (core/ports.ts).
 */
import { serve } from "@hono/node-server";
import pino from "pino";
import { loadDeployment } from "../../core/deployment.js";
import { loadConfig } from "./config.js";
import { openDb } from "./db/client.js";
import { requestChannel } from "./db/schema.js";
import { WriteEvents } from "./events.js";
import { Store } from "./db/store.js";
import { Chain } from "./chain.js";
import { Relayer } from "./relayer.js";
import { relayerApp } from "./http/app.js";
import { registerRelayerMetrics } from "./metrics.js";
import { IndexedOrders } from "./indexed.js";

async function main() {
  let cfg: ReturnType<typeof loadConfig>;
  try {
    cfg = loadConfig();
  } catch (e) {
    // one line naming what is wrong (e.g. a missing secret or key outside the local profile)
    process.stderr.write(`relayer: ${(e as Error).message}\n`);
    process.exit(1);
  }
  const log = pino({ name: "relayer", level: cfg.LOG_LEVEL });
  const deployment = loadDeployment({ chainId: cfg.CHAIN_ID, file: cfg.DEPLOYMENT_FILE });
  const db = await openDb({ databaseUrl: cfg.DATABASE_URL, pgliteDir: cfg.PGLITE_DIR, schema: cfg.RELAYER_DB_SCHEMA, poolSize: cfg.DB_POOL_SIZE });
  const chain = new Chain({ rpcUrl: cfg.RPC_URL, chainId: cfg.CHAIN_ID, privateKey: cfg.privateKey, deployment, approvalCacheMs: cfg.APPROVAL_CACHE_MS });
  chain.indexed = new IndexedOrders(cfg.INDEXER_URL);
  const relayer = new Relayer(cfg, chain, new Store(db), log);
  relayer.dbKind = db.kind;
  await relayer.start();
  registerRelayerMetrics(relayer);
  // each write's state change, pushed by the database after its commit (transactions channel)
  const events = new WriteEvents();
  await db.listen(requestChannel(cfg.RELAYER_DB_SCHEMA), (p) => events.push(p));
  const app = relayerApp(relayer, log, events);
  const server = serve({ fetch: app.fetch, port: cfg.PORT, hostname: cfg.HOST }, (info) => {
    log.info({ host: cfg.HOST, port: info.port, signer: relayer.signer, db: db.kind, schema: cfg.RELAYER_DB_SCHEMA, accessPolicy: cfg.accessPolicy }, "relayer listening");
  });
  const shutdown = async (signal: string) => {
    log.info({ signal }, "shutting down");
    await relayer.stop();
    server.close();
    await db.close().catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((e) => {
  console.error(JSON.stringify({ level: 60, name: "relayer", msg: "failed to start", err: String(e?.stack ?? e) }));
  process.exit(1);
});
