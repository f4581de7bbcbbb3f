/**
 * History benchmark (printed, not asserted; issue 13): 1 million fills written straight into a
 * real indexer's tables (bench/history-data.ts), then each history list read by autocannon in a
 * separate process, 16 connections for 30 s: its first page and its 1,000th cursor page (limit
 * 100; the cursor found by walking the 999 pages before it), cold (`Cache-Control: no-cache`:
 * every request its statement), side by side in one run on the two paths:
 * **reads**, the read service (the integration API's URL, what clients and the gateway call: on
 * Postgres it answers these lists itself, on PGlite it passes them to Ponder), and **Ponder**,
 * Ponder's server directly (the same read model, run on Ponder's `db` in its process).
 * BENCH_HISTORY_PONDER=0 leaves Ponder's column out (the read service alone, half the run). Goal on Postgres: p99 under 50 ms cold; PGlite figures are
 * reported without a goal.
 *   npm run bench -- history     BENCH_DBS=postgres,pglite BENCH_HISTORY_FILLS=1000000 BENCH_DURATION_S=30 BENCH_CONNECTIONS=16
 * PGlite: the indexer stops while the rows are written into its directory, then resumes.
 */
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import pg from "pg";
import type { Hex } from "viem";
import { startVenue, waitForBlock, type Indexer, type Venue } from "../test/e2e/reads-env.js";
import type { DbKind } from "../test/e2e/stack.js";
import { HISTORY_TABLES, HOT_ACCOUNT, historySql, type Market } from "./history-data.js";
import { pidsCpuMs } from "./history-pg.js";
import { cannon, type Load } from "./load.js";

export type HistoryRow = { db: DbKind; list: string; page: string; reads: Load; readsPgCpuMs?: number; ponder?: Load };

const DAY = 86_400n;
/** the deep page (1,000; smaller for a quick look with fewer fills) */
const DEEP_PAGE = Number(process.env.BENCH_HISTORY_DEEP_PAGE ?? 1000);
/** the deep page's label as printed ("1,000th") */
const DEEP_LABEL = `${DEEP_PAGE.toLocaleString("en-US")}th`;

