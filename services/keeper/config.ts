/**
 * Keeper configuration from the environment (names carry their units). The chain part comes from
 * `core/config.ts`; local defaults match docs/SERVICES.md (keys from anvil's mnemonic).
 */
import { z } from "zod";
import type { Hex } from "viem";
import { DEFAULT_PORTS, defaultUrl } from "../../core/ports.js";
import { chainConfig, KEY_INDEX, roleKey, type ChainConfig } from "../../core/config.js";
import { assertProfileSecrets, configured, KEEPER_SECRETS, profileFromEnv, secret, type AccessPolicy } from "../../core/profiles.js";

const bool = z
  .enum(["true", "false", "1", "0", ""])
  .transform((v) => v === "true" || v === "1");

const keeperEnv = z.object({
  HOST: z.string().default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORTS.keeper),
  INTEGRATION_URL: z.string().url().default(defaultUrl("indexer")),
  RELAYER_URL: z.string().url().default(defaultUrl("relayer")),
  /** The stream service (its WebSocket at /ws): the market maker re-quotes on its market channels. */
  STREAMS_URL: z.string().url().default(defaultUrl("streams")),
  /** Optional: outside local, GET /metrics needs it (Authorization: Bearer). */
  ADMIN_TOKEN: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),

  LIQUIDATION_ENABLED: bool.optional(),
  LIQUIDATION_SCAN_INTERVAL_MS: z.coerce.number().int().min(50).default(1_000),
  FUNDING_POKE_ENABLED: bool.optional(),
  FUNDING_POKE_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
  /** The dead-man executor (services/keeper/orders/deadman.ts) and its period. */
  DEADMAN_ENABLED: bool.optional(),
  DEADMAN_INTERVAL_MS: z.coerce.number().int().min(50).default(1_000),
  /** The expired-order remover (services/keeper/orders/expired.ts) and its period. */
  EXPIRED_ORDERS_ENABLED: bool.optional(),
  EXPIRED_ORDERS_INTERVAL_MS: z.coerce.number().int().min(50).default(2_000),
  /** The trigger executor (services/keeper/orders/triggers.ts: take-profits and stop-losses) and its period. */
  TRIGGERS_ENABLED: bool.optional(),
  TRIGGERS_INTERVAL_MS: z.coerce.number().int().min(50).default(1_000),
  /** Upstream (indexer, relayer) request timeout. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),

  // local profile only
  PRICE_FEED_ENABLED: bool.optional(),
  PRICE_FEED_INTERVAL_MS: z.coerce.number().int().min(50).default(2_000),
  FEED_SEED: z.string().default("venue"),
  /** Largest move of one step, in basis points of the price. */
  PRICE_FEED_MAX_STEP_BPS: z.coerce.number().int().min(0).max(1_000).default(1),
  /** The walk stays within anchor × (1 ± band); the anchor is the price it started from. */
  PRICE_FEED_BAND_BPS: z.coerce.number().int().min(1).max(5_000).default(200),

  MARKET_MAKER_ENABLED: bool.optional(),
  /** The maker's poll while the stream service is down or not up yet (and its retry while the integration API is not). */
  MARKET_MAKER_INTERVAL_MS: z.coerce.number().int().min(50).default(2_000),
  /** The maker's fallback poll while the stream is connected (re-quotes follow the market channels). */
  MARKET_MAKER_STREAM_POLL_MS: z.coerce.number().int().min(50).default(30_000),
  MARKET_MAKER_LEVELS: z.coerce.number().int().min(1).max(20).default(3),
  /** Distance of the best quote from the index, and between levels, in basis points. */
  MARKET_MAKER_SPREAD_BPS: z.coerce.number().int().min(1).max(400).default(10),
  MARKET_MAKER_LEVEL_STEP_BPS: z.coerce.number().int().min(1).max(400).default(10),
  /** Quantity per level, in whole units of the base asset (e.g. 10000 EUR). */
  MARKET_MAKER_LEVEL_QTY: z.coerce.bigint().positive().default(50_000n),
  MARKET_MAKER_LEVERAGE: z.coerce.number().int().min(1).default(5),
  /** A resting quote is kept while within this many bps of the wanted price (below the spread). */
  MARKET_MAKER_REQUOTE_BPS: z.coerce.number().int().min(0).default(5),
  /** Deposit the maker keeps available (whole USD); minted by the deployer when short. */
  MARKET_MAKER_DEPOSIT_USD: z.coerce.bigint().positive().default(10_000_000n),
  /**
   * The maker's dead-man period (Engine.setDeadman): its deadline is the chain's time + this, moved
   * with every batch; if the maker stops, the dead-man executor cancels its quotes from it. 0: off.
   */
  MARKET_MAKER_DEADMAN_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60)
    .refine((v) => v === 0 || v >= 10, { message: "0 (off) or at least 10 (the contract wants a deadline ≥ 5 s ahead)" }),
});

