/**
 * Read benchmark (printed, not asserted), on the chain of bench/indexing.ts (a 1,000-order book
 * over 200 levels, 12,000 historical orders, Postgres): requests/s and p50/p99 latency at a
 * fixed concurrency for the order book, orders, funding, account and position routes, each
 * twice: as clients read it (the response cache answers repeats of one indexed state) and with
 * `Cache-Control: no-cache` (every request reads the tables); beside them, the same answer from
 * the contracts' views over JSON-RPC (with its call count), and a bare Hono JSON route of the
 * same server (`GET /bench/bare`, only with BENCH=1). The chain is idle while it runs, so the
 * cached figures are those of many clients polling between two blocks.
 *   npx tsx bench/reads.ts        BENCH_CONCURRENCY=16 BENCH_REQUESTS=2000
 */
import { performance } from "node:perf_hooks";
import type { Hex } from "viem";
import { engineAbi, marketAbi, oracleAbi, venueLensAbi } from "../abis/index.js";
import { waitForBlock } from "../test/e2e/reads-env.js";
import { benchIndexer, prepareBenchVenue, percentile } from "./indexing.js";

export type Measure = { rps: number; p50Ms: number; p99Ms: number; requests: number };
export type ReadRow = { route: string; api: Measure; apiFresh?: Measure; rpc: Measure & { callsPerAnswer: number }; note?: string };

async function measure(task: () => Promise<unknown>, concurrency: number, requests: number): Promise<Measure> {
  const lat: number[] = [];
  let issued = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < requests) {
        issued++;
        const s = performance.now();
        await task();
        lat.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { rps: lat.length / seconds, p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99), requests: lat.length };
}

const fmt = (m: Measure) => `${m.rps.toFixed(0).padStart(6)} rps p50 ${m.p50Ms.toFixed(1)} p99 ${m.p99Ms.toFixed(1)} ms`;

const httpGet = (url: string, headers: Record<string, string> = {}) => async () => {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  await res.arrayBuffer();
};

