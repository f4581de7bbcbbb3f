/**
 * The three environments as config profiles, shared by every service. `PROFILE` selects one; it
 * may be left unset only on the local chain (31337), where it means `local`. Outside `local`,
 * every secret a process uses must be set to a non-default value: the process refuses to start
 * otherwise (`assertProfileSecrets`), and `secret()` throws rather than fall back to a default.
 */
import { DEFAULT_ADMIN_TOKEN, LOCAL_CHAIN_ID } from "./config.js";
import { defaultUrl } from "./ports.js";

export const PROFILE_NAMES = ["local", "development", "production"] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export type AccessPolicy = "open" | "invite-only";

export interface Profile {
  name: ProfileName;
  /** Public base URL of the gateway (`PUBLIC_BASE_URL` overrides). */
  gatewayBaseUrl: string;
  /** Public base URL of the integration API (`INTEGRATION_PUBLIC_URL` overrides). */
  integrationBaseUrl: string;
  accessPolicy: AccessPolicy;
  /** anvil's dev accounts 0–9 get tokens, approvals and printed API keys on start. */
  demoWallets: boolean;
  /** The keeper pushes simulated index prices. */
  priceFeed: boolean;
  /** The keeper runs a demo market maker. */
  marketMaker: boolean;
  /** Ponder's `/sql/*` without the internal token. */
  openSql: boolean;
  /** Every secret a process uses must be set and differ from the local defaults. */
  requireSecrets: boolean;
  /**
   * Blocks (the including one counts as 1) after which a mined write is `final` (`CONFIRMATIONS`
   * overrides). The HTTP answer comes at inclusion and never waits for them; a reorg deeper than
   * this is still handled, and counted as a finality violation.
   */
  confirmations: number;
}

export const PROFILES: Record<ProfileName, Profile> = {
  local: {
    name: "local",
    gatewayBaseUrl: defaultUrl("gateway"),
    integrationBaseUrl: defaultUrl("reads"),
    accessPolicy: "open",
    demoWallets: true,
    priceFeed: true,
    marketMaker: true,
    openSql: true,
    requireSecrets: false,
    confirmations: 1,
  },
  development: {
    name: "development",
    gatewayBaseUrl: "https://api.dev.venue.example",
    integrationBaseUrl: "https://app-api.dev.venue.example",
    accessPolicy: "invite-only",
    demoWallets: false,
    priceFeed: false,
    marketMaker: false,
    openSql: false,
    requireSecrets: true,
    confirmations: 6,
  },
  production: {
    name: "production",
    gatewayBaseUrl: "https://api.venue.example",
    integrationBaseUrl: "https://app-api.venue.example",
    accessPolicy: "invite-only",
    demoWallets: false,
    priceFeed: false,
    marketMaker: false,
    openSql: false,
    requireSecrets: true,
    confirmations: 12,
  },
};

/**
 * Local defaults of the secrets: fine on a laptop, refused anywhere else. One token per calling
 * service (scopes in core/auth/service-tokens.ts), the admin token, the sign-in key.
 */
export const DEFAULT_SECRETS = {
  GATEWAY_TOKEN: "local-gateway-token",
  INTEGRATION_TOKEN: "local-integration-token",
  KEEPER_TOKEN: "local-keeper-token",
  REGISTRATION_TOKEN: "local-registration-token",
  ADMIN_TOKEN: DEFAULT_ADMIN_TOKEN,
  JWT_SECRET: "local-jwt-secret",
} as const;
export type SecretName = keyof typeof DEFAULT_SECRETS;
/** The indexer's process: signs sessions, calls the relayer as the integration API, lets the keeper read /sql. */
export const INDEXER_SECRETS: readonly SecretName[] = ["JWT_SECRET", "INTEGRATION_TOKEN", "KEEPER_TOKEN"];
/** The relayer: knows every caller's token, and the admin token of its registry. */
export const RELAYER_SECRETS: readonly SecretName[] = ["GATEWAY_TOKEN", "INTEGRATION_TOKEN", "KEEPER_TOKEN", "REGISTRATION_TOKEN", "ADMIN_TOKEN"];
/** The gateway: its own token, the admin token of its key routes. */
export const GATEWAY_SECRETS: readonly SecretName[] = ["GATEWAY_TOKEN", "ADMIN_TOKEN"];
/** The keeper: its own token and the gateway's (which may liquidate through it); REGISTRATION_TOKEN is optional. */
export const KEEPER_SECRETS: readonly SecretName[] = ["KEEPER_TOKEN", "GATEWAY_TOKEN"];
/** The stream service: checks sign-in tokens, and the gateway's token (its /v1/ws connections carry it; it reads upstream with it). */
export const STREAMS_SECRETS: readonly SecretName[] = ["JWT_SECRET", "GATEWAY_TOKEN"];

