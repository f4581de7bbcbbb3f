/**
 * Stream-service configuration from the environment (names per docs/SERVICES.md; units in the names).
 */
import { z } from "zod";
import { DEFAULT_PORTS, defaultUrl } from "../../core/ports.js";

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS.streams),
  HOST: z.string().default("127.0.0.1"),
  /** The integration API as clients read it (the read service): every channel is built from its answers. */
  INTEGRATION_URL: z.string().url().default(defaultUrl("reads")),
  /** The relayer: its write events feed the transactions channel (`GET /internal/transactions/stream`). */
  RELAYER_URL: z.string().url().default(defaultUrl("relayer")),
  /** The chain, for reorg detection (one block read per indexed block, not per subscriber). */
  RPC_URL: z.string().url().default(defaultUrl("anvil")),
  /** With Postgres, the indexer's database and schema: the block feed then LISTENs there directly. */
  DATABASE_URL: z.string().optional(),
  DATABASE_SCHEMA: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  /** The connections one identity (API key, sign-in wallet, else client address) may hold at once. */
  STREAMS_MAX_CONNECTIONS_PER_KEY: z.coerce.number().int().positive().default(20),
  STREAMS_MAX_SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().positive().default(50),
  /** Client messages per second per connection (burst of the same size). */
  STREAMS_MAX_MESSAGES_PER_SECOND: z.coerce.number().int().positive().default(20),
  /** Server pings every this long; a connection that answered none since the last is closed. */
  STREAMS_PING_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
  /** Messages kept per topic for `resume` (a gap longer than this gets a fresh snapshot). */
  STREAMS_REPLAY_MESSAGES: z.coerce.number().int().positive().default(256),
  /** `{"op":"testDrop"}` skips the next message of a subscription (tests of gap detection only). */
  STREAMS_TEST_HOOKS: z.enum(["0", "1"]).default("0"),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type StreamsConfig = z.infer<typeof envSchema>;

export function loadStreamsConfig(env: Record<string, string | undefined> = process.env): StreamsConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid stream-service configuration: ${msg}`);
  }
  return { ...parsed.data, INTEGRATION_URL: parsed.data.INTEGRATION_URL.replace(/\/$/, ""), RELAYER_URL: parsed.data.RELAYER_URL.replace(/\/$/, "") };
}
