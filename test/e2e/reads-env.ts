/**
 * An indexer-only venue for the reads, reconciliation and reorg-and-rebuild tests: its own anvil,
 * the contracts, funded wallets and Ponder (PGlite or Postgres), with nothing else writing to the
 * chain, so a scripted session is deterministic and the chain may be snapshotted and reverted
 * (the shared stack of global-setup.ts runs a keeper and a relayer that would race with that).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secret } from "../../core/profiles.js";
import { createIndexerDb } from "../../services/keeper/indexer/sql-client.js";
import * as schema from "../../ponder.schema.js";
import type { Hex, PublicClient } from "viem";
import { startAnvil, type Anvil } from "../../core/chain/anvil.js";
import { e2ePort } from "./helpers/ports.js";
import { KEY_INDEX, devAccount } from "../../core/config.js";
import { PROJECT_ROOT, type Deployment } from "../../core/deployment.js";
import { deployVenue, writeDeployment } from "../../scripts/deploy.js";
import { publicClientFor, walletClientFor } from "../../scripts/lib/clients.js";
import { DEMO_MINT_6, mintTo, prepareWallet, usd } from "../../scripts/lib/demo-wallets.js";
import { startProcess, waitForHttp, type Proc } from "../../scripts/lib/processes.js";
import { ponderBin, ponderNodeArgs, seedIndexerPgliteDir, serviceMain, nodeTs } from "../../scripts/lib/services.js";
import { createDatabase, databaseUrl, dropDatabase, type DbKind } from "./stack.js";
import { rpcOf, withChainFixture } from "./helpers/chain-fixture.js";

export type Indexer = { url: string; schema: string; proc: Proc; stop: () => Promise<void> };

export type Venue = {
  kind: DbKind;
  rpcUrl: string;
  /** anvil's process (its CPU time, for the benchmarks) */
  anvilPid: number;
  chainId: number;
  deployment: Deployment;
  deploymentFile: string;
  client: PublicClient;
  base: string;
  /** account id of demo wallet i (0..5 have accounts) */
  accountIds: bigint[];
  wallet: (index: number) => ReturnType<typeof walletClientFor>;
  /** Starts a Ponder on this chain with its own schema (and PGlite directory). */
  startIndexer: (name: string, opts?: { waitReady?: boolean }) => Promise<Indexer>;
  /** Starts the read service (services/reads) in front of an indexer of this venue (`env`: its extra settings). */
  startReads: (ix: Indexer, env?: Record<string, string>) => Promise<{ url: string; proc: Proc }>;
  /** Both at once (`readsEnv`: the read service's extra settings), ready when both are. */
  startIndexerAndReads: (name: string, readsEnv?: Record<string, string>) => Promise<{ ix: Indexer; rd: { url: string; proc: Proc } }>;
  /** the venue's own Postgres database (null on PGlite) */
  databaseUrl: string | null;
  stop: () => Promise<void>;
};

const ACCOUNTS = [0, 1, 2, 3, 4, 5];
/**
 * Tests of a `?minBlock` ahead of the chain wait the bound out before the 503: 3 s here (5 s by
 * default), still 10× an indexed block's time on this venue (nothing else mines on it).
 */
const TEST_WAITS = { MIN_BLOCK_WAIT_MS: "3000" };

/**
 * `clock`: a fixed chain clock (unix seconds) for answers that must be the same bytes on every run
 * (the golden files of reads-golden.test.ts): the genesis block at `clock`, each block one second
 * after the one before whatever the wall clock says (anvil_setBlockTimestampInterval), and time
 * moved only by the session (`advance`: evm_setNextBlockTimestamp). Unset: anvil's wall clock.
 */