/** Minimum length of a secret outside `local`. */
export const MIN_SECRET_LENGTH = 16;

type Env = Record<string, string | undefined>;

export function profileFromEnv(env: Env = process.env): Profile {
  const chainId = Number(env.CHAIN_ID || LOCAL_CHAIN_ID);
  // An operator who forgets PROFILE on a real chain must not get the open local profile.
  if (!env.PROFILE && chainId !== LOCAL_CHAIN_ID) {
    throw new Error(`PROFILE must be set on chain ${env.CHAIN_ID} (local, development or production); only the local chain ${LOCAL_CHAIN_ID} defaults to local`);
  }
  const name = env.PROFILE || "local";
  if (!(PROFILE_NAMES as readonly string[]).includes(name)) {
    throw new Error(`PROFILE must be one of ${PROFILE_NAMES.join(", ")} (got "${name}")`);
  }
  const base = PROFILES[name as ProfileName];
  const policy = env.ACCESS_POLICY || undefined; // empty means unset
  if (policy !== undefined && policy !== "open" && policy !== "invite-only") {
    throw new Error(`ACCESS_POLICY must be open or invite-only (got "${policy}")`);
  }
  return {
    ...base,
    // One override for every service, so the gateway's key issuance and the relayer's writes agree.
    accessPolicy: policy ?? base.accessPolicy,
    gatewayBaseUrl: env.PUBLIC_BASE_URL ?? base.gatewayBaseUrl,
    integrationBaseUrl: env.INTEGRATION_PUBLIC_URL ?? base.integrationBaseUrl,
  };
}

/** Why `name`'s value is unsafe under this profile (null when fine, always null in `local`). */
function secretProblem(profile: Profile, name: SecretName, env: Env): string | null {
  if (!profile.requireSecrets) return null;
  const value = env[name];
  if (!value) return `${name} is not set`;
  if (value === DEFAULT_SECRETS[name]) return `${name} is the local default`;
  if (value.length < MIN_SECRET_LENGTH) return `${name} is shorter than ${MIN_SECRET_LENGTH} characters`;
  return null;
}

/**
 * A secret's value: the env's, or in `local` the default. Outside `local` a missing, default or
 * short value throws (processes check at start with `assertProfileSecrets`; this is the backstop).
 */
export function secret(name: SecretName, env: Env = process.env): string {
  const profile = profileFromEnv(env);
  const problem = secretProblem(profile, name, env);
  if (problem) throw new Error(`refusing to use ${name} with PROFILE=${profile.name}: ${problem}`);
  return env[name] || DEFAULT_SECRETS[name];
}

/**
 * Whether this process was given `name` as its profile requires (always in `local`): then
 * `secret(name)` returns it, else it throws. For a secret a process only compares against when
 * present (another service's token), never one it needs.
 */
export function configured(name: SecretName, env: Env = process.env): boolean {
  return secretProblem(profileFromEnv(env), name, env) === null;
}

/** Problems with the given secrets (default: all) under this profile (empty when fine). */
export function secretProblems(profile: Profile, env: Env = process.env, names: readonly SecretName[] = Object.keys(DEFAULT_SECRETS) as SecretName[]): string[] {
  return names.map((n) => secretProblem(profile, n, env)).filter((p): p is string => p !== null);
}

/**
 * Throws (for the caller to print and exit non-zero) when a secret this process uses is unsafe
 * under the profile; the message names each one.
 */
export function assertProfileSecrets(profile: Profile, env: Env = process.env, names: readonly SecretName[] = Object.keys(DEFAULT_SECRETS) as SecretName[]): void {
  const problems = secretProblems(profile, env, names);
  if (problems.length) {
    throw new Error(
      `refusing to start with PROFILE=${profile.name}: ${problems.join("; ")}. ` +
        `Set ${names.join(", ")} to random values of at least ${MIN_SECRET_LENGTH} characters.`,
    );
  }
}
