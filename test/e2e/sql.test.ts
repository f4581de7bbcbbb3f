/**
 * docs/SQL.md: every query of the guide runs against an indexed trading session, through Ponder's
 * SQL over HTTP (PGlite and Postgres) and, on Postgres, directly in the run's schema (psql's way),
 * and a few answers are checked against what the session did.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createClient } from "@ponder/client";
import { sql } from "drizzle-orm";
import * as schema from "../../ponder.schema.js";
import { PROJECT_ROOT } from "../../core/deployment.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { dbKinds } from "./stack.js";
import { runSession, type Session } from "./reads-session.js";

type Row = Record<string, unknown>;

/** The guide's queries: ```sql blocks that start with `-- name: <name>`. */
export function guideQueries(): Map<string, string> {
  const text = readFileSync(join(PROJECT_ROOT, "docs", "SQL.md"), "utf8");
  const out = new Map<string, string>();
  for (const m of text.matchAll(/```sql\n-- name: ([\w-]+)\n([\s\S]*?)```/g)) out.set(m[1]!, m[2]!.trim());
  return out;
}

describe.each(dbKinds())("docs/SQL.md queries on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let s: Session;
  const results = new Map<string, Row[]>();

  beforeAll(async () => {
    v = await startVenue(kind);
    ix = await v.startIndexer("sql");
    s = await runSession(v);
    await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }));
  }, 300_000);
  afterAll(async () => {
    await v?.stop();
  });

  it("every query runs through /sql", async () => {
    const client = createClient(`${ix.url}/sql`, { schema });
    const queries = guideQueries();
    expect([...queries.keys()]).toEqual(
      expect.arrayContaining(["open-interest-over-time", "volume-by-account", "funding-paid-per-position", "liquidations-per-day"]),
    );
    for (const [name, q] of queries) {
      const r = (await client.db.execute(sql.raw(q))) as unknown as { rows: Row[] } | Row[];
      const rows = Array.isArray(r) ? r : r.rows;
      expect(rows.length, name).toBeGreaterThan(0);
      results.set(name, rows);
    }
  });

  it("answers agree with the session", async () => {
    const liq = results.get("liquidations-per-day")!;
    expect(liq.reduce((n, r) => n + Number(r.liquidations), 0)).toBe(1);
    const volume = results.get("volume-by-account")!;
    const accounts = new Set(volume.map((r) => String(r.account_id)));
    for (const id of [s.accounts[0], s.accounts[2], s.accounts[3]]) expect(accounts.has(String(id))).toBe(true);
    const funding = results.get("funding-paid-per-position")!;
    expect(funding.some((r) => BigInt(String(r.funding_paid_wad)) !== 0n)).toBe(true);
    const oi = results.get("open-interest-over-time")!;
    for (const r of oi) expect(String(r.long_qty)).toBe(String(r.short_qty));
    const dw = results.get("deposits-and-withdrawals")!;
    const e = dw.find((r) => String(r.account_id) === String(s.accounts[4]))!;
    expect(String(e.withdrawn6)).toBe("1000000000");
  });

  it.runIf(kind === "postgres")("the same queries run in the schema with plain SQL (psql)", async () => {
    const c = new pg.Client({ connectionString: v.databaseUrl! });
    await c.connect();
    try {
      await c.query(`SET search_path TO "${ix.schema}"`);
      for (const [name, q] of guideQueries()) {
        const r = await c.query(q);
        expect(r.rows.length, name).toBe(results.get(name)!.length);
      }
    } finally {
      await c.end();
    }
  });
});
