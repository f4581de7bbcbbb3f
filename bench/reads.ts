/**
 * Read benchmark (printed, not asserted), on PGlite and on Postgres in one run, while blocks
 * arrive (an index price update every second). For each hot route: the read service
 * (services/reads, the integration API's URL) as clients read it and with
 * `Cache-Control: no-cache`, Ponder's own server (the previous path), a bare Hono route in a
 * separate process serving the same body, and the cheapest contract view call for the same
 * answer (one `eth_call` on the same anvil, named per row). The load generator runs in a
 * separate process (16 connections; the columns take turns, 3 rounds of 3 s, median round):
 * autocannon, or wrk with BENCH_LOADGEN=wrk (bench/load.ts); CPU time per request is the
 * server's process group's (from /proc).
 *   npx tsx bench/reads.ts     BENCH_DBS=pglite,postgres BENCH_DURATION_S=3 BENCH_ROUNDS=3 BENCH_CONNECTIONS=16
 *     BENCH_FRESHNESS=50 (samples, after BENCH_FRESHNESS_WARMUP=3 not counted) BENCH_READS_ROWS=0 (freshness only) or a list of rows (1-based, e.g. 1,4)
 *     BENCH_OVERHEAD_REQUESTS=1000 BENCH_READS_PAIRS=300
 *     BENCH_SPRAY=N: during the freshness samples another process keeps N distinct valid URLs of
 *       the hot routes (book depths, order page sizes) held in the read service (bench/spray.ts)
 *     BENCH_READS_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (the read service's node flags: a CPU profile of it)
 *     BENCH_GATEWAY_NODE_ARGS (the same for the gateway)
 *     BENCH_NODE_CEILING=1: two more columns, Node's own HTTP server doing no work (bench/node-server.ts)
 *       in one process and in one per core (node:cluster): what any Node server reaches here
 *     BENCH_AB="a:READS_Y=2;b:READS_Y=0": after the rows, the freshness samples A/B, each variant's
 *       READS_* set in its read service (Ponder has no switches: an A/B of Ponder's code runs two
 *       checkouts), interleaved BENCH_AB_ROUNDS=2 times (BENCH_FRESHNESS samples each); on PGlite also
 *       the statements per sample (bench/pglite-statements-hook.mjs in Ponder's process)
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { encodeFunctionData, type Hex } from "viem";
import { engineAbi, venueLensAbi } from "../abis/index.js";
import { freePort } from "../core/chain/anvil.js";
import { PROJECT_ROOT } from "../core/deployment.js";
import { startProcess, waitForHttp } from "../scripts/lib/processes.js";
import { sseBlockFeed } from "../core/indexer/blocks.js";
import { serviceMain, nodeTs } from "../scripts/lib/services.js";
import { DEFAULT_ADMIN_TOKEN, devAccount } from "../core/config.js";
import { startVenue, waitForBlock, type Venue } from "../test/e2e/reads-env.js";
import { sessionActions } from "../test/e2e/reads-session.js";
import type { DbKind } from "../test/e2e/stack.js";
import { orderSender, percentile } from "./indexing.js";
import { cannon, groupCpuMs, loadGenerator, type Load } from "./load.js";

export type ReadRow = {
  db: DbKind;
  route: string;
  call: string;
  reads: Load;
  readsNoCache: Load;
  ponder: Load;
  bare: Load;
  /** the load generator's ceiling: fixed bytes from a socket server in the bare route's process (bare-server.ts) */
  ceiling: Load;
  rpc: Load;
  /** BENCH_NODE_CEILING=1: Node's HTTP server doing no work, one process and one per core (node-server.ts) */
  node?: { one: Load; all: Load; workers: number };
  /** the same read through the gateway (/v1, X-API-Key with a high limit), and its added latency (sequential requests, interleaved with the read service's) */
  gateway: Load;
  /** `own*`: the gateway's own time (Server-Timing); `hotShare`, `ownHotP99Ms`: the answers of its hot path (below Hono) and their p99 */
  gatewayOverhead: { p50Ms: number; p99Ms: number; ownP50Ms: number; ownP99Ms: number; hotShare: number; ownHotP99Ms: number };
};

export type FreshnessStages = Record<"head" | "receipt" | "ponderPush" | "readsPush" | "visible", { p50Ms: number; p99Ms: number }>;
export const freshness: {
  db: DbKind;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  stages: FreshnessStages;
  /** Ponder's "Indexed block" durations of the samples' blocks */
  indexedBlock: { p50Ms: number; p99Ms: number };
  cpuMsPerSample: { ponder: number; reads: number };
  /** the A/B's variant (BENCH_AB) and the load average at its start */
  variant?: string;
  load?: string;
  /** PGlite statements per sample and the time inside PGlite per sample, wall and CPU (the hook's counts) */
  pglite?: { statements: number; ms: number; cpuMs: number };
}[] = [];

