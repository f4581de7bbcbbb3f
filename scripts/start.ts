/**
 * `npm start`: the whole venue on this machine with no configuration.
 *
 *   anvil (state persisted in .venue/anvil-state.json) → deploy (only if the deployment file's
 *   contracts are not on chain) → demo wallets (anvil 0–9: tokens, account, deposit, relayer
 *   approved) → Ponder (PGlite) + relayer + gateway + keeper → API keys → .venue/local.json
 *
 *   npm start                  continue the same chain and databases
 *   npm start -- --fresh       wipe .venue/ and .ponder/ first
 *
 * DATABASE_URL=postgres://… runs every service on that Postgres instead of PGlite files (the
 * indexer's tables also as views under VIEWS_SCHEMA, default `venue`, for psql).
 *
 * Env: VENUE_BASE_PORT=N puts anvil on N, the integration API (read service) on N+1, relayer
 * N+2, keeper N+3, gateway N+4, Ponder itself on N+5, the stream service on N+6 (defaults in
 * core/ports.ts; each port is checked right before its process starts and a taken one is named
 * with the fix). VENUE_DIR moves .venue/ (and then Ponder's
 * PGlite and the deployment file into it too), for running a second venue beside the first.
 * Ctrl-C stops every process (anvil writes its state on the way out).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PublicClient } from "viem";
import pg from "pg";
import { startAnvil, rpcAnswers, type Anvil } from "../core/chain/anvil.js";
import { KEY_INDEX, LOCAL_CHAIN_ID, devAccount } from "../core/config.js";
import { PROJECT_ROOT, loadDeployment, serializeDeployment, type Deployment } from "../core/deployment.js";
import { DEFAULT_SECRETS, type SecretName } from "../core/profiles.js";
import { deployVenue, writeDeployment } from "./deploy.js";
import { reusableDeployment } from "./lib/local-deployment.js";
import { publicClientFor, walletClientFor } from "./lib/clients.js";
import { applyLocalCalendar, marketSessions } from "./lib/local-calendar.js";
import { FX_WEEK, NO_CLOSE } from "../core/calendar.js";
import { DEMO_DEPOSIT_6, DEMO_MINT_6, createAccountsInOrder, mintTo, prepareWallet, usd } from "./lib/demo-wallets.js";
import { startServices, type RunningServices } from "./lib/services.js";
import { assertPortsFree } from "./lib/ports.js";
import { venuePorts } from "../core/ports.js";
import { createApiKey } from "./lib/api-keys.js";
import { indexerSchemaName } from "./lib/indexer-schema.js";
import { tailLog } from "./lib/processes.js";

const { Client } = pg;

const MARKET_MAKER_MINT_6 = usd("20000000");

export type LocalJson = {
  chainId: number;
  rpcUrl: string;
  /** the integration API for clients: the read service, in front of Ponder */
  integrationUrl: string;
  /** Ponder's own server (indexer, /status, /sql) */
  indexerUrl: string;
  gatewayUrl: string | null;
  /** the stream service: WebSocket at `${streamsUrl}/ws` (camelCase; the gateway's is /v1/ws) */
  streamsUrl: string | null;
  relayerUrl: string | null;
  keeperUrl: string | null;
  contracts: Deployment["contracts"];
  markets: { marketId: string; symbol: string; marketAddress: string }[];
  wallets: { address: string; privateKey: string; apiKey: string | null; accountId: number }[];
};

const t0 = Date.now();
/** One line per stage as it goes, with the seconds since the start. */
const say = (m: string) => console.log(`${`[${((Date.now() - t0) / 1000).toFixed(1)} s]`.padEnd(10)} ${m}`);

