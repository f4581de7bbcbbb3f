/**
 * Gateway configuration from the environment (names per docs/SERVICES.md; units in the names).
 * Outside the local profile the shared secrets must be real (core/profiles.ts).
 */
import { z } from "zod";
import { DEFAULT_BODY_LIMIT_BYTES } from "../../core/http/body-limit.js";
import { trustedProxies } from "../../core/http/client-address.js";
import { DEFAULT_PORTS, defaultUrl } from "../../core/ports.js";
import { DEFAULT_WS_MAX_BUFFER_BYTES } from "../../core/ws/send-buffer.js";
import { assertProfileSecrets, GATEWAY_SECRETS, profileFromEnv, secret, type Profile } from "../../core/profiles.js";

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS.gateway),
  HOST: z.string().default("0.0.0.0"),
  RPC_URL: z.string().url().default(defaultUrl("anvil")),
  INTEGRATION_URL: z.string().url().default(defaultUrl("reads")),
  RELAYER_URL: z.string().url().default(defaultUrl("relayer")),
  KEEPER_URL: z.string().url().default(defaultUrl("keeper")),
  /** The stream service: `/v1/ws` is piped to its `/ws`. */
  STREAMS_URL: z.string().url().default(defaultUrl("streams")),
  DATABASE_URL: z.string().optional(),
  /** Postgres schema of the key store (tests use a unique one). */
  GATEWAY_DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default("gateway"),
  PGLITE_DIR: z.string().default(".venue/gateway-db"),
  /** Reads; above the integration API's own `minBlock` wait (5 s, then its 503). */
  INTEGRATION_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Writes wait for the receipt (relayer WRITE_TIMEOUT_MS, 15 s by default) and then answer 202. */
  RELAYER_TIMEOUT_MS: z.coerce.number().int().positive().default(25_000),
  KEEPER_TIMEOUT_MS: z.coerce.number().int().positive().default(25_000),
  HEALTH_TIMEOUT_MS: z.coerce.number().int().positive().default(2_000),
  /** A dependency's health is checked at most once per this long, whatever the request rate. */
  HEALTH_CACHE_MS: z.coerce.number().int().min(0).default(1_000),
  /** Requests per key (or per client address without a key) per window. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** Failed authentications (401) per client address per minute before that address gets 429. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(60),
  /** How long a verified key stays cached in this process (revocation elsewhere takes this long). */
  KEY_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(DEFAULT_BODY_LIMIT_BYTES),
  /** Proxies whose X-Forwarded-For is believed (addresses or CIDRs, comma-separated); none by default. */
  TRUSTED_PROXIES: z.string().default(""),
  /** Rate-limit counters shared by replicas; unset: this process's memory. */
  REDIS_URL: z.string().url().optional().or(z.literal("").transform(() => undefined)),
  /** A caller's read waits at most this long for the block of its last write (read-your-writes). */
  READ_YOUR_WRITES_WAIT_MS: z.coerce.number().int().min(0).default(2_000),
  /** `/v1/ws`: a client's send buffer; past it the gateway closes it with 1008 "slow consumer" (1 MiB). */
  WS_MAX_BUFFER_BYTES: z.coerce.number().int().positive().default(DEFAULT_WS_MAX_BUFFER_BYTES),
  LOG_LEVEL: z.string().default("info"),
});

export interface GatewayConfig {
  profile: Profile;
  port: number;
  host: string;
  rpcUrl: string;
  integrationUrl: string;
  relayerUrl: string;
  keeperUrl: string;
  streamsUrl: string;
  databaseUrl?: string;
  dbSchema: string;
  pgliteDir: string;
  timeouts: { integrationMs: number; relayerMs: number; keeperMs: number; healthMs: number; healthCacheMs: number };
  rateLimit: { limit: number; windowMs: number; authFailures: number };
  keyCacheMs: number;
  bodyLimitBytes: number;
  trustedProxies: string;
  redisUrl?: string;
  readYourWritesWaitMs: number;
  /** the gateway's own service token (X-Internal-Token to the relayer and the keeper) */
  gatewayToken: string;
  adminToken: string;
  logLevel: string;
  wsMaxBufferBytes: number;
}

/** Parses the environment; throws with a readable message on bad values or unsafe secrets. */
export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const profile = profileFromEnv(env);
  assertProfileSecrets(profile, env, GATEWAY_SECRETS);
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid gateway configuration: ${msg}`);
  }
  const e = parsed.data;
  trustedProxies(e.TRUSTED_PROXIES); // a bad entry stops the start, not the first request
  return {
    // a local gateway documents the port it runs on (PUBLIC_BASE_URL still wins)
    profile: profile.name === "local" && !env.PUBLIC_BASE_URL ? { ...profile, gatewayBaseUrl: `http://127.0.0.1:${e.PORT}` } : profile,
    port: e.PORT,
    host: e.HOST,
    rpcUrl: e.RPC_URL,
    integrationUrl: e.INTEGRATION_URL.replace(/\/$/, ""),
    relayerUrl: e.RELAYER_URL.replace(/\/$/, ""),
    keeperUrl: e.KEEPER_URL.replace(/\/$/, ""),
    streamsUrl: e.STREAMS_URL.replace(/\/$/, ""),
    databaseUrl: e.DATABASE_URL || undefined,
    dbSchema: e.GATEWAY_DB_SCHEMA,
    pgliteDir: e.PGLITE_DIR,
    timeouts: {
      integrationMs: e.INTEGRATION_TIMEOUT_MS,
      relayerMs: e.RELAYER_TIMEOUT_MS,
      keeperMs: e.KEEPER_TIMEOUT_MS,
      healthMs: e.HEALTH_TIMEOUT_MS,
      healthCacheMs: e.HEALTH_CACHE_MS,
    },
    rateLimit: { limit: e.RATE_LIMIT_PER_MINUTE, windowMs: 60_000, authFailures: e.AUTH_FAILURES_PER_MINUTE },
    keyCacheMs: e.KEY_CACHE_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    trustedProxies: e.TRUSTED_PROXIES,
    redisUrl: e.REDIS_URL,
    readYourWritesWaitMs: e.READ_YOUR_WRITES_WAIT_MS,
    gatewayToken: secret("GATEWAY_TOKEN", env),
    adminToken: secret("ADMIN_TOKEN", env),
    logLevel: e.LOG_LEVEL,
    wsMaxBufferBytes: e.WS_MAX_BUFFER_BYTES,
  };
}
