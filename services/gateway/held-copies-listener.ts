/**
 * The gateway's hot path, below Hono: a GET of a read that the app has just answered from the
 * per-block copy (block-cache.ts) is answered again from that copy's bytes (the held reply's own
 * Buffer, found by the request's URL: an index into the copy, not a second one), for as long as that
 * block is the current one, and right after a forward block (as the app does) while the new
 * block's copy is fetched. Per request only: the API key from the key cache (no lookup), the
 * per-key count in the shared rate-limit store, read-your-writes (a wallet whose last write is
 * newer than the copy's block goes to the app, which waits for it), `X-Request-Id`,
 * `Server-Timing`, the request metric. No validation, no Request/Response objects.
 *
 * Everything else falls through to the app: no key or a key not verified lately, a query with
 * `min_block`, `Cache-Control: no-cache`, limits counted in Redis, a key over its limit (the app
 * answers the 429), the feed down, a copy of an older block once the current one has landed,
 * after a revert, or past the carry window.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";
import { MemoryStore, type Store } from "hono-rate-limiter";
import { matchedRoutes } from "hono/route";
import { clientAddress, type TrustedProxies } from "../../core/http/client-address.js";
import { rateLimitHeaderList } from "../../core/http/rate-limit.js";
import { requestIdOf } from "../../core/http/request-id.js";
import type { BlockFeed } from "../../core/indexer/blocks.js";
import type { LastWrites } from "../../core/indexer/last-writes.js";
import { httpDuration } from "../../core/metrics.js";
import type { GatewayContext } from "./context.js";
import type { KeyStore } from "./keys.js";

/** `key`: the reply's key in the per-block copy; `block`: its X-Indexed-Block; `body`: the held reply's bytes (block-cache.ts). */
export type Copy = { gen: number; key: string; block: bigint | undefined; body: Buffer; head: string[]; route: string; open: boolean };

/** The per-block copy's replies the app has sent, by request URL (filled by `capture`), with the headers to send them. */
export class HeldByUrl {
  readonly byUrl = new Map<string, Copy>();
  constructor(
    readonly generation: () => number,
    /** Whether a copy of an older generation may be served now (block-cache.ts `carried`). */
    readonly carried: (key: string, gen: number) => boolean = () => false,
    private readonly max = 5_000,
  ) {}

  /** Middleware side: after the app answered `c`, keep its bytes if they are the current block's copy. */
  capture(c: GatewayContext) {
    const reply = c.get("heldReply");
    if (!reply?.rendered || c.res.status !== 200 || reply.heldGen !== this.generation() || reply.heldKey === undefined) return;
    const url = c.req.raw.url;
    const key = url.slice(url.indexOf("/", url.indexOf("//") + 2));
    if (!eligibleUrl(key)) return;
    // the bytes live on the held reply (one Buffer per answer however many URLs name it); they
    // go with it at the next block, and an entry here of an older generation is never served
    const body = (reply.bytes ??= Buffer.from(reply.rendered));
    const head = ["content-type", "application/json", "content-length", String(body.length)];
    if (reply.indexedBlock) head.push("X-Indexed-Block", reply.indexedBlock);
    const route = matchedRoutes(c as unknown as Context).filter((r) => r.method !== "ALL").at(-1)?.path ?? "unmatched";
    const block = reply.indexedBlock === null ? undefined : BigInt(reply.indexedBlock);
    this.keep(key, { gen: reply.heldGen, key: reply.heldKey, block, body, head, route, open: PUBLIC.test(key) });
  }

  /**
   * A URL's newest copy goes last (a URL read at every block is captured again at every block),
   * so when full the URL captured longest ago makes room: a client reading many URLs churns its
   * own copies, not every copy (a clear did).
   */
  keep(url: string, copy: Copy) {
    this.byUrl.delete(url);
    if (this.byUrl.size >= this.max) this.byUrl.delete(this.byUrl.keys().next().value!);
    this.byUrl.set(url, copy);
  }
}

/** The public market list (no key needed: apiKeyAuth's optional route in app.ts). */
const PUBLIC = /^\/v1\/markets\/?(\?|$)/;

/** `min_block` (and any percent-encoding) is the app's: it waits or validates. */
const eligibleUrl = (url: string) => !url.includes("min_block") && !url.includes("minBlock") && !url.includes("%");

export type GatewayFastDeps = {
  copies: HeldByUrl;
  keys: KeyStore;
  feed: BlockFeed;
  lastWrites: LastWrites;
  /** The per-key limit; its store is the app's limiter's (memory only), so both paths count together. */
  limit: { store: Store; limit: number; windowMs: number; trusted: TrustedProxies };
};

export function fastGateway({ copies, keys, feed, lastWrites, limit }: GatewayFastDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const counters = limit.store instanceof MemoryStore ? limit.store : undefined;
  const rateHeaders = rateLimitHeaderList(limit);
  const metric = httpDuration();
  // one labelled child per route, bound once: no label hashing per request
  const observers = new Map<string, (seconds: number) => void>();
  const observerOf = (route: string) => {
    let o = observers.get(route);
    if (!o) {
      const child = metric.labels({ method: "GET", route, status: "200" });
      o = (s) => child.observe(s);
      observers.set(route, o);
    }
    return o;
  };
  return (req, res) => {
    const t0 = performance.now();
    const url = req.url;
    if (req.method !== "GET" || !counters || !url) return false;
    const copy = copies.byUrl.get(url);
    // the current block's copy, or right after a forward block the previous one's until the
    // current one lands (its fetch started here), as the app serves it
    if (!copy || !feed.live() || (copy.gen !== copies.generation() && !copies.carried(copy.key, copy.gen))) return false;
    const h = req.headers;
    const cc = h["cache-control"];
    if (cc && /no-cache|no-store/i.test(cc)) return false;
    const key = h["x-api-key"];
    let who: string;
    if (typeof key === "string") {
      const id = keys.cachedIdentity(key);
      if (!id) return false;
      // read-your-writes: a copy older than the wallet's last write goes to the app (which waits)
      const last = lastWrites.get(id.wallet);
      if (last !== undefined && (copy.block === undefined || last > copy.block)) return false;
      who = `key:${id.keyId}`;
    } else if (key === undefined && copy.open) {
      who = `ip:${clientAddress(req.socket.remoteAddress, h["x-forwarded-for"] as string | undefined, limit.trusted) ?? "unknown"}`;
    } else return false;
    const count = counters.increment(who);
    if (count.totalHits > limit.limit) return false; // the app answers the 429 (with the same count)
    const head = [
      ...copy.head,
      "X-Request-Id",
      requestIdOf(h["x-request-id"]),
      ...rateHeaders(count),
      "Server-Timing",
      `gateway;dur=${(performance.now() - t0).toFixed(2)}`,
    ];
    res.writeHead(200, head);
    res.end(copy.body);
    observerOf(copy.route)((performance.now() - t0) / 1000);
    return true;
  };
}
