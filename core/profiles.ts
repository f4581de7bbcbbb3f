/**
 * The three environments as config profiles, shared by every service. `PROFILE` selects one
 * (default `local`). Outside `local`, the shared secrets must be set to non-default values: a
 * service refuses to start otherwise (`assertProfileSecrets`).
 */
import { DEFAULT_ADMIN_TOKEN, DEFAULT_INTERNAL_TOKEN } from "./config";

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
  /** INTERNAL_TOKEN, ADMIN_TOKEN and JWT_SECRET must be set and differ from the local defaults. */
  requireSecrets: boolean;
}

export const PROFILES: Record<ProfileName, Profile> = {
  local: {
    name: "local",
    gatewayBaseUrl: "http://127.0.0.1:8080",
    integrationBaseUrl: "http://127.0.0.1:42069",
    accessPolicy: "open",
    demoWallets: true,
    priceFeed: true,
    marketMaker: true,
    openSql: true,
    requireSecrets: false,
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
  },
};

/** Local defaults of the shared secrets: fine on a laptop, refused anywhere else. */
export const DEFAULT_SECRETS = {
  INTERNAL_TOKEN: DEFAULT_INTERNAL_TOKEN,
  ADMIN_TOKEN: DEFAULT_ADMIN_TOKEN,
  JWT_SECRET: "local-jwt-secret",
} as const;
export type SecretName = keyof typeof DEFAULT_SECRETS;

/** Minimum length of a secret outside `local`. */
export const MIN_SECRET_LENGTH = 16;

type Env = Record<string, string | undefined>;

export function profileFromEnv(env: Env = process.env): Profile {
  const name = env.PROFILE ?? "local";
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

/** A secret's value: the env's, or the local default (only the local profile accepts that). */
export const secret = (name: SecretName, env: Env = process.env): string => env[name] || DEFAULT_SECRETS[name];

/** Problems with the shared secrets under this profile (empty when fine). */
export function secretProblems(profile: Profile, env: Env = process.env): string[] {
  if (!profile.requireSecrets) return [];
  const problems: string[] = [];
  for (const name of Object.keys(DEFAULT_SECRETS) as SecretName[]) {
    const value = env[name];
    if (!value) problems.push(`${name} is not set`);
    else if (value === DEFAULT_SECRETS[name]) problems.push(`${name} is the local default`);
    else if (value.length < MIN_SECRET_LENGTH) problems.push(`${name} is shorter than ${MIN_SECRET_LENGTH} characters`);
  }
  return problems;
}

/** Throws (for the caller to print and exit non-zero) when the profile's secrets are unsafe. */
export function assertProfileSecrets(profile: Profile, env: Env = process.env): void {
  const problems = secretProblems(profile, env);
  if (problems.length) {
    throw new Error(
      `refusing to start with PROFILE=${profile.name}: ${problems.join("; ")}. ` +
        `Set INTERNAL_TOKEN, ADMIN_TOKEN and JWT_SECRET to random values of at least ${MIN_SECRET_LENGTH} characters.`,
    );
  }
}
