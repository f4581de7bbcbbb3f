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
  /** count only the requests whose answer matches (e.g. failed authentications); default all */
  countsIf?: (c: Context) => boolean;
  /** set RateLimit-* headers on every answer (off for a second, hidden limiter) */
  headers?: boolean;
}

export const rateLimit = ({ limit, windowMs = 60_000, key, store, countsIf, headers = true }: RateLimitOptions): MiddlewareHandler =>
  rateLimiter({
    limit,
    windowMs,
    standardHeaders: headers ? "draft-6" : false,
    keyGenerator: key,
    ...(store ? { store } : {}),
    ...(countsIf ? { skipSuccessfulRequests: true, requestWasSuccessful: (c: Context) => !countsIf(c) } : {}),
    // a hidden limiter keeps its own info and still says when to retry
    requestPropertyName: headers ? "rateLimit" : "rateLimitHidden",
    handler: function rateLimited(c) {
      if (!headers) {
        const info = c.get("rateLimitHidden" as never) as { resetTime?: Date } | undefined;
        const seconds = info?.resetTime ? Math.max(1, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(windowMs / 1000);
        c.header("Retry-After", String(seconds));
      }
      throw new ApiError("RATE_LIMITED", `rate limit of ${limit} requests per ${windowMs / 1000} s exceeded`);
    },
  });
