/**
 * Helpers of the relayer's own end-to-end tests (crash safety, replicas, stuck transactions,
 * closed beta): a private anvil with the venue deployed and a few wallets prepared, and relayer
 * processes started with any env (they are the real `services/relayer/main.ts`).
 */
import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Address, Hex, PublicClient } from "viem";
import { startAnvil, type Anvil } from "../../core/chain/anvil.js";
import { e2ePort } from "./helpers/ports.js";
import { DEFAULT_ADMIN_TOKEN, KEY_INDEX, devAccount } from "../../core/config.js";
import { DEFAULT_SECRETS } from "../../core/profiles.js";
import type { Deployment } from "../../core/deployment.js";
import { deployVenue, writeDeployment } from "../../scripts/deploy.js";
import { publicClientFor, walletClientFor } from "../../scripts/lib/clients.js";
import { mintTo, prepareWallet, usd } from "../../scripts/lib/demo-wallets.js";
import { startProcess, waitForHttp, type Proc } from "../../scripts/lib/processes.js";
import { serviceMain, nodeTs } from "../../scripts/lib/services.js";
import { PROJECT_ROOT } from "../../core/deployment.js";
import { POSTGRES_URL } from "./stack.js";
import { rpcOf, withChainFixture } from "./helpers/chain-fixture.js";

export { POSTGRES_URL };
/** The gateway's local token: tests call the relayer as the gateway does (scope act-for-users). */
export const INTERNAL_TOKEN = DEFAULT_SECRETS.GATEWAY_TOKEN;
/** The keeper's and the registration-only local tokens (scopes in core/auth/service-tokens.ts). */
export const KEEPER_TOKEN = DEFAULT_SECRETS.KEEPER_TOKEN;
export const REGISTRATION_TOKEN = DEFAULT_SECRETS.REGISTRATION_TOKEN;
export const ADMIN_TOKEN = DEFAULT_ADMIN_TOKEN;
export const RELAYER = devAccount(KEY_INDEX.relayer);

export type TestChain = {
  anvil: Anvil;
  rpcUrl: string;
  client: PublicClient;
  deployment: Deployment;
  deploymentFile: string;
  dir: string;
  /** wallets 0..n-1 with tokens, engine approval, account, deposit and the relayer approved */
  accounts: { address: Address; privateKey: Hex; accountId: number }[];
  stop: () => Promise<void>;
};

/** anvil + deploy + `prepared` wallets (indices 0..prepared-1) with an account, 100k deposited, relayer approved. */
export async function startTestChain(opts: { prepared?: number; blockTime?: number; extraArgs?: string[]; fresh?: boolean } = {}): Promise<TestChain> {
  const dir = mkdtempSync(join(tmpdir(), "relayer-e2e-"));
  const anvil = await startAnvil({ port: await e2ePort(), logFile: join(dir, "anvil.log"), blockTime: opts.blockTime, extraArgs: opts.extraArgs });
  try {
    const chainId = 31337;
    const client = publicClientFor(anvil.rpcUrl, chainId) as PublicClient;
    const n = opts.prepared ?? 3;
    const wallets = Array.from({ length: n }, (_, i) => devAccount(i));
    const setup = async () => {
      const deployer = walletClientFor(anvil.rpcUrl, chainId, devAccount(KEY_INDEX.deployer).privateKey);
      // no price feed runs here: an hour's staleness bound instead of the devnet's 60 s
      const deployment = await deployVenue(deployer, client, { updaters: [devAccount(KEY_INDEX.priceFeed).address], maxAgeSeconds: 3600n });
      const ctx = { rpcUrl: anvil.rpcUrl, chainId, deployment };
      await mintTo(ctx, devAccount(KEY_INDEX.deployer).privateKey, wallets.map((w) => ({ address: w.address, amount6: usd("1000000") })));
      const ids = await Promise.all(
        wallets.map((w) => prepareWallet(ctx, w.privateKey, { approve: true, createAccount: true, deposit6: usd("100000"), operator: RELAYER.address })),
      );
      return { deployment, ids };
    };
    // a chain with its own block time or flags, or one whose clock the test moves (`fresh`), is set
    // up anew; the others load this run's fixture
    const { deployment, ids } = opts.fresh || opts.blockTime || opts.extraArgs?.length ? await setup() : await withChainFixture(`relayer-${n}`, rpcOf(anvil.rpcUrl), setup);
    const deploymentFile = writeDeployment(deployment, join(dir, "deployment.json"));
    return {
      anvil, rpcUrl: anvil.rpcUrl, client, deployment, deploymentFile, dir,
      accounts: wallets.map((w, i) => ({ address: w.address, privateKey: w.privateKey, accountId: ids[i]! })),
      stop: () => anvil.stop(),
    };
  } catch (e) {
    await anvil.stop();
    throw e;
  }
}

