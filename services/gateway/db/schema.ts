/** The gateway's own tables: API keys only (stored as SHA-256 hashes, never in clear). */
import { index, pgSchema, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export function gatewayTables(schemaName: string) {
  const schema = pgSchema(schemaName);
  const apiKey = schema.table(
    "api_key",
    {
      keyId: text("key_id").primaryKey(),
      /** hex SHA-256 of the whole key */
      keyHash: text("key_hash").notNull(),
      /** first characters of the key, to recognise it in listings */
      keyPrefix: text("key_prefix").notNull(),
      /** lower-case 0x address of the registered wallet the key acts for */
      wallet: text("wallet").notNull(),
      label: text("label"),
      createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
      revokedAt: timestamp("revoked_at", { withTimezone: true }),
    },
    (t) => [uniqueIndex("api_key_hash_idx").on(t.keyHash), index("api_key_wallet_idx").on(t.wallet)],
  );
  return { schema, apiKey };
}

export type GatewayTables = ReturnType<typeof gatewayTables>;

/** DDL of the tables above (no migration tool in this project: idempotent CREATE IF NOT EXISTS). */
export const gatewayDdl = (s: string) => `
  CREATE SCHEMA IF NOT EXISTS "${s}";
  CREATE TABLE IF NOT EXISTS "${s}".api_key (
    key_id text PRIMARY KEY,
    key_hash text NOT NULL,
    key_prefix text NOT NULL,
    wallet text NOT NULL,
    label text,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
  );
  CREATE UNIQUE INDEX IF NOT EXISTS api_key_hash_idx ON "${s}".api_key (key_hash);
  CREATE INDEX IF NOT EXISTS api_key_wallet_idx ON "${s}".api_key (wallet);
`;
