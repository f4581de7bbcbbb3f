/**
 * The read service's hot path, below Hono: a plain GET of an answer the store holds is written
 * straight from its wire form (the body as a Buffer, its ETag and fixed headers, made once per
 * answer, so once per route per block), adding only what belongs to the request: the client's
 * count in the shared rate-limit store, `X-Request-Id`, CORS for a listed origin, a 304 for a
 * matching `If-None-Match`. No database, no validation, no Request/Response objects.
 *
 * A `Cache-Control: no-cache` read of a hot route is answered here too, as the app would: the
 * indexed state re-read at its source (the feed's `revalidate`: one small state read shared by the
 * callers of an event-loop turn), then the store's answer of that state (the held bytes when it has
 * not moved, else its rebuild, waited for with the block's other rebuilds so that the client's next
 * read, of any route, is not of an older block).
 *
 * On Postgres a GET of a history list (history.ts `plain`: trades, fills, candles, …; not an
 * export) is answered here too when it is a plain 200: one statement, its JSON written with the
 * headers the Hono path gives it (CORS, `X-Request-Id`, the limit's `RateLimit-*`, `X-Cache: MISS`,
 * `X-History-Source`, `X-Indexed-Block`); a 400, 404 or 503 is left to the Hono path, which answers
 * it as before (the client counted once).
 *
 * Anything else falls through to the Hono app (app.ts), which answers it as before: `?minBlock=`,
 * a session's `Authorization` (read-your-writes), the internal token, percent-encoded
 * paths, limits counted in Redis, a client over its limit (the app answers the 429), an answer not
 * held (first read, a block whose answers are still being rebuilt after a revert), the feed down.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { MemoryStore, type Store } from "hono-rate-limiter";
import { clientAddress, type TrustedProxies } from "../../core/http/client-address.js";
import { rateLimitHeaderList } from "../../core/http/rate-limit.js";
import { requestIdOf } from "../../core/http/request-id.js";
import type { BlockFeed } from "../../core/indexer/blocks.js";
import { EXPOSED_HEADERS } from "../../core/http/cors.js";
import { exportFormatOf } from "../../core/history/lists.js";
import type { Answer, AnswerStore } from "./answers.js";
import { SOURCE_HEADER, type HistoryServer } from "./history.js";
import { answerKey, isHeldPath } from "../../core/reads/routes.js";

/** An answer as written on the wire; made once per answer (`wireOf`). `head`: all but the content headers (a 304 has none). */
export type Wire = { body: Buffer; etag: string; content: string[]; head: string[] };

const wires = new WeakMap<Answer, Wire>();

/** The answer's wire form: the body's bytes, a strong ETag of them, the headers every request of it carries. */
export function wireOf(a: Answer, cors: "*" | string[]): Wire {
  let w = wires.get(a);
  if (!w) {
    const body = Buffer.from(a.body);
    const etag = `"${createHash("sha1").update(body).digest("base64url")}"`;
    const content = ["Content-Type", "application/json", "Content-Length", String(body.length)];
    const head = ["ETag", etag, "Access-Control-Expose-Headers", EXPOSED_HEADERS];
    if (a.block) head.push("X-Indexed-Block", a.block);
    if (cors === "*") head.push("Access-Control-Allow-Origin", "*");
    else head.push("Vary", "Origin");
    w = { body, etag, content, head };
    wires.set(a, w);
  }
  return w;
}

export type FastDeps = {
  store: AnswerStore;
  feed: BlockFeed;
  cors: "*" | string[];
  /** The per-client limit; its store is the Hono limiter's, so both paths count together (memory only). */
  limit: { store: Store; limit: number; windowMs: number; trusted: TrustedProxies };
  /**
   * No-cache reads (the feed's state read, then the store): the bound of the wait for the store
   * to settle on a newer block, and the app's listener, which answers if the read fails.
   */
  noCache: { settleWaitMs: number; fallback: (req: IncomingMessage, res: ServerResponse) => void };
  /** The history lists (Postgres), and the listener that answers what is not a plain page. */
  history?: { server: Pick<HistoryServer, "plain">; fallback: (req: IncomingMessage, res: ServerResponse) => void };
};

