/**
 * The read service's HTTP surface: the integration API's URL for clients. The hot reads (markets,
 * a market's funding, price and book, an account, its positions and orders) are answered from
 * the answer store (built from the tables on Postgres, tables.ts; by Ponder's server on PGlite);
 * every other request (writes, sign-in, OpenAPI, docs, `/sql`, other reads)
 * is passed to Ponder's server unchanged. Answers are the integration API's own bytes: the
 * same envelope, fields, units, errors and `X-Indexed-Block`.
 *
 * On Postgres the history lists (trades, candles, fills, …) are answered here too, from the
 * database by a pool of this service's own (history.ts), with Ponder's exact bytes.
 *
 * `?minBlock=N` waits (bounded) for block N on the block feed, then answers from the store;
 * `Cache-Control: no-cache` revalidates first: the indexed state is read at its source once, and
 * the answer is rebuilt if that state is newer than the held one. Read-your-writes for sign-in
 * sessions: a write with a bearer token answered as mined notes its block for the token's wallet
 * (core/indexer/last-writes.ts, shared with the gateway), and that wallet's hot reads wait
 * (bounded) for it as for a `?minBlock`.
 */
import { Hono, type Context } from "hono";
import { proxy } from "hono/proxy";
import { requestId } from "hono/request-id";
import { streamSSE } from "hono/streaming";
import { ApiError } from "../../core/errors.js";
import { socketAddress } from "../../core/http/client-address.js";
import { errorResponse } from "../../core/http/errors.js";
import { stateToJson, waitForIndexedBlock, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { minedBlock, type LastWrites } from "../../core/indexer/last-writes.js";
import { decodeJwt } from "jose";
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { Store } from "hono-rate-limiter";
import { trustedProxies } from "../../core/http/client-address.js";
import { corsOrigins, corsPolicy } from "../../src/api/lib/cors.js";
import { apiLimitsFromEnv, clientLimitStore, clientRateLimit, type ApiLimits } from "../../src/api/lib/limits.js";
import type { Answer, AnswerStore } from "./answers.js";
import { fastReads, wireOf } from "./fast.js";
import type { HistoryServer } from "./history.js";
import { answerKey, HOT } from "./keys.js";
import type { FreshRead } from "./tables.js";
import { blockNotIndexed } from "../../core/reads/errors.js";

const MIN_BLOCK_RE = /^\d{1,15}$/;

export { answerKey };

/**
 * The wallet of a sign-in session's bearer token, read without verifying it: it only picks whose
 * last write a read waits for (a forged token makes its own read wait, nothing more); a write is
 * noted only once the integration API, which verifies the token, has answered it as mined.
 */
export function bearerWallet(authorization: string): string | undefined {
  const m = /^Bearer\s+([A-Za-z0-9\-_.]+)\s*$/i.exec(authorization);
  if (!m) return undefined;
  try {
    const sub = decodeJwt(m[1]!).sub;
    return sub && /^0x[0-9a-fA-F]{40}$/.test(sub) ? sub.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

const lastWriteOf = (lastWrites: LastWrites, authorization: string) => {
  const wallet = bearerWallet(authorization);
  return wallet ? lastWrites.get(wallet) : undefined;
};

export type ReadsDeps = {
  store: AnswerStore;
  feed: BlockFeed;
  indexerUrl: string;
  minBlockWaitMs: number;
  /** Read-your-writes of sign-in sessions (absent: none). */
  lastWrites?: LastWrites;
  readYourWritesWaitMs?: number;
  /** The per-client limit and its counters (default: from the environment, a store of its own). */
  limits?: ApiLimits;
  limitStore?: Store;
  /** On Postgres: the history lists answered here (history.ts); absent, Ponder's server answers them. */
  history?: HistoryServer;
  /** On Postgres: `Cache-Control: no-cache` reads of the hot routes, one statement each, below Hono (tables.ts `fresh`, fast.ts). */
  fresh?: (key: string, minBlock: bigint) => Promise<FreshRead>;
};

/**
 * The service's node request listener: the hot path (fast.ts) for a plain read of a held answer,
 * the Hono app for everything else; both count in one per-client limit store.
 */
export function createReadsListener(deps: ReadsDeps) {
  const limits = deps.limits ?? apiLimitsFromEnv();
  const limitStore = deps.limitStore ?? clientLimitStore(limits);
  const cors = corsOrigins();
  const app = createReadsApp({ ...deps, limits, limitStore });
  const slow = getRequestListener(app.fetch);
  const fast = fastReads({
    store: deps.store,
    feed: deps.feed,
    cors,
    noCache: { read: deps.fresh, settleWaitMs: deps.minBlockWaitMs, fallback: slow },
    history: deps.history && { server: deps.history, fallback: slow },
    limit: { store: limitStore, limit: limits.RATE_LIMIT_PER_MINUTE, windowMs: 60_000, trusted: trustedProxies(limits.TRUSTED_PROXIES) },
  });
  return { app, listener: (req: IncomingMessage, res: ServerResponse) => void (fast(req, res) || slow(req, res)) };
}

export function createReadsApp({ store, feed, indexerUrl, minBlockWaitMs, lastWrites, readYourWritesWaitMs = 2_000, limits, limitStore, history }: ReadsDeps) {
  const app = new Hono();
  const cors = corsOrigins();
  // the integration API's CORS policy on every answer, held or passed through
  app.use(corsPolicy(cors));
  // the integration API's request-id rule (a plain client id is kept, anything else replaced);
  // the id chosen here is the one passed on to Ponder
  app.use(requestId());
  // answered here: a hot route while the push is live (without it, a held answer could outlive
  // its block unseen, so Ponder answers meanwhile)
  const held = (c: Context) => c.req.method === "GET" && HOT.test(c.req.path) && feed.live();
  // the integration API's per-client limit on what is answered here; passed-through requests
  // are limited by Ponder's server itself
  const lim = limits ?? apiLimitsFromEnv();
  const limit = clientRateLimit(lim, limitStore ?? clientLimitStore(lim));
  app.use("*", (c, next) => (held(c) || history?.serves(c) ? limit(c, next) : next()));

  const serve = (c: Context, a: Answer, cache: "HIT" | "MISS") => {
    const headers: Record<string, string> = { "Content-Type": "application/json", "X-Cache": cache, ETag: wireOf(a, cors).etag };
    if (a.block) headers["X-Indexed-Block"] = a.block;
    return c.body(a.body, a.status as 200, headers);
  };

  app.get("*", async (c, next) => {
    const path = c.req.path;
    if (!held(c)) return next();
    const url = c.req.url;
    const qi = url.indexOf("?");
    const search = qi < 0 ? "" : url.slice(qi + 1);
    const key = answerKey(path, search);
    const fresh = /no-cache|no-store/i.test(c.req.header("Cache-Control") ?? "");
    const minRaw = search ? c.req.query("minBlock") : undefined;
    if (minRaw !== undefined) {
      if (!MIN_BLOCK_RE.test(minRaw)) return next(); // the integration API answers its 400
      const min = BigInt(minRaw);
      if (!(await waitForIndexedBlock(feed, min, minBlockWaitMs))) {
        c.header("X-Indexed-Block", feed.current().number.toString());
        return errorResponse(c, blockNotIndexed(min, feed.current().number));
      }
    }
    let min = minRaw === undefined ? undefined : BigInt(minRaw);
    // read-your-writes for sign-in sessions: the wallet's last mined write's block, waited for
    // (bounded) as if the client had sent it as ?minBlock
    const last = lastWrites && c.req.header("Authorization") ? lastWriteOf(lastWrites, c.req.header("Authorization")!) : undefined;
    if (last !== undefined && (min === undefined || last > min) && (await waitForIndexedBlock(feed, last, readYourWritesWaitMs))) min = last;
    if (fresh) await feed.revalidate();
    else {
      const held = store.peek(key, min);
      if (held) return serve(c, held, "HIT");
    }
    const a = await store.get(key, key);
    // the newest block's answer, served before its other answers are: wait for them (bounded)
    // so that this client's next read, of any route, is not of an older block
    if (a.gen === store.gen) await store.whenSettled(minBlockWaitMs);
    return serve(c, a, "MISS");
  });

  // the block feed, passed on to the gateway's replicas and the streams: one subscription to the
  // indexer per read service, not one per consumer
  app.get("/blocks/current", async (c) => c.body(stateToJson(await feed.revalidate()), 200, { "Content-Type": "application/json", "Cache-Control": "no-store" }));
  app.get("/blocks/stream", (c) =>
    streamSSE(c, async (stream) => {
      const send = (s: IndexedState) => void stream.writeSSE({ event: "block", data: stateToJson(s) }).catch(() => {});
      const off = feed.subscribe(send);
      stream.onAbort(off);
      if (feed.current().state) send(feed.current());
      while (!stream.aborted) {
        await stream.sleep(15_000);
        if (!stream.aborted) await stream.write(": keep-alive\n\n").catch(() => {});
      }
      off();
    }),
  );

  // the history lists, on Postgres: one prepared statement per page on this service's own pool
  if (history) app.get("*", async (c, next) => (await history.answer(c)) ?? next());

  // everything else: Ponder's server, as is
  app.all("*", async (c) => {
    const url = c.req.url;
    const qi = url.indexOf("?");
    const res = await proxy(`${indexerUrl}${c.req.path}${qi < 0 ? "" : url.slice(qi)}`, {
      raw: c.req.raw,
      headers: {
        ...c.req.header(),
        host: undefined,
        "x-request-id": c.get("requestId"),
        "X-Forwarded-Host": c.req.header("x-forwarded-host") ?? c.req.header("host"),
        "X-Forwarded-For": c.req.header("x-forwarded-for") ?? socketAddress(c),
      },
    });
    // Ponder's /status may name a block whose answers are still being rebuilt here: answer it
    // once they are (bounded), so that a client that saw block N there reads block N here
    if (c.req.method === "GET" && c.req.path === "/status" && res.ok) {
      const status = (await res.clone().json().catch(() => undefined)) as Record<string, { block?: { number?: number } }> | undefined;
      const n = status ? Math.max(0, ...Object.values(status).map((v) => v?.block?.number ?? 0)) : 0;
      if (BigInt(n) > store.settledBlock && (await waitForIndexedBlock(feed, BigInt(n), minBlockWaitMs))) {
        await store.whenSettled(minBlockWaitMs);
      }
    }
    // a session's write answered as mined: note its block for the wallet's next reads
    const auth = c.req.header("Authorization");
    if (lastWrites && auth && c.req.method !== "GET" && res.ok && (res.headers.get("content-type") ?? "").includes("json")) {
      const wallet = bearerWallet(auth);
      const block = wallet ? minedBlock(((await res.clone().json().catch(() => undefined)) as { data?: unknown } | undefined)?.data) : undefined;
      if (wallet && block !== undefined) await lastWrites.record(wallet, block).catch(() => {});
    }
    return res;
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    return errorResponse(c, new ApiError("SERVICE_UNAVAILABLE", "the indexer is unavailable; retry"));
  });
  return app;
}
