/**
 * Streams benchmark (printed, not asserted; `npm run bench -- streams`): a whole local stack
 * (stack.ts: anvil, Ponder, read service, relayer, keeper with its price feed every second and
 * its market maker re-quoting, stream service) while a taker sends a market order on EUR/USD
 * every BENCH_TAKER_MS. In a separate process (bench/streams-clients.ts), 1,000 WebSocket
 * clients follow EUR/USD's book (depth 10) and trades; then the same clients poll those two REST
 * routes at 4 Hz instead. Measured:
 *   - latency indexer commit → client: each update's arrival minus the moment the indexed-block
 *     push of its block reached this process (the same push the stream service waits for:
 *     Postgres LISTEN, or the read service's /blocks/stream on PGlite); p50/p99 over every
 *     (client, subscription, block);
 *   - mined → client: the same from the moment anvil's newHeads announced the block;
 *   - messages/s delivered, memory per connection (the stream service's RSS with the clients
 *     connected minus before, per connection);
 *   - beside it, polling: requests/s wanted and served, their latency, and the CPU of the
 *     serving processes (stream service + read service + indexer, or read service + indexer);
 *   - then BENCH_STALLED_CLIENTS (20) connections that never read but keep sending a ping every
 *     100 ms, for BENCH_STALLED_S (60) s: the stream service's RSS before and after, and how many
 *     it closed as slow consumers (its send buffer per connection is bounded, WS_MAX_BUFFER_BYTES).
 *   BENCH_DBS=pglite[,postgres] BENCH_CLIENTS=1000 BENCH_STREAMS_DURATION_S=20 BENCH_TAKER_MS=500
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { createPublicClient, webSocket, type Hex } from "viem";
import { engineAbi } from "../abis/index.js";
import { devAccount } from "../core/config.js";
import { PROJECT_ROOT } from "../core/deployment.js";
import { openBlockFeed } from "../core/indexer/blocks.js";
import { walletClientFor } from "../scripts/lib/clients.js";
import { nodeTs } from "../scripts/lib/services.js";
import { startStack, type DbKind, type StackInfo } from "../test/e2e/stack.js";
import { percentile } from "./indexing.js";
import { groupCpuMs } from "./load.js";

const now = () => performance.timeOrigin + performance.now();

/** The process group of the service listening on `port` (our services run detached: pgid = the launcher's pid). */
function pgidOfPort(port: string): number {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
      if (!env.includes(`PORT=${port}`)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    } catch {
      continue;
    }
  }
  throw new Error(`no process with PORT=${port}`);
}