/** A node request listener's front: true when it answered the request, false to pass it on. */
export function fastReads({ store, feed, cors, limit, noCache, history }: FastDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const counters = limit.store instanceof MemoryStore ? limit.store : undefined;
  const rateHeaders = rateLimitHeaderList(limit);
  // request URL → answer key (parameters sorted): bounded memo, cleared when full
  const keys = new Map<string, string>();
  const keyOf = (url: string) => {
    let k = keys.get(url);
    if (k === undefined) {
      const qi = url.indexOf("?");
      k = qi < 0 ? url : answerKey(url.slice(0, qi), url.slice(qi + 1));
      if (keys.size >= 10_000) keys.clear();
      keys.set(url, k);
    }
    return k;
  };
  const write = (req: IncomingMessage, res: ServerResponse, a: Answer, cache: "HIT" | "MISS", count: { totalHits: number; resetTime?: Date }) => {
    const h = req.headers;
    const w = wireOf(a, cors);
    const head = [...w.head, "X-Cache", cache, "X-Request-Id", requestIdOf(h["x-request-id"]), ...rateHeaders(count)];
    if (cors !== "*" && h.origin && cors.includes(h.origin)) head.push("Access-Control-Allow-Origin", h.origin);
    if (h["if-none-match"] === w.etag) {
      res.writeHead(304, head);
      res.end();
      return;
    }
    res.writeHead(a.status, [...w.content, ...head]);
    res.end(w.body);
  };

  // a history page's headers that do not depend on the request
  const historyHead = ["Content-Type", "application/json", "Access-Control-Expose-Headers", EXPOSED_HEADERS, ...(cors === "*" ? ["Access-Control-Allow-Origin", "*"] : ["Vary", "Origin"])];
  const writePage = (req: IncomingMessage, res: ServerResponse, p: { body: string; block: string }, count: { totalHits: number; resetTime?: Date }) => {
    const h = req.headers;
    // the string is encoded once, by the socket write (no Buffer of it made here)
    const head = [...historyHead, "Content-Length", String(Buffer.byteLength(p.body)), "X-Cache", "MISS", SOURCE_HEADER, "reads", "X-Indexed-Block", p.block, "X-Request-Id", requestIdOf(h["x-request-id"]), ...rateHeaders(count)];
    if (cors !== "*" && h.origin && cors.includes(h.origin)) head.push("Access-Control-Allow-Origin", h.origin);
    res.writeHead(200, head);
    res.end(p.body);
  };

  /** A no-cache read, as the app's: the state re-read, then the store's answer of it (held, or rebuilt with its block's other answers). */
  async function answerRevalidated(key: string): Promise<Answer> {
    await feed.revalidate();
    const a = await store.get(key, key);
    if (a.gen === store.gen) await store.whenSettled(noCache.settleWaitMs);
    return a;
  }

  return (req, res) => {
    const url = req.url;
    if (req.method !== "GET" || !counters || !url || url.includes("minBlock") || url.includes("%") || !feed.live()) return false;
    const h = req.headers;
    if (h.authorization !== undefined || h["x-internal-token"] !== undefined) return false;
    if (history) {
      const page = exportFormatOf(h.accept) ? undefined : history.server.plain(url);
      if (page) {
        const client = `ip:${clientAddress(req.socket.remoteAddress, h["x-forwarded-for"] as string | undefined, limit.trusted) ?? "unknown"}`;
        const count = counters.increment(client);
        // over the limit, or not a plain 200: the app answers (its 429, 400, 404, 503), counting the client again
        const fallback = () => {
          counters.decrement(client);
          history.fallback(req, res);
        };
        if (count.totalHits > limit.limit) fallback();
        else page().then((p) => writePage(req, res, p, count), fallback);
        return true;
      }
    }
    const cc = h["cache-control"];
    const revalidate = cc !== undefined && /no-cache|no-store/i.test(cc);
    const key = keyOf(url);
    let a: Answer | undefined;
    if (revalidate) {
      const qi = url.indexOf("?");
      if (!isHeldPath(qi < 0 ? url : url.slice(0, qi))) return false;
    } else if (!(a = store.peek(key))) return false;
    const client = `ip:${clientAddress(req.socket.remoteAddress, h["x-forwarded-for"] as string | undefined, limit.trusted) ?? "unknown"}`;
    const count = counters.increment(client);
    if (count.totalHits > limit.limit) return false; // the app answers the 429 (with the same count)
    if (a) write(req, res, a, "HIT", count);
    else
      answerRevalidated(key).then(
        (b) => write(req, res, b, "MISS", count),
        () => {
          // the state or the build unavailable: the app's answer (its 503), which counts the client (once: as history's fallback)
          counters.decrement(client);
          noCache.fallback(req, res);
        },
      );
    return true;
  };
}
