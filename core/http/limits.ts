/**
 * Limits of the integration API (it shares its process with the indexer, so a flood must not
 * starve indexing): a body limit (413), a per-client rate limit with the gateway's `RateLimit-*`
 * and `Retry-After` headers, a tighter one on the unauthenticated route that costs a chain read
 * (`GET /operators/typed-data`), and 405 for a wrong method. Each request is counted once, by the
 * first process that sees it: the venue's own services (the gateway, the keeper, the read service)
 * carry their internal token and are not counted again here (the gateway limits its clients by
 * API key, the read service by address). A service passing a client's request on names that
 * client in `X-Venue-Client` (core/http/client-identity.ts), believed only beside a valid token:
 * the typed-data limit counts that client, not the service.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { except } from "hono/combine";
import type { Store } from "hono-rate-limiter";
import { z } from "zod";
import { DEFAULT_BODY_LIMIT_BYTES, bodyLimitEnvelope } from "./body-limit.js";
import { clientAddressOf, trustedProxies } from "./client-address.js";
import { CLIENT_IDENTITY_HEADER, addressIdentity, parseClientIdentity } from "./client-identity.js";
import { methodNotAllowed } from "./method-not-allowed.js";
import { rateLimit, rateLimitStore } from "./rate-limit.js";
import { sameSecret } from "../auth/service-tokens.js";
import { configured, secret, type SecretName } from "../profiles.js";

const envSchema = z.object({
  /** Requests per client address per minute (the same variable as the gateway's per-key limit). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** `GET /operators/typed-data` per client address per minute (each is a chain read). */
  TYPED_DATA_PER_MINUTE: z.coerce.number().int().positive().default(30),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(DEFAULT_BODY_LIMIT_BYTES),
  TRUSTED_PROXIES: z.string().default(""),
  REDIS_URL: z.string().url().optional().or(z.literal("").transform(() => undefined)),
});

export type ApiLimits = z.output<typeof envSchema>;

export function apiLimitsFromEnv(env: Record<string, string | undefined> = process.env): ApiLimits {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid integration API limits: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }
  trustedProxies(parsed.data.TRUSTED_PROXIES); // a bad entry stops the start
  return parsed.data;
}

/** The venue's services that read here: the gateway, the keeper, the read service (the integration token: POST /internal/answers). */
const SERVICE_TOKENS: readonly SecretName[] = ["GATEWAY_TOKEN", "KEEPER_TOKEN", "INTEGRATION_TOKEN"];

/**
 * A request from one of them. Outside `local` this process may lack some of these tokens (the
 * indexer is given INTEGRATION_TOKEN and KEEPER_TOKEN, not GATEWAY_TOKEN), and `secret()` throws
 * for a missing one: such a token matches nothing instead.
 */
export function fromService(c: Context): boolean {
  const given = c.req.header("X-Internal-Token");
  if (!given) return false;
  return SERVICE_TOKENS.some((name) => configured(name) && sameSecret(given, secret(name)));
}

/**
 * Who a request is counted against: the client a service names in `X-Venue-Client` (believed only
 * from a service, i.e. with a valid internal token), else the client's address (behind
 * `TRUSTED_PROXIES`, the right-most untrusted `X-Forwarded-For` entry).
 */
export function clientKeyOf(limits: ApiLimits): (c: Context) => string {
  const clientOf = clientAddressOf(trustedProxies(limits.TRUSTED_PROXIES));
  return (c) => (fromService(c) && parseClientIdentity(c.req.header(CLIENT_IDENTITY_HEADER))) || addressIdentity(clientOf(c));
}

/** A service's own request: a valid internal token and no client named (not a client's request passed on). */
const serviceItself = (c: Context) => fromService(c) && !parseClientIdentity(c.req.header(CLIENT_IDENTITY_HEADER));

/** The per-client limit's counters (the read service's fast path counts in the same store). */
export const clientLimitStore = (limits: ApiLimits): Store => rateLimitStore(limits.REDIS_URL, "venue:api:req:");

/**
 * The per-client request limit, taken by the first process that sees a request (the read service
 * for everything it is sent, Ponder's for requests sent to it directly): a request from a service
 * (its own, or a client's it passes on and has counted) is not counted again. With REDIS_URL every
 * replica counts in the same keys.
 */
export function clientRateLimit(limits: ApiLimits = apiLimitsFromEnv(), store: Store = clientLimitStore(limits)): MiddlewareHandler {
  const clientOf = clientAddressOf(trustedProxies(limits.TRUSTED_PROXIES));
  return rateLimit({
    name: "integration",
    limit: limits.RATE_LIMIT_PER_MINUTE,
    store,
    key: (c: Context) => addressIdentity(clientOf(c)),
    skip: fromService,
  });
}

/** `GET /operators/typed-data` per client (each is a chain read): counted wherever it is answered. */
export function typedDataLimit(limits: ApiLimits): MiddlewareHandler {
  return rateLimit({
    name: "integration-typed-data",
    limit: limits.TYPED_DATA_PER_MINUTE,
    store: rateLimitStore(limits.REDIS_URL, "venue:api:typed:"),
    key: clientKeyOf(limits),
    skip: serviceItself,
  });
}

/** Ponder's SQL over HTTP (`/sql/*`, the services' only): no body limit. */
export const SQL_PATH = (path: string) => path === "/sql" || path.startsWith("/sql/");

/** The body limit (413 in the envelope), on every route but `/sql/*`. */
export const apiBodyLimit = (limits: ApiLimits): MiddlewareHandler => except((c) => SQL_PATH(c.req.path), bodyLimitEnvelope(limits.BODY_LIMIT_BYTES));

/** Installs the limits on the app; call before any route is registered. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any app's env
export function installApiLimits(app: Hono<any, any, any>, limits: ApiLimits = apiLimitsFromEnv()): void {
  app.use(methodNotAllowed(app));
  app.use(apiBodyLimit(limits));
  app.use(clientRateLimit(limits));
  app.use("/operators/typed-data", typedDataLimit(limits));
}
