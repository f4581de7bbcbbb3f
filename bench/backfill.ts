/**
 * Backfill A/B (issue 12, docs/PERFORMANCE.md): fresh backfills of bench/indexing.ts's generated
 * chain on Postgres, one variant after another, interleaved over rounds (the machine is shared).
 * A variant is env for Ponder's process (ponder.config.ts's knobs, or a patch's switch). Per run:
 * events/s (HTTP up → last block indexed, as bench/indexing.ts), CPU seconds of Ponder, anvil and
 * this venue's Postgres backends, Ponder's own log figures; with BENCH_BACKFILL_PROBE=1 also
 * Ponder's JSON-RPC requests by method, latency at the node and concurrency (a proxy in this
 * process, which adds a hop: compare probed runs with probed runs only).
 *   BENCH_PAIRS=1000 BENCH_BACKFILL_VARIANTS="a:RPC_FANOUT=64;b:RPC_FANOUT=16" BENCH_BACKFILL_ROUNDS=2 npx tsx bench/backfill.ts
 *   BENCH_BACKFILL_CPU_PROF=/tmp/prof: a V8 CPU profile of Ponder per run (--cpu-prof).
 *   BENCH_BACKFILL_GC=1: V8's collections in Ponder's process per run (bench/gc-stats-hook.mjs).
 * Ponder's node flags: PONDER_NODE_ARGS in a variant (scripts/lib/services.ts's default otherwise).
 * Ponder's CPU is its process's; "main thread" is its JavaScript thread on a CPU, and "waiting for
 * a CPU" the time that thread was runnable while the machine's other processes held the cores.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { waitForBlock } from "../test/e2e/reads-env.js";
import { pidByCmdline, startCpuSampler, startRpcProxy } from "./backfill-probe.js";
import { prepareBenchVenue } from "./indexing.js";

const here = dirname(fileURLToPath(import.meta.url));
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

type Variant = { label: string; env: Record<string, string> };
/** "a:K=V,K2=V2;b:K=V" */
export function parseVariants(spec: string): Variant[] {
  return spec
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [label, rest = ""] = s.split(":", 2) as [string, string?];
      const env = Object.fromEntries(
        rest
          .split(",")
          .filter(Boolean)
          // at the first "=" only: a value may hold more (PONDER_NODE_ARGS=--max-semi-space-size=64)
          .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)] as [string, string]),
      );
      return { label: label.trim(), env };
    });
}

/** Ponder's /metrics: database statements by label, JSON-RPC by method, extract/transform durations. */
export function metricsSummary(text: string): string[] {
  const sums = new Map<string, { count: number; sum: number }>();
  const other: string[] = [];
  for (const line of text.split("\n")) {
    const m = line.match(/^(ponder_database_method_duration|ponder_rpc_request_duration)_(sum|count)\{([^}]*)\} (\S+)/);
    if (m) {
      const labels = Object.fromEntries([...m[3]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
      const key = `${m[1] === "ponder_rpc_request_duration" ? "rpc" : "db"} ${labels.method}`;
      const e = sums.get(key) ?? { count: 0, sum: 0 };
      e[m[2] as "sum" | "count"] += Number(m[4]);
      sums.set(key, e);
    } else if (/^ponder_historical_(extract|transform)_duration/.test(line)) other.push(line);
  }
  return [
    ...[...sums].sort((a, b) => b[1].sum - a[1].sum).map(([k, e]) => `${k}: ${e.count} in ${(e.sum / 1000).toFixed(1)} s (mean ${(e.sum / Math.max(1, e.count)).toFixed(2)} ms)`),
    ...other,
  ];
}

type RunSet = { variants: string; rounds?: number; alternate?: boolean; probe?: boolean; prof?: string; metrics?: boolean; gc?: boolean };

/** bench/gc-stats-hook.mjs's file of one Ponder process: collections by kind, pause ms, peak heap. */
function gcSummary(dir: string): string {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith("gc-")) : [];
  if (files.length === 0) return "GC: no figures";
  const s = JSON.parse(readFileSync(join(dir, files[0]!), "utf8")) as { gc: Record<string, { count: number; ms: number }>; peakHeapMB: number };
  const kinds = Object.entries(s.gc).map(([k, g]) => `${k} ${g.count} (${(g.ms / 1000).toFixed(2)} s)`);
  return `GC pauses: ${kinds.join(", ")}; peak heap ${s.peakHeapMB.toFixed(0)} MB`;
}

