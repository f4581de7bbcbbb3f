/**
 * Indexing benchmark (printed, not asserted), on Postgres:
 *  - a generated chain: a resting EUR/USD book (600 orders over 200 levels) and 12,000
 *    historical GBP/USD orders (maker/taker pairs that fill), ≥ 100,000 venue events;
 *  - throughput: a fresh Ponder indexes the whole chain; events / second of the backfill;
 *  - freshness: transaction mined → visible through the API (GET with ?minBlock), p50/p99.
 * `prepareBenchVenue()` is shared with bench/reads.ts (one chain per process).
 *   npx tsx bench/indexing.ts            BENCH_PAIRS=6000 BENCH_FRESHNESS=100
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import type { Hex } from "viem";
import { engineAbi } from "../abis/index.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "../test/e2e/reads-env.js";
import { px, sessionActions, usd6 } from "../test/e2e/reads-session.js";

export type BenchVenue = {
  venue: Venue;
  eur: Hex;
  gbp: Hex;
  events: number;
  head: bigint;
  restingOrders: number;
  historicalOrders: number;
  generateSeconds: number;
};

const SIDE = { LONG: 0, SHORT: 1 } as const;
const TYPE = { MARKET: 0, LIMIT: 1 } as const;

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Sends placeOrder from wallet `w` with its own nonce sequence (no simulation: speed). */
export function orderSender(v: Venue, maxInFlight = 24) {
  const next = new Map<number, Promise<number>>();
  // a wallet's sends go out one after another, in nonce order: anvil can leave a transaction
  // queued for good when it arrives before its predecessor (seen: 124 of a maker's orders queued
  // behind a nonce the chain had already reached, the bench waiting on their receipts for ever)
  const lanes = new Map<number, Promise<unknown>>();
  // bounded concurrency: hundreds of simultaneous sends time out on a busy machine
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const acquire = async () => {
    while (inFlight >= maxInFlight) await new Promise<void>((r) => waiting.push(r));
    inFlight++;
  };
  const release = () => {
    inFlight--;
    waiting.shift()?.();
  };
  return async (w: number, marketId: Hex, side: 0 | 1, type: 0 | 1, collateral: string, leverage: bigint, price: string) => {
    const wallet = v.wallet(w);
    // one promise chain per wallet hands out consecutive nonces to concurrent senders
    const prev = next.get(w) ?? v.client.getTransactionCount({ address: wallet.account.address, blockTag: "pending" }).then((n) => n - 1);
    const mine = prev.then((n) => n + 1);
    next.set(w, mine);
    const sent = (lanes.get(w) ?? Promise.resolve()).then(async () => {
      const nonce = await mine;
      await acquire();
      return wallet
        .writeContract({
          address: v.deployment.contracts.engine,
          abi: engineAbi,
          functionName: "placeOrder",
          args: [{ accountId: v.accountIds[w]!, marketId, side, orderType: type, collateral6: usd6(collateral), leverage, limitPriceX18: px(price), clientKey: `0x${"0".repeat(64)}` }],
          gas: 3_000_000n,
          // far above any base fee a full-block burst reaches: a fee under the base fee is queued, not mined
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
          nonce,
          chain: null,
        } as never)
        .finally(release);
    });
    lanes.set(w, sent.catch(() => {}));
    return sent as Promise<Hex>;
  };
}

async function countEvents(v: Venue, toBlock: bigint): Promise<number> {
  const { engine, oracle, marketFactory } = v.deployment.contracts;
  const addresses = [engine, oracle, marketFactory, ...v.deployment.markets.map((m) => m.marketAddress)] as Hex[];
  let n = 0;
  const step = 100n; // small ranges: a venue log is ~0.5 kB and RPC answers are capped at 10 MB
  for (let from = 0n; from <= toBlock; from += step) {
    const to = from + step - 1n < toBlock ? from + step - 1n : toBlock;
    const logs = await v.client.getLogs({ address: addresses, fromBlock: from, toBlock: to });
    n += logs.length;
  }
  return n;
}