/**
 * Freshness, mined → visible through the read service: a resting order per sample, its account
 * read back with `?minBlock=<its block>` as soon as the receipt is in (p50/p99 from the receipt,
 * as before), and where the time goes, each stage from the moment the transaction was mined (the
 * earlier of anvil's answer to the send and its newHeads push): anvil's newHeads over its
 * WebSocket, the receipt, Ponder's block push (its /blocks/stream: the block committed and its
 * state read), the read service's push (its /blocks/stream), the answer. The hot routes are read
 * before every sample, so each block rebuilds them as under load.
 */
export async function freshnessSamples(
  v: Venue,
  ix: { url: string; pid: number; logFile: string },
  rd: { url: string; pid: number },
  market: Hex,
  hot: string[],
  freshPrice: () => Promise<unknown>,
  log: (m: string) => void,
  statementsFile?: string,
) {
  const [ponderUrl, readsUrl] = [ix.url, rd.url];
  const seen = { head: [] as [bigint, number][], ponderPush: [] as [bigint, number][], readsPush: [] as [bigint, number][] };
  const firstAt = (list: [bigint, number][], n: bigint) => list.find(([b]) => b >= n)?.[1];
  const { WebSocket } = await import("ws");
  const heads = new WebSocket(v.rpcUrl.replace(/^http/, "ws"));
  heads.on("open", () => heads.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] })));
  heads.on("message", (d) => {
    const m = JSON.parse(String(d)) as { params?: { result?: { number?: string } } };
    if (m.params?.result?.number) seen.head.push([BigInt(m.params.result.number), performance.now()]);
  });
  const record = (url: string, list: [bigint, number][]) => {
    const f = sseBlockFeed({ url });
    f.subscribe((s) => list.push([s.number, performance.now()]));
    return f;
  };
  const feeds = [record(ponderUrl, seen.ponderPush), record(readsUrl, seen.readsPush)];
  const { engine } = v.deployment.contracts;
  const ms: number[] = [];
  const stages: Record<keyof FreshnessStages, number[]> = { head: [], receipt: [], ponderPush: [], readsPush: [], visible: [] };
  let failed = 0;
  const n = Number(process.env.BENCH_FRESHNESS ?? 50);
  const blocks: bigint[] = [];
  // BENCH_SPRAY=N: meanwhile another client keeps N distinct URLs of the hot routes held (bench/spray.ts)
  const sprayKeys = Number(process.env.BENCH_SPRAY ?? 0);
  const sprayLog = join(tmpdir(), `bench-spray-${process.pid}-${Date.now()}.log`);
  const spray = sprayKeys
    ? startProcess("spray", process.execPath, nodeTs(join(PROJECT_ROOT, "bench", "spray.ts")), { ...process.env, SPRAY_URL: readsUrl, SPRAY_MARKETS: v.deployment.markets.map((m) => m.marketId).join(","), SPRAY_ACCOUNTS: v.accountIds.join(","), SPRAY_KEYS: String(sprayKeys) }, sprayLog, PROJECT_ROOT)
    : undefined;
  if (spray) {
    for (let t = 0; t < 600 && !/"ok"/.test(readFileSync(sprayLog, "utf8")); t++) await new Promise((r) => setTimeout(r, 100));
    log(`  spray: ${readFileSync(sprayLog, "utf8").trim()} (every URL read again every 5 s)`);
  }
  const counts = () => (statementsFile ? (JSON.parse(readFileSync(statementsFile, "utf8")) as { statements: number; ms: number; cpuMs?: number; byKind?: Record<string, [number, number, number?]> }) : undefined);
  // what the counted samples' CPU and PGlite statements are measured from
  const baseline = async () => {
    if (statementsFile) await new Promise((r) => setTimeout(r, 300)); // the hook writes every 250 ms
    return { cpu: [groupCpuMs(ix.pid), groupCpuMs(rd.pid)], counts: counts() };
  };
  let start = await baseline();
  // BENCH_FRESHNESS_WARMUP (3) samples first, not counted: the first blocks after a start run
  // cold paths (a 6-event block took 93–180 ms on Postgres where the rest took 14–47)
  const warm = Number(process.env.BENCH_FRESHNESS_WARMUP ?? 3);
  try {
    await new Promise((r) => setTimeout(r, 500));
    let priced = performance.now();
    for (let k = -warm; k < n; k++) {
      // the index price stays fresh (PriceStale after 60 s) however slowly the samples go
      if (performance.now() - priced > 30_000) {
        await freshPrice();
        priced = performance.now();
      }
      await Promise.all(hot.map(async (p) => (await fetch(`${readsUrl}${p}`)).arrayBuffer()));
      // rotate the prepared accounts: each holds at most 100 open orders per market (TooManyOrders)
      const w = (k + warm) % v.accountIds.length;
      const wallet = v.wallet(w);
      const args = [{ accountId: v.accountIds[w]!, marketId: market, side: 0, orderType: 1, collateral6: 10_000_000n, leverage: 1n, limitPriceX18: 1_070_000_000_000_000_000n, clientKey: `0x${"0".repeat(64)}` }];
      let sent: number;
      let hash: Hex;
      try {
        const { request } = await v.client.simulateContract({ address: engine, abi: engineAbi, functionName: "placeOrder", args, account: wallet.account } as never);
        sent = performance.now();
        hash = await wallet.writeContract({ ...(request as object), gas: 8_000_000n } as never);
      } catch (e) {
        if (++failed > 5) throw e;
        log(`  freshness sample ${k}: ${(e as Error).message.split("\n")[0]} (skipped)`);
        continue;
      }
      const answered = performance.now();
      const receipt = await v.client.waitForTransactionReceipt({ hash });
      const got = performance.now();
      const res = await fetch(`${readsUrl}/accounts/${v.accountIds[w]}?minBlock=${receipt.blockNumber}`);
      if (res.status !== 200) throw new Error(`freshness read answered ${res.status}`);
      await res.arrayBuffer();
      const visible = performance.now();
      if (k < 0) {
        if (k === -1) start = await baseline();
        continue;
      }
      ms.push(visible - got);
      const b = receipt.blockNumber;
      blocks.push(b);
      const head = firstAt(seen.head, b);
      const mined = Math.max(sent, Math.min(answered, head ?? answered));
      const at = { head, receipt: got, ponderPush: firstAt(seen.ponderPush, b), readsPush: firstAt(seen.readsPush, b), visible };
      for (const [s, t] of Object.entries(at)) if (t !== undefined) stages[s as keyof FreshnessStages].push(t - mined);
    }
  } finally {
    heads.close();
    await Promise.all(feeds.map((f) => f.close()));
    await spray?.stop();
  }
  // CPU of Ponder's and the read service's process groups per sample (each sample is one block,
  // with the hot routes read before it): less sensitive to the machine's load than the latencies
  const { cpu: cpu0, counts: counts0 } = start;
  const cpuPerSample = [groupCpuMs(ix.pid) - cpu0[0]!, groupCpuMs(rd.pid) - cpu0[1]!].map((c) => c / Math.max(1, ms.length)) as [number, number];
  await new Promise((r) => setTimeout(r, 300));
  const counts1 = counts();
  const pglite =
    counts0 && counts1
      ? {
          statements: (counts1.statements - counts0.statements) / Math.max(1, ms.length),
          ms: (counts1.ms - counts0.ms) / Math.max(1, ms.length),
          cpuMs: ((counts1.cpuMs ?? 0) - (counts0.cpuMs ?? 0)) / Math.max(1, ms.length),
        }
      : undefined;
  if (counts0?.byKind && counts1?.byKind) {
    // statements per sample by kind (their first words), the costliest first
    const per = Object.entries(counts1.byKind).map(
      ([k, [n, t, c]]) =>
        [k, (n - (counts0.byKind![k]?.[0] ?? 0)) / Math.max(1, ms.length), (t - (counts0.byKind![k]?.[1] ?? 0)) / Math.max(1, ms.length), ((c ?? 0) - (counts0.byKind![k]?.[2] ?? 0)) / Math.max(1, ms.length)] as const,
    );
    for (const [k, n, t, c] of per.filter(([, n]) => n > 0).sort((a, b) => b[2] - a[2]).slice(0, 16)) log(`      PGlite per sample: ${n.toFixed(1)} × ${k}, ${t.toFixed(1)} ms (CPU ${c.toFixed(1)} ms)`);
  }
  // Ponder's own "Indexed block" durations (head → block committed) of the samples' blocks
  const indexed = indexedBlockDurations(ix.logFile, new Set(blocks));
  ms.sort((a, b) => a - b);
  const out = {
    samples: ms.length,
    p50Ms: percentile(ms, 50),
    p99Ms: percentile(ms, 99),
    stages: {} as FreshnessStages,
    indexedBlock: { p50Ms: percentile(indexed, 50), p99Ms: percentile(indexed, 99) },
    cpuMsPerSample: { ponder: cpuPerSample[0], reads: cpuPerSample[1] },
    pglite,
  };
  for (const [s, l] of Object.entries(stages)) {
    l.sort((a, b) => a - b);
    out.stages[s as keyof FreshnessStages] = { p50Ms: percentile(l, 50), p99Ms: percentile(l, 99) };
  }
  log(`  freshness (mined → visible through the read service): p50 ${out.p50Ms.toFixed(0)} ms, p99 ${out.p99Ms.toFixed(0)} ms over ${ms.length} (from the receipt)`);
  log(`    stages from mined, p50/p99 ms: ${Object.entries(out.stages).map(([s, q]) => `${s} ${q.p50Ms.toFixed(0)}/${q.p99Ms.toFixed(0)}`).join(", ")}`);
  log(`    Ponder's "Indexed block" p50/p99 ${out.indexedBlock.p50Ms.toFixed(0)}/${out.indexedBlock.p99Ms.toFixed(0)} ms over ${indexed.length}; CPU per sample: Ponder ${cpuPerSample[0].toFixed(0)} ms, read service ${cpuPerSample[1].toFixed(0)} ms${pglite ? `; PGlite per sample: ${pglite.statements.toFixed(1)} statements, ${pglite.ms.toFixed(1)} ms inside it (CPU ${pglite.cpuMs.toFixed(1)} ms)` : ""}`);
  return out;
}

