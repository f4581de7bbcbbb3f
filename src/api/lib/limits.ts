/**
 * Limits of the integration API (it shares its process with the indexer, so a flood must not
 * starve indexing): a body limit (413), a per-client rate limit with the gateway's `RateLimit-*`
 * and `Retry-After` headers, a tighter one on the unauthenticated route that costs a chain read
 * (`GET /operators/typed-data`), and 405 for a wrong method. The venue's own services (the
 * gateway, the keeper, the read service) carry their internal token and are not counted here:
 * the gateway limits its clients itself, the read service its own.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { except } from "hono/combine";
import type { Store } from "hono-rate-limiter";
import { z } from "zod";
import { DEFAULT_BODY_LIMIT_BYTES, bodyLimitEnvelope } from "../../../core/http/body-limit.js";
import { clientAddressOf, trustedProxies } from "../../../core/http/client-address.js";
import { methodNotAllowed } from "../../../core/http/method-not-allowed.js";
import { rateLimit, rateLimitStore } from "../../../core/http/rate-limit.js";
import { sameSecret } from "../../../core/auth/service-tokens.js";
import { configured, secret, type SecretName } from "../../../core/profiles.js";

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
function fromService(c: Context): boolean {
  const given = c.req.header("X-Internal-Token");
  if (!given) return false;
  return SERVICE_TOKENS.some((name) => configured(name) && sameSecret(given, secret(name)));
}

/** The per-client limit's counters (the read service's fast path counts in the same store). */
export const clientLimitStore = (limits: ApiLimits): Store => rateLimitStore(limits.REDIS_URL, "venue:api:req:");

/**
 * The per-client request limit. The read service (services/reads/) applies the same limiter to
 * the hot reads it answers from memory, so fronting Ponder does not lift the limit; with
 * REDIS_URL both count in the same keys.
 */
export function clientRateLimit(limits: ApiLimits = apiLimitsFromEnv(), store: Store = clientLimitStore(limits)): MiddlewareHandler {
  const clientOf = clientAddressOf(trustedProxies(limits.TRUSTED_PROXIES));
  return rateLimit({
    name: "integration",
    limit: limits.RATE_LIMIT_PER_MINUTE,
    store,
    key: (c: Context) => `ip:${clientOf(c) ?? "unknown"}`,
    skip: fromService,
  });
}

/** Installs the limits on the app; call before any route is registered. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any app's env
export function installApiLimits(app: Hono<any, any, any>, limits: ApiLimits = apiLimitsFromEnv()): void {
  const clientOf = clientAddressOf(trustedProxies(limits.TRUSTED_PROXIES));
  const key = (c: Context) => `ip:${clientOf(c) ?? "unknown"}`;
  app.use(methodNotAllowed(app));
  // /sql/* is Ponder's, for the services only (internal token)
  app.use(except("/sql/*", bodyLimitEnvelope(limits.BODY_LIMIT_BYTES)));
  app.use(clientRateLimit(limits));
  app.use(
    "/operators/typed-data",
    rateLimit({
      name: "integration-typed-data",
      limit: limits.TYPED_DATA_PER_MINUTE,
      store: rateLimitStore(limits.REDIS_URL, "venue:api:typed:"),
      key,
      skip: fromService,
    }),
  );
}
