/**
 * Opens the gateway's key store: Postgres (`DATABASE_URL`, schema `gateway`) or an embedded
 * PGlite directory. PGlite is one process only: admin commands talk to the running gateway.
 */
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import pg from "pg";
import { gatewayDdl, gatewayTables, type GatewayTables } from "./schema.js";
import { seedPgliteDir } from "../../../core/pglite-dir.js";

export type GatewayDb = PgDatabase<PgQueryResultHKT>;

export interface GatewayStore {
  db: GatewayDb;
  tables: GatewayTables;
  kind: "postgres" | "pglite";
  /** round trip to the database; throws when it is unreachable */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  databaseUrl?: string;
  pgliteDir: string;
  schema: string;
  /** an already open PGlite to share (tests: one per file); left open by close() */
  pglite?: PGlite;
}

export async function openGatewayStore({ databaseUrl, pgliteDir, schema, pglite }: OpenStoreOptions): Promise<GatewayStore> {
  const tables = gatewayTables(schema);
  if (databaseUrl) {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 5 });
    await pool.query(gatewayDdl(schema));
    const db = drizzlePg(pool) as unknown as GatewayDb;
    return {
      db,
      tables,
      kind: "postgres",
      ping: async () => void (await pool.query("SELECT 1")),
      close: () => pool.end(),
    };
  }
  if (!pglite && pgliteDir !== "memory://") await seedPgliteDir(pgliteDir); // makes the directory
  const client = pglite ?? new PGlite(pgliteDir);
  await client.exec(gatewayDdl(schema));
  const db = drizzlePglite(client) as unknown as GatewayDb;
  return {
    db,
    tables,
    kind: "pglite",
    ping: async () => void (await db.execute(sql`SELECT 1`)),
    close: async () => {
      if (!pglite) await client.close();
    },
  };
}
