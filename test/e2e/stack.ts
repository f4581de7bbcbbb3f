/**
 * One complete venue for end-to-end tests: its own anvil (random port, 20 accounts), the
 * contracts deployed by `deployVenue`, funded demo wallets, and the services on one database
 * kind. Each stack has its own chain because the relayer owns the nonces of its signer and the
 * keeper's market maker quotes with one key: two stacks on one chain would race on both.
 * A Postgres stack gets a database of its own (`venue_e2e_<run>`, dropped at teardown): see
 * `createDatabase` below for why a schema is not enough.
 *
 * Demo wallets (anvil indices 0–9), as prepared here:
 *   0–4  1,000,000 USDV, engine approved, account created (wallet i → account i + 1),
 *        100,000 USDV deposited, relayer
 *        approved as operator, a gateway API key
 *   5–9  1,000,000 USDV, engine approved, no account (for account-creation / approval tests),
 *        a gateway API key
 *   15–19 ether only (anvil funds them)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Address, Hex, PublicClient } from "viem";
import { startAnvil, type Anvil } from "../../core/chain/anvil.js";
import { e2ePort } from "./helpers/ports.js";
import { KEY_INDEX, devAccount } from "../../core/config.js";
import { DEFAULT_SECRETS, type SecretName } from "../../core/profiles.js";
import type { Deployment } from "../../core/deployment.js";
import { deployVenue, writeDeployment } from "../../scripts/deploy.js";
import { publicClientFor, walletClientFor } from "../../scripts/lib/clients.js";
import { DEMO_DEPOSIT_6, DEMO_MINT_6, createAccountsInOrder, mintTo, prepareWallet, usd } from "../../scripts/lib/demo-wallets.js";
import { startServices, type RunningServices } from "../../scripts/lib/services.js";
import { createApiKey } from "../../scripts/lib/api-keys.js";
import { rpcOf, withChainFixture } from "./helpers/chain-fixture.js";

export type DbKind = "pglite" | "postgres";

/** The database kinds of this run: `E2E_DB=pglite|postgres|both` (default both). */
export function dbKinds(value = process.env.E2E_DB ?? "both"): DbKind[] {
  if (value === "both") return ["pglite", "postgres"];
  if (value === "pglite" || value === "postgres") return [value];
  throw new Error(`E2E_DB must be pglite, postgres or both (got ${value})`);
}

/**
 * The run's main database: the shared stack's, and the one kind of the files where the database
 * does not matter. Postgres when the run has it (production's database, and the one that two
 * replicas can share), else PGlite (`E2E_DB=pglite`: the fast tier).
 */
export function mainKind(kinds = dbKinds()): DbKind {
  return kinds.includes("postgres") ? "postgres" : "pglite";
}

export type StackWallet = { index: number; address: Address; privateKey: Hex; accountId: number | null; apiKey: string | null };

/** What the harness provides to tests (one per run, the shared stack) (structured-cloneable). */
export type StackInfo = {
  kind: DbKind;
  rpcUrl: string;
  chainId: number;
  deployment: Deployment;
  deploymentFile: string;
  /** the integration API as clients call it: the read service in front of Ponder */
  integrationUrl: string;
  /** Ponder's own server */
  indexerUrl: string;
  relayerUrl: string;
  gatewayUrl: string;
  keeperUrl: string;
  /** the stream service (WebSocket at `/ws`) */
  streamsUrl: string;
  /**
   * The gateway's service token: tests call the relayer and the keeper as the gateway does (it
   * may act for users). Other callers' tokens are in `tokens`.
   */
  internalToken: string;
  adminToken: string;
  /** every service token by env name (GATEWAY_TOKEN, INTEGRATION_TOKEN, KEEPER_TOKEN, REGISTRATION_TOKEN, ...) */
  tokens: Record<SecretName, string>;
  jwtSecret: string;
  /** lower-case wallet address → API key */
  apiKeys: Record<string, string>;
  wallets: StackWallet[];
  /** private keys of the service roles (local mnemonic) */
  keys: { deployer: Hex; relayer: Hex; keeper: Hex; priceFeed: Hex; marketMaker: Hex };
  databaseUrl: string | null;
  schemas: { indexer: string; relayer: string | null; gateway: string | null };
  logDir: string;
};

/** The server's admin connection; each Postgres stack gets its own database on it (below). */
export const POSTGRES_URL = process.env.E2E_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * Ponder keeps its RPC sync store in the fixed schema `ponder_sync`, keyed by chain id only, and
 * every local chain is 31337 with the same contract addresses: two runs on one database would
 * read each other's cached logs. So every Postgres stack gets a database of its own.
 */