type Clients = { ready: Promise<number>; go: (seconds: number) => Promise<any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

function startClients(env: Record<string, string>): Clients {
  const out = join(mkdtempSync(join(tmpdir(), "bench-streams-")), "result.json");
  const p = spawn(process.execPath, nodeTs(join(PROJECT_ROOT, "bench/streams-clients.ts")), { env: { ...process.env, ...env, BENCH_OUT: out }, stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: p.stdout! });
  let readyResolve: (rss: number) => void;
  let resultResolve: (r: unknown) => void;
  const ready = new Promise<number>((r) => (readyResolve = r));
  const result = new Promise<unknown>((r) => (resultResolve = r));
  lines.on("line", (l) => {
    if (l.startsWith("READY")) readyResolve(Number(l.split(" ")[1]));
    else if (l.startsWith("RESULT")) {
      try {
        resultResolve(JSON.parse(readFileSync(out, "utf8")));
      } catch (e) {
        resultResolve({ error: `clients' result unreadable: ${(e as Error).message}` });
      }
    }
  });
  p.on("exit", (code) => {
    readyResolve(NaN);
    resultResolve({ error: `clients exited with ${code}` });
  });
  return {
    ready,
    go: (seconds) => {
      p.stdin!.write(`GO ${seconds}\n`);
      return result;
    },
  };
}

const stats = async (s: StackInfo) => ((await (await fetch(`${s.streamsUrl}/stats`)).json()) as { data: { rssBytes: number; connections: number; subscriptions: number; slowConsumerCloses: number } }).data;
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;

async function benchDb(kind: DbKind, log: (m: string) => void) {
  const n = Number(process.env.BENCH_CLIENTS ?? 1000);
  const seconds = Number(process.env.BENCH_STREAMS_DURATION_S ?? 20);
  const takerMs = Number(process.env.BENCH_TAKER_MS ?? 500);
  log(`\n-- ${kind}: ${n} clients, ${seconds} s per mode (load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
  const stack = await startStack(kind, `sb${Date.now().toString(36).slice(-5)}`, {
    env: {
      PRICE_FEED_INTERVAL_MS: "1000",
      // a configured limit for this one-address load (never a bypass in code)
      STREAMS_MAX_CONNECTIONS_PER_KEY: String(n + 100),
      STREAMS_TEST_HOOKS: "0",
      // the polling clients are one address too: a configured limit above their 8,000 requests/s
      RATE_LIMIT_PER_MINUTE: "100000000",
      LOG_LEVEL: "warn",
    },
  });
  const s = stack.info;
  const stops: (() => void)[] = [];
  try {
    const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD")!.marketId.toLowerCase() as Hex;
    const port = (u: string) => new URL(u).port;
    const pg = { streams: pgidOfPort(port(s.streamsUrl!)), reads: pgidOfPort(port(s.integrationUrl)), indexer: pgidOfPort(port(s.indexerUrl)) };
    const cpu = (which: (keyof typeof pg)[]) => which.reduce((a, k) => a + groupCpuMs(pg[k]), 0);

    // when each block was mined (anvil's newHeads) and committed by the indexer (the streams' own push)
    const minedAt = new Map<string, number>();
    const committedAt = new Map<string, number>();
    const heads = createPublicClient({ transport: webSocket(s.rpcUrl.replace(/^http/, "ws")) });
    stops.push(heads.watchBlockNumber({ emitOnBegin: false, onBlockNumber: (b) => void (minedAt.has(String(b)) || minedAt.set(String(b), now())) }));
    const feed = openBlockFeed({
      databaseUrl: s.databaseUrl ?? undefined,
      schema: s.databaseUrl ? s.schemas.indexer : undefined,
      integrationUrl: s.integrationUrl,
      headers: { "X-Internal-Token": s.internalToken },
    });
    stops.push(() => void feed.close());
    feed.subscribe((st) => void (committedAt.has(String(st.number)) || committedAt.set(String(st.number), now())));

    // the taker: a small market order every takerMs against the keeper's market maker, alternating sides
    const w = walletClientFor(s.rpcUrl, s.chainId, s.wallets[4]!.privateKey);
    const accountId = BigInt(s.wallets[4]!.accountId!);
    let side = 0;
    let trades = 0;
    const taker = setInterval(() => {
      side ^= 1;
      void w
        .writeContract({ address: s.deployment.contracts.engine, abi: engineAbi, functionName: "placeOrder", gas: 3_000_000n, args: [{ accountId, marketId: eur, side, orderType: 0, collateral6: 20_000_000n, leverage: 2n, limitPriceX18: 0n, clientKey: `0x${"0".repeat(64)}` }] } as never)
        .then(() => trades++)
        .catch(() => {});
    }, takerMs);
    stops.push(() => clearInterval(taker));

    // ── streams ──
    const before = await stats(s);
    const streamClients = startClients({ BENCH_MODE: "stream", BENCH_CLIENTS: String(n), BENCH_MARKET: eur, BENCH_WS_URL: `${s.streamsUrl!.replace(/^http/, "ws")}/ws` });
    const clientRss = await streamClients.ready;
    const connected = await stats(s);
    const c0 = { streams: cpu(["streams"]), reads: cpu(["reads"]), indexer: cpu(["indexer"]) };
    const t0 = now();
    const r = await streamClients.go(seconds);
    const dt = (now() - t0) / 1000;
    const c1 = { streams: cpu(["streams"]), reads: cpu(["reads"]), indexer: cpu(["indexer"]) };
    if (r.error) throw new Error(r.error);
    const fromCommit: number[] = [];
    const fromMined: number[] = [];
    let blocks = 0;
    for (const [b, times] of Object.entries(r.byBlock as Record<string, number[]>)) {
      const c = committedAt.get(b);
      const m = minedAt.get(b);
      if (c === undefined) continue;
      blocks++;
      for (const t of times) {
        fromCommit.push(t - c);
        if (m !== undefined) fromMined.push(t - m);
      }
    }
    fromCommit.sort((a, b) => a - b);
    fromMined.sort((a, b) => a - b);
    const streamCpuPerS = (c1.streams - c0.streams + c1.reads - c0.reads + c1.indexer - c0.indexer) / dt;
    const streamsRow = {
      clients: r.connections,
      blocks,
      trades,
      messagesPerS: r.messages / dt,
      bytesPerS: r.bytes / dt,
      gaps: r.gaps,
      commitP50Ms: percentile(fromCommit, 50),
      commitP99Ms: percentile(fromCommit, 99),
      minedP50Ms: percentile(fromMined, 50),
      minedP99Ms: percentile(fromMined, 99),
      memoryPerConnection: (connected.rssBytes - before.rssBytes) / Math.max(1, connected.connections - before.connections),
      serviceRss: connected.rssBytes,
      clientRss,
      cpuMsPerS: { streams: (c1.streams - c0.streams) / dt, reads: (c1.reads - c0.reads) / dt, indexer: (c1.indexer - c0.indexer) / dt, total: streamCpuPerS },
    };
    log(
      `  streams: ${streamsRow.clients} clients × (book + trades), ${blocks} blocks, ${trades} taker trades in ${dt.toFixed(1)} s\n` +
        `    indexer commit → client  p50 ${streamsRow.commitP50Ms.toFixed(1)} ms  p99 ${streamsRow.commitP99Ms.toFixed(1)} ms   (${fromCommit.length} samples)\n` +
        `    mined → client           p50 ${streamsRow.minedP50Ms.toFixed(1)} ms  p99 ${streamsRow.minedP99Ms.toFixed(1)} ms\n` +
        `    ${streamsRow.messagesPerS.toFixed(0)} messages/s (${mb(streamsRow.bytesPerS)}/s), ${streamsRow.gaps} gaps; memory per connection ${(streamsRow.memoryPerConnection / 1024).toFixed(1)} KiB (service RSS ${mb(connected.rssBytes)} with ${connected.connections} connections, ${mb(before.rssBytes)} before)\n` +
        `    CPU ms/s: streams ${streamsRow.cpuMsPerS.streams.toFixed(0)}, reads ${streamsRow.cpuMsPerS.reads.toFixed(0)}, indexer ${streamsRow.cpuMsPerS.indexer.toFixed(0)} (total ${streamCpuPerS.toFixed(0)})`,
    );

    // ── the same clients polling REST at 4 Hz ──
    const pollClients = startClients({ BENCH_MODE: "poll", BENCH_CLIENTS: String(n), BENCH_MARKET: eur, BENCH_REST_URL: s.integrationUrl, BENCH_POLL_HZ: "4" });
    await pollClients.ready;
    const p0 = { reads: cpu(["reads"]), indexer: cpu(["indexer"]) };
    const u0 = now();
    const pr = await pollClients.go(seconds);
    const du = (now() - u0) / 1000;
    const p1 = { reads: cpu(["reads"]), indexer: cpu(["indexer"]) };
    if (pr.error) throw new Error(pr.error);
    const pollCpuPerS = (p1.reads - p0.reads + p1.indexer - p0.indexer) / du;
    const pollRow = { wantedPerS: pr.wantedPerSecond, servedPerS: pr.ok / du, failed: pr.failed, p50Ms: pr.p50Ms, p99Ms: pr.p99Ms, cpuMsPerS: pollCpuPerS };
    log(
      `  polling at 4 Hz: ${pr.wantedPerSecond} requests/s wanted, ${pollRow.servedPerS.toFixed(0)}/s served (${pr.failed} failed), latency p50 ${pr.p50Ms.toFixed(0)} ms p99 ${pr.p99Ms.toFixed(0)} ms\n` +
        `    CPU ms/s: reads ${((p1.reads - p0.reads) / du).toFixed(0)}, indexer ${((p1.indexer - p0.indexer) / du).toFixed(0)} (total ${pollCpuPerS.toFixed(0)})\n` +
        `  streams instead of polling: ${pollRow.wantedPerS} requests/s not made; CPU ${streamCpuPerS.toFixed(0)} vs ${pollCpuPerS.toFixed(0)} ms/s (${(pollCpuPerS / Math.max(1, streamCpuPerS)).toFixed(1)}×, while polling served only ${((100 * pollRow.servedPerS) / pollRow.wantedPerS).toFixed(0)}% of its requests)`,
    );
    // ── connections that never read (issue 27 item 5) ──
    const stalledN = Number(process.env.BENCH_STALLED_CLIENTS ?? 20);
    const stalledS = Number(process.env.BENCH_STALLED_S ?? 60);
    const quiet = await stats(s);
    const stalledClients = startClients({ BENCH_MODE: "stalled", BENCH_CLIENTS: String(stalledN), BENCH_MARKET: eur, BENCH_WS_URL: `${s.streamsUrl!.replace(/^http/, "ws")}/ws` });
    await stalledClients.ready;
    const sr = await stalledClients.go(stalledS);
    if (sr.error) throw new Error(sr.error);
    const after = await stats(s);
    const stalledRow = {
      clients: stalledN,
      seconds: stalledS,
      rssBefore: quiet.rssBytes,
      rssAfter: after.rssBytes,
      slowConsumerCloses: after.slowConsumerCloses - quiet.slowConsumerCloses,
      closedSeenByClients: sr.closedByService,
      stillOpen: sr.stillOpen,
    };
    log(
      `  ${stalledN} connections that never read, a ping every 100 ms each, ${stalledS} s: stream service RSS ${mb(quiet.rssBytes)} → ${mb(after.rssBytes)}; ` +
        `${sr.closedByService} of ${stalledN} closed by the service (${stalledRow.slowConsumerCloses} of them as slow consumers, the others unanswered pings), ${sr.stillOpen} still open at the end`,
    );
    return { kind, streams: streamsRow, polling: pollRow, stalled: stalledRow };
  } finally {
    for (const f of stops) f();
    await stack.stop();
  }
}

export async function run() {
  const kinds = (process.env.BENCH_DBS ?? "pglite").split(",") as DbKind[];
  const out = [];
  for (const k of kinds) out.push(await benchDb(k, (m) => console.log(m)));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
