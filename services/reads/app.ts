/**
 * The read service's HTTP surface: the integration API's URL for clients. The hot reads (markets,
 * a market's funding, price and book, an account, its positions and orders) are answered from
 * the answer store (built from the tables on Postgres, tables.ts; by Ponder's server on PGlite);
 * the writes of sign-in sessions go straight to the relayer (the integration API's own write
 * routes, core/http/write-routes.ts, mounted here: Ponder's process never sees them); every other
 * request (sign-in, OpenAPI, docs, `/sql`, other reads) is passed to Ponder's server. Answers are
 * the integration API's own bytes: the same envelope, fields, units, errors and `X-Indexed-Block`.
 *
 * This is the first process a client's request reaches: it is counted here, once, against its
 * client (the address, behind `TRUSTED_PROXIES` the right-most untrusted `X-Forwarded-For`
 * entry), and its body limited (413) here. What is passed to Ponder carries this service's token
 * and the client's identity (`X-Venue-Client`), so Ponder neither counts it again nor counts
 * every client as this service's address.
 *
 * On Postgres the history lists (trades, candles, fills, …) are answered here too, from the
 * database by a pool of this service's own (history.ts: the one read model of
 * core/history/plans.ts, as Ponder's routes run it).
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
import { clientAddressOf, socketAddress } from "../../core/http/client-address.js";
import { refuseOversizedBody } from "../../core/http/body-limit.js";
import { CLIENT_IDENTITY_HEADER, addressIdentity } from "../../core/http/client-identity.js";
import { secret } from "../../core/profiles.js";
import { writeRoutes } from "../../core/http/write-routes.js";
import { errorResponse } from "../../core/http/errors.js";
import { stateToJson, waitForIndexedBlock, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { minedBlock, type LastWrites } from "../../core/indexer/last-writes.js";
import { decodeJwt } from "jose";
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { Store } from "hono-rate-limiter";
import { trustedProxies } from "../../core/http/client-address.js";
import { corsOrigins, corsPolicy } from "../../core/http/cors.js";
import { SQL_PATH, apiBodyLimit, apiLimitsFromEnv, clientLimitStore, clientRateLimit, fromService, typedDataLimit, type ApiLimits } from "../../core/http/limits.js";
import type { Answer, AnswerStore } from "./answers.js";
import { fastReads, wireOf } from "./held-answers-listener.js";
import type { HistoryServer } from "./history.js";
import { answerKey, isHeldPath } from "../../core/reads/routes.js";
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
  /** This service's token on what it passes to Ponder (default: INTEGRATION_TOKEN). */
  integrationToken?: string;
};

/** Not counted: health probes, and the block feed the gateway's replicas and the streams follow. */
const UNCOUNTED = (path: string) => path === "/health" || path === "/ready" || path.startsWith("/blocks/");