async function main() {
  const fresh = process.argv.includes("--fresh");
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const viewsSchema = process.env.VIEWS_SCHEMA || "venue";
  const customDir = process.env.VENUE_DIR;
  const dir = resolve(customDir ?? join(PROJECT_ROOT, ".venue"));
  const logDir = join(dir, "logs");
  const p = venuePorts();
  const deploymentFile = process.env.DEPLOYMENT_FILE
    ? resolve(process.env.DEPLOYMENT_FILE)
    : customDir ? join(dir, "deployment.json") : join(PROJECT_ROOT, "deployments", `${LOCAL_CHAIN_ID}.json`);

  if (fresh) {
    rmSync(dir, { recursive: true, force: true });
    if (!customDir) rmSync(join(PROJECT_ROOT, ".ponder"), { recursive: true, force: true });
    rmSync(deploymentFile, { force: true });
    if (databaseUrl) {
      // the PGlite directories' counterparts: the relayer's queue and the gateway's keys (the
      // indexer's schema is new with the new chain anyway)
      const pg = new Client({ connectionString: databaseUrl });
      await pg.connect();
      await pg.query("DROP SCHEMA IF EXISTS venue_relayer CASCADE; DROP SCHEMA IF EXISTS venue_gateway CASCADE");
      await pg.end();
    }
    say(`--fresh: removed ${dir}${customDir ? "" : " and .ponder/"}${databaseUrl ? " and the relayer's and gateway's schemas" : ""}`);
  }
  mkdirSync(logDir, { recursive: true });

  const rpcCheck = `http://127.0.0.1:${p.anvil}`;
  if (await rpcAnswers(rpcCheck)) {
    throw new Error(`something already answers JSON-RPC on ${rpcCheck}: another venue or anvil is running (stop it, or set VENUE_BASE_PORT)`);
  }
  // every port now (checked again right before the services start): a taken one fails in seconds
  await assertPortsFree(p);

  let anvil: Anvil | undefined;
  let services: RunningServices | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log();
    say("stopping…");
    await services?.stop().catch(() => {});
    await anvil?.stop().catch(() => {});
    say("stopped.");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));

  try {
    const stateFile = join(dir, "anvil-state.json");
    say(`anvil       starting on ${rpcCheck} (state ${stateFile})`);
    anvil = await startAnvil({ port: p.anvil, stateFile, stateIntervalSeconds: 5, logFile: join(logDir, "anvil.log") });
    anvil.process.once("exit", () => {
      if (!stopping) {
        console.error(`anvil exited unexpectedly; log ${join(logDir, "anvil.log")}`);
        void shutdown(1);
      }
    });
    const chainId = LOCAL_CHAIN_ID;
    const client = publicClientFor(anvil.rpcUrl, chainId);

    const reuse = await reusableDeployment(client as PublicClient, deploymentFile);
    if (reuse.note) say(`deployment  ${reuse.note}`);
    let deployment = reuse.deployment;
    if (!deployment) {
      say("deployment  deploying the venue…");
      const wallet = walletClientFor(anvil.rpcUrl, chainId, devAccount(KEY_INDEX.deployer).privateKey);
      deployment = await deployVenue(wallet, client as PublicClient, { updaters: [devAccount(KEY_INDEX.priceFeed).address] });
      writeDeployment(deployment, deploymentFile);
      say(`deployment  wrote ${deploymentFile}`);
    }

    // The market calendar (README "Market sessions"): the FX week, or with SCHEDULE_ENABLED=false
    // no close at all, applied at once on this chain whatever an earlier run left.
    const noClose = process.env.SCHEDULE_ENABLED === "false";
    const switched = await applyLocalCalendar(client as PublicClient, anvil.rpcUrl, deployment, noClose ? NO_CLOSE : FX_WEEK);
    say(`calendar    ${noClose ? "no close (SCHEDULE_ENABLED=false): markets always OPEN" : "the FX week: reduce-only Fri 20:00, closed Fri 21:00 to Sun 21:00 UTC"}${switched ? ` (set on ${switched} markets)` : ""}`);
    for (const m of await marketSessions(client as PublicClient, deployment)) {
      say(`session     ${m.symbol} ${m.session}${m.next ? `, ${m.next.session} from ${new Date(m.next.at * 1000).toISOString()}` : " (no close)"}`);
    }

    // Demo wallets: idempotent, so a restart only tops up what is missing.
    const ctx = { rpcUrl: anvil.rpcUrl, chainId, deployment };
    const demo = Array.from({ length: 10 }, (_, i) => devAccount(i));
    await mintTo(ctx, devAccount(KEY_INDEX.deployer).privateKey, [
      ...demo.map((a) => ({ address: a.address, amount6: DEMO_MINT_6 })),
      { address: devAccount(KEY_INDEX.marketMaker).address, amount6: MARKET_MAKER_MINT_6 },
    ], true);
    const relayer = devAccount(KEY_INDEX.relayer).address;
    await createAccountsInOrder(ctx, demo.map((a) => a.privateKey));
    const accountIds = await Promise.all(
      demo.map((a) => prepareWallet(ctx, a.privateKey, { approve: true, createAccount: true, deposit6: DEMO_DEPOSIT_6, operator: relayer })),
    );
    say("wallets     anvil accounts 0–9: 1,000,000 USDV each, an account with 100,000 USDV, relayer approved");

    // The deploy block's hash tells a redeploy on a new chain (same addresses) from the old one.
    const deployHash = (await client.getBlock({ blockNumber: BigInt(deployment.deployBlock) })).hash;
    const schema = indexerSchemaName(serializeDeployment(deployment) + deployHash + anvil.rpcUrl);
    say(`services    starting (indexer schema ${schema}; logs in ${logDir})…`);
    services = await startServices({
      rpcUrl: anvil.rpcUrl,
      chainId,
      deploymentFile,
      indexerSchema: schema,
      ports: { indexer: p.indexer, reads: p.reads, relayer: p.relayer, gateway: p.gateway, keeper: p.keeper, streams: p.streams },
      // DATABASE_URL: every service on that Postgres (the indexer in its schema, views under
      // VIEWS_SCHEMA for psql, the relayer and gateway in schemas of their own); else PGlite files
      db: databaseUrl
        ? { kind: "postgres", url: databaseUrl, relayerSchema: "venue_relayer", gatewaySchema: "venue_gateway" }
        : {
            kind: "pglite",
            indexerDir: customDir ? join(dir, "indexer-db") : join(PROJECT_ROOT, ".ponder", "pglite"),
            relayerDir: join(dir, "relayer-db"),
            gatewayDir: join(dir, "gateway-db"),
          },
      viewsSchema: databaseUrl ? viewsSchema : undefined,
      // the local defaults (one token per calling service), unless the environment sets them
      secrets: Object.fromEntries(Object.entries(DEFAULT_SECRETS).map(([k, d]) => [k, process.env[k] || d])) as Record<SecretName, string>,
      keys: {
        deployer: devAccount(KEY_INDEX.deployer).privateKey,
        relayer: devAccount(KEY_INDEX.relayer).privateKey,
        keeper: devAccount(KEY_INDEX.keeper).privateKey,
        priceFeed: devAccount(KEY_INDEX.priceFeed).privateKey,
        marketMaker: devAccount(KEY_INDEX.marketMaker).privateKey,
      },
      logDir,
      log: (m) => say(`  ${m}`),
    });
    if (databaseUrl) say(`postgres    every service on ${databaseUrl.replace(/\/\/[^@/]*@/, "//…@")}; psql: SET search_path TO ${viewsSchema} (views of the indexed tables, see docs/SQL.md)`);
    for (const proc of services.procs) {
      proc.child.once("exit", (code) => {
        if (!stopping) {
          console.error(`${proc.name} exited unexpectedly (code ${code}); log ${proc.logFile}:\n${tailLog(proc.logFile, 20)}`);
          void shutdown(1);
        }
      });
    }

    // API keys: keep the ones of the previous run if the gateway still knows them.
    const localFile = join(dir, "local.json");
    const previous = existsSync(localFile) ? (JSON.parse(readFileSync(localFile, "utf8")) as LocalJson) : undefined;
    const gw = services.urls.gateway;
    const apiKeys: (string | null)[] = [];
    for (const [i, a] of demo.entries()) {
      if (!gw) {
        apiKeys.push(null);
        continue;
      }
      const old = previous?.wallets.find((w) => w.address.toLowerCase() === a.address.toLowerCase())?.apiKey;
      if (old && (await keyWorks(gw, old, accountIds[i]!))) apiKeys.push(old);
      else apiKeys.push(await createApiKey(gw, process.env.ADMIN_TOKEN || DEFAULT_SECRETS.ADMIN_TOKEN, a.address, `demo wallet ${a.index}`));
    }

    const local: LocalJson = {
      chainId,
      rpcUrl: anvil.rpcUrl,
      integrationUrl: services.urls.reads!,
      indexerUrl: services.urls.indexer!,
      gatewayUrl: gw,
      streamsUrl: services.urls.streams,
      relayerUrl: services.urls.relayer,
      keeperUrl: services.urls.keeper,
      contracts: deployment.contracts,
      markets: deployment.markets.map((m) => ({ marketId: m.marketId, symbol: m.symbol, marketAddress: m.marketAddress })),
      wallets: demo.map((a, i) => ({ address: a.address, privateKey: a.privateKey, apiKey: apiKeys[i] ?? null, accountId: accountIds[i]! })),
    };
    writeFileSync(localFile, `${JSON.stringify(local, null, 2)}\n`);
    printSummary(local, localFile, logDir);
  } catch (e) {
    console.error(`\nnpm start failed: ${(e as Error).message}`);
    await shutdown(1);
  }
}

