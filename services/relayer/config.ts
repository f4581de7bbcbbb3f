/**
 * Relayer configuration from the environment (names per docs/SERVICES.md; units in the names).
 * Defaults are the local profile.
 */
import { z } from "zod";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { chainConfig, KEY_INDEX, roleKey } from "../../core/config.js";
import { DEFAULT_PORTS, defaultUrl } from "../../core/ports.js";
import { assertProfileSecrets, profileFromEnv, RELAYER_SECRETS, secret } from "../../core/profiles.js";
import { callerTokens, type KnownToken } from "../../core/auth/service-tokens.js";

export const CRASH_STEPS = ["queued", "signed", "broadcast", "receipt"] as const;
export type CrashStep = (typeof CRASH_STEPS)[number];

const relayerEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS.relayer),
  HOST: z.string().default("127.0.0.1"),
  DATABASE_URL: z.string().optional(),
  /** Postgres schema of the relayer's tables (tests use a unique one). */
  RELAYER_DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default("relayer"),
  PGLITE_DIR: z.string().default(".venue/relayer-db"),
  WRITE_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** A transaction not mined this long after its last (re)pricing is replaced with higher fees. */
  BUMP_AFTER_MS: z.coerce.number().int().positive().default(20_000),
  /** Fee multiplier of a replacement, in basis points (≥ 11250 = ×1.125). */
  FEE_BUMP_BPS: z.coerce.number().int().min(11_250).default(11_250),
  /** A sent transaction the node no longer knows (dropped) is sent again after this long. */
  REBROADCAST_AFTER_MS: z.coerce.number().int().positive().default(2_000),
  /** A nonce used on chain without any of our attempts' receipts this long is not ours: the write is signed again. */
  FOREIGN_NONCE_AFTER_MS: z.coerce.number().int().positive().default(10_000),
  /** Period of the tracker loop (receipts, bumps, re-sends, recovery). */
  TRACK_INTERVAL_MS: z.coerce.number().int().positive().default(200),
  /** A QUEUED row untouched this long is taken over (its process died). */
  ORPHAN_AFTER_MS: z.coerce.number().int().positive().default(30_000),
  /** Priority fee of new transactions (wei). */
  PRIORITY_FEE_WEI: z.coerce.bigint().default(1_000_000_000n),
  /** Fee caps: no transaction (nor any fee bump) is signed above them. */
  MAX_FEE_PER_GAS_WEI: z.coerce.bigint().positive().default(200_000_000_000n),
  MAX_PRIORITY_FEE_WEI: z.coerce.bigint().positive().default(10_000_000_000n),
  /** Below this balance the signer takes no new writes (503 RELAYER_OUT_OF_FUNDS, nothing queued). */
  MIN_SIGNER_BALANCE_WEI: z.coerce.bigint().nonnegative().default(10_000_000_000_000_000n),
  /** The signer's balance is re-read this often (and at once after a send fails for lack of funds). */
  BALANCE_CHECK_MS: z.coerce.number().int().positive().default(5_000),
  /** Default lifetime of a write (validUntil) when the request sets none: MARKET orders and closes, the rest. */
  VALID_FOR_MARKET_S: z.coerce.number().int().positive().default(60),
  VALID_FOR_OTHER_S: z.coerce.number().int().positive().default(600),
  /** Caps against lane starvation: writes not yet mined per lane (account) and per caller (429 beyond). */
  LANE_MAX_PENDING: z.coerce.number().int().positive().default(20),
  CALLER_MAX_PENDING: z.coerce.number().int().positive().default(200),
  /** Operator approvals are re-read after this long (ownership is cached for good: it never changes). */
  APPROVAL_CACHE_MS: z.coerce.number().int().nonnegative().default(5_000),
  /** Idempotency keys are forgotten this long after their request (then the key may be used again). */
  IDEMPOTENCY_TTL_MS: z.coerce.number().int().positive().default(86_400_000),
  /** Blocks after which a mined write is final; default: the profile's (core/profiles.ts). */
  CONFIRMATIONS: z.coerce.number().int().min(1).max(10_000).optional(),
  /** Mined writes of the last this many blocks have their receipts checked again after a reorg. */
  REORG_WATCH_BLOCKS: z.coerce.number().int().min(1).default(256),
  /** The oldest write not final older than this while the signer's mined nonce has not moved as long: degraded. */
  STUCK_AFTER_MS: z.coerce.number().int().positive().default(120_000),
  DB_POOL_SIZE: z.coerce.number().int().positive().default(20),
  /** Test hook: SIGKILL this process at a step of the first write that reaches it. */
  RELAYER_CRASH_AT: z.enum(CRASH_STEPS).optional(),
  LOG_LEVEL: z.string().default("info"),
  /** The indexer's read API (Ponder): an account's open orders for cancel-all. */
  INDEXER_URL: z.string().url().default(defaultUrl("indexer")),
});

export type RelayerConfig = Omit<z.infer<typeof relayerEnv>, "CONFIRMATIONS"> &
  ReturnType<typeof chainConfig> & {
    /** CONFIRMATIONS, else the profile's */
    CONFIRMATIONS: number;
    accessPolicy: "open" | "invite-only";
    adminToken: string;
    /** the tokens of the services that call the relayer, with their scopes */
    serviceTokens: KnownToken[];
    privateKey: Hex;
    signerAddress: Hex;
  };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): RelayerConfig {
  const parsed = relayerEnv.safeParse(env);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid relayer configuration: ${msg}`);
  }
  const profile = profileFromEnv(env);
  assertProfileSecrets(profile, env, RELAYER_SECRETS);
  const privateKey = roleKey("RELAYER_PRIVATE_KEY", KEY_INDEX.relayer, env);
  return {
    ...chainConfig(env),
    ...parsed.data,
    CONFIRMATIONS: parsed.data.CONFIRMATIONS ?? profile.confirmations,
    serviceTokens: callerTokens(["gateway", "integration", "keeper", "registration"], env),
    accessPolicy: profile.accessPolicy,
    adminToken: secret("ADMIN_TOKEN", env),
    privateKey,
    signerAddress: privateKeyToAccount(privateKey).address,
  };
}