/**
 * The service's node request listener: the hot path (held-answers-listener.ts) for a plain read of a held answer,
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
    noCache: { settleWaitMs: deps.minBlockWaitMs, fallback: slow },
    history: deps.history && { server: deps.history, fallback: slow },
    limit: { store: limitStore, limit: limits.RATE_LIMIT_PER_MINUTE, windowMs: 60_000, trusted: trustedProxies(limits.TRUSTED_PROXIES) },
  });
  // a declared body over the limit: 413 before anything, the connection kept (core/http/body-limit.ts)
  const corsOf = (req: IncomingMessage): Record<string, string> => {
    if (cors === "*") return { "Access-Control-Allow-Origin": "*" };
    const origin = req.headers.origin;
    return origin && cors.includes(origin) ? { "Access-Control-Allow-Origin": origin, Vary: "Origin" } : { Vary: "Origin" };
  };
  const oversized = (req: IncomingMessage, res: ServerResponse) => refuseOversizedBody(req, res, limits.BODY_LIMIT_BYTES, { exempt: SQL_PATH, headers: corsOf });
  return { app, listener: (req: IncomingMessage, res: ServerResponse) => void (oversized(req, res) || fast(req, res) || slow(req, res)) };
}

export function createReadsApp({ store, feed, indexerUrl, minBlockWaitMs, lastWrites, readYourWritesWaitMs = 2_000, limits, limitStore, history, integrationToken }: ReadsDeps) {
  const app = new Hono();
  const cors = corsOrigins();
  // the integration API's CORS policy on every answer, held or passed through
  app.use(corsPolicy(cors));
  // the integration API's request-id rule (a plain client id is kept, anything else replaced);
  // the id chosen here is the one passed on to Ponder
  app.use(requestId());
  // answered here: a hot route while the push is live (without it, a held answer could outlive
  // its block unseen, so Ponder answers meanwhile)
  const held = (c: Context) => c.req.method === "GET" && isHeldPath(c.req.path) && feed.live();
  // the integration API's per-client limit, on every request a client sends (answered here or
  // passed on): this is the first process that sees it; a service's request (the gateway's, with
  // its token) was counted by that service
  const lim = limits ?? apiLimitsFromEnv();
  const limit = clientRateLimit(lim, limitStore ?? clientLimitStore(lim));
  app.use("*", (c, next) => (UNCOUNTED(c.req.path) ? next() : limit(c, next)));
  app.use("/operators/typed-data", typedDataLimit(lim));
  // the body limit (413 in the envelope) before anything reads or passes on a body
  app.use(apiBodyLimit(lim));
  const clientOf = clientAddressOf(trustedProxies(lim.TRUSTED_PROXIES));

  // a session's write answered as mined (here, or by Ponder for a route it still serves): note
  // its block for the wallet's next reads
  if (lastWrites)
    app.use("*", async (c, next) => {
      await next();
      const auth = c.req.header("Authorization");
      const res = c.res;
      if (!auth || c.req.method === "GET" || !res.ok || !(res.headers.get("content-type") ?? "").includes("json")) return;
      const wallet = bearerWallet(auth);
      const block = wallet ? minedBlock(((await res.clone().json().catch(() => undefined)) as { data?: unknown } | undefined)?.data) : undefined;
      if (wallet && block !== undefined) await lastWrites.record(wallet, block).catch(() => {});
    });

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

  // the writes of sign-in sessions: validated here and sent straight to the relayer
  // (core/relayer-client.ts) with this service's token and the session's wallet
  app.route("/", writeRoutes);

  // Ponder's internal routes answer the venue's services only: a client's request is not passed
  // on with this service's token
  app.all("/internal/*", (c, next) => {
    if (fromService(c)) return next();
    throw new ApiError("UNAUTHENTICATED", "internal route: needs the calling service's X-Internal-Token");
  });

  // everything else: Ponder's server. A client's request carries this service's token and the
  // client's identity (it was counted here); a service's request (its own token) goes as it came.
  app.all("*", async (c) => {
    const url = c.req.url;
    const qi = url.indexOf("?");
    const peer = socketAddress(c);
    const xff = c.req.header("x-forwarded-for");
    const headers: Record<string, string | undefined> = {
      ...c.req.header(),
      host: undefined,
      "x-request-id": c.get("requestId"),
      "X-Forwarded-Host": c.req.header("x-forwarded-host") ?? c.req.header("host"),
      "x-forwarded-for": xff && peer ? `${xff}, ${peer}` : (peer ?? xff),
    };
    if (!fromService(c)) {
      headers["x-internal-token"] = integrationToken ?? secret("INTEGRATION_TOKEN");
      headers[CLIENT_IDENTITY_HEADER.toLowerCase()] = addressIdentity(clientOf(c));
    }
    const res = await proxy(`${indexerUrl}${c.req.path}${qi < 0 ? "" : url.slice(qi)}`, { raw: c.req.raw, headers });
    // Ponder's /status may name a block whose answers are still being rebuilt here: answer it
    // once they are (bounded), so that a client that saw block N there reads block N here
    if (c.req.method === "GET" && c.req.path === "/status" && res.ok) {
      const status = (await res.clone().json().catch(() => undefined)) as Record<string, { block?: { number?: number } }> | undefined;
      const n = status ? Math.max(0, ...Object.values(status).map((v) => v?.block?.number ?? 0)) : 0;
      if (BigInt(n) > store.settledBlock && (await waitForIndexedBlock(feed, BigInt(n), minBlockWaitMs))) {
        await store.whenSettled(minBlockWaitMs);
      }
    }
    return res;
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    return errorResponse(c, new ApiError("SERVICE_UNAVAILABLE", "the indexer is unavailable; retry"));
  });
  return app;
}
