/**
 * Per-key rate limit over hono-rate-limiter: `RateLimit-*` headers on every answer, 429
 * RATE_LIMITED with `Retry-After` when over. The default store is this process's memory; replicas
 * need a shared store (any hono-rate-limiter `Store`, e.g. Redis) passed as `store`.
 */
import type { Context, MiddlewareHandler } from "hono";
import { rateLimiter, type Store } from "hono-rate-limiter";
import { ApiError } from "../../../../core/errors";

export interface RateLimitOptions {
  /** requests per window */
  limit: number;
  windowMs?: number;
  /** who is counted: the API key id, else the client address */
  key: (c: Context) => string;
  store?: Store;
}

export const rateLimit = ({ limit, windowMs = 60_000, key, store }: RateLimitOptions): MiddlewareHandler =>
  rateLimiter({
    limit,
    windowMs,
    standardHeaders: "draft-6",
    keyGenerator: key,
    ...(store ? { store } : {}),
    handler: function rateLimited() {
      throw new ApiError("RATE_LIMITED", `rate limit of ${limit} requests per ${windowMs / 1000} s exceeded`);
    },
  });
