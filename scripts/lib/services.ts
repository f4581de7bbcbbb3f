/**
 * Starts the venue's services against a chain that already has a deployment: Ponder (indexer +
 * integration API), the read service in front of it (the integration API's URL for clients and
 * the gateway), the relayer, gateway, keeper and stream service.
 * Shared by `npm start` and the e2e harness, so both run the same processes with the same env.
 */
import { seedPgliteDir } from "../../core/pglite-dir.js";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { Hex } from "viem";
import { PROJECT_ROOT } from "../../core/deployment.js";
import type { SecretName } from "../../core/profiles.js";
import { logSince, startProcess, waitForHttp, type Proc } from "./processes.js";
import { assertPortsFree } from "./ports.js";

const require = createRequire(import.meta.url);

export type ServiceName = "indexer" | "reads" | "relayer" | "gateway" | "keeper" | "streams";

export type DbConfig =
  | { kind: "pglite"; indexerDir: string; relayerDir: string; gatewayDir: string }
  | { kind: "postgres"; url: string; relayerSchema: string; gatewaySchema: string };

export type ServicesOptions = {
  rpcUrl: string;
  chainId: number;
  deploymentFile: string;
  /** Ponder's schema (`--schema`); unique per run and per fresh chain. */
  indexerSchema: string;
  /** Postgres only: Ponder's `--views-schema`, a view per table under a stable name for analysts */
  viewsSchema?: string;
  ports: Record<ServiceName, number>;
  db: DbConfig;
  /** every service token, the admin token and the sign-in key, by env name (core/profiles.ts DEFAULT_SECRETS) */
  secrets: Record<SecretName, string>;
  keys: { relayer: Hex; keeper: Hex; priceFeed: Hex; marketMaker: Hex; deployer: Hex };
  logDir: string;
  /** extra env for every service (e.g. keeper intervals in tests) */
  env?: Record<string, string>;
  /** per-service extra env */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  log?: (msg: string) => void;
};

export type RunningServices = {
  urls: Record<ServiceName, string | null>;
  procs: Proc[];
  stop: () => Promise<void>;
};

export const serviceMain = (name: Exclude<ServiceName, "indexer">) => join(PROJECT_ROOT, "services", name, "main.ts");

/** ponder's CLI entry (its package exports no ./package.json, so resolve the module dir). */
export function ponderBin(): string {
  for (let dir = PROJECT_ROOT; ; dir = dirname(dir)) {
    const bin = join(dir, "node_modules", "ponder", "dist", "esm", "bin", "ponder.js");
    if (existsSync(bin)) return bin;
    if (dirname(dir) === dir) throw new Error("ponder is not installed (run npm install)");
  }
}
/**
 * Ponder's PGlite data directory, when new, seeded from a template made by Ponder's own copy of
 * PGlite (core/pglite-dir.ts: ~1 s instead of initdb's 7 s of CPU); the relayer and the gateway
 * seed theirs themselves.
 */
export const seedIndexerPgliteDir = (dir: string) => seedPgliteDir(dir, ponderBin());

/**
 * Node's flags for Ponder's process (every start: `npm start`, `npm run start:indexer`, the tests
 * and the benches): PONDER_NODE_ARGS (space-separated), else DEFAULT_PONDER_NODE_ARGS (none).
 * bench/backfill.ts compares flags per variant (`PONDER_NODE_ARGS=--max-semi-space-size=64`). A
 * larger young generation cut the backfill's scavenges 3.5× but not Ponder's CPU, and JSON-RPC
 * batching cost more: neither is the default (docs/PERFORMANCE.md, backfill runs of 2026-11-27).
 */
export const DEFAULT_PONDER_NODE_ARGS = "";
export function ponderNodeArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.PONDER_NODE_ARGS ?? DEFAULT_PONDER_NODE_ARGS).split(/\s+/).filter(Boolean);
}
/**
 * Node's arguments to run a TypeScript file: tsx as an import hook in the one process (`node
 * --import tsx`; tsx's CLI would add a supervisor process around it, ~0.2 s of CPU per start),
 * after `nodeFlags` (e.g. `--cpu-prof`).
 */
export function nodeTs(script: string, nodeFlags: string[] = []): string[] {
  return [...nodeFlags, "--import", pathToFileURL(require.resolve("tsx")).href, script];
}