export async function run(): Promise<ReadRow[]> {
  process.env.PONDER_TELEMETRY_DISABLED = "true";
  process.env.BENCH = "1"; // the indexer started below serves /bench/bare
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
  const requests = Number(process.env.BENCH_REQUESTS ?? 2_000);
  const bench = await prepareBenchVenue();
  const { venue: v, eur, gbp } = bench;
  const ix = benchIndexer ?? (await v.startIndexer("reads", { waitReady: false }));
  const head = await v.client.getBlockNumber({ cacheTime: 0 });
  await waitForBlock(ix.url, head, 900_000);
  const acct = v.accountIds[1]!; // a taker with thousands of orders and a GBP position
  const eurMarket = v.deployment.markets[0]!.marketAddress as Hex;
  const gbpMarket = v.deployment.markets[1]!.marketAddress as Hex;
  const { engine, oracle, venueLens } = v.deployment.contracts;
  const read = (address: Hex, abi: readonly unknown[], functionName: string, args: readonly unknown[] = []) =>
    v.client.readContract({ address, abi, functionName, args } as never);
  const orderCount = Number(await read(gbpMarket, marketAbi, "orderCount"));
  const PAGE = 500;

  const rows: ReadRow[] = [];
  const add = async (route: string, path: string, calls: number, viaRpc: () => Promise<unknown>, note?: string) => {
    await httpGet(`${ix.url}${path}`)(); // warm
    const api = await measure(httpGet(`${ix.url}${path}`), concurrency, requests);
    const apiFresh = await measure(httpGet(`${ix.url}${path}`, { "Cache-Control": "no-cache" }), concurrency, requests);
    const rpc = await measure(viaRpc, concurrency, Math.max(20, Math.floor(requests / Math.max(1, calls / 4))));
    rows.push({ route, api, apiFresh, rpc: { ...rpc, callsPerAnswer: calls }, note });
    console.log(
      `  ${route.padEnd(44)} API ${fmt(api)} | no-cache ${fmt(apiFresh)} | RPC (${calls} calls) ${rpc.rps.toFixed(1)} rps p50 ${rpc.p50Ms.toFixed(1)} p99 ${rpc.p99Ms.toFixed(1)} ms`,
    );
  };

  // warm-up (JIT, connection pools, Ponder settling after the backfill): the first route measured
  // otherwise reads ~40 % low
  for (const path of ["/bench/bare", `/markets/${eur}/orderbook`]) await measure(httpGet(`${ix.url}${path}`), concurrency, 2_000);

  await add("GET /markets/{id}/orderbook (depth 10)", `/markets/${eur}/orderbook`, 3, () =>
    Promise.all([read(eurMarket, marketAbi, "getLevels", [0, 10n]), read(eurMarket, marketAbi, "getLevels", [1, 10n]), v.client.getBlock()]),
  );
  await add("GET /markets/{id}/orderbook?depth=100", `/markets/${eur}/orderbook?depth=100`, 3, () =>
    Promise.all([read(eurMarket, marketAbi, "getLevels", [0, 100n]), read(eurMarket, marketAbi, "getLevels", [1, 100n]), v.client.getBlock()]),
  );
  // the chain has no index of orders by account: page through every order of the market
  const pages = Math.ceil(orderCount / PAGE);
  await add(
    "GET /accounts/{id}/orders (100 newest)",
    `/accounts/${acct}/orders`,
    pages,
    async () => {
      const all = await Promise.all(
        Array.from({ length: pages }, (_, i) => read(venueLens, venueLensAbi, "orders", [gbpMarket, BigInt(i * PAGE + 1), BigInt(Math.min(orderCount, (i + 1) * PAGE))])),
      );
      return (all.flat() as { accountId: bigint }[]).filter((o) => o.accountId === acct);
    },
    `VenueLens.orders in pages of ${PAGE} over ${orderCount} orders of one market`,
  );
  await add("GET /markets/{id}/funding", `/markets/${gbp}/funding`, 3, () =>
    Promise.all([read(gbpMarket, marketAbi, "funding"), read(gbpMarket, marketAbi, "markPrice"), read(oracle, oracleAbi, "getPrice", [gbp])]),
  );
  await add("GET /accounts/{id}", `/accounts/${acct}`, 1, () => read(engine, engineAbi, "getAccount", [acct]));
  await add("GET /accounts/{id}/positions/{marketId}", `/accounts/${acct}/positions/${gbp}`, 2, () =>
    Promise.all([read(gbpMarket, marketAbi, "getPosition", [acct]), read(venueLens, venueLensAbi, "positionHealth", [gbpMarket, acct])]),
  );
  // The order book while the chain moves: an empty block every 250 ms changes the indexed state,
  // so each block's first reads miss the cache (concurrent misses share one read).
  const mine = setInterval(() => void v.client.request({ method: "evm_mine" as never }).catch(() => {}), 250);
  try {
    const moving = await measure(httpGet(`${ix.url}/markets/${eur}/orderbook`), concurrency, requests);
    const movingFresh = await measure(httpGet(`${ix.url}/markets/${eur}/orderbook`, { "Cache-Control": "no-cache" }), concurrency, requests);
    console.log(`  ${"orderbook, a block every 250 ms".padEnd(44)} API ${fmt(moving)} | no-cache ${fmt(movingFresh)}`);
    rows.push({ route: "GET /markets/{id}/orderbook, a block every 250 ms", api: moving, apiFresh: movingFresh, rpc: { rps: NaN, p50Ms: NaN, p99Ms: NaN, requests: 0, callsPerAnswer: 0 } });
  } finally {
    clearInterval(mine);
  }
  const bare = await measure(httpGet(`${ix.url}/bench/bare`), concurrency, requests);
  console.log(`  GET /bench/bare (same server, no database)     ${bare.rps.toFixed(0)} rps p50 ${bare.p50Ms.toFixed(1)} p99 ${bare.p99Ms.toFixed(1)} ms`);
  rows.push({ route: "GET /bench/bare", api: bare, rpc: { rps: NaN, p50Ms: NaN, p99Ms: NaN, requests: 0, callsPerAnswer: 0 } });
  console.log(`  concurrency ${concurrency}; ${requests} API requests per route; book ${bench.restingOrders} resting orders, ${bench.historicalOrders} historical`);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run()
    .then(async (rows) => {
      console.log(JSON.stringify(rows, null, 2));
      (await prepareBenchVenue()).venue.stop().finally(() => process.exit(0));
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