/** Runs the generator's statements (pg: one connection; PGlite: its directory, the indexer stopped). */
export async function generate(v: Venue, ix: Indexer, log: (m: string) => void): Promise<bigint> {
  const fills = Number(process.env.BENCH_HISTORY_FILLS ?? 1_000_000);
  const now = BigInt(Math.floor(Date.now() / 1000));
  const t0 = now - 90n * DAY - (now % DAY); // ~89 days of fills, ending a day before now
  const statements = historySql({ schema: ix.schema, markets: [v.deployment.markets[0]!, v.deployment.markets[1]!] as [Market, Market], fills, t0 });
  const t = Date.now();
  let exec: (sql: string) => Promise<unknown>;
  let rows: <R>(sql: string) => Promise<R[]>;
  let close: () => Promise<unknown>;
  if (v.kind === "postgres") {
    const c = new pg.Client({ connectionString: v.databaseUrl! });
    await c.connect();
    exec = (s) => c.query(s);
    rows = async (s) => (await c.query(s)).rows;
    close = () => c.end();
  } else {
    // Ponder's own PGlite (0.2): the project's newer one cannot open the directory Ponder wrote
    const ponderRequire = createRequire(new URL("../node_modules/ponder/package.json", import.meta.url));
    const { PGlite } = (await import(pathToFileURL(ponderRequire.resolve("@electric-sql/pglite")).href)) as typeof import("@electric-sql/pglite");
    const db = new PGlite(join(v.base, "pglite-hbench"));
    exec = (s) => db.exec(s);
    rows = async (s) => (await db.query(s)).rows as never;
    close = () => db.close();
  }
  const step = async (name: string, sql: string) => {
    const t1 = Date.now();
    await exec(sql);
    log(`    ${name.padEnd(20)} ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  };
  try {
    // the secondary indexes are built once after the rows (a sorted build), not row by row
    const indexes = await rows<{ indexname: string; indexdef: string }>(
      `SELECT i.relname AS indexname, pg_get_indexdef(i.oid) AS indexdef FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = '${ix.schema}' AND t.relname IN (${HISTORY_TABLES.map((t) => `'${t}'`).join(", ")}) AND NOT x.indisprimary AND NOT x.indisunique`,
    );
    await step("drop indexes", indexes.map((i) => `DROP INDEX "${ix.schema}"."${i.indexname}"`).join("; ") || "SELECT 1");
    for (const s of statements) await step(s.name, s.sql);
    await step(`create ${indexes.length} indexes`, indexes.map((i) => i.indexdef).join("; ") || "SELECT 1");
  } finally {
    await close();
  }
  log(`  generated ${fills.toLocaleString("en")} fills (and their account fills, orders, candles, funding, transfers, liquidations) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return t0;
}

/** The URL of a list's 1,000th page: the 999 pages before it, walked by their cursors (no shortcut). */
export async function thousandthPage(base: string, path: string, key: string): Promise<{ path: string; items: number }> {
  let cursor: string | null = null;
  const sep = path.includes("?") ? "&" : "?";
  for (let page = 1; ; page++) {
    const pagePath: string = `${path}${sep}limit=100${cursor ? `&cursor=${cursor}` : ""}`;
    const body = (await (await fetch(`${base}${pagePath}`, { headers: { "Cache-Control": "no-cache" } })).json()) as { data: Record<string, unknown[]> & { nextCursor: string | null } };
    if (page === DEEP_PAGE) return { path: pagePath, items: body.data[key]!.length };
    if (!body.data.nextCursor) throw new Error(`${path}: only ${page} pages`);
    cursor = body.data.nextCursor;
  }
}

/** CPU ms per request of the measured process group (the server's node processes; Postgres' own backends not included) */
const cpu = (l: Load) => (Number.isFinite(l.cpuUsPerRequest) ? (l.cpuUsPerRequest / 1000).toFixed(2) : "–");
const fmt = (l: Load) =>
  `${l.p50Ms.toFixed(0).padStart(3)}/${l.p99Ms.toFixed(0).padStart(3)} ms ${l.rps.toFixed(0).padStart(5)} rps ${cpu(l).padStart(5)} ms cpu/req${l.non2xx || l.errors ? ` (${l.non2xx} non-2xx, ${l.errors} errors)` : ""}`;

async function benchDb(kind: DbKind, log: (m: string) => void): Promise<HistoryRow[]> {
  const durationS = Number(process.env.BENCH_DURATION_S ?? 30);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
  log(`\n-- ${kind} (load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
  const v = await startVenue(kind);
  try {
    let ix = await v.startIndexer("hbench");
    await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }), 600_000);
    if (kind === "pglite") await ix.stop(); // PGlite is one process's: the rows go in while the indexer is down
    const t0 = await generate(v, ix, log);
    if (kind === "pglite") {
      ix = await v.startIndexer("hbench");
      await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }), 600_000);
    }
    const eur = v.deployment.markets[0]!.marketId as Hex;
    const a = HOT_ACCOUNT;
    const lists: { list: string; path: string; key: string }[] = [
      { list: "trades", path: `/markets/${eur}/trades`, key: "trades" },
      { list: "funding history", path: `/markets/${eur}/funding/history`, key: "funding" },
      { list: "candles 1m", path: `/markets/${eur}/candles?resolution=1m&from=${t0}`, key: "candles" },
      { list: "fills", path: `/accounts/${a}/fills`, key: "fills" },
      { list: "funding payments", path: `/accounts/${a}/funding-payments`, key: "fundingPayments" },
      { list: "transfers", path: `/accounts/${a}/transfers`, key: "transfers" },
      { list: "liquidations", path: `/accounts/${a}/liquidations`, key: "liquidations" },
      { list: "order history", path: `/accounts/${a}/orders/history`, key: "orders" },
    ];
    const rd = await v.startReads(ix);
    const o = { connections, durationS };
    const cold = { "Cache-Control": "no-cache" };
    await cannon(`${rd.url}${lists[0]!.path}`, { ...o, durationS: 2, headers: cold }); // warm-up (JIT, prepared statements)
    await cannon(`${ix.url}${lists[0]!.path}`, { ...o, durationS: 2, headers: cold });
    const withPonder = process.env.BENCH_HISTORY_PONDER !== "0"; // 0: the read service alone (half the run)
    // Postgres: the CPU of the read service's history backends too (its pool's application_name)
    const pgc = kind === "postgres" ? new pg.Client({ connectionString: v.databaseUrl! }) : undefined;
    await pgc?.connect();
    const backends = async () => (pgc ? (await pgc.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = 'venue-reads-history'`)).rows.map((r) => r.pid) : []);
    const rows: HistoryRow[] = [];
    for (const l of lists) {
      const first = `${l.path}${l.path.includes("?") ? "&" : "?"}limit=100`;
      const deep = await thousandthPage(rd.url, l.path, l.key);
      if (deep.items !== 100) throw new Error(`${l.list}: the ${DEEP_LABEL} page has ${deep.items} items`);
      for (const [page, path] of [["first", first], [DEEP_LABEL, deep.path]] as const) {
        const pids0 = await backends();
        const pg0 = pidsCpuMs(pids0);
        const reads = await cannon(`${rd.url}${path}`, { ...o, headers: cold, cpuPgid: rd.proc.pid });
        const readsPgCpuMs = pgc ? (pidsCpuMs([...new Set([...pids0, ...(await backends())])]) - pg0) / reads.requests : undefined;
        const ponder = withPonder ? await cannon(`${ix.url}${path}`, { ...o, headers: cold, cpuPgid: ix.proc.pid }) : undefined;
        rows.push({ db: kind, list: l.list, page, reads, readsPgCpuMs, ponder });
        log(`  ${l.list.padEnd(17)} ${page.padEnd(8)} cold: reads ${fmt(reads)}${readsPgCpuMs === undefined ? "" : ` + pg ${readsPgCpuMs.toFixed(2)} ms`}   ${ponder ? `Ponder ${fmt(ponder)}` : ""}   (load ${loadavg()[0]!.toFixed(1)})`);
      }
    }
    await pgc?.end();
    return rows;
  } finally {
    await v.stop();
  }
}

export async function run() {
  const kinds = (process.env.BENCH_DBS ?? "postgres,pglite").split(",").map((s) => s.trim()) as DbKind[];
  const log = (m: string) => console.log(m);
  const rows: HistoryRow[] = [];
  for (const kind of kinds) rows.push(...(await benchDb(kind, log)));
  const cell = (l?: Load) => (l ? `${l.p50Ms} / ${l.p99Ms} ms | ${l.rps.toFixed(0)} | ${cpu(l)} ms` : "– | – | –");
  console.log("\n| db | list | page | reads cold p50 / p99 | reads rps | reads cpu/req (node) | reads pg cpu/req | Ponder cold p50 / p99 | Ponder rps | Ponder cpu/req |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows)
    console.log(`| ${r.db} | ${r.list} | ${r.page} | ${cell(r.reads)} | ${r.readsPgCpuMs === undefined ? "–" : `${r.readsPgCpuMs.toFixed(2)} ms`} | ${cell(r.ponder)} |`);
  return rows;
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