/**
 * The A/B's variants: BENCH_AB="name:KEY=value,KEY2=value;name2:KEY=value" (READS_* in the read
 * service's environment at its start).
 */
function abVariants(): { name: string; reads: Record<string, string> }[] | undefined {
  const ab = process.env.BENCH_AB?.split(";").map((x) => x.trim()).filter(Boolean);
  if (ab?.length) {
    return ab.map((spec) => {
      const [name, list = ""] = spec.split(":", 2) as [string, string?];
      const reads: Record<string, string> = {};
      for (const kv of list.split(",").map((x) => x.trim()).filter(Boolean)) {
        const [k, v = ""] = kv.split("=", 2) as [string, string?];
        if (k.startsWith("READS_")) reads[k] = v;
        else throw new Error(`BENCH_AB: ${k} is not a read service's switch (READS_*); Ponder has none`);
      }
      return { name: name.trim(), reads };
    });
  }
  return undefined;
}

/** Ponder's "Indexed block" durations (its JSON log) of the given blocks, sorted. */
function indexedBlockDurations(logFile: string, blocks: Set<bigint>): number[] {
  const out: number[] = [];
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    if (!line.includes('"Indexed block"')) continue;
    try {
      const o = JSON.parse(line) as { number: number; duration: number };
      if (blocks.has(BigInt(o.number))) out.push(o.duration);
    } catch {
      // a partial line
    }
  }
  return out.sort((a, b) => a - b);
}

