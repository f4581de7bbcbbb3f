/**
 * The keeper process (`npm run start:keeper`): liquidation scan (through the relayer), funding
 * pokes, the liquidation read API; on a local chain also the simulated price feed and the demo
 * market maker. Configuration: services/keeper/config.ts, docs/KEEPER.md.
 */
import { serve } from "@hono/node-server";
import pino from "pino";
import { oracleAbi } from "../../abis/index.js";
import { loadDeployment } from "../../core/deployment.js";
import { loadKeeperConfig, type KeeperConfig } from "./config.js";
import { makePublicClient, Signer } from "./chain/clients.js";
import { MarketDirectory } from "./chain/markets.js";
import { pokeAllMarkets } from "./funding-poker.js";
import { reduceFundPositions, viemFundReducerChain } from "./fund-reducer.js";
import { createKeeperApp } from "./http/app.js";
import { createIndexerDb } from "./indexer/sql-client.js";
import { IndexerReader } from "./indexer/reader.js";
import { LiquidationScanner } from "./liquidation/scanner.js";
import { LiquidationService } from "./liquidation/service.js";
import { startLoop, type Loop } from "./loop.js";
import { startMarketMaker, type RunningMarketMaker } from "./market-maker/run.js";
import { PriceFeed } from "./price-feed/feed.js";
import { RelayerClient } from "./relayer-client.js";
import { DeadmanExecutor } from "./orders/deadman.js";
import { ExpiredOrderRemover } from "./orders/expired.js";
import { TriggerExecutor } from "./orders/triggers.js";

let cfg: KeeperConfig;
try {
  cfg = loadKeeperConfig();
} catch (e) {
  // one line naming what is wrong (e.g. a missing secret outside the local profile), no stack
  process.stderr.write(`keeper: ${(e as Error).message}\n`);
  process.exit(1);
}
const log = pino({ name: "keeper", level: cfg.LOG_LEVEL });
const deployment = loadDeployment({ chainId: cfg.CHAIN_ID, file: cfg.DEPLOYMENT_FILE });
const { engine, oracle, depositToken, triggerBook } = deployment.contracts;

const client = makePublicClient(cfg.RPC_URL, cfg.CHAIN_ID);
const signer = (role: string, key: `0x${string}`) => new Signer(role, key, client, cfg.RPC_URL, cfg.CHAIN_ID, log);
const keeper = signer("keeper", cfg.keeperKey);
const markets = new MarketDirectory(client, engine);

// `/sql` is open on the local profile; elsewhere it takes the keeper's token (scope sql:read).
const db = createIndexerDb(cfg.INTEGRATION_URL, {
  internalToken: cfg.keeperToken,
  timeoutMs: cfg.UPSTREAM_TIMEOUT_MS,
});
const reader = new IndexerReader(db, cfg.INTEGRATION_URL, cfg.CHAIN_ID);
const relayer = new RelayerClient(cfg.RELAYER_URL, cfg.keeperToken, cfg.UPSTREAM_TIMEOUT_MS);
const service = new LiquidationService(reader, relayer);

// Invite-only relayers refuse unregistered callers: the keeper registers itself with the
// registration-only token and a signature of its key (never the admin token).
if (cfg.accessPolicy === "invite-only" && cfg.liquidationEnabled && cfg.registrationToken) {
  const registrationToken = cfg.registrationToken;
  void (async () => {
    for (let attempt = 1; attempt <= 10; attempt++) {
      const status = await relayer.registerSelf(keeper.account, registrationToken).catch(() => 0);
      if (status === 200 || status === 201) return log.info({ address: keeper.address }, "keeper registered with the relayer");
      await new Promise((r) => setTimeout(r, 3_000));
    }
    log.warn({ address: keeper.address }, "could not register the keeper with the relayer: liquidations may get NOT_REGISTERED");
  })();
}

