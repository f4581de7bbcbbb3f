/**
 * Opens the relayer's database: Postgres when DATABASE_URL is set (node-postgres pool), else an
 * embedded PGlite directory. Creates the tables idempotently, under an advisory lock so that
 * replicas starting together do not race on the DDL.
 */
import { sql } from "drizzle-orm";
import type pg from "pg";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { ddl, relayerTables, type RelayerTables } from "./schema.js";
import { seedPgliteDir } from "../../../core/pglite-dir.js";

export type Db = PgDatabase<PgQueryResultHKT, Record<string, never>>;
export type RelayerDb = {
  db: Db;
  t: RelayerTables;
  kind: "postgres" | "pglite";
  close: () => Promise<void>;
  /** LISTEN on `channel` (Postgres: a connection of its own, reopened when lost; PGlite: in-process). */
  listen: (channel: string, cb: (payload: string) => void) => Promise<void>;
};

export async function openDb(opts: {
  databaseUrl?: string;
  pgliteDir: string;
  schema: string;
  poolSize?: number;
}): Promise<RelayerDb> {
  let db: Db;
  let close: () => Promise<void>;
  let kind: RelayerDb["kind"];
  let listen: RelayerDb["listen"];
  if (opts.databaseUrl) {
    const { Pool } = (await import("pg")).default;
    const { drizzle } = await import("drizzle-orm/node-postgres");
    const pool = new Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 20 });
    // A dropped connection must not crash the process: the next query reconnects.
    pool.on("error", () => {});
    db = drizzle({ client: pool }) as unknown as Db;
    let closed = false;
    const listeners: pg.Client[] = [];
    close = async () => {
      closed = true;
      await Promise.all(listeners.map((c) => c.end().catch(() => {})));
      await pool.end();
    };
    kind = "postgres";
    listen = async (channel, cb) => {
      const connect = async (): Promise<void> => {
        const c = new (await import("pg")).default.Client({ connectionString: opts.databaseUrl });
        c.on("notification", (n) => n.channel === channel && n.payload !== undefined && cb(n.payload));
        c.on("error", () => {
          listeners.splice(listeners.indexOf(c), 1);
          if (!closed) setTimeout(() => void connect().catch(() => {}), 1_000);
        });
        await c.connect();
        listeners.push(c);
        await c.query(`LISTEN "${channel.replaceAll('"', "")}"`);
      };
      await connect();
    };
  } else {
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    await seedPgliteDir(opts.pgliteDir); // makes the directory
    const client = new PGlite(opts.pgliteDir);
    await client.waitReady;
    db = drizzle({ client }) as unknown as Db;
    close = () => client.close();
    kind = "pglite";
    listen = async (channel, cb) => {
      await client.listen(channel, cb);
    };
  }
  await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`relayer-ddl:${opts.schema}`}))`);
    for (const stmt of ddl(opts.schema)) await tx.execute(sql.raw(stmt));
  });
  return { db, t: relayerTables(opts.schema), kind, close, listen };
}