const SIDE = { LONG: 0, SHORT: 1 } as const;
const TYPE = { MARKET: 0, LIMIT: 1 } as const;

/** A book of 200 resting EUR/USD orders over 40 levels, and 600 filled GBP/USD orders (account 2 holds a long). */
async function generate(v: Venue, log: (m: string) => void) {
  const [eur, gbp] = v.deployment.markets.map((m) => m.marketId) as [Hex, Hex];
  const send = orderSender(v);
  const hashes: Promise<Hex>[] = [];
  for (let level = 1; level <= 20; level++) {
    for (let k = 0; k < 5; k++) {
      hashes.push(send(k % 2, eur, SIDE.LONG, TYPE.LIMIT, "10", 1n, (1.08 - level * 0.0001).toFixed(4)));
      hashes.push(send(3 + (k % 2), eur, SIDE.SHORT, TYPE.LIMIT, "10", 1n, (1.08 + level * 0.0001).toFixed(4)));
    }
  }
  const pairs = Number(process.env.BENCH_READS_PAIRS ?? 300);
  // the resting asks rotate over three makers: each holds at most 100 open orders per market (TooManyOrders)
  const makers = [5, 3, 4];
  for (let i = 0; i < pairs; i++) hashes.push(send(makers[i % 3]!, gbp, SIDE.SHORT, TYPE.LIMIT, "20", 1n, "1.2700"));
  await receipts(v, await Promise.all(hashes));
  const takes: Promise<Hex>[] = [];
  for (let i = 0; i < pairs; i++) takes.push(send(2, gbp, SIDE.LONG, TYPE.MARKET, "20", 1n, "0"));
  await receipts(v, await Promise.all(takes));
  log(`  chain: 200 resting EUR/USD orders over 40 levels, ${pairs * 2} filled GBP/USD orders`);
  return { eur, gbp };
}

/**
 * The gateway's added latency: sequential requests over one kept-alive connection each,
 * the read service's and the gateway's interleaved (same machine load), p50 and p99 of each
 * side, differenced.
 */