export type KeeperConfig = ChainConfig &
  Omit<z.infer<typeof keeperEnv>, "LIQUIDATION_ENABLED" | "FUNDING_POKE_ENABLED" | "PRICE_FEED_ENABLED" | "MARKET_MAKER_ENABLED" | "DEADMAN_ENABLED" | "EXPIRED_ORDERS_ENABLED" | "TRIGGERS_ENABLED"> & {
    /** the relayer's policy (core/profiles.ts): invite-only refuses unregistered callers, the keeper too */
    accessPolicy: AccessPolicy;
    liquidationEnabled: boolean;
    fundingPokeEnabled: boolean;
    priceFeedEnabled: boolean;
    marketMakerEnabled: boolean;
    deadmanEnabled: boolean;
    expiredOrdersEnabled: boolean;
    triggersEnabled: boolean;
    keeperKey: Hex;
    priceFeedKey: Hex;
    marketMakerKey: Hex;
    /** Local only: mints deposit tokens for the market maker. */
    deployerKey: Hex;
    /** the keeper's own service token (relayer: liquidations; integration API: /sql) */
    keeperToken: string;
    /** the gateway's token: the only caller of the keeper's liquidate routes */
    gatewayToken: string;
    /** registration-only token: under invite-only the keeper registers its own address (null: not set) */
    registrationToken: string | null;
  };

export function loadKeeperConfig(env: NodeJS.ProcessEnv = process.env): KeeperConfig {
  const profile = profileFromEnv(env);
  assertProfileSecrets(profile, env, KEEPER_SECRETS);
  const chain = chainConfig(env);
  const parsed = keeperEnv.safeParse(env);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid keeper configuration: ${msg}`);
  }
  const e = parsed.data;
  const local = chain.PROFILE === "local";
  // The simulated feed and the demo maker exist only on a local chain, whatever the flags say.
  const {
    LIQUIDATION_ENABLED, FUNDING_POKE_ENABLED, PRICE_FEED_ENABLED, MARKET_MAKER_ENABLED, DEADMAN_ENABLED, EXPIRED_ORDERS_ENABLED, TRIGGERS_ENABLED, ...rest
  } = e;
  if (e.MARKET_MAKER_REQUOTE_BPS >= e.MARKET_MAKER_SPREAD_BPS) {
    throw new Error("invalid keeper configuration: MARKET_MAKER_REQUOTE_BPS must be below MARKET_MAKER_SPREAD_BPS");
  }
  const priceFeedEnabled = local && (PRICE_FEED_ENABLED ?? true);
  const marketMakerEnabled = local && (MARKET_MAKER_ENABLED ?? true);
  // roleKey refuses missing or public keys off the local profile/chain; local-only roles are read only when used
  const unused = "0x" as Hex;
  return {
    ...chain,
    ...rest,
    accessPolicy: profile.accessPolicy,
    liquidationEnabled: LIQUIDATION_ENABLED ?? true,
    fundingPokeEnabled: FUNDING_POKE_ENABLED ?? true,
    priceFeedEnabled,
    marketMakerEnabled,
    deadmanEnabled: DEADMAN_ENABLED ?? true,
    expiredOrdersEnabled: EXPIRED_ORDERS_ENABLED ?? true,
    triggersEnabled: TRIGGERS_ENABLED ?? true,
    keeperKey: roleKey("KEEPER_PRIVATE_KEY", KEY_INDEX.keeper, env),
    priceFeedKey: priceFeedEnabled ? roleKey("PRICE_FEED_PRIVATE_KEY", KEY_INDEX.priceFeed, env) : unused,
    marketMakerKey: marketMakerEnabled ? roleKey("MARKET_MAKER_PRIVATE_KEY", KEY_INDEX.marketMaker, env) : unused,
    deployerKey: marketMakerEnabled ? roleKey("DEPLOYER_PRIVATE_KEY", KEY_INDEX.deployer, env) : unused,
    keeperToken: secret("KEEPER_TOKEN", env),
    gatewayToken: secret("GATEWAY_TOKEN", env),
    registrationToken: configured("REGISTRATION_TOKEN", env) ? secret("REGISTRATION_TOKEN", env) : null,
  };
}
