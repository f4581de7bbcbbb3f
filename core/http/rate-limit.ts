/**
 * Rate limits of both HTTP surfaces over hono-rate-limiter: `RateLimit-*` headers on every
 * answer, 429 RATE_LIMITED with `Retry-After` when over. Counters live in this process's memory,
 * or in Redis when `REDIS_URL` is set (`rateLimitStore`), so replicas share one limit.
 */
import type { Context, MiddlewareHandler } from "hono";
import { Redis } from "ioredis";
import { MemoryStore, RedisStore, rateLimiter, type Store } from "hono-rate-limiter";
import { ApiError } from "../errors.js";
import { rateLimitRejections } from "../metrics.js";

export interface RateLimitOptions {
  /** requests per window */
  limit: number;
  windowMs?: number;
  /** who is counted: the API key id, else the client address */
  key: (c: Context) => string;
  store?: Store;
  /** requests not counted at all (e.g. the venue's own services) */
  skip?: (c: Context) => boolean;
  /** label of `venue_rate_limit_rejections_total` */
  name?: string;
}

const retryAfter = (resetTime: Date | undefined, windowMs: number) =>
  String(resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(windowMs / 1000));

export function rateLimit({ limit, windowMs = 60_000, key, store, skip, name = "requests" }: RateLimitOptions): MiddlewareHandler {
  rateLimitRejections().inc({ limiter: name }, 0); // the series exists before the first rejection
  return rateLimiter({
    limit,
    windowMs,
    standardHeaders: "draft-6",
    keyGenerator: key,
    ...(store ? { store } : {}),
    ...(skip ? { skip } : {}),
    handler: function rateLimited() {
      rateLimitRejections().inc({ limiter: name });
      throw new ApiError("RATE_LIMITED", `rate limit of ${limit} requests per ${windowMs / 1000} s exceeded`);
    },
  });
}

export interface FailureLimitOptions {
  /** failures per window before the client's further failures answer 429 */
  limit: number;
  windowMs?: number;
  key: (c: Context) => string;
  store?: Store;
  /** whether an answer's status is a failure worth counting (e.g. 401) */
  isFailure: (status: number) => boolean;
  name?: string;
}

/** Status of an answer, or of an error still on its way to `onError` (inside hono/combine). */
const statusOf = (err: unknown) => (err && typeof err === "object" && typeof (err as { status?: unknown }).status === "number" ? (err as { status: number }).status : 500);

/**
 * Counts only failed requests, and turns only failures into 429 once over: a client sharing an
 * address with someone guessing keys (a load balancer, a NAT) is never refused a valid request.
 */
export function failureLimit({ limit, windowMs = 60_000, key, store = new MemoryStore(), isFailure, name = "failures" }: FailureLimitOptions): MiddlewareHandler {
  store.init?.({ windowMs } as never);
  rateLimitRejections().inc({ limiter: name }, 0);
  return async function failureLimit(c, next) {
    let failure: { err: unknown } | undefined;
    let status: number;
    try {
      await next();
      status = c.res.status;
    } catch (err) {
      failure = { err };
      status = statusOf(err);
    }
    if (isFailure(status)) {
      const { totalHits, resetTime } = await store.increment(key(c));
      if (totalHits > limit) {
        rateLimitRejections().inc({ limiter: name });
        c.header("Retry-After", retryAfter(resetTime, windowMs));
        throw new ApiError("RATE_LIMITED", `too many failed requests from this address (${limit} per ${windowMs / 1000} s); retry later`);
      }
    }
    if (failure) throw failure.err;
  };
}

let redis: Redis | undefined;

/**
 * A counter store: memory when `redisUrl` is unset, else Redis (one connection per process,
 * keys under `prefix`). A Redis that is down fails the request (503 via the error handler)
 * rather than silently lifting the limit.
 */
export function rateLimitStore(redisUrl: string | undefined, prefix: string): Store {
  if (!redisUrl) return new MemoryStore();
  redis ??= new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
  const client = redis;
  client.on("error", () => {}); // reported per command; reconnects on its own
  return new RedisStore({
    prefix,
    client: {
      scriptLoad: (script) => client.script("LOAD", script) as Promise<string>,
      evalsha: (sha, keys, args) => client.evalsha(sha, keys.length, ...keys, ...(args as string[])) as never,
      decr: (k) => client.decr(k),
      del: (k) => client.del(k),
    },
  });
}

/** Closes the shared Redis connection (process shutdown). */
export async function closeRateLimitStores(): Promise<void> {
  const r = redis;
  redis = undefined;
  await r?.quit().catch(() => undefined);
}

/**
 * The RateLimit-* response headers (IETF draft, as hono-rate-limiter's `draft-7` writes them) of a
 * count taken outside Hono, for the hot paths that answer below it (services/reads/held-answers-listener.ts,
 * services/gateway/held-copies-listener.ts): a flat [name, value, …] list for `writeHead`.
 */
export function rateLimitHeaderList(limit: { limit: number; windowMs: number }) {
  const policy = `${limit.limit};w=${Math.ceil(limit.windowMs / 1000)}`;
  const limitText = String(limit.limit);
  return (count: { totalHits: number; resetTime?: Date }): string[] => [
    "RateLimit-Policy",
    policy,
    "RateLimit-Limit",
    limitText,
    "RateLimit-Remaining",
    String(Math.max(0, limit.limit - count.totalHits)),
    "RateLimit-Reset",
    String(Math.max(0, Math.ceil(((count.resetTime?.getTime() ?? Date.now()) - Date.now()) / 1000))),
  ];
}