async function keyWorks(gatewayUrl: string, key: string, accountId: number): Promise<boolean> {
  const res = await fetch(`${gatewayUrl}/v1/accounts/${accountId}`, { headers: { "x-api-key": key } }).catch(() => null);
  return !!res && res.status !== 401 && res.status !== 403;
}

function printSummary(l: LocalJson, localFile: string, logDir: string) {
  const w = l.wallets[0]!;
  const eur = l.markets.find((m) => m.symbol === "EUR/USD") ?? l.markets[0]!;
  const lines = [
    "",
    "The venue is running.",
    "",
    `  chain (anvil)        ${l.rpcUrl}   chain id ${l.chainId}`,
    `  integration API      ${l.integrationUrl}        (OpenAPI: /openapi.json, SQL: /sql)`,
    `  indexer (Ponder)     ${l.indexerUrl}        (/status, /metrics)`,
    `  gateway (/v1)        ${l.gatewayUrl ?? "(not built yet)"}${l.gatewayUrl ? "         (docs: /v1/docs)" : ""}`,
    `  streams (WebSocket)  ${l.streamsUrl ? l.streamsUrl.replace(/^http/, "ws") + "/ws" : "(not built yet)"}${l.streamsUrl ? `   (page: ${l.streamsUrl}/, AsyncAPI: /asyncapi.json)` : ""}`,
    `  relayer (internal)   ${l.relayerUrl ?? "(not built yet)"}`,
    `  keeper (internal)    ${l.keeperUrl ?? "(not built yet)"}`,
    "",
    "  markets: " + l.markets.map((m) => `${m.symbol} ${m.marketId}`).join("\n           "),
    "",
    `  demo wallet 0: ${w.address}  account ${w.accountId}${w.apiKey ? `  API key ${w.apiKey}` : ""}`,
    `  all wallets, keys and addresses: ${localFile}`,
    `  logs: ${logDir}`,
    "",
  ];
  if (l.gatewayUrl && w.apiKey) {
    lines.push(
      "Try it:",
      `  curl -s ${l.gatewayUrl}/v1/markets`,
      `  curl -s -H 'X-API-Key: ${w.apiKey}' ${l.gatewayUrl}/v1/accounts/${w.accountId}`,
      `  curl -s -X POST -H 'X-API-Key: ${w.apiKey}' -H 'Content-Type: application/json' \\`,
      `       ${l.gatewayUrl}/v1/accounts/${w.accountId}/trade \\`,
      `       -d '{"market_id":"${eur.marketId}","collateral":"100000000","side":0,"leverage":5,"order_type":0}'`,
      "",
    );
  } else {
    lines.push("Try it:", `  curl -s ${l.integrationUrl}/markets`, "");
  }
  lines.push("Ctrl-C stops everything (the chain and databases persist; `npm start -- --fresh` starts over).");
  console.log(lines.join("\n"));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
