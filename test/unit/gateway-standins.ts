/**
 * Small stand-in HTTP servers for the gateway's unit tests (unit tests only: end-to-end tests
 * use the real services). Each records the requests it gets and answers with a handler.
 */
import { PGlite } from "@electric-sql/pglite";
import { serve, type ServerType } from "@hono/node-server";
import { Hono, type Context } from "hono";
import pino from "pino";
import { createGatewayApp } from "../../services/gateway/app.js";
import { loadGatewayConfig } from "../../services/gateway/config.js";
import type { GatewayDeps } from "../../services/gateway/context.js";
import { openGatewayStore } from "../../services/gateway/db/open.js";
import { KeyStore } from "../../services/gateway/keys.js";
import { createUpstream } from "../../services/gateway/upstream.js";

export interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

export interface StandIn {
  url: string;
  requests: Recorded[];
  /** answer for the next requests: (recorded request) → Response */
  handle: (fn: (req: Recorded, c: Context) => Response | Promise<Response>) => void;
  close: () => Promise<void>;
}

export async function startStandIn(): Promise<StandIn> {
  const requests: Recorded[] = [];
  let handler: (req: Recorded, c: Context) => Response | Promise<Response> = (_r, c) =>
    c.json({ success: true, data: {} });
  const app = new Hono();
  app.all("*", async (c) => {
    const text = await c.req.text();
    const rec: Recorded = {
      method: c.req.method,
      path: c.req.path,
      query: c.req.query(),
      headers: Object.fromEntries(c.req.raw.headers),
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(rec);
    return handler(rec, c);
  });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle: (fn) => {
      handler = fn;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export const WALLET_A = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
export const WALLET_B = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

// PGlite takes seconds to boot on a loaded machine: one per test file, a schema per gateway.
let shared: Promise<PGlite> | undefined;
let schemas = 0;
const sharedPglite = () => (shared ??= PGlite.create("memory://"));

/** A gateway app over stand-ins and an in-memory PGlite key store. */
export async function gatewayOverStandIns(env: Record<string, string> = {}, remoteAddress?: GatewayDeps["remoteAddress"]) {
  const integration = await startStandIn();
  const relayer = await startStandIn();
  const keeper = await startStandIn();
  const config = loadGatewayConfig({
    INTEGRATION_URL: integration.url,
    RELAYER_URL: relayer.url,
    KEEPER_URL: keeper.url,
    RPC_URL: integration.url + "/rpc",
    PGLITE_DIR: "memory://",
    ...env,
  });
  const store = await openGatewayStore({ pgliteDir: "memory://", schema: `gw_${++schemas}`, pglite: await sharedPglite() });
  const keys = new KeyStore(store, config.keyCacheMs);
  const internal = { "X-Internal-Token": config.gatewayToken };
  const app = createGatewayApp({
    config,
    store,
    keys,
    log: pino({ level: "silent" }),
    upstreams: {
      integration: createUpstream("integration", config.integrationUrl, config.timeouts.integrationMs, internal),
      relayer: createUpstream("relayer", relayer.url, config.timeouts.relayerMs, internal),
      keeper: createUpstream("keeper", keeper.url, config.timeouts.keeperMs, internal),
    },
    remoteAddress,
  });
  const keyA = await keys.create(WALLET_A, "a");
  const keyB = await keys.create(WALLET_B, "b");
  return {
    app,
    config,
    keys,
    integration,
    relayer,
    keeper,
    keyA,
    keyB,
    close: async () => {
      await Promise.all([integration.close(), relayer.close(), keeper.close()]);
      await store.close();
    },
  };
}
