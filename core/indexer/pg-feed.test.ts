/**
 * The Postgres block feed against a real Postgres (E2E_DATABASE_URL or the local one): while
 * Ponder has not created its tables yet, each failed attempt's LISTEN connection is closed before
 * the next try (a slow start once left one open per 250 ms try and exhausted max_connections).
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { pgBlockFeed } from "./pg-feed.js";

const URL_BASE = process.env.E2E_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

describe("pgBlockFeed (Postgres)", () => {
  it("holds at most its own few connections however many first reads fail", { timeout: 60_000 }, async () => {
    const app = `feed-test-${randomUUID().slice(0, 8)}`;
    const url = `${URL_BASE}${URL_BASE.includes("?") ? "&" : "?"}application_name=${app}`;
    let failures = 0;
    // a schema with no Ponder tables: every state read fails
    const feed = pgBlockFeed({ databaseUrl: url, schema: `no_such_schema_${app.replaceAll("-", "_")}`, onError: () => void failures++ });
    const admin = new pg.Client({ connectionString: URL_BASE });
    await admin.connect();
    try {
      while (failures < 12) await new Promise((r) => setTimeout(r, 50));
      const { rows } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", [app]);
      // the pool (at most 4) and one listener; before the fix: one more per failed attempt
      expect(Number(rows[0]!.n)).toBeLessThanOrEqual(5);
    } finally {
      await feed.close();
      await admin.end();
    }
  });
});