/** The environment every service shares (names per docs/SERVICES.md). */
export function commonEnv(o: ServicesOptions): NodeJS.ProcessEnv {
  const url = (s: ServiceName) => `http://127.0.0.1:${o.ports[s]}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PROFILE: "local",
    PONDER_TELEMETRY_DISABLED: "true",
    RPC_URL: o.rpcUrl,
    CHAIN_ID: String(o.chainId),
    DEPLOYMENT_FILE: o.deploymentFile,
    ...o.secrets,
    // clients and the gateway read through the read service, which passes the rest to Ponder
    INTEGRATION_URL: url("reads"),
    INDEXER_URL: url("indexer"),
    RELAYER_URL: url("relayer"),
    KEEPER_URL: url("keeper"),
    GATEWAY_URL: url("gateway"),
    STREAMS_URL: url("streams"),
    // the OpenAPI documents' `servers` follow the ports in use
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL || url("gateway"),
    INTEGRATION_PUBLIC_URL: process.env.INTEGRATION_PUBLIC_URL || url("reads"),
    // one policy for every service (core/profiles.ts); the local profile is open unless `env` says otherwise
    ACCESS_POLICY: "open",
    ...o.env,
  };
  // The parent's database settings must not leak into a PGlite stack.
  delete env.DATABASE_URL;
  delete env.DATABASE_SCHEMA;
  delete env.PGLITE_DIR;
  delete env.INDEXER_PGLITE_DIR;
  return env;
}

function envFor(o: ServicesOptions, s: ServiceName): NodeJS.ProcessEnv {
  const env = commonEnv(o);
  const url = (name: ServiceName) => `http://127.0.0.1:${o.ports[name]}`;
  env.PORT = String(o.ports[s]);
  env.HOST = "127.0.0.1";
  const db = o.db;
  if (s === "indexer") {
    env.DATABASE_SCHEMA = o.indexerSchema;
    if (db.kind === "postgres") env.DATABASE_URL = db.url;
    else env.INDEXER_PGLITE_DIR = db.indexerDir;
  } else if (s === "reads" || s === "streams") {
    // on Postgres the block feed LISTENs to the indexer's database itself
    if (db.kind === "postgres") {
      env.DATABASE_URL = db.url;
      env.DATABASE_SCHEMA = o.indexerSchema;
      // read-your-writes of sessions: the gateway's last_write table (one place, every replica)
      env.LAST_WRITE_DB_SCHEMA = db.gatewaySchema;
    }
  } else if (s === "relayer") {
    env.RELAYER_PRIVATE_KEY = o.keys.relayer;
    if (db.kind === "postgres") {
      env.DATABASE_URL = db.url;
      env.RELAYER_DB_SCHEMA = db.relayerSchema;
    } else env.PGLITE_DIR = db.relayerDir;
  } else if (s === "gateway") {
    if (db.kind === "postgres") {
      env.DATABASE_URL = db.url;
      env.GATEWAY_DB_SCHEMA = db.gatewaySchema;
    } else env.PGLITE_DIR = db.gatewayDir;
  } else if (s === "keeper") {
    // the keeper's /sql and /status reads are Ponder's own routes: no detour
    env.INTEGRATION_URL = url("indexer");
    env.KEEPER_PRIVATE_KEY = o.keys.keeper;
    env.PRICE_FEED_PRIVATE_KEY = o.keys.priceFeed;
    env.MARKET_MAKER_PRIVATE_KEY = o.keys.marketMaker;
    env.DEPLOYER_PRIVATE_KEY = o.keys.deployer;
  }
  return { ...env, ...o.serviceEnv?.[s] };
}

function spawnService(o: ServicesOptions, s: ServiceName): Proc {
  const env = envFor(o, s);
  const logFile = join(o.logDir, `${s}.log`);
  if (s === "indexer") {
    const args = [...ponderNodeArgs(env), ponderBin(), "start", "--schema", o.indexerSchema, "-p", String(o.ports.indexer), "-H", "127.0.0.1", "--log-format", "json"];
    if (o.viewsSchema && o.db.kind === "postgres") args.push("--views-schema", o.viewsSchema);
    return startProcess("indexer (ponder)", process.execPath, args, env, logFile, PROJECT_ROOT);
  }
  return startProcess(s, process.execPath, nodeTs(serviceMain(s)), env, logFile, PROJECT_ROOT);
}

const logSize = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/** The reason to stop waiting for Ponder when its log (since `fromByte`) says `port` was in use. */
function ponderMovedPort(logFile: string, fromByte: number, port: number): string | undefined {
  if (!logSince(logFile, fromByte).includes('"msg":"Port in use"')) return undefined;
  return (
    `the indexer (Ponder) found port ${port} in use by another program and moved to another port, where nothing would find it; ` +
    `stop that program or move every venue port with VENUE_BASE_PORT (see README)`
  );
}

/**
 * Starts Ponder, the relayer, the gateway and the keeper together and waits for each `/ready`
 * or `/health`. On any failure, stops what it started and throws with the failing service's
 * log tail.
 */
export async function startServices(o: ServicesOptions): Promise<RunningServices> {
  const log = o.log ?? (() => {});
  mkdirSync(o.logDir, { recursive: true });
  for (const d of o.db.kind === "pglite" ? [o.db.indexerDir, o.db.relayerDir, o.db.gatewayDir] : []) mkdirSync(d, { recursive: true });
  if (o.db.kind === "pglite") await seedIndexerPgliteDir(o.db.indexerDir);
  const procs: Proc[] = [];
  const urls: Record<ServiceName, string | null> = { indexer: null, reads: null, relayer: null, gateway: null, keeper: null, streams: null };
  const url = (s: ServiceName) => `http://127.0.0.1:${o.ports[s]}`;
  const stop = async () => {
    await Promise.all([...procs].reverse().map((p) => p.stop()));
  };
  try {
    // right before the processes start: a port another program holds is named now, with the fix
    await assertPortsFree(o.ports);
    const start = (s: ServiceName, path: string, timeoutMs: number) => {
      const logStart = logSize(join(o.logDir, `${s}.log`));
      const p = spawnService(o, s);
      procs.push(p);
      // Ponder moves to the next port when its own is taken (its "Port in use" warning) and would
      // then never answer on ours: caught from its log instead of waiting out the timeout
      const failWhen = s === "indexer" ? () => ponderMovedPort(p.logFile, logStart, o.ports.indexer) : undefined;
      return waitForHttp(url(s) + path, { proc: p, timeoutMs, failWhen, headers: { "x-internal-token": o.secrets.GATEWAY_TOKEN } }).then(() => {
        urls[s] = url(s);
        log(`${s.padEnd(8)} ${url(s)}`);
      });
    };
    // All at once: the keeper's loops retry until the indexer and relayer answer.
    const all: Promise<void>[] = [start("indexer", "/ready", 180_000)];
    // the read service's /health is Ponder's, passed through: it answers once both are up
    for (const svc of ["reads", "relayer", "gateway", "keeper", "streams"] as const) all.push(start(svc, "/health", 180_000));
    await Promise.all(all);
    return { urls, procs, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
