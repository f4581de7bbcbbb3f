/**
 * Per-caller service tokens instead of one shared master credential. Each service that calls
 * another holds its own token (header `X-Internal-Token`), and the called service knows what each
 * caller may do (its scopes):
 *   gateway       acts for the authenticated owner of an API key (X-Caller-Address), asks
 *                 whether a wallet is registered, liquidates through the keeper, reads health
 *   integration   acts for the wallet of a SIWE session (X-Caller-Address), reads health; also the
 *                 read service's token, which asks Ponder's process for a block's held answers
 *                 (POST /internal/answers)
 *   keeper        liquidates, pokes funding, cancels orders past their owner's dead-man deadline
 *                 and executes triggers (scopes ready for those relayer routes), reads /sql, health
 *   registration  registers one wallet that proves it holds the key (the keeper, itself) in the
 *                 closed-beta registry: nothing else, and not the admin token
 * A wrong scope is 403 INSUFFICIENT_SCOPE; a missing or unknown token 401 UNAUTHENTICATED.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors.js";
import { secret, type SecretName } from "../profiles.js";

export const SCOPES = [
  "act-for-users",
  "liquidate",
  "funding:poke",
  "orders:cancel-expired",
  "triggers:execute",
  "registry:read",
  "registry:self",
  "sql:read",
  "answers:build",
  "health",
] as const;
export type Scope = (typeof SCOPES)[number];

export type ServiceCaller = "gateway" | "integration" | "keeper" | "registration";

export const CALLERS: Record<ServiceCaller, { env: SecretName; scopes: readonly Scope[] }> = {
  gateway: { env: "GATEWAY_TOKEN", scopes: ["act-for-users", "liquidate", "registry:read", "health"] },
  integration: { env: "INTEGRATION_TOKEN", scopes: ["act-for-users", "answers:build", "health"] },
  keeper: { env: "KEEPER_TOKEN", scopes: ["liquidate", "funding:poke", "orders:cancel-expired", "triggers:execute", "sql:read", "health"] },
  registration: { env: "REGISTRATION_TOKEN", scopes: ["registry:self"] },
};

export type KnownToken = { caller: ServiceCaller; token: string; scopes: readonly Scope[] };

/** The tokens of the given callers, from the environment (defaults only in `local`; see secret()). */
export function callerTokens(callers: readonly ServiceCaller[], env: Record<string, string | undefined> = process.env): KnownToken[] {
  return callers.map((caller) => ({ caller, token: secret(CALLERS[caller].env, env), scopes: CALLERS[caller].scopes }));
}

const digest = (s: string) => createHash("sha256").update(s).digest();
/** Constant-time equality of two secrets of any length. */
export const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

export type ServiceVariables = { service?: { caller: ServiceCaller; scopes: readonly Scope[] } };

/**
 * Identifies the calling service by its `X-Internal-Token` (every known token compared, in
 * constant time). No header: no service (a route may still accept another credential, e.g. the
 * admin token); an unknown token: 401.
 */
export function identifyService(tokens: readonly KnownToken[], header = "X-Internal-Token"): MiddlewareHandler<{ Variables: ServiceVariables }> {
  return async function identifyServiceMiddleware(c, next) {
    const given = c.req.header(header);
    if (given !== undefined) {
      let found: KnownToken | undefined;
      for (const t of tokens) if (sameSecret(given, t.token)) found = t;
      if (!found) throw new ApiError("UNAUTHENTICATED", `invalid ${header}`);
      c.set("service", { caller: found.caller, scopes: found.scopes });
    }
    await next();
  };
}

/** 401 without a service token, 403 INSUFFICIENT_SCOPE when the caller's token lacks every one of `scopes`. */
export function requireScope(...scopes: Scope[]): MiddlewareHandler<{ Variables: ServiceVariables }> {
  return async function requireScopeMiddleware(c, next) {
    const s = c.get("service");
    if (!s) throw new ApiError("UNAUTHENTICATED", "missing X-Internal-Token (the calling service's own token)");
    if (!scopes.some((x) => s.scopes.includes(x)))
      throw new ApiError("INSUFFICIENT_SCOPE", `the ${s.caller} token may not do this (needs ${scopes.join(" or ")})`);
    await next();
  };
}

/** The message a wallet signs to register itself (POST /internal/registry/self). */
export const selfRegistrationMessage = (address: string, issuedAt: number) =>
  `Register ${address.toLowerCase()} in the venue relayer's closed-beta registry at ${issuedAt}`;
