/**
 * Development tool beside bench/history-dev.ts (not part of `npm run bench`): starts a read
 * service from a given checkout against the kept dataset, loads the history lists' pages one at a
 * time with autocannon and prints latency, req/s and CPU per request: the read service's process
 * group and the Postgres backends of its history pool (application_name venue-reads-history).
 *   npx tsx bench/history-cpu.ts /tmp/hdev.json [--root DIR] [--lists trades,fills] [--pages first,deep]
 *     [--duration 5] [--connections 16] [--node "--cpu-prof --cpu-prof-dir=/tmp/prof"]
 */
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { startProcess, waitForHttp } from "../scripts/lib/processes.js";
import { tsxBin } from "../scripts/lib/services.js";
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
  },
});
const cfg = JSON.parse(readFileSync(positionals[0] ?? "/tmp/history-dev.json", "utf8")) as { databaseUrl: string; schema: string; indexerUrl: string; urls: Record<string, [string, string]> };
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
// with node flags (a profile): one process, tsx as a loader; without: as the stacks start it (tsx's CLI)
const args = a.node ? [...a.node.split(" "), "--import", "tsx", join(a.root, "services/reads/main.ts")] : [tsxBin(), join(a.root, "services/reads/main.ts")];
const proc = startProcess("reads", process.execPath, args, env, `/tmp/history-cpu-reads-${port}.log`, a.root);
const url = `http://127.0.0.1:${port}`;
const db = new pg.Client({ connectionString: cfg.databaseUrl });
try {
  await waitForHttp(`${url}/health`, { proc, timeoutMs: 180_000, intervalMs: 50 });
  await db.connect();
  const backends = async () => (await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = 'venue-reads-history'`)).rows.map((r) => r.pid);
  const cold = { "Cache-Control": "no-cache" };
  const o = { connections: Number(a.connections), durationS: Number(a.duration), headers: cold };
  const lists = a.lists ? a.lists.split(",") : Object.keys(cfg.urls);
  await cannon(`${url}${cfg.urls[lists[0]!]![0]}`, { ...o, durationS: 2 }); // warm-up
  console.log(`root ${a.root}  load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  for (const list of lists) {
    for (const page of a.pages.split(",")) {
      const path = cfg.urls[list]![page === "first" ? 0 : 1];
      const pids0 = await backends();
      const pg0 = pidsCpuMs(pids0);
      const r = await cannon(`${url}${path}`, { ...o, cpuPgid: proc.pid });
      const pids1 = await backends();
      const pgMs = pidsCpuMs([...new Set([...pids0, ...pids1])]) - pg0;
      const pgUs = (pgMs * 1000) / r.requests;
      console.log(
        `${list.padEnd(17)} ${page.padEnd(5)} ${r.p50Ms.toFixed(0).padStart(3)}/${r.p99Ms.toFixed(0).padStart(4)} ms ${r.rps.toFixed(0).padStart(5)} rps  cpu/req: node ${(r.cpuUsPerRequest / 1000).toFixed(2)} ms, pg ${(pgUs / 1000).toFixed(2)} ms${r.non2xx || r.errors ? `  (${r.non2xx} non-2xx, ${r.errors} errors)` : ""}  load ${loadavg()[0]!.toFixed(1)}`,
      );
    }
  }
  if (a.hold) {
    console.log(`holding ${url}`);
    await new Promise((r) => process.on("SIGINT", r));
  }
} finally {
  await db.end().catch(() => {});
  await proc.stop();
}
