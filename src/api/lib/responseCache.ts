/**
 * Response cache of the read routes. An answer is kept with the indexed state it was read at
 * (`IndexedBlock.state`: checkpoint + last event's block hash and log index) and served again
 * only while that is still the indexed state, so it is never stale, also across reorgs. Many
 * clients polling the same book or market between two blocks then cost one state lookup each
 * instead of several queries. Only consistent 200 answers are kept (`consistentAt`, set by
 * `readAtIndexedBlock`). `Cache-Control: no-cache` (or `no-store`) asks for a fresh read.
 * Answers carry `X-Cache: HIT` or `MISS`.
 */
import { createMiddleware } from "hono/factory";
import { LRUCache } from "lru-cache";
import type { IndexedBlockEnv } from "./indexedBlock.js";

type Entry = { state: string; body: string };

const cache = new LRUCache<string, Entry>({
  max: 10_000,
  maxSize: 64 * 1024 * 1024, // bytes of JSON, roughly
  sizeCalculation: (e, key) => e.body.length + key.length + e.state.length,
});

/** The request's path and query without `minBlock` (it only says how long to wait), sorted. */
export function cacheKey(url: string): string {
  const u = new URL(url);
  u.searchParams.delete("minBlock");
  u.searchParams.sort();
  const q = u.searchParams.toString();
  return q ? `${u.pathname}?${q}` : u.pathname;
}

export const responseCache = createMiddleware<IndexedBlockEnv>(async function responseCache(c, next) {
  const key = cacheKey(c.req.url);
  const fresh = /no-cache|no-store/i.test(c.req.header("Cache-Control") ?? "");
  const hit = fresh ? undefined : cache.get(key);
  if (hit && hit.state === c.var.indexed.state) {
    c.header("X-Cache", "HIT");
    return c.body(hit.body, 200, { "Content-Type": "application/json" });
  }
  await next();
  c.header("X-Cache", "MISS");
  const at = c.var.consistentAt;
  if (at && c.res.status === 200) cache.set(key, { state: at.state, body: await c.res.clone().text() });
});

/** Test and bench hook: entries held now. */
export const responseCacheSize = () => cache.size;
