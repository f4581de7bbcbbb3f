/**
 * Read-service configuration from the environment (names per docs/SERVICES.md; units in the names).
 */
import { z } from "zod";
import { DEFAULT_PORTS, defaultUrl } from "../../core/ports.js";
import { assertProfileSecrets, profileFromEnv } from "../../core/profiles.js";
import { DEFAULT_EAGER_BYTES, DEFAULT_EAGER_MAX } from "./answers.js";

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS.reads),
  HOST: z.string().default("127.0.0.1"),
  /** Ponder's own server (indexer + integration API): answers are built there, everything else is proxied to it. */
  INDEXER_URL: z.string().url().default(defaultUrl("indexer")),
  /** With Postgres, the indexer's database and schema: the block feed then LISTENs there directly. */
  DATABASE_URL: z.string().optional(),
  DATABASE_SCHEMA: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  /** An answer nobody read for this long is dropped at the next block instead of being rebuilt. */
  READS_HOT_MS: z.coerce.number().int().positive().default(10_000),
  /** Most answers held (the one read longest ago makes room for a new one). */
  READS_MAX_ANSWERS: z.coerce.number().int().positive().default(2_000),
  /**
   * Most answers rebuilt at each block before anyone asks (the most read); the others are built
   * when next read. Bounds a block's work whatever number of URLs clients read.
   */
  READS_EAGER_MAX: z.coerce.number().int().positive().default(DEFAULT_EAGER_MAX),
  /** The same bound in bytes of answers (their last bodies): a few huge answers cannot hold a block back. */
  READS_EAGER_BYTES: z.coerce.number().int().positive().default(DEFAULT_EAGER_BYTES),
  /**
   * Rebuilds in flight at once (on Postgres also the connections of the pool that builds them).
   * A block has 6–11 hot answers in the benchmark; 8 and 16 gave the same freshness there, each
   * build being one short statement (docs/PERFORMANCE.md, 2026-11-26).
   */
  READS_REBUILD_CONCURRENCY: z.coerce.number().int().positive().default(8),
  /** Upper bound of `?minBlock=` waits (the integration API's own bound). */
  MIN_BLOCK_WAIT_MS: z.coerce.number().int().positive().default(5_000),
  /** Longest a session's read waits for the block of that wallet's last write (read-your-writes). */
  READ_YOUR_WRITES_WAIT_MS: z.coerce.number().int().positive().default(2_000),
  /**
   * With DATABASE_URL: the schema of the `last_write` table (read-your-writes shared by every
   * replica and with the gateway: its schema); without it, the notes stay in this process.
   */
  LAST_WRITE_DB_SCHEMA: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  /** With DATABASE_URL and DATABASE_SCHEMA: connections of the pool that answers the history lists. */
  READS_HISTORY_POOL_MAX: z.coerce.number().int().positive().default(8),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** The relayer: the writes of sign-in sessions go there from here (core/relayer-client.ts, which reads it and WRITE_TIMEOUT_MS). */
  RELAYER_URL: z.string().url().default(defaultUrl("relayer")),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type ReadsConfig = z.infer<typeof envSchema>;

export function loadReadsConfig(env: Record<string, string | undefined> = process.env): ReadsConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid read-service configuration: ${msg}`);
  }
  const d = parsed.data;
  // the integration token: on what is passed to Ponder (and batched builds, POST /internal/answers)
  // and on the writes sent to the relayer; JWT_SECRET verifies the sessions' bearer tokens
  assertProfileSecrets(profileFromEnv(env), env, ["INTEGRATION_TOKEN", "JWT_SECRET"]);
  return { ...d, INDEXER_URL: d.INDEXER_URL.replace(/\/$/, "") };
}
