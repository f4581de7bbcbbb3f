/**
 * Ponder configuration: one chain (local anvil by default, `RPC_URL`/`CHAIN_ID` otherwise), the
 * venue's singletons from the deployment file, and every market through the factory's
 * `MarketCreated` event, so a market created later is indexed with no config change.
 */
import { createConfig, factory } from "ponder";
import { getAbiItem } from "viem";
import { engineAbi, marketAbi, marketFactoryAbi, oracleAbi, triggerBookAbi } from "./abis/index.js";
import { loadDeployment } from "./core/deployment.js";
import { assertProfileSecrets, INDEXER_SECRETS, profileFromEnv } from "./core/profiles.js";
import { siweConfig } from "./core/auth/siwe.js";
import { startHeadsRelay } from "./core/chain/heads-relay.js";
import { assertPonderVersion } from "./src/ponder/internals.js";

// Ponder's internals are reached through src/ponder/internals.ts and patched by patches/: both
// written against one Ponder release, checked before anything starts.
assertPonderVersion();
// The integration API runs in this process: no default secrets, and a configured sign-in
// origin, outside the local profile.
assertProfileSecrets(profileFromEnv(), process.env, INDEXER_SECRETS);
siweConfig(process.env);

const chainId = Number(process.env.CHAIN_ID ?? 31337);
const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8545";
const isLocal = chainId === 31337;
// WS_URL: new heads over a WebSocket (eth_subscribe) instead of the next poll; on the local chain
// anvil's own (its HTTP port), elsewhere only when set; empty: polling. Ponder 0.16 alone would
// index an idle chain's unfinalized tail only once a new block arrives (a fresh indexer stayed
// at block 30 of 60 in test/e2e/reorg.test.ts): the relay of core/chain/heads-relay.ts sends the
// current head as the subscription's first notification.
const wsUpstream = process.env.WS_URL ?? (isLocal ? rpcUrl.replace(/^http/, "ws") : "");
const wsUrl = wsUpstream ? await startHeadsRelay(wsUpstream) : "";
// RPC_FANOUT: Ponder 0.16 paces each RPC URL by its own adaptive limit, starting at 20 requests/s
// and growing 5 % at a time (to 500): a backfill of a chain of many small blocks (one
// eth_getBlockByNumber per block with events) is bound by that pace, not by the node or the
// handlers (docs/PERFORMANCE.md). Listing the URL N times gives N such budgets, used in turn.
// Default 64 on the local anvil (in memory, same host), 1 elsewhere (a provider's own limits).
// With 16 the pace still bound a backfill of many small blocks; with 64, Ponder's own thread does
// (docs/PERFORMANCE.md, 2026-11-26 19:56 and 23:11); the e2e suites pass with 64.
const fanout = Math.max(1, Number(process.env.RPC_FANOUT ?? (isLocal ? 64 : 1)));
const rpc = fanout > 1 ? Array.from({ length: fanout }, () => rpcUrl) : rpcUrl;
const deployment = loadDeployment({ chainId });
const startBlock = deployment.deployBlock;
const { engine, oracle, marketFactory, triggerBook } = deployment.contracts;

// DATABASE_POOL_MAX: Ponder's Postgres connections in all (its default otherwise, 30). The test
// suites run several indexers beside the services on one Postgres (100 connections by default).
const poolMax = process.env.DATABASE_POOL_MAX ? Number(process.env.DATABASE_POOL_MAX) : undefined;

export default createConfig({
  // PGlite unless DATABASE_URL is set; INDEXER_PGLITE_DIR lets parallel stacks keep apart.
  ...(process.env.DATABASE_URL
    ? poolMax
      ? { database: { kind: "postgres" as const, connectionString: process.env.DATABASE_URL, poolConfig: { max: poolMax } } }
      : {}
    : process.env.INDEXER_PGLITE_DIR
      ? { database: { kind: "pglite" as const, directory: process.env.INDEXER_PGLITE_DIR } }
      : {}),
  // pinned: the venue's patch (patches/ponder+0.16.10+004+venue.patch) changes this runtime only
  ordering: "multichain",
  chains: {
    venue: {
      id: chainId,
      rpc,
      ...(wsUrl ? { ws: wsUrl } : {}),
      pollingInterval: Number(process.env.POLLING_INTERVAL_MS ?? (isLocal ? 200 : 1_000)),
      // anvil's blocks can be rewritten (restarts, evm_revert): never cache its RPC answers.
      disableCache: isLocal,
    },
  },
  contracts: {
    Engine: { abi: engineAbi, chain: "venue", address: engine, startBlock },
    Oracle: { abi: oracleAbi, chain: "venue", address: oracle, startBlock },
    MarketFactory: { abi: marketFactoryAbi, chain: "venue", address: marketFactory, startBlock },
    // positions' take-profit and stop-loss (src/TriggerBook.ts)
    TriggerBook: { abi: triggerBookAbi, chain: "venue", address: triggerBook, startBlock },
    Market: {
      abi: marketAbi,
      chain: "venue",
      address: factory({
        address: marketFactory,
        event: getAbiItem({ abi: marketFactoryAbi, name: "MarketCreated" }),
        parameter: "market",
      }),
      startBlock,
    },
  },
  // every block, for its timestamp: the PnL route values an account at the last block of each
  // hour (src/history/clock.ts); a block handler is a header fetch and two cached writes per block
  blocks: {
    Clock: { chain: "venue", startBlock, interval: 1 },
  },
});
