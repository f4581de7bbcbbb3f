/**
 * Load generation for the HTTP benchmarks: a load generator in a separate process (so it never
 * shares a core's event loop with what it measures), and the CPU time a server's process group
 * spent meanwhile (from /proc, Linux only).
 *
 * `BENCH_LOADGEN`: `wrk` (C, one thread; Debian's `wrk` package; the default when it is on PATH)
 * or `autocannon` (Node, from the npm packages; the default otherwise). On a 2-core machine the
 * generator takes its share of the cores from the servers it measures, and autocannon spends more
 * per request than wrk, and more the more header bytes a response has (it parses them in JS): with
 * it the fastest servers were bound by the generator, and the gateway, whose answers carry a
 * few more headers, measured 61–63 % of the read service where wrk measures 102–105 %.
 */
import { execFile } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const autocannonBin = () => join(dirname(require.resolve("autocannon/package.json")), "autocannon.js");

export type Load = {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** CPU ms of the measured process group per request (NaN when not measured) */
  cpuUsPerRequest: number;
};

const CLK_TCK = 100;

/** A process's pgrp and utime + stime (clock ticks, all its threads), from /proc; undefined once it has gone. */
function procStat(pid: number | string): { pgrp: number; ticks: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // fields after the command name (which may contain spaces): state ppid pgrp ... utime(14) stime(15)
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pgrp: Number(f[2]), ticks: Number(f[11]) + Number(f[12]) };
}

/** utime + stime (ms) of every process in the process group `pgid` (our services are started detached). */
export function groupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const st = procStat(entry);
    if (st?.pgrp === pgid) ticks += st.ticks;
  }
  return (ticks * 1000) / CLK_TCK;
}

/** utime + stime (ms) of one process, all its threads (anvil runs outside our process groups). */
export function processCpuMs(pid: number): number {
  const st = procStat(pid);
  return st ? (st.ticks * 1000) / CLK_TCK : NaN;
}

export type LoadOptions = {
  connections?: number;
  durationS?: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** process group whose CPU time is divided by the requests served */
  cpuPgid?: number;
  /** or one process's (with its threads) */
  cpuPid?: number;
};

export type LoadGenerator = "autocannon" | "wrk";

const onPath = (bin: string) =>
  (process.env.PATH ?? "").split(delimiter).some((d) => {
    try {
      accessSync(join(d, bin), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

export function loadGenerator(): LoadGenerator {
  const g = process.env.BENCH_LOADGEN ?? (onPath("wrk") ? "wrk" : "autocannon");
  if (g !== "autocannon" && g !== "wrk") throw new Error(`BENCH_LOADGEN: autocannon or wrk, not ${g}`);
  return g;
}

let chosen: LoadGenerator | undefined;

export async function cannon(url: string, o: LoadOptions = {}): Promise<Load> {
  chosen ??= loadGenerator();
  const cpuNow = () => (o.cpuPgid ? groupCpuMs(o.cpuPgid) : o.cpuPid ? processCpuMs(o.cpuPid) : NaN);
  const cpu0 = cpuNow();
  const l = await (chosen === "wrk" ? wrk(url, o) : autocannon(url, o));
  // the server's CPU while the generator ran
  const cpuMs = cpuNow() - cpu0;
  return { ...l, cpuUsPerRequest: l.requests ? (cpuMs * 1000) / l.requests : NaN };
}

async function run(file: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise<string>((resolve, reject) =>
    execFile(file, args, { maxBuffer: 16 * 1024 * 1024, env }, (err, stdout, stderr) => (err ? reject(new Error(`${file}: ${stderr || err.message}`)) : resolve(stdout))),
  );
}

/** wrk, one thread, its report as JSON from bench/wrk-report.lua (latency in µs). */
async function wrk(url: string, o: LoadOptions): Promise<Omit<Load, "cpuUsPerRequest">> {
  const args = ["-t", "1", "-c", String(o.connections ?? 16), "-d", `${o.durationS ?? 5}s`, "-s", join(dirname(fileURLToPath(import.meta.url)), "wrk-report.lua")];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}: ${v}`);
  args.push(url);
  const env = { ...process.env, WRK_METHOD: o.method ?? "GET", ...(o.body !== undefined ? { WRK_BODY: o.body } : {}) };
  const out = await run("wrk", args, env);
  const line = out.split("\n").find((l) => l.startsWith("{\"requests\""));
  if (!line) throw new Error(`wrk: no report in ${out}`);
  const r = JSON.parse(line) as { requests: number; durationUs: number; non2xx: number; errors: number; p50Us: number; p99Us: number };
  return {
    rps: r.requests / (r.durationUs / 1e6),
    p50Ms: r.p50Us / 1000,
    p99Ms: r.p99Us / 1000,
    requests: r.requests,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

async function autocannon(url: string, o: LoadOptions): Promise<Omit<Load, "cpuUsPerRequest">> {
  const args = [autocannonBin(), "-j", "-n", "-c", String(o.connections ?? 16), "-d", String(o.durationS ?? 5)];
  if (o.method) args.push("-m", o.method);
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}=${v}`);
  if (o.body !== undefined) args.push("-b", o.body);
  args.push(url);
  const out = await run(process.execPath, args);
  const r = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    "2xx": number;
  };
  const served = r.requests.total;
  return {
    rps: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: served,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}