async function main() {
  process.env.PONDER_TELEMETRY_DISABLED = "true";
  const first: RunSet = {
    variants: process.env.BENCH_BACKFILL_VARIANTS ?? "fanout64:RPC_FANOUT=64",
    rounds: Number(process.env.BENCH_BACKFILL_ROUNDS ?? 1),
    alternate: process.env.BENCH_BACKFILL_ALTERNATE === "1",
    probe: process.env.BENCH_BACKFILL_PROBE === "1",
    prof: process.env.BENCH_BACKFILL_CPU_PROF,
    metrics: process.env.BENCH_BACKFILL_METRICS === "1",
    gc: process.env.BENCH_BACKFILL_GC === "1",
  };
  // BENCH_BACKFILL_WATCH=<file>: after the first set, keep the chain and run each JSON line
  // ({"variants": "...", "rounds": 2, "probe": true, ...}) appended to that file; "quit" ends
  const watch = process.env.BENCH_BACKFILL_WATCH;
  const bench = await prepareBenchVenue();
  const { venue } = bench;
  const anvilPid = pidByCmdline("anvil", Number(new URL(venue.rpcUrl).port));
  let proxy: Awaited<ReturnType<typeof startRpcProxy>> | undefined;
  const baseNodeArgs = process.env.BENCH_PONDER_NODE_ARGS ?? "";
  const rows: string[] = [];
  let stopPrev: (() => Promise<void>) | undefined;
  let runNo = 0;
  const runSet = async (set: RunSet) => {
    const variants = parseVariants(set.variants);
    const probe = set.probe === true;
    if (probe) proxy ??= await startRpcProxy(venue.rpcUrl);
    const profDir = set.prof;
    for (let round = 0; round < (set.rounds ?? 1); round++) {
      // interleaved: a b a b, or b a on odd rounds with alternate
      const order = set.alternate && round % 2 === 1 ? [...variants].reverse() : variants;
      for (const v of order) {
        runNo++;
        await stopPrev?.();
        stopPrev = undefined;
        // every run fetches and writes the whole chain: no rows of an earlier run in ponder_sync
        const db = new pg.Client({ connectionString: venue.databaseUrl! });
        await db.connect();
        await db.query("DROP SCHEMA IF EXISTS ponder_sync CASCADE");
        await db.end();
        const touched = [...Object.keys(v.env), "BENCH_RPC_PROXY_URL", "BENCH_PONDER_NODE_ARGS", "BENCH_GC_STATS_DIR"];
        const saved = Object.fromEntries(touched.map((k) => [k, process.env[k]]));
        Object.assign(process.env, v.env);
        const nodeArgs = [baseNodeArgs];
        if (probe) {
          process.env.BENCH_RPC_PROXY_URL = proxy!.url;
          nodeArgs.push(`--import ${join(here, "backfill-rpc-hook.mjs")}`);
          proxy!.reset();
        }
        if (profDir) {
          const dir = join(profDir, `${v.label}-${runNo}`);
          mkdirSync(dir, { recursive: true });
          nodeArgs.push(`--cpu-prof --cpu-prof-dir=${dir}`);
        }
        const gcDir = set.gc ? mkdtempSync(join(tmpdir(), "bf-gc-")) : undefined;
        if (gcDir) {
          process.env.BENCH_GC_STATS_DIR = gcDir;
          nodeArgs.push(`--import ${join(here, "gc-stats-hook.mjs")}`);
        }
        process.env.BENCH_PONDER_NODE_ARGS = nodeArgs.join(" ");
        const loadBefore = load();
        const t0 = performance.now();
        const indexer = await venue.startIndexer(`bf${runNo}${v.label}`.slice(0, 16), { waitReady: false });
        for (const [k, val] of Object.entries(saved)) {
          if (val === undefined) delete process.env[k];
          else process.env[k] = val;
        }
        stopPrev = indexer.stop;
        const t1 = performance.now();
        const sampler = startCpuSampler({ ponder: indexer.proc.pid, ...(anvilPid ? { anvil: anvilPid } : {}) }, venue.databaseUrl);
        const benchCpu0 = process.cpuUsage();
        await sampler.ready;
        await waitForBlock(indexer.url, bench.head, 900_000);
        const t2 = performance.now();
        const cpu = await sampler.stop();
        const metrics = await fetch(`${indexer.url}/metrics`).then((r) => r.text()).catch(() => "");
        const benchCpu = process.cpuUsage(benchCpu0);
        const seconds = (t2 - t1) / 1000;
        const log = readFileSync(indexer.proc.logFile, "utf8")
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as { msg: string; duration?: number; event_count?: number });
        const ranges = log.filter((l) => l.msg === "Indexed block range");
        const handlerS = ranges.reduce((n, r) => n + (r.duration ?? 0), 0) / 1000;
        const fetchS = (log.find((l) => l.msg === "Finished fetching backfill JSON-RPC data")?.duration ?? NaN) / 1000;
        const cpuText = Object.entries(cpu)
          .map(([k, s]) => `${k} ${s.toFixed(1)} s (${((100 * s) / seconds).toFixed(0)} %)`)
          .join(", ");
        const line =
          `${v.label} round ${round + 1}: ${bench.events} events in ${seconds.toFixed(1)} s = ${(bench.events / seconds).toFixed(0)} events/s ` +
          `(start→HTTP ${((t1 - t0) / 1000).toFixed(1)} s not counted; fetch ${fetchS.toFixed(1)} s; handlers+store ${handlerS.toFixed(1)} s; ` +
          `CPU: ${cpuText}, bench process ${((benchCpu.user + benchCpu.system) / 1e6).toFixed(1)} s; load ${loadBefore} → ${load()})`;
        console.log(line);
        rows.push(line);
        if (gcDir) {
          await new Promise((r) => setTimeout(r, 1100)); // the hook writes every second
          console.log(`  ${gcSummary(gcDir)}`);
        }
        if (set.metrics) for (const l of metricsSummary(metrics)) console.log(`  ${l}`);
        if (probe && proxy) {
          const r = proxy.report();
          console.log(`  JSON-RPC at the node over ${r.spanS.toFixed(1)} s: mean in flight ${r.meanInFlight.toFixed(1)}, max ${r.maxInFlight}`);
          for (const m of r.methods)
            console.log(`    ${m.method.padEnd(24)} ${String(m.count).padStart(6)}  mean ${m.meanMs.toFixed(2)} ms  p50 ${m.p50Ms.toFixed(2)}  p99 ${m.p99Ms.toFixed(2)}  ${m.kBPerAnswer.toFixed(1)} kB`);
        }
      }
    }
  };
  try {
    await runSet(first);
    if (watch) {
      let done = 0;
      for (;;) {
        const lines = existsSync(watch) ? readFileSync(watch, "utf8").split("\n").filter((l) => l.trim()) : [];
        if (lines.length > done) {
          const line = lines[done++]!.trim();
          if (line === "quit") break;
          console.log(`\n== ${line}`);
          await runSet(JSON.parse(line) as RunSet).catch((e) => console.error(e));
          await stopPrev?.();
          stopPrev = undefined;
        } else await new Promise((r) => setTimeout(r, 2000));
      }
    }
    await stopPrev?.();
    stopPrev = undefined;
    console.log(`\nchain: ${bench.head} blocks, ${bench.events} events\n${rows.join("\n")}`);
  } finally {
    await stopPrev?.().catch(() => {});
    await proxy?.close();
    await venue.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