async function overhead(direct: string, viaGateway: string, headers: Record<string, string>, n = Number(process.env.BENCH_OVERHEAD_REQUESTS ?? 1000)) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const agent2 = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const own: number[] = []; // the gateway's own time (its Server-Timing), apart from the client's and the network's
  const ownHot: number[] = []; // of it, the answers of the hot path (their Server-Timing names no upstream)
  const once = (url: string, h: Record<string, string>, a: http.Agent) =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      http.get(url, { headers: h, agent: a }, (res) => {
        const timing = String(res.headers["server-timing"] ?? "");
        const m = /gateway;dur=([\d.]+)/.exec(timing);
        if (m) own.push(Number(m[1]));
        if (m && !timing.includes("upstream")) ownHot.push(Number(m[1]));
        res.on("data", () => {}).on("end", () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${url}: ${res.statusCode}`))));
      }).on("error", reject);
    });
  const d: number[] = [];
  const g: number[] = [];
  for (let i = 0; i < n; i++) {
    d.push(await once(direct, {}, agent));
    g.push(await once(viaGateway, headers, agent2));
  }
  agent.destroy();
  agent2.destroy();
  d.sort((a, b) => a - b);
  g.sort((a, b) => a - b);
  own.sort((a, b) => a - b);
  ownHot.sort((a, b) => a - b);
  return {
    p50Ms: percentile(g, 50) - percentile(d, 50),
    p99Ms: percentile(g, 99) - percentile(d, 99),
    ownP50Ms: percentile(own, 50),
    ownP99Ms: percentile(own, 99),
    hotShare: ownHot.length / Math.max(1, own.length),
    ownHotP99Ms: percentile(ownHot, 99),
  };
}

/** Every sender's last transaction mined (a loaded machine mines hundreds slowly: no 3-minute bound). */
async function receipts(v: Venue, hashes: Hex[]) {
  for (const hash of hashes.slice(-8)) await v.client.waitForTransactionReceipt({ hash, timeout: 900_000 });
}

const fmt = (l: Load) => `${l.rps.toFixed(0).padStart(6)} rps ${l.p50Ms.toFixed(0)}/${l.p99Ms.toFixed(0)} ms`;
const cpu = (l: Load) => (Number.isNaN(l.cpuUsPerRequest) ? "–" : `${l.cpuUsPerRequest.toFixed(0)} µs`);

async function benchDb(kind: DbKind, log: (m: string) => void): Promise<ReadRow[]> {
  const durationS = Number(process.env.BENCH_DURATION_S ?? 3);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
  const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");
  log(`\n-- ${kind} (load average ${load()}; load generator ${loadGenerator()})`);
  const v = await startVenue(kind);
  const stops: (() => Promise<void>)[] = [() => v.stop()];
  let blocks: NodeJS.Timeout | undefined;
  try {
    const { eur, gbp } = await generate(v, log);
    // an A/B of switches (BENCH_AB), and on PGlite the statements it costs
    const variants = abVariants();
    const statementsFile = variants && kind === "pglite" ? join(mkdtempSync(join(tmpdir(), "bench-pglite-")), "statements.json") : undefined;
    if (statementsFile) {
      process.env.BENCH_PGLITE_STATEMENTS_FILE = statementsFile;
      process.env.BENCH_PONDER_NODE_ARGS = `${process.env.BENCH_PONDER_NODE_ARGS ?? ""} --import ${join(PROJECT_ROOT, "bench", "pglite-statements-hook.mjs")}`;
    }
    const ix = await v.startIndexer("rbench");
    await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }), 600_000);
    const rd = await v.startReads(ix);
    const acct = v.accountIds[2]!; // a taker with 300 orders and a GBP/USD long
    const { engine, venueLens } = v.deployment.contracts;
    const eurMarket = v.deployment.markets[0]!.marketAddress as Hex;
    const gbpMarket = v.deployment.markets[1]!.marketAddress as Hex;
    const orderCount = Number(await v.client.readContract({ address: gbpMarket, abi: [{ type: "function", name: "orderCount", inputs: [], outputs: [{ type: "uint256" }], stateMutability: "view" }] as const, functionName: "orderCount" }));
    const lens = (functionName: string, args: readonly unknown[]) => ({ to: venueLens, data: encodeFunctionData({ abi: venueLensAbi, functionName, args } as never) });
    // the gateway's path is /v1 + the same path (the query of these routes has the same names)
    const routes: { route: string; path: string; call: string; tx: { to: Hex; data: Hex } }[] = [
      { route: "book, depth 10", path: `/markets/${eur}/orderbook`, call: "VenueLens.book(market, 10)", tx: lens("book", [eurMarket, 10n]) },
      { route: "markets list", path: "/markets", call: "VenueLens.markets(engine)", tx: lens("markets", [engine]) },
      { route: "a market's funding and price", path: `/markets/${gbp}/funding`, call: "VenueLens.marketState(market)", tx: lens("marketState", [gbpMarket]) },
      { route: "an account", path: `/accounts/${acct}`, call: "Engine.getAccount(id)", tx: { to: engine, data: encodeFunctionData({ abi: engineAbi, functionName: "getAccount", args: [acct] }) } },
      { route: "a position", path: `/accounts/${acct}/positions/${gbp}`, call: "VenueLens.positions(engine, id)", tx: lens("positions", [engine, acct]) },
      {
        route: "an account's newest orders",
        path: `/accounts/${acct}/orders?limit=20`,
        call: "VenueLens.orders(market, n-19, n)¹",
        tx: lens("orders", [gbpMarket, BigInt(Math.max(1, orderCount - 19)), BigInt(orderCount)]),
      },
    ];

    // the bare route: a process of its own serving each route's body as it is now
    const bodies = await Promise.all(routes.map(async (r) => (await fetch(`${rd.url}${r.path}`)).text()));
    const dir = mkdtempSync(join(tmpdir(), "bench-bare-"));
    writeFileSync(join(dir, "bodies.json"), JSON.stringify(bodies));
    const barePort = await freePort();
    const ceilingPort = await freePort();
    const bare = startProcess("bare", process.execPath, nodeTs(join(PROJECT_ROOT, "bench", "bare-server.ts")), { ...process.env, PORT: String(barePort), CEILING_PORT: String(ceilingPort), BENCH_BARE_BODIES: join(dir, "bodies.json") }, join(dir, "bare.log"), PROJECT_ROOT);
    stops.push(() => bare.stop());
    const bareUrl = `http://127.0.0.1:${barePort}`;
    const ceilingUrl = `http://127.0.0.1:${ceilingPort}`;
    await waitForHttp(`${bareUrl}/health`, { proc: bare });
    // BENCH_NODE_CEILING=1: Node's own server doing no work, one process and one per core
    const nodeWorkers = availableParallelism();
    const nodeServers =
      process.env.BENCH_NODE_CEILING === "1"
        ? await Promise.all(
            [1, nodeWorkers].map(async (workers) => {
              const port = await freePort();
              const p = startProcess(`node-${workers}`, process.execPath, nodeTs(join(PROJECT_ROOT, "bench", "node-server.ts")), { ...process.env, PORT: String(port), NODE_WORKERS: String(workers), BENCH_BARE_BODIES: join(dir, "bodies.json") }, join(dir, `node-${workers}.log`), PROJECT_ROOT);
              stops.push(() => p.stop());
              const url = `http://127.0.0.1:${port}`;
              await waitForHttp(`${url}/health`, { proc: p });
              return { url, pid: p.pid };
            }),
          )
        : undefined;

    // the gateway in front of the read service (its own PGlite key store), a key with a high limit
    const gwPort = await freePort();
    const gwEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(gwPort), HOST: "127.0.0.1", INTEGRATION_URL: rd.url, PGLITE_DIR: join(dir, "gateway-db"), RATE_LIMIT_PER_MINUTE: "1000000000", LOG_LEVEL: "warn", PROFILE: "local" };
    delete gwEnv.DATABASE_URL;
    delete gwEnv.REDIS_URL;
    // BENCH_GATEWAY_NODE_ARGS: the gateway's own node flags (as the read service's)
    const gwFlags = process.env.BENCH_GATEWAY_NODE_ARGS?.split(/\s+/).filter(Boolean);
    const gwArgs = nodeTs(serviceMain("gateway"), gwFlags ?? []);
    const gw = startProcess("gateway", process.execPath, gwArgs, gwEnv, join(dir, "gateway.log"), PROJECT_ROOT);
    stops.push(() => gw.stop());
    const gwUrl = `http://127.0.0.1:${gwPort}`;
    await waitForHttp(`${gwUrl}/v1/markets`, { proc: gw, timeoutMs: 120_000 });
    const keyRes = await fetch(`${gwUrl}/admin/keys`, { method: "POST", headers: { "content-type": "application/json", "X-Admin-Token": DEFAULT_ADMIN_TOKEN }, body: JSON.stringify({ wallet: devAccount(2).address, label: "bench" }) });
    const apiKey = ((await keyRes.json()) as { data: { key: string } }).data.key;

    // blocks arrive: an index price update every second (every held answer is rebuilt per block)
    const { setPrice } = sessionActions(v);
    let tick = 0;
    let pricing: Promise<unknown> | undefined;
    blocks = setInterval(() => {
      if (pricing) return;
      pricing = setPrice(eur, (1.08 + (tick++ % 2) * 0.0001).toFixed(4)).catch(() => {}).finally(() => (pricing = undefined));
    }, 1_000);

    const o = { connections, durationS };
    // warm-up: JIT of every server
    if (process.env.BENCH_READS_ROWS !== "0") for (const url of [`${rd.url}${routes[0]!.path}`, `${ix.url}${routes[0]!.path}`, `${bareUrl}/bare/0`]) await cannon(url, { ...o, durationS: 2 });
    if (process.env.BENCH_READS_ROWS !== "0") await cannon(`${gwUrl}/v1${routes[0]!.path}`, { ...o, durationS: 2, headers: { "X-API-Key": apiKey } });

    const rows: ReadRow[] = [];
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    // BENCH_READS_ROWS=0: the freshness samples only; BENCH_READS_ROWS=1,4: those rows (1-based) only
    const rowsWanted = process.env.BENCH_READS_ROWS?.split(",").map(Number);
    for (const [i, r] of routes.entries()) {
      if (rowsWanted && !rowsWanted.includes(i + 1)) continue;
      const columns = {
        reads: () => cannon(`${rd.url}${r.path}`, { ...o, cpuPgid: rd.proc.pid }),
        readsNoCache: () => cannon(`${rd.url}${r.path}`, { ...o, headers: { "Cache-Control": "no-cache" }, cpuPgid: rd.proc.pid }),
        ponder: () => cannon(`${ix.url}${r.path}`, { ...o, cpuPgid: ix.proc.pid }),
        bare: () => cannon(`${bareUrl}/bare/${i}`, { ...o, cpuPgid: bare.pid }),
        ceiling: () => cannon(`${ceilingUrl}/bare/${i}`, o),
        ...(nodeServers && {
          nodeOne: () => cannon(`${nodeServers[0]!.url}/bare/${i}`, { ...o, cpuPgid: nodeServers[0]!.pid }),
          nodeAll: () => cannon(`${nodeServers[1]!.url}/bare/${i}`, { ...o, cpuPgid: nodeServers[1]!.pid }),
        }),
        gateway: () => cannon(`${gwUrl}/v1${r.path}`, { ...o, headers: { "X-API-Key": apiKey }, cpuPgid: gw.pid }),
        rpc: () =>
          cannon(v.rpcUrl, {
            ...o,
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [r.tx, "latest"] }),
            cpuPid: v.anvilPid,
          }),
      };
      // the columns take turns, `rounds` times, so a burst of load elsewhere on the machine
      // hits them alike; each column reports its median round (by requests/s)
      const runs: Record<string, Load[]> = Object.fromEntries(Object.keys(columns).map((k) => [k, []]));
      for (let k = 0; k < rounds; k++) for (const [name, f] of Object.entries(columns)) runs[name]!.push(await f());
      const median = (ls: Load[]) => [...ls].sort((a, b) => a.rps - b.rps)[Math.floor(ls.length / 2)]!;
      const [reads, readsNoCache, ponder, bareL, ceiling, rpc, gateway] = [runs.reads!, runs.readsNoCache!, runs.ponder!, runs.bare!, runs.ceiling!, runs.rpc!, runs.gateway!].map(median) as [Load, Load, Load, Load, Load, Load, Load];
      const gatewayOverhead = await overhead(`${rd.url}${r.path}`, `${gwUrl}/v1${r.path}`, { "X-API-Key": apiKey });
      for (const [name, l] of Object.entries({ reads, readsNoCache, ponder, bare: bareL, ceiling, rpc, gateway })) {
        if (l.non2xx || l.errors) log(`  !! ${r.route} ${name}: ${l.non2xx} non-2xx, ${l.errors} errors`);
      }
      const node = nodeServers && { one: median(runs.nodeOne!), all: median(runs.nodeAll!), workers: nodeWorkers };
      rows.push({ db: kind, route: r.route, call: r.call, reads, readsNoCache, ponder, bare: bareL, ceiling, rpc, gateway, gatewayOverhead, node });
      log(
        `  ${r.route.padEnd(28)} reads ${fmt(reads)} ${cpu(reads)} | no-cache ${fmt(readsNoCache)} ${cpu(readsNoCache)} | Ponder ${fmt(ponder)} | bare ${fmt(bareL)} ${cpu(bareL)} | ceiling ${fmt(ceiling)} | ${r.call} ${fmt(rpc)} ${cpu(rpc)} | reads/bare ${((100 * reads.rps) / bareL.rps).toFixed(0)} % | reads/RPC ${(reads.rps / rpc.rps).toFixed(1)}× (ceiling/RPC ${(ceiling.rps / rpc.rps).toFixed(1)}×) | gateway ${fmt(gateway)} ${cpu(gateway)} ${((100 * gateway.rps) / reads.rps).toFixed(0)} % of reads, overhead p50/p99 ${gatewayOverhead.p50Ms.toFixed(2)}/${gatewayOverhead.p99Ms.toFixed(2)} ms (own time ${gatewayOverhead.ownP50Ms.toFixed(2)}/${gatewayOverhead.ownP99Ms.toFixed(2)} ms; hot path ${(100 * gatewayOverhead.hotShare).toFixed(0)} %, its p99 ${gatewayOverhead.ownHotP99Ms.toFixed(2)} ms)`,
      );
      if (node) log(`  ${"".padEnd(28)} node:http doing no work: 1 process ${fmt(node.one)} ${cpu(node.one)} (${(node.one.rps / rpc.rps).toFixed(1)}× the call), ${node.workers} processes ${fmt(node.all)} ${cpu(node.all)} (${(node.all.rps / rpc.rps).toFixed(1)}×)`);
    }
    log(`  load average after the rows: ${load()}`);
    // freshness: mined → visible through the read service (a resting order read back with ?minBlock)
    clearInterval(blocks);
    await pricing; // no price update races the samples' orders
    await setPrice(eur, "1.0800"); // and the price is fresh (PriceStale after 60 s)
    if (!variants) {
      const f = await freshnessSamples(
        v,
        { url: ix.url, pid: ix.proc.pid, logFile: ix.proc.logFile },
        { url: rd.url, pid: rd.proc.pid },
        eur,
        routes.map((r) => r.path),
        () => setPrice(eur, "1.0800"),
        log,
      );
      freshness.push({ db: kind, ...f });
    } else {
      // one read service at a time in front of the same Ponder (two would both rebuild every block)
      await rd.proc.stop();
      const abRounds = Number(process.env.BENCH_AB_ROUNDS ?? 2);
      for (let round = 0; round < abRounds; round++) {
        for (const variant of variants) {
          const at = load();
          log(`  A/B round ${round + 1}, ${variant.name} (load average ${at})`);
          const rv = await v.startReads(ix, variant.reads);
          try {
            await waitForBlock(rv.url, await v.client.getBlockNumber({ cacheTime: 0 }));
            await setPrice(eur, "1.0800"); // fresh (PriceStale after 60 s): a start on a loaded machine takes a while
            const fv = await freshnessSamples(v, { url: ix.url, pid: ix.proc.pid, logFile: ix.proc.logFile }, { url: rv.url, pid: rv.proc.pid }, eur, routes.map((r) => r.path), () => setPrice(eur, "1.0800"), log, statementsFile);
            freshness.push({ db: kind, ...fv, variant: `${variant.name} (round ${round + 1})`, load: at });
          } finally {
            await rv.proc.stop();
          }
        }
      }
    }
    return rows;
  } finally {
    clearInterval(blocks);
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

export async function run(): Promise<ReadRow[]> {
  process.env.PONDER_TELEMETRY_DISABLED = "true";
  const kinds = (process.env.BENCH_DBS ?? "pglite,postgres").split(",").map((k) => k.trim()) as DbKind[];
  const rows: ReadRow[] = [];
  for (const kind of kinds) rows.push(...(await benchDb(kind, console.log)));
  console.log("\n" + markdownTable(rows));
  console.log("¹ the chain has no index of orders by account: the market's 20 newest orders is a lower bound of its cost");
  console.log("² fixed response bytes from a socket server that parses only the request line (bench/bare-server.ts): the most the load generator can take from any server here; reads / call cannot exceed ceiling / call");
  if (rows.some((r) => r.node)) console.log("\n" + nodeCeilingTable(rows));
  const ab = freshness.some((f) => f.variant);
  console.log(`\n| DB |${ab ? " variant (load average) |" : ""} freshness samples | mined → visible from the receipt p50/p99 ms | from mined, p50/p99 ms: anvil's newHeads | receipt | Ponder's push | read service's push | visible | Ponder's "Indexed block" p50/p99 ms | CPU ms per sample: Ponder / read service |${ab ? " PGlite per sample: statements / ms inside it / its CPU ms |" : ""}`);
  console.log(`|---|${ab ? "---|---|" : ""}---|---|---|---|---|---|---|---|---|`);
  for (const f of freshness) {
    const q = (s: { p50Ms: number; p99Ms: number }) => `${s.p50Ms.toFixed(0)}/${s.p99Ms.toFixed(0)}`;
    const abCells = ab ? ` ${f.variant ?? ""} (${f.load ?? ""}) |` : "";
    const pgCells = ab ? ` ${f.pglite ? `${f.pglite.statements.toFixed(1)} / ${f.pglite.ms.toFixed(1)} / ${f.pglite.cpuMs.toFixed(1)}` : "–"} |` : "";
    console.log(`| ${f.db} |${abCells} ${f.samples} | ${f.p50Ms.toFixed(0)}/${f.p99Ms.toFixed(0)} | ${q(f.stages.head)} | ${q(f.stages.receipt)} | ${q(f.stages.ponderPush)} | ${q(f.stages.readsPush)} | ${q(f.stages.visible)} | ${q(f.indexedBlock)} | ${f.cpuMsPerSample.ponder.toFixed(0)} / ${f.cpuMsPerSample.reads.toFixed(0)} |${pgCells}`);
  }
  return rows;
}

/** The table of docs/PERFORMANCE.md. */
export function markdownTable(rows: ReadRow[]): string {
  const cell = (l: Load) => `${l.rps.toFixed(0)} (${l.p50Ms}/${l.p99Ms})`;
  const lines = [
    "| DB | Route | read service rps (p50/p99 ms) | CPU/req | no-cache | Ponder's server | bare Hono, separate process | CPU/req | load generator's ceiling² | contract view call | call rps (p50/p99) | anvil's CPU/call | reads / bare | reads / call | ceiling / call | gateway rps (p50/p99) | CPU/req | gateway / reads | gateway overhead p50/p99 ms, difference (own time; hot path share, its p99) |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.db} | ${r.route} | ${cell(r.reads)} | ${cpu(r.reads)} | ${cell(r.readsNoCache)} | ${cell(r.ponder)} | ${cell(r.bare)} | ${cpu(r.bare)} | ${cell(r.ceiling)} | \`${r.call}\` | ${cell(r.rpc)} | ${cpu(r.rpc)} | ${((100 * r.reads.rps) / r.bare.rps).toFixed(0)} % | ${(r.reads.rps / r.rpc.rps).toFixed(1)}× | ${(r.ceiling.rps / r.rpc.rps).toFixed(1)}× | ${cell(r.gateway)} | ${cpu(r.gateway)} | ${((100 * r.gateway.rps) / r.reads.rps).toFixed(0)} % | ${r.gatewayOverhead.p50Ms.toFixed(2)}/${r.gatewayOverhead.p99Ms.toFixed(2)} (${r.gatewayOverhead.ownP50Ms.toFixed(2)}/${r.gatewayOverhead.ownP99Ms.toFixed(2)}; ${(100 * r.gatewayOverhead.hotShare).toFixed(0)} %, ${r.gatewayOverhead.ownHotP99Ms.toFixed(2)}) |`,
    );
  }
  return lines.join("\n");
}

/** BENCH_NODE_CEILING=1: what Node's own HTTP server reaches doing no work, against the call and the read service. */
export function nodeCeilingTable(rows: ReadRow[]): string {
  const x = (l: Load, r: ReadRow) => `${l.rps.toFixed(0)} (${(l.rps / r.rpc.rps).toFixed(1)}×)`;
  const lines = [
    "| DB | Route | contract view call rps | read service rps (× the call) | node:http doing no work, 1 process (× the call) | CPU/req | node:http, one process per core (× the call) | CPU/req | load generator's ceiling (× the call) |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    if (!r.node) continue;
    lines.push(`| ${r.db} | ${r.route} | ${r.rpc.rps.toFixed(0)} | ${x(r.reads, r)} | ${x(r.node.one, r)} | ${cpu(r.node.one)} | ${x(r.node.all, r)} (${r.node.workers}) | ${cpu(r.node.all)} | ${x(r.ceiling, r)} |`);
  }
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run()
    .then(() => process.exit(0))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
