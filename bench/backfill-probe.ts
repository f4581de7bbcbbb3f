/**
 * Probes for bench/backfill.ts: a JSON-RPC proxy that counts Ponder's requests by method with
 * their latency at the node, and CPU sampling of processes from /proc (Linux only).
 */
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import pg from "pg";

type MethodStats = { count: number; ms: number[]; bytes: number };

/** A pass-through HTTP proxy in front of `upstream` (anvil): per-method count, latency, answer bytes, concurrency. */
export async function startRpcProxy(upstream: string) {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  let stats = new Map<string, MethodStats>();
  let inFlight = 0;
  let maxInFlight = 0;
  let inFlightArea = 0; // ∫ in-flight dt (ms), for the mean concurrency
  let last = performance.now();
  let first = 0;
  let lastEnd = 0;
  const tick = () => {
    const now = performance.now();
    inFlightArea += inFlight * (now - last);
    last = now;
    return now;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let methods: string[] = ["?"];
      try {
        const parsed = JSON.parse(body.toString()) as { method: string } | { method: string }[];
        methods = Array.isArray(parsed) ? parsed.map((p) => p.method) : [parsed.method];
      } catch {}
      const t0 = tick();
      if (!first) first = t0;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const up = http.request(
        { host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers: { "content-type": "application/json", "content-length": body.length } },
        (upRes) => {
          const out: Buffer[] = [];
          upRes.on("data", (c: Buffer) => out.push(c));
          upRes.on("end", () => {
            const answer = Buffer.concat(out);
            const t1 = tick();
            inFlight--;
            lastEnd = t1;
            for (const m of methods) {
              const s = stats.get(m) ?? { count: 0, ms: [], bytes: 0 };
              s.count++;
              s.ms.push(t1 - t0);
              s.bytes += answer.length / methods.length;
              stats.set(m, s);
            }
            res.writeHead(upRes.statusCode ?? 502, { "content-type": "application/json", "content-length": answer.length });
            res.end(answer);
          });
        },
      );
      up.on("error", (e) => {
        tick();
        inFlight--;
        res.writeHead(502).end(String(e));
      });
      up.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    reset() {
      stats = new Map();
      maxInFlight = inFlight;
      inFlightArea = 0;
      last = performance.now();
      first = 0;
      lastEnd = 0;
    },
    report() {
      tick();
      const span = lastEnd - first;
      const methods = [...stats.entries()]
        .sort((a, b) => b[1].count - a[1].count)
        .map(([method, s]) => {
          const ms = [...s.ms].sort((a, b) => a - b);
          const pct = (p: number) => ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))] ?? NaN;
          return { method, count: s.count, meanMs: ms.reduce((a, b) => a + b, 0) / ms.length, p50Ms: pct(50), p99Ms: pct(99), kBPerAnswer: s.bytes / s.count / 1024 };
        });
      return { methods, spanS: span / 1000, meanInFlight: span > 0 ? inFlightArea / span : 0, maxInFlight };
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()), agent.destroy())),
  };
}

const TICK = 100; // USER_HZ on Linux
/** utime + stime of a process, in seconds (undefined once it is gone). */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return undefined;
  }
}

/**
 * The main thread's scheduler figures (/proc/<pid>/schedstat, Linux with schedstats): seconds on a
 * CPU and seconds runnable but waiting for one (the machine's other processes held the cores).
 */
export function schedSeconds(pid: number): { run: number; wait: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, "utf8").trim().split(" ").map(Number);
    return Number.isFinite(run) && Number.isFinite(wait) ? { run: run! / 1e9, wait: wait! / 1e9 } : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of the process listening on 127.0.0.1:`port` whose command line mentions `needle`. */
export function pidByCmdline(needle: string, port: number): number | undefined {
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      if (cmd.some((a) => a.includes(needle)) && cmd.includes(String(port))) return Number(d);
    } catch {}
  }
  return undefined;
}

/**
 * CPU seconds used by named processes (and the first one's main thread: on a CPU, waiting for
 * one), and by the Postgres backends of one database (their pids
 * from pg_stat_activity, sampled every `everyMs` so a backend that exits keeps its last figure).
 */
export function startCpuSampler(procs: Record<string, number>, databaseUrl: string | null, everyMs = 500) {
  const base = Object.fromEntries(Object.entries(procs).map(([k, pid]) => [k, cpuSeconds(pid) ?? 0]));
  const lastSeen = { ...base };
  // the first process's main thread: on a CPU, and waiting for one
  const [mainName, mainPid] = Object.entries(procs)[0] ?? [];
  const schedBase = mainPid ? schedSeconds(mainPid) : undefined;
  let schedLast = schedBase;
  const pgBase = new Map<number, number>();
  const pgLast = new Map<number, number>();
  const client = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : undefined;
  const dbName = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : "";
  let ownPid = 0;
  let stopped = false;
  const samplePg = async (initial = false) => {
    if (!client) return;
    const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [dbName]);
    for (const { pid } of rows) {
      const s = cpuSeconds(pid);
      if (s === undefined) continue;
      // a backend first seen after the start was opened during the run: all its CPU counts
      if (!pgBase.has(pid)) pgBase.set(pid, initial ? s : 0);
      pgLast.set(pid, s);
    }
  };
  const sample = () => {
    for (const [k, pid] of Object.entries(procs)) lastSeen[k] = cpuSeconds(pid) ?? lastSeen[k]!;
    if (mainPid) schedLast = schedSeconds(mainPid) ?? schedLast;
  };
  const ready = client?.connect().then(async () => {
    ownPid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    // backends already up count from now
    await samplePg(true);
  });
  const timer = setInterval(() => {
    sample();
    void ready?.then(() => samplePg()).catch(() => {});
  }, everyMs);
  return {
    ready: ready ?? Promise.resolve(),
    async stop() {
      if (stopped) return {};
      stopped = true;
      clearInterval(timer);
      sample();
      await ready?.then(() => samplePg()).catch(() => {});
      await client?.end().catch(() => {});
      const out: Record<string, number> = {};
      for (const k of Object.keys(procs)) out[k] = lastSeen[k]! - base[k]!;
      if (schedBase && schedLast) {
        out[`${mainName} main thread`] = schedLast.run - schedBase.run;
        out[`${mainName} main thread waiting for a CPU`] = schedLast.wait - schedBase.wait;
      }
      let pgSum = 0;
      for (const [pid, b] of pgBase) if (pid !== ownPid) pgSum += (pgLast.get(pid) ?? b) - b;
      if (client) out.postgres = pgSum;
      return out;
    },
  };
}