let prepared: Promise<BenchVenue> | undefined;
/** The indexer of the last indexing run (serves /bench/bare): bench/reads.ts reuses it. */
export let benchIndexer: Indexer | undefined;

export function prepareBenchVenue(log: (m: string) => void = console.log): Promise<BenchVenue> {
  prepared ??= (async () => {
    const t0 = performance.now();
    const venue = await startVenue("postgres");
    const [eur, gbp] = venue.deployment.markets.map((m) => m.marketId) as [Hex, Hex];
    const send = orderSender(venue);
    const wallets = [0, 1, 2, 3, 4, 5];
    const pairs = Number(process.env.BENCH_PAIRS ?? 6_000);
    let restingOrders = 0;

    // the oracle refuses orders on a price older than 60 s (PriceStale): both prices are set
    // again every 15 s while the chain is generated
    const { setPrice } = sessionActions(venue);
    const refresh = async () => (await setPrice(eur, "1.0800"), await setPrice(gbp, "1.2700")); // one sender: one at a time
    await refresh();
    let pricing: Promise<unknown> | undefined;
    const prices = setInterval(() => void (pricing ??= refresh().catch(() => {}).finally(() => (pricing = undefined))), 15_000);
    try {
      // resting book: 100 bid levels and 100 ask levels around 1.08, 3 orders each (an account
      // holds at most 100 open orders per market: bids from wallets 0–2, asks from 3–5)
      const resting: Promise<Hex>[] = [];
      for (let level = 1; level <= 100; level++) {
        for (let k = 0; k < 3; k++) {
          resting.push(send(wallets[k]!, eur, SIDE.LONG, TYPE.LIMIT, "10", 1n, (1.08 - level * 0.0001).toFixed(4)));
          resting.push(send(wallets[k + 3]!, eur, SIDE.SHORT, TYPE.LIMIT, "10", 1n, (1.08 + level * 0.0001).toFixed(4)));
        }
      }
      const restingHashes = await Promise.all(resting);
      for (const hash of restingHashes.slice(-6)) await venue.client.waitForTransactionReceipt({ hash, timeout: 600_000 });
      log(`  resting book: ${restingHashes.length} orders over 200 levels`);
      restingOrders = restingHashes.length;

      // history: makers (wallets 0, 2, 4) rest asks at one price, then takers (1, 3, 5) lift them
      // one by one with market orders of the same size: every order ends filled. Batches of 240
      // (80 open asks per maker at most), sent concurrently, so anvil packs many per block.
      const sendBatch = async (from: readonly number[], n: number, side: 0 | 1, type: 0 | 1, price: string) => {
        const hashes = await Promise.all(Array.from({ length: n }, (_, i) => send(from[i % from.length]!, gbp, side, type, "20", 1n, price)));
        await Promise.all(from.map((_, k) => venue.client.waitForTransactionReceipt({ hash: hashes[hashes.length - 1 - k]!, pollingInterval: 20, timeout: 600_000 })));
      };
      for (let done = 0; done < pairs; ) {
        const n = Math.min(240, pairs - done);
        await sendBatch([0, 2, 4], n, SIDE.SHORT, TYPE.LIMIT, "1.2700");
        await sendBatch([1, 3, 5], n, SIDE.LONG, TYPE.MARKET, "0");
        done += n;
        if (done % 1200 === 0 || done === pairs) log(`  history: ${done}/${pairs} pairs`);
      }
    } finally {
      clearInterval(prices);
      await pricing;
    }
    const head = await venue.client.getBlockNumber({ cacheTime: 0 });
    const events = await countEvents(venue, head);
    const generateSeconds = (performance.now() - t0) / 1000;
    log(`  chain: ${head} blocks, ${events} venue events, generated in ${generateSeconds.toFixed(0)} s`);
    return { venue, eur, gbp, events, head, restingOrders, historicalOrders: pairs * 2, generateSeconds };
  })();
  return prepared;
}

export type IndexingResult = {
  events: number;
  blocks: number;
  backfillSeconds: number;
  eventsPerSecond: number;
  handlerEventsPerSecond: number;
  freshness: { samples: number; p50Ms: number; p99Ms: number; maxMs: number };
};

