/**
 * `npm run bench -- sql`: "hostile /sql every 100 ms" (issue 27 item 6). Freshness (mined → visible
 * through the read service, bench/reads.ts's samples) on PGlite and Postgres, first quiet, then
 * while one client sends a hostile /sql query every BENCH_SQL_HOSTILE_MS (100) ms without waiting
 * for the answers: a function the planner would fold (`repeat`), a 4-way cross join, a LIMIT 1 over
 * a never-true filter no single table can take, an oversized query. The goal: p99 under 250 ms on
 * PGlite, 100 ms on Postgres. Each hostile answer's status is counted (all should be 4xx).
 *   npx tsx bench/sql.ts   BENCH_DBS=pglite,postgres BENCH_FRESHNESS=30 BENCH_SQL_HOSTILE_MS=100
 */
import superjson from "superjson";
import type { Hex } from "viem";
import { startVenue, waitForBlock } from "../test/e2e/reads-env.js";
import { sessionActions } from "../test/e2e/reads-session.js";
import type { DbKind } from "../test/e2e/stack.js";
import { freshnessSamples } from "./reads.js";

const T = "margin_update_event";
const HOSTILE = [
  `SELECT repeat('x', 900000000) AS x`,
  `SELECT count(*) AS n FROM ${T} a, ${T} b, ${T} c, ${T} d`,
  `SELECT a.id FROM ${["a", "b", "c", "d", "e", "f"].map((x) => `${T} ${x}`).join(", ")} WHERE a.block_number + b.block_number + c.block_number + d.block_number + e.block_number + f.block_number < 0 LIMIT 1`,
  `SELECT * FROM ${T} WHERE id = '${"x".repeat(6000)}' LIMIT 1`,
];

/** Sends a hostile query every `everyMs` (not waiting for answers) until stopped; counts the answers' statuses. */
function hostileClient(url: string, everyMs: number) {
  const statuses = new Map<string, number>();
  const note = (s: string) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
  let i = 0;
  const timer = setInterval(() => {
    const q = HOSTILE[i++ % HOSTILE.length]!;
    const route = i % 2 ? "db" : "live";
    const ac = new AbortController();
    fetch(`${url}/sql/${route}?sql=${encodeURIComponent(superjson.stringify({ sql: q, params: [] }))}`, { signal: AbortSignal.any([ac.signal, AbortSignal.timeout(120_000)]) })
      .then((r) => (note(String(r.status)), ac.abort()))
      .catch((e) => note((e as Error).name === "TimeoutError" ? "timeout" : "error"));
  }, everyMs);
  return { statuses, stop: () => clearInterval(timer) };
}

export async function run() {
  process.env.PONDER_TELEMETRY_DISABLED = "true";
  process.env.BENCH_FRESHNESS ??= "30";
  const kinds = (process.env.BENCH_DBS ?? "pglite,postgres").split(",").map((k) => k.trim()) as DbKind[];
  const everyMs = Number(process.env.BENCH_SQL_HOSTILE_MS ?? 100);
  const rows: string[] = [];
  for (const kind of kinds) {
    console.log(`\n-- ${kind}`);
    const v = await startVenue(kind);
    try {
      const ix = await v.startIndexer("sqlbench");
      await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }), 600_000);
      const rd = await v.startReads(ix);
      const eur = v.deployment.markets[0]!.marketId as Hex;
      const { setPrice } = sessionActions(v);
      await setPrice(eur, "1.0800");
      for (const hostile of [false, true]) {
        const attacker = hostile ? hostileClient(ix.url, everyMs) : undefined;
        try {
          const f = await freshnessSamples(v, { url: ix.url, pid: ix.proc.pid, logFile: ix.proc.logFile }, { url: rd.url, pid: rd.proc.pid }, eur, [], () => setPrice(eur, "1.0800"), console.log);
          const answers = attacker ? [...attacker.statuses].map(([s, n]) => `${n}× ${s}`).join(", ") : "–";
          rows.push(`| ${kind} | ${hostile ? `hostile /sql every ${everyMs} ms` : "quiet"} | ${f.samples} | ${f.p50Ms.toFixed(0)} / ${f.p99Ms.toFixed(0)} | ${answers} |`);
        } finally {
          attacker?.stop();
        }
      }
    } finally {
      await v.stop();
    }
  }
  console.log("\n| DB | /sql traffic | freshness samples | mined → visible p50 / p99 ms | hostile answers (status) |\n|---|---|---|---|---|");
  for (const r of rows) console.log(r);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run()
    .then(() => process.exit(0))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