export type RelayerProc = { url: string; port: number; proc: Proc; stop: () => Promise<void>; logFile: string };

export type RelayerDbOpt = { url: string; schema: string } | { pgliteDir: string };

export async function startRelayer(chain: TestChain, db: RelayerDbOpt, env: Record<string, string> = {}, opts: { port?: number; name?: string; waitReady?: boolean; nodeArgs?: string[] } = {}): Promise<RelayerProc> {
  const port = opts.port ?? (await e2ePort());
  const logDir = join(chain.dir, "logs");
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${opts.name ?? "relayer"}-${port}-${Date.now()}.log`);
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    PROFILE: "local",
    RPC_URL: chain.rpcUrl,
    CHAIN_ID: "31337",
    DEPLOYMENT_FILE: chain.deploymentFile,
    ADMIN_TOKEN,
    RELAYER_PRIVATE_KEY: RELAYER.privateKey,
    PORT: String(port),
    HOST: "127.0.0.1",
    ACCESS_POLICY: "open",
    TRACK_INTERVAL_MS: "100",
    LOG_LEVEL: "info",
    ...env,
  };
  delete e.DATABASE_URL;
  delete e.PGLITE_DIR;
  if ("url" in db) {
    e.DATABASE_URL = db.url;
    e.RELAYER_DB_SCHEMA = db.schema;
  } else e.PGLITE_DIR = db.pgliteDir;
  // nodeArgs: node's own flags (e.g. --cpu-prof)
  const args = nodeTs(serviceMain("relayer"), opts.nodeArgs ?? []);
  const proc = startProcess(opts.name ?? "relayer", process.execPath, args, e, logFile, PROJECT_ROOT);
  const url = `http://127.0.0.1:${port}`;
  if (opts.waitReady !== false) {
    await waitForHttpWithToken(`${url}/health`, proc);
  }
  return { url, port, proc, logFile, stop: () => proc.stop() };
}

async function waitForHttpWithToken(url: string, proc: Proc, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exited()) throw new Error(`relayer exited (code ${proc.exitCode()}); log ${proc.logFile}`);
    const res = await fetch(url, { headers: { "X-Internal-Token": INTERNAL_TOKEN } }).catch(() => null);
    if (res?.status === 200) return;
    if (Date.now() > deadline) throw new Error(`relayer not ready at ${url}; log ${proc.logFile}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
export { waitForHttp };

export type Answer = { status: number; body: any; headers: Headers };

/** One call of the relayer's internal API. */
export async function relayerCall(
  url: string,
  method: string,
  path: string,
  opts: { body?: unknown; caller?: Address; idempotencyKey?: string; headers?: Record<string, string>; token?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "Content-Type": "application/json", ...(opts.headers ?? {}) };
  if (opts.token !== null) headers["X-Internal-Token"] = opts.token ?? INTERNAL_TOKEN;
  if (opts.caller) headers["X-Caller-Address"] = opts.caller;
  if (opts.idempotencyKey) headers["Idempotency-Key"] = opts.idempotencyKey;
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

/** A fresh Postgres schema name for one test (dropped by `dropSchema`). */
export const uniqueSchema = (tag: string) => `rt_${tag}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export async function dropSchema(name: string, url = POSTGRES_URL) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${name.replaceAll('"', "")}" CASCADE`);
  } finally {
    await c.end();
  }
}

export async function query<T = Record<string, unknown>>(sql: string, params: unknown[] = [], url = POSTGRES_URL): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

export const rpc = async (rpcUrl: string, method: string, params: unknown[] = []) => {
  const res = await fetch(rpcUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const j = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
};
