/**
 * Load generation for the HTTP benchmarks: autocannon in a separate process (so the load
 * generator never shares a core's event loop with what it measures), and the CPU time a
 * server's process group spent meanwhile (from /proc, Linux only).
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

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

/** utime + stime (ms) of every process in the process group `pgid` (our services are started detached). */
export function groupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // fields after the command name (which may contain spaces): state ppid pgrp ... utime(14) stime(15)
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(f[2]) !== pgid) continue;
    ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / CLK_TCK;
}

export type LoadOptions = {
  connections?: number;
  durationS?: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** process group whose CPU time is divided by the requests served */
  cpuPgid?: number;
};

export async function cannon(url: string, o: LoadOptions = {}): Promise<Load> {
  const args = [autocannonBin(), "-j", "-n", "-c", String(o.connections ?? 16), "-d", String(o.durationS ?? 5)];
  if (o.method) args.push("-m", o.method);
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}=${v}`);
  if (o.body !== undefined) args.push("-b", o.body);
  args.push(url);
  const cpu0 = o.cpuPgid ? groupCpuMs(o.cpuPgid) : 0;
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => (err ? reject(new Error(`autocannon: ${stderr || err.message}`)) : resolve(stdout))),
  );
  const cpu1 = o.cpuPgid ? groupCpuMs(o.cpuPgid) : 0;
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
    cpuUsPerRequest: o.cpuPgid && served ? ((cpu1 - cpu0) * 1000) / served : NaN,
  };
}