export async function startVenue(kind: DbKind, opts: { clock?: number } = {}): Promise<Venue> {
  const runId = `${Date.now().toString(36).slice(-5)}${Math.random().toString(36).slice(2, 5)}`;
  const base = mkdtempSync(join(tmpdir(), `venue-reads-${runId}-${kind}-`));
  const indexers: Indexer[] = [];
  let anvil: Anvil | undefined;
  // Ponder's sync cache (schema ponder_sync) is keyed by chain id, and every anvil is chain
  // 31337 with the same block numbers: a database per venue keeps another chain's cached
  // blocks out (disableCache does not stop Ponder from reading rows already stored).
  const database = `venue_reads_${runId}`;
  const dbUrl = databaseUrl(database);
  const stop = async () => {
    await Promise.all(indexers.map((i) => i.stop().catch(() => {})));
    await anvil?.stop().catch(() => {});
    if (kind === "postgres") await dropDatabase(database).catch(() => {});
  };
  try {
    if (kind === "postgres") await createDatabase(database);
    anvil = await startAnvil({ port: await e2ePort(), logFile: join(base, "anvil.log"), extraArgs: opts.clock === undefined ? undefined : ["--timestamp", String(opts.clock)] });
    const chainId = 31337;
    const client = publicClientFor(anvil.rpcUrl, chainId) as PublicClient;
    if (opts.clock !== undefined) await client.request({ method: "anvil_setBlockTimestampInterval" as never, params: [1] as never });
    const deployerKey = devAccount(KEY_INDEX.deployer).privateKey;
    const setup = async () => {
      const deployer = walletClientFor(anvil!.rpcUrl, chainId, deployerKey);
      // the deployer is also an oracle updater here: the tests move index prices themselves
      const deployment = await deployVenue(deployer, client, {
        updaters: [devAccount(KEY_INDEX.priceFeed).address, deployer.account.address],
      });
      const ctx = { rpcUrl: anvil!.rpcUrl, chainId, deployment };
      const demo = Array.from({ length: 10 }, (_, i) => devAccount(i));
      await mintTo(ctx, deployerKey, demo.map((a) => ({ address: a.address, amount6: DEMO_MINT_6 })));
      const accountIds: bigint[] = [];
      for (const i of ACCOUNTS) {
        accountIds[i] = BigInt(
          await prepareWallet(ctx, demo[i]!.privateKey, { approve: true, createAccount: true, deposit6: usd("100000") }),
        );
      }
      return { deployment, accountIds };
    };
    // this run's fixture of the same setup when there is one (test/e2e/helpers/chain-fixture.ts);
    // never on a fixed clock: a loaded state carries another chain's blocks and times, and the
    // golden answers need every block number and timestamp from this genesis
    const { deployment, accountIds } = opts.clock === undefined ? await withChainFixture("quiet-venue", rpcOf(anvil.rpcUrl), setup) : await setup();
    const deploymentFile = writeDeployment(deployment, join(base, "deployment.json"));
    const rpcUrl = anvil.rpcUrl;
    const spawnIndexer = async (name: string, opts: { waitReady?: boolean } = {}) => {
      const schema = `rd_${runId}_${name}_${kind === "pglite" ? "l" : "p"}`.slice(0, 45);
      const port = await e2ePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PONDER_TELEMETRY_DISABLED: "true",
        RPC_URL: rpcUrl,
        CHAIN_ID: String(chainId),
        DEPLOYMENT_FILE: deploymentFile,
        PROFILE: "local",
        // tests and benches are one client making many requests: a high configured limit
        RATE_LIMIT_PER_MINUTE: "100000000",
        // tests run this indexer beside a whole stack on one Postgres (100 connections); the
        // benchmark keeps Ponder's default pool
        ...(process.env.VITEST ? { DATABASE_POOL_MAX: "14", ...TEST_WAITS } : {}),
      };
      delete env.DATABASE_URL;
      delete env.DATABASE_SCHEMA;
      delete env.INDEXER_PGLITE_DIR;
      if (kind === "postgres") env.DATABASE_URL = dbUrl;
      else {
        env.INDEXER_PGLITE_DIR = join(base, `pglite-${name}`);
        await seedIndexerPgliteDir(env.INDEXER_PGLITE_DIR);
      }
      // the benchmark's knobs (bench/reads.ts): Ponder's node flags (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")
      // and extra CLI arguments (e.g. "--log-level trace")
      const nodeFlags = process.env.BENCH_PONDER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
      const extra = process.env.BENCH_PONDER_ARGS?.split(/\s+/).filter(Boolean) ?? [];
      const args = [...ponderNodeArgs(env), ...nodeFlags, ponderBin(), "start", "--schema", schema, "-p", String(port), "-H", "127.0.0.1", "--log-format", "json", ...extra];
      const proc = startProcess(`ponder ${name}`, process.execPath, args, env, join(base, `ponder-${name}.log`), PROJECT_ROOT);
      const indexer: Indexer = { url: `http://127.0.0.1:${port}`, schema, proc, stop: () => proc.stop() };
      indexers.push(indexer);
      return { indexer, up: waitForHttp(`${indexer.url}/${opts.waitReady === false ? "health" : "ready"}`, { proc, timeoutMs: 300_000, intervalMs: 50 }) };
    };
    const startIndexer = async (name: string, opts: { waitReady?: boolean } = {}): Promise<Indexer> => {
      const { indexer, up } = await spawnIndexer(name, opts);
      await up;
      return indexer;
    };
    const spawnReads = async (ix: Indexer, extraEnv: Record<string, string> = {}) => {
      const port = await e2ePort();
      // the same high configured limit as the indexer's (tests and benches are one client)
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: "127.0.0.1", INDEXER_URL: ix.url, LOG_LEVEL: "warn", RATE_LIMIT_PER_MINUTE: "100000000", ...(process.env.VITEST ? TEST_WAITS : {}) };
      delete env.DATABASE_URL;
      delete env.DATABASE_SCHEMA;
      if (kind === "postgres") {
        env.DATABASE_URL = dbUrl;
        env.DATABASE_SCHEMA = ix.schema;
      }
      Object.assign(env, extraEnv);
      // the read service's own node flags (bench/reads.ts), e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
      const flags = process.env.BENCH_READS_NODE_ARGS?.split(/\s+/).filter(Boolean);
      const args = nodeTs(serviceMain("reads"), flags ?? []);
      const proc = startProcess(`reads ${ix.schema}`, process.execPath, args, env, join(base, `reads-${port}.log`), PROJECT_ROOT);
      indexers.push({ url: `http://127.0.0.1:${port}`, schema: ix.schema, proc, stop: () => proc.stop() });
      const url = `http://127.0.0.1:${port}`;
      return { reads: { url, proc }, up: waitForHttp(`${url}/health`, { proc, timeoutMs: 180_000, intervalMs: 50 }) };
    };
    const startReads = async (ix: Indexer, extraEnv: Record<string, string> = {}) => {
      const { reads, up } = await spawnReads(ix, extraEnv);
      await up;
      return reads;
    };
    // both processes boot at once: Ponder's start is mostly one thread, the read service's the other core
    const startIndexerAndReads = async (name: string, readsEnv: Record<string, string> = {}) => {
      const ix = await spawnIndexer(name);
      const rd = await spawnReads(ix.indexer, readsEnv);
      await Promise.all([ix.up, rd.up]);
      return { ix: ix.indexer, rd: rd.reads };
    };
    return {
      kind,
      rpcUrl,
      anvilPid: anvil.pid,
      chainId,
      deployment,
      deploymentFile,
      client,
      base,
      accountIds,
      wallet: (i) => walletClientFor(rpcUrl, chainId, devAccount(i).privateKey as Hex),
      databaseUrl: kind === "postgres" ? dbUrl : null,
      startIndexer,
      startReads,
      startIndexerAndReads,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The block the indexer has indexed (its /status). */
export async function indexedBlock(url: string): Promise<number> {
  // bounded: a server that never answers is a failed poll (waitForBlock's deadline then holds)
  const res = await fetch(`${url}/status`, { signal: AbortSignal.timeout(10_000) });
  const status = (await res.json()) as Record<string, { block: { number: number } }>;
  return Math.max(0, ...Object.values(status).map((c) => c.block.number));
}

export async function waitForBlock(url: string, block: bigint | number, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const b = await indexedBlock(url).catch(() => 0);
    if (b >= Number(block)) return b;
    if (Date.now() > deadline) throw new Error(`indexer at ${b}, wanted ${block}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Every indexed table, read through the indexer's SQL over HTTP (works on PGlite and Postgres) as
 * the venue's own statements (the keeper's client and token: whole tables are not PGlite's /sql shape).
 */
export async function dumpTables(url: string): Promise<Record<string, string[]>> {
  const db = createIndexerDb(url, { internalToken: secret("KEEPER_TOKEN", { ...process.env, PROFILE: "local" }) });
  const out: Record<string, string[]> = {};
  for (const [name, table] of Object.entries(schema)) {
    const rows = (await db.select().from(table as never)) as Record<string, unknown>[];
    // stable, comparable rows: bigints as strings, sorted
    out[name] = rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v))).sort();
  }
  return out;
}