export function databaseUrl(name: string, base = POSTGRES_URL): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createDatabase(name: string, base = POSTGRES_URL) {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE "${name.replaceAll('"', "")}"`);
  } finally {
    await c.end();
  }
}

export async function dropDatabase(name: string, base = POSTGRES_URL) {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', "")}" WITH (FORCE)`);
  } finally {
    await c.end();
  }
}

export const PREPARED_ACCOUNTS = [0, 1, 2, 3, 4];
export const FRESH_WALLETS = [5, 6, 7, 8, 9];
export const MARKET_MAKER_MINT_6 = usd("20000000");

export type RunningStack = { info: StackInfo; stop: () => Promise<void> };

export type StackOptions = {
  env?: Record<string, string>;
  /** The closed beta: every service runs invite-only; no wallet is registered and no API key is made. */
  accessPolicy?: "open" | "invite-only";
  log?: (m: string) => void;
};

export async function startStack(kind: DbKind, runId: string, opts: StackOptions = {}): Promise<RunningStack> {
  const accessPolicy = opts.accessPolicy ?? "open";
  const log = opts.log ?? (() => {});
  const base = mkdtempSync(join(tmpdir(), `venue-e2e-${runId}-${kind}-`));
  const logDir = join(base, "logs");
  mkdirSync(logDir, { recursive: true });
  const schemas = {
    indexer: `e2e_${runId}_${kind === "pglite" ? "l" : "p"}_idx`,
    relayer: kind === "postgres" ? `e2e_${runId}_relayer` : null,
    gateway: kind === "postgres" ? `e2e_${runId}_gateway` : null,
  };
  const keys = {
    deployer: devAccount(KEY_INDEX.deployer).privateKey,
    relayer: devAccount(KEY_INDEX.relayer).privateKey,
    keeper: devAccount(KEY_INDEX.keeper).privateKey,
    priceFeed: devAccount(KEY_INDEX.priceFeed).privateKey,
    marketMaker: devAccount(KEY_INDEX.marketMaker).privateKey,
  };
  const secrets: Record<SecretName, string> = { ...DEFAULT_SECRETS, JWT_SECRET: `e2e-jwt-${runId}` };

  let anvil: Anvil | undefined;
  let services: RunningServices | undefined;
  const dbName = `venue_e2e_${runId}`;
  const dbUrl = kind === "postgres" ? databaseUrl(dbName) : null;
  const stop = async () => {
    await services?.stop().catch(() => {});
    await anvil?.stop().catch(() => {});
    if (kind === "postgres") await dropDatabase(dbName).catch(() => {});
    // keep the logs (small, useful after a failure), drop the PGlite databases (~100 MB each)
    for (const d of ["ponder-pglite", "relayer-db", "gateway-db"]) rmSync(join(base, d), { recursive: true, force: true });
  };

  try {
    const t0 = Date.now();
    // E2E_ANVIL_ARGS: extra anvil flags for debugging (e.g. "--block-time 1").
    const extraArgs = process.env.E2E_ANVIL_ARGS?.split(" ").filter(Boolean);
    anvil = await startAnvil({ port: await e2ePort(), logFile: join(logDir, "anvil.log"), extraArgs });
    const chainId = 31337;
    const client = publicClientFor(anvil.rpcUrl, chainId);
    const deployer = walletClientFor(anvil.rpcUrl, chainId, keys.deployer);
    const demo = Array.from({ length: 10 }, (_, i) => devAccount(i));
    const relayerAddress = devAccount(KEY_INDEX.relayer).address;
    const setup = async () => {
      const deployment = await deployVenue(deployer, client as PublicClient, { updaters: [devAccount(KEY_INDEX.priceFeed).address] });
      const ctx = { rpcUrl: anvil!.rpcUrl, chainId, deployment };
      await mintTo(ctx, keys.deployer, [
        ...demo.map((a) => ({ address: a.address, amount6: DEMO_MINT_6 })),
        { address: devAccount(KEY_INDEX.marketMaker).address, amount6: MARKET_MAKER_MINT_6 },
      ]);
      await createAccountsInOrder(ctx, demo.filter((a) => PREPARED_ACCOUNTS.includes(a.index)).map((a) => a.privateKey));
      const accountIds = await Promise.all(
        demo.map((a) =>
          prepareWallet(ctx, a.privateKey, PREPARED_ACCOUNTS.includes(a.index)
            ? { approve: true, createAccount: true, deposit6: DEMO_DEPOSIT_6, operator: relayerAddress }
            : { approve: true }),
        ),
      );
      return { deployment, accountIds };
    };
    // this run's fixture of the same setup when there is one (test/e2e/helpers/chain-fixture.ts)
    const { deployment, accountIds } = await withChainFixture("stack", rpcOf(anvil.rpcUrl), setup);
    const deploymentFile = writeDeployment(deployment, join(base, "deployment.json"));
    log(`[${kind}] anvil ${anvil.rpcUrl}, deployed in ${Date.now() - t0} ms`);
    log(`[${kind}] wallets ready in ${Date.now() - t0} ms`);

    if (kind === "postgres") await createDatabase(dbName);
    const ports = { indexer: await e2ePort(), reads: await e2ePort(), relayer: await e2ePort(), gateway: await e2ePort(), keeper: await e2ePort(), streams: await e2ePort() };
    services = await startServices({
      rpcUrl: anvil.rpcUrl,
      chainId,
      deploymentFile,
      indexerSchema: schemas.indexer,
      ports,
      db: kind === "postgres"
        ? { kind, url: dbUrl!, relayerSchema: schemas.relayer!, gatewaySchema: schemas.gateway! }
        : { kind, indexerDir: join(base, "ponder-pglite"), relayerDir: join(base, "relayer-db"), gatewayDir: join(base, "gateway-db") },
      secrets,
      keys,
      logDir,
      // A calmer price feed than `npm start`'s: fewer blocks to index while tests run on 2 cores.
      // Tests are one client making many requests: a high configured limit (never a bypass in
      // code). Loopback is the trusted proxy, so a test can act as another client address
      // (X-Forwarded-For) and exhaust that address's limits without touching the others'.
      // Read-your-writes waits for the indexer without the 2 s bound: a loaded CI machine may
      // index slower, and the test checks the wait, not its speed.
      env: {
        PRICE_FEED_INTERVAL_MS: process.env.E2E_PRICE_FEED_INTERVAL_MS ?? "10000",
        ACCESS_POLICY: accessPolicy,
        RATE_LIMIT_PER_MINUTE: "100000",
        TRUSTED_PROXIES: "127.0.0.1",
        READ_YOUR_WRITES_WAIT_MS: "60000",
        // several indexers share the machine's Postgres (100 connections) with the services
        DATABASE_POOL_MAX: "14",
        // the stream service's test hook ({"op":"testDrop"}: gap detection)
        STREAMS_TEST_HOOKS: "1",
        // the keeper's maker without its dead-man switch: files that move chain time forward (sessions,
        // history) would trip it and the keeper would cancel the quotes they trade against
        // (market-maker.test.ts runs a maker of its own with the switch on)
        MARKET_MAKER_DEADMAN_SECONDS: "0",
        ...opts.env,
      },
      log: (m) => log(`[${kind}] ${m}`),
    });
    log(`[${kind}] services up in ${Date.now() - t0} ms`);

    const started = (name: keyof RunningServices["urls"]) => {
      const url = services!.urls[name];
      if (!url) throw new Error(`the ${name} service did not start`);
      return url;
    };
    const apiKeys: Record<string, string> = {};
    if (services.urls.gateway && accessPolicy === "open") {
      for (const a of demo) apiKeys[a.address.toLowerCase()] = await createApiKey(services.urls.gateway, secrets.ADMIN_TOKEN, a.address, `e2e-${a.index}`);
    }

    const info: StackInfo = {
      kind,
      rpcUrl: anvil.rpcUrl,
      chainId,
      deployment,
      deploymentFile,
      integrationUrl: started("reads"),
      indexerUrl: started("indexer"),
      relayerUrl: started("relayer"),
      gatewayUrl: started("gateway"),
      keeperUrl: started("keeper"),
      streamsUrl: started("streams"),
      internalToken: secrets.GATEWAY_TOKEN,
      adminToken: secrets.ADMIN_TOKEN,
      jwtSecret: secrets.JWT_SECRET,
      tokens: secrets,
      apiKeys,
      wallets: demo.map((a, i) => ({
        index: a.index,
        address: a.address,
        privateKey: a.privateKey,
        accountId: accountIds[i] || null,
        apiKey: apiKeys[a.address.toLowerCase()] ?? null,
      })),
      keys,
      databaseUrl: dbUrl,
      schemas,
      logDir,
    };
    writeFileSync(join(base, "stack.json"), JSON.stringify(info, null, 2));
    return { info, stop };
  } catch (e) {
    await stop();
    throw new Error(`[${kind}] stack failed to start (logs in ${logDir}): ${(e as Error).message}`);
  }
}

/** Fails fast with a clear message when Postgres is not reachable. */
export async function checkPostgres(url = POSTGRES_URL) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await c.connect();
    await c.query("select 1");
  } catch (e) {
    throw new Error(`Postgres not reachable at ${url} (${(e as Error).message}); set E2E_DB=pglite to skip it or E2E_DATABASE_URL`);
  } finally {
    await c.end().catch(() => {});
  }
}