const loops: Record<string, Loop> = {};
const scanner = cfg.liquidationEnabled ? new LiquidationScanner(reader, relayer, keeper.address, log.child({ part: "liquidations" })) : null;
if (scanner) loops.liquidations = startLoop("liquidations", cfg.LIQUIDATION_SCAN_INTERVAL_MS, () => scanner.scan(), log);
if (cfg.fundingPokeEnabled) {
  // the insurance fund's own position, where it holds one, is reduced in the same round (docs/CONTRACTS.md "Backstop")
  const fundChain = viemFundReducerChain(client, keeper);
  loops.funding = startLoop("funding", cfg.FUNDING_POKE_INTERVAL_MS, async () => {
    const poked = await pokeAllMarkets(keeper, engine, markets, log);
    await reduceFundPositions(fundChain, await markets.list(), log);
    return poked;
  }, log);
}
// Market v2: dead-man cancels and expired-order removal, signed with the keeper's own key (docs/KEEPER.md)
if (cfg.deadmanEnabled) {
  const deadman = new DeadmanExecutor(reader, client, keeper, engine, log.child({ part: "deadman" }));
  loops.deadman = startLoop("deadman", cfg.DEADMAN_INTERVAL_MS, () => deadman.round(), log);
}
if (cfg.expiredOrdersEnabled) {
  const expired = new ExpiredOrderRemover(reader, client, keeper, markets, log.child({ part: "expired-orders" }));
  loops.expiredOrders = startLoop("expired-orders", cfg.EXPIRED_ORDERS_INTERVAL_MS, () => expired.round(), log);
}
if (cfg.triggersEnabled) {
  const triggers = new TriggerExecutor(reader, client, keeper, triggerBook, markets, log.child({ part: "triggers" }));
  loops.triggers = startLoop("triggers", cfg.TRIGGERS_INTERVAL_MS, () => triggers.round(), log);
}
if (cfg.priceFeedEnabled) {
  const feed = new PriceFeed(client, signer("price-feed", cfg.priceFeedKey), oracle, markets, {
    feedSeed: cfg.FEED_SEED, maxStepBps: BigInt(cfg.PRICE_FEED_MAX_STEP_BPS), bandBps: BigInt(cfg.PRICE_FEED_BAND_BPS),
  }, log.child({ part: "price-feed" }));
  loops.priceFeed = startLoop("price-feed", cfg.PRICE_FEED_INTERVAL_MS, () => feed.round(), log);
  // Markets stop trading once the index is older than the oracle's bound (devnet 60 s).
  void client.readContract({ address: oracle, abi: oracleAbi, functionName: "maxAgeSeconds" }).then((maxAge) => {
    if (cfg.PRICE_FEED_INTERVAL_MS * 2 > Number(maxAge) * 1000) {
      log.warn({ intervalMs: cfg.PRICE_FEED_INTERVAL_MS, maxAgeSeconds: Number(maxAge) }, "PRICE_FEED_INTERVAL_MS is more than half the oracle's staleness bound: prices will go stale between pushes");
    }
  }, () => {});
}
let marketMaker: RunningMarketMaker | undefined;
if (cfg.marketMakerEnabled) {
  // reads, streams, units and builders through the client (packages/client); writes on chain with its own key
  marketMaker = startMarketMaker({
    integrationUrl: cfg.INTEGRATION_URL,
    streamsUrl: cfg.STREAMS_URL,
    internalToken: cfg.keeperToken,
    intervalMs: cfg.MARKET_MAKER_INTERVAL_MS,
    streamPollMs: cfg.MARKET_MAKER_STREAM_POLL_MS,
    timeoutMs: cfg.UPSTREAM_TIMEOUT_MS,
    chain: client,
    maker: signer("market-maker", cfg.marketMakerKey),
    deployer: signer("deployer", cfg.deployerKey),
    addresses: { engine, depositToken },
    opts: {
      levels: cfg.MARKET_MAKER_LEVELS,
      spreadBps: BigInt(cfg.MARKET_MAKER_SPREAD_BPS),
      levelStepBps: BigInt(cfg.MARKET_MAKER_LEVEL_STEP_BPS),
      levelQty: cfg.MARKET_MAKER_LEVEL_QTY,
      leverage: BigInt(cfg.MARKET_MAKER_LEVERAGE),
      requoteBps: BigInt(cfg.MARKET_MAKER_REQUOTE_BPS),
      depositUsd: cfg.MARKET_MAKER_DEPOSIT_USD,
      deadmanSeconds: cfg.MARKET_MAKER_DEADMAN_SECONDS,
    },
    log: log.child({ part: "market-maker" }),
  });
  loops.marketMaker = marketMaker.loop;
}

const app = createKeeperApp({
  service,
  gatewayToken: cfg.gatewayToken,
  log,
  status: () => ({
    profile: cfg.PROFILE,
    keeperAddress: keeper.address,
    loops: Object.fromEntries(Object.entries(loops).map(([k, l]) => [k, l.state()])),
    // liquidations that made no progress in a row (the contract bounds the calls: see scanner.ts)
    stalledLiquidations: scanner?.stalled() ?? [],
  }),
  metrics: { open: cfg.PROFILE === "local", adminToken: cfg.ADMIN_TOKEN },
});

const server = serve({ fetch: app.fetch, hostname: cfg.HOST, port: cfg.PORT }, (info) => {
  log.info({ url: `http://${cfg.HOST}:${info.port}`, profile: cfg.PROFILE, loops: Object.keys(loops) }, "keeper listening");
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "keeper stopping");
  server.close();
  // the maker's stream first (no reconnect while the loops wind down)
  await Promise.race([
    Promise.all([marketMaker?.close(), ...Object.values(loops).map((l) => l.stop())]),
    new Promise((r) => setTimeout(r, 10_000)),
  ]);
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
