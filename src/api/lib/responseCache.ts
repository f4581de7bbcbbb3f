/**
 * Response cache of the read routes. An answer is kept with the indexed state it was read at
 * (`IndexedBlock.state`: checkpoint + last event's block hash and log index) and served again
 * only while that is still the indexed state, so it is never stale, also across reorgs. Many
 * clients polling the same book or market between two blocks then cost one state lookup each
 * instead of several queries. Only consistent 200 answers are kept (`consistentAt`, set by
 * `readAtIndexedBlock`). Concurrent misses of one key share the first one's read: when a block
 * lands, a crowd polling the same book costs one read, not one each. `Cache-Control: no-cache`
 * (or `no-store`) asks for a fresh read. Answers carry `X-Cache: HIT` or `MISS`.
 */
import { createMiddleware } from "hono/factory";
import { LRUCache } from "lru-cache";
import type { IndexedBlockEnv } from "./indexedBlock.js";
import { answerKeyOfUrl } from "../../../core/reads/routes.js";

type Entry = { state: string; body: string };

const cache = new LRUCache<string, Entry>({
  max: 10_000,
  maxSize: 64 * 1024 * 1024, // bytes of JSON, roughly
  sizeCalculation: (e, key) => e.body.length + key.length + e.state.length,
});

/** The request's path and query without `minBlock` (it only says how long to wait), sorted: core/reads/routes.ts. */
export const cacheKey = answerKeyOfUrl;

/** Reads in progress, by key: what they will keep (undefined when nothing can be kept). */
const inFlight = new Map<string, Promise<Entry | undefined>>();

export const responseCache = createMiddleware<IndexedBlockEnv>(async function responseCache(c, next) {
  const key = cacheKey(c.req.url);
  const fresh = /no-cache|no-store/i.test(c.req.header("Cache-Control") ?? "");
  const serve = (e: Entry) => {
    c.header("X-Cache", "HIT");
    return c.body(e.body, 200, { "Content-Type": "application/json" });
  };
  if (!fresh) {
    const hit = cache.get(key);
    if (hit && hit.state === c.var.indexed.state) return serve(hit);
    const pending = inFlight.get(key); // no await before we register below, or a crowd all misses
    if (pending) {
      const shared = await pending;
      if (shared && shared.state === c.var.indexed.state) return serve(shared);
    }
  }
  let done!: (e: Entry | undefined) => void;
  const mine = new Promise<Entry | undefined>((r) => (done = r));
  if (!inFlight.has(key)) inFlight.set(key, mine);
  let entry: Entry | undefined;
  try {
    await next();
    c.header("X-Cache", "MISS");
    const at = c.var.consistentAt;
    if (at && c.res.status === 200) {
      entry = { state: at.state, body: await c.res.clone().text() };
      cache.set(key, entry);
    }
  } finally {
    if (inFlight.get(key) === mine) inFlight.delete(key);
    done(entry);
  }
});
