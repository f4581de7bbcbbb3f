/**
 * Development tool beside bench/history-dev.ts (not part of `npm run bench`): starts a read
 * service from each given checkout against the kept dataset, loads the history lists' pages one
 * at a time with autocannon (the services in turn, `--rounds` times: on a shared machine the
 * interleaving puts both under the same load) and prints latency, req/s and CPU per request: the
 * read service's process group and the Postgres backends of the history pools
 * (application_name venue-reads-history; only the loaded service's work meanwhile).
 *   npx tsx bench/history-cpu.ts /tmp/hdev.json [--root DIR[,DIR2]] [--lists trades,fills] [--pages first,deep]
 *     [--rounds 3] [--duration 5] [--connections 16] [--hold] [--node=--cpu-prof --cpu-prof-dir=/tmp/prof]
 */
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { startProcess, waitForHttp } from "../scripts/lib/processes.js";
import { nodeTs } from "../scripts/lib/services.js";
import { freePort } from "../core/chain/anvil.js";
import { cannon } from "./load.js";
import { pidsCpuMs } from "./history-pg.js";

const { positionals, values: a } = parseArgs({
  allowPositionals: true,
  options: {
    root: { type: "string", default: process.cwd() },
    lists: { type: "string" },
    pages: { type: "string", default: "first,deep" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    node: { type: "string", default: "" },
    hold: { type: "boolean", default: false },
    rounds: { type: "string", default: "1" },
  },
});
const cfg = JSON.parse(readFileSync(positionals[0] ?? "/tmp/history-dev.json", "utf8")) as { databaseUrl: string; schema: string; indexerUrl: string; urls: Record<string, [string, string]> };
const roots = a.root.split(",");
const db = new pg.Client({ connectionString: cfg.databaseUrl });
const services: { root: string; url: string; proc: ReturnType<typeof startProcess> }[] = [];
try {
  for (const [i, root] of roots.entries()) {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      INDEXER_URL: cfg.indexerUrl,
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "100000000",
      DATABASE_URL: cfg.databaseUrl,
      DATABASE_SCHEMA: cfg.schema,
    };
    // with node flags (a profile) or without: one process, tsx as a loader, as the stacks start it
    const main = join(root, "services/reads/main.ts");
    const args = nodeTs(main, a.node?.split(" ") ?? []);
    const proc = startProcess(`reads ${i}`, process.execPath, args, env, `/tmp/history-cpu-reads-${port}.log`, root);
    services.push({ root, url: `http://127.0.0.1:${port}`, proc });
    await waitForHttp(`http://127.0.0.1:${port}/health`, { proc, timeoutMs: 180_000, intervalMs: 50 });
  }
  await db.connect();
  // the history pools' backends (every service's: only the loaded one's work meanwhile)
  const backends = async () =>
    (await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = 'venue-reads-history'`)).rows.map((r) => r.pid);
  const cold = { "Cache-Control": "no-cache" };
  const o = { connections: Number(a.connections), durationS: Number(a.duration), headers: cold };
  const lists = a.lists ? a.lists.split(",") : Object.keys(cfg.urls);
  for (const s of services) await cannon(`${s.url}${cfg.urls[lists[0]!]![0]}`, { ...o, durationS: 2 }); // warm-up
  console.log(`roots ${roots.join(" | ")}  load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  const rounds = Number(a.rounds);
  for (const list of lists) {
    for (const page of a.pages.split(",")) {
      const path = cfg.urls[list]![page === "first" ? 0 : 1];
      const per = services.map(() => [] as { node: number; pg: number; p50: number; p99: number; rps: number }[]);
      for (let r = 0; r < rounds; r++) {
        for (const [i, s] of services.entries()) {
          const pids0 = await backends();
          const pg0 = pidsCpuMs(pids0);
          const l = await cannon(`${s.url}${path}`, { ...o, cpuPgid: s.proc.pid });
          const pgMs = pidsCpuMs([...new Set([...pids0, ...(await backends())])]) - pg0;
          per[i]!.push({ node: l.cpuUsPerRequest / 1000, pg: pgMs / l.requests, p50: l.p50Ms, p99: l.p99Ms, rps: l.rps });
        }
      }
      const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
      for (const [i, s] of services.entries()) {
        const m = (k: "node" | "pg" | "p50" | "p99" | "rps") => med(per[i]!.map((x) => x[k]));
        console.log(
          `${list.padEnd(17)} ${page.padEnd(5)} ${String(i).padEnd(2)} ${m("p50").toFixed(0).padStart(3)}/${m("p99").toFixed(0).padStart(4)} ms ${m("rps").toFixed(0).padStart(5)} rps  cpu/req: node ${m("node").toFixed(2)} ms, pg ${m("pg").toFixed(2)} ms  (median of ${rounds}; load ${loadavg()[0]!.toFixed(1)})`,
        );
      }
    }
  }
  if (a.hold) {
    console.log(`holding ${services.map((s) => s.url).join(" ")}`);
    await new Promise((r) => process.on("SIGINT", r));
  }
} finally {
  await db.end().catch(() => {});
  for (const s of services) await s.proc.stop();
}