/** Backfill throughput of a fresh Ponder, then freshness on the live indexer. */
export async function run(opts: { keep?: boolean } = {}): Promise<IndexingResult & { indexer: Indexer; bench: BenchVenue }> {
  process.env.PONDER_TELEMETRY_DISABLED = "true";
  process.env.BENCH = "1"; // the indexer also serves bench/reads.ts, with its /bench/bare baseline
  const bench = await prepareBenchVenue();
  const { venue } = bench;
  // BENCH_RPC_FANOUT: one fresh backfill per value of ponder.config.ts's RPC_FANOUT (the last one
  // stays up for the freshness samples), e.g. "1,16" to compare Ponder's default pace with ours
  const fanouts = (process.env.BENCH_RPC_FANOUT ?? "16").split(",").map((x) => x.trim());
  let indexer!: Indexer;
  let backfillSeconds = 0;
  let eventsPerSecond = 0;
  for (const [k, fanout] of fanouts.entries()) {
    if (indexer) await indexer.stop();
    process.env.RPC_FANOUT = fanout;
    const t0 = performance.now();
    indexer = await venue.startIndexer(`bench${k}`, { waitReady: false }); // HTTP up, backfill starting
    benchIndexer = indexer;
    const t1 = performance.now();
    await waitForBlock(indexer.url, bench.head, 900_000);
    const t2 = performance.now();
    backfillSeconds = (t2 - t1) / 1000;
    eventsPerSecond = bench.events / backfillSeconds;
    console.log(
      `  backfill (RPC_FANOUT=${fanout}): ${bench.events} events in ${backfillSeconds.toFixed(1)} s = ${eventsPerSecond.toFixed(0)} events/s (process start to HTTP up: ${((t1 - t0) / 1000).toFixed(1)} s, not counted; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`,
    );
  }

  // Ponder's own log: time spent running handlers and writing (without the JSON-RPC fetch)
  const indexedRanges = readFileSync(indexer.proc.logFile, "utf8")
    .split("\n")
    .filter((l) => l.includes('"Indexed block range"'))
    .map((l) => JSON.parse(l) as { event_count: number; duration: number });
  const handlerEvents = indexedRanges.reduce((n, r) => n + r.event_count, 0);
  const handlerSeconds = indexedRanges.reduce((n, r) => n + r.duration, 0) / 1000;
  const handlerEventsPerSecond = handlerEvents / handlerSeconds;
  console.log(`  handlers + store (Ponder's "Indexed block range" durations): ${handlerEvents} events in ${handlerSeconds.toFixed(1)} s = ${handlerEventsPerSecond.toFixed(0)} events/s`);

  // freshness: a resting order per sample, read back as soon as its block is indexed
  const samples = Number(process.env.BENCH_FRESHNESS ?? 100);
  const { place, setPrice } = sessionActions(venue);
  await setPrice(bench.gbp, "1.2700"); // fresh (PriceStale after 60 s)
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    // GBP/USD bids below the (filled) history, over the six wallets (at most 100 open orders each per market)
    const receipt = await place(i % 6, bench.gbp, "LONG", "LIMIT", "10", 1, "1.2600"); // within the limit-price band around 1.27
    const mined = performance.now();
    const res = await fetch(`${indexer.url}/accounts/${venue.accountIds[0]}?minBlock=${receipt.blockNumber}`);
    if (res.status !== 200) throw new Error(`freshness read answered ${res.status}`);
    ms.push(performance.now() - mined);
  }
  ms.sort((a, b) => a - b);
  const freshness = { samples, p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99), maxMs: ms.at(-1)! };
  console.log(`  freshness (mined → visible): p50 ${freshness.p50Ms.toFixed(0)} ms, p99 ${freshness.p99Ms.toFixed(0)} ms over ${samples}`);
  const result = { events: bench.events, blocks: Number(bench.head), backfillSeconds, eventsPerSecond, handlerEventsPerSecond, freshness, indexer, bench };
  if (!opts.keep) await venue.stop();
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run()
    .then((r) => {
      console.log(JSON.stringify({ ...r, indexer: undefined, bench: undefined }, null, 2));
      process.exit(0);
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
