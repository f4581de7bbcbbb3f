import { createServer, get as httpGet, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { feedHub, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { AnswerStore } from "./answers.js";
import { createReadsListener } from "./app.js";
import { ApiError } from "../../core/errors.js";
import { errorResponse } from "../../core/http/errors.js";
import { SOURCE_HEADER, type HistoryServer } from "./history.js";

const state = (n: number): IndexedState => ({ number: BigInt(n), timestamp: BigInt(n), hash: `0x${n}`, state: `s${n}` });

// The hot path below Hono (held-answers-listener.ts) over real HTTP: what it writes must be what the app writes
// (block, envelope, limits, request id), and what it cannot answer must reach the app.
describe("read service hot path", () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    delete process.env.RATE_LIMIT_PER_MINUTE;
  });

  /** `db`: the tables' state, which a no-cache read re-reads through the feed. */
  async function start(limit = "1000", db?: { state: IndexedState; reads: number; stateReads?: number; fail?: boolean }, history?: HistoryServer) {
    process.env.RATE_LIMIT_PER_MINUTE = limit;
    const hub = feedHub();
    // with `db`: the tables' state, which revalidate pushes (as pgBlockFeed does)
    const feed: BlockFeed = {
      ...hub,
      revalidate: async () => {
        if (db) {
          db.stateReads = (db.stateReads ?? 0) + 1;
          hub.push(db.state);
        }
        return hub.current();
      },
      close: async () => {},
    };
    hub.setLive(true);
    hub.push(state(7));
    const builds: string[] = [];
    let hold: Promise<void> | undefined;
    let failBuilds = false;
    const store = new AnswerStore(
      feed,
      async (path) => {
        builds.push(path);
        await hold;
        if (failBuilds) throw new Error("indexer down");
        const n = hub.current().number;
        return { status: 200, body: `{"success":true,"data":{"path":"${path}","block":${n}}}`, block: String(n) };
      },
      { hotMs: 60_000, maxAnswers: 10, concurrency: 4, carryMs: 60_000 },
    );
    const { listener } = createReadsListener({ store, feed, indexerUrl: "http://127.0.0.1:9", minBlockWaitMs: 200, history });
    server = createServer(listener).listen(0, "127.0.0.1");
    await new Promise((r) => server!.once("listening", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(base + path, { headers });
      return { status: res.status, h: res.headers, text: await res.text() };
    };
    // fetch() turns a conditional request into a `no-cache` one (the Fetch standard); a browser's cache does not
    const conditional = (path: string, etag: string) =>
      new Promise<{ status: number; block: unknown; length: number }>((resolve, reject) =>
        httpGet(base + path, { headers: { "If-None-Match": etag } }, (res) => {
          let length = 0;
          res.on("data", (d: Buffer) => (length += d.length)).on("end", () => resolve({ status: res.statusCode!, block: res.headers["x-indexed-block"], length }));
        }).on("error", reject),
      );
    return { hub, store, builds, get, conditional, holdBuilds: (p?: Promise<void>) => (hold = p), failBuilds: (f: boolean) => (failBuilds = f) };
  }

  it("serves a held answer from its prebuilt bytes: block, ETag, 304, request id, limits", async () => {
    const w = await start();
    const first = await w.get("/markets?b=2&a=1");
    expect([first.status, first.h.get("x-cache"), first.h.get("x-indexed-block")]).toEqual([200, "MISS", "7"]);
    const hit = await w.get("/markets?a=1&b=2", { "X-Request-Id": "trace-1" }); // same answer, parameters in another order
    expect([hit.status, hit.h.get("x-cache"), hit.h.get("x-indexed-block"), hit.text]).toEqual([200, "HIT", "7", first.text]);
    expect(hit.h.get("etag")).toBe(first.h.get("etag"));
    expect(hit.h.get("x-request-id")).toBe("trace-1");
    expect(hit.h.get("access-control-allow-origin")).toBe("*");
    expect(Number(hit.h.get("ratelimit-remaining"))).toBe(998); // counted with the app's first request
    const odd = await w.get("/markets?a=1&b=2", { "X-Request-Id": "a b" });
    expect(odd.h.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await w.conditional("/markets?a=1&b=2", hit.h.get("etag")!)).toEqual({ status: 304, block: "7", length: 0 });
    expect((await w.conditional("/markets?a=1&b=2", '"other"')).status).toBe(200);
    expect(w.builds).toEqual(["/markets?a=1&b=2"]);
  });

  it("a new block's answer once rebuilt; ?minBlock goes to the app; a revert is never carried over", async () => {
    const w = await start();
    await w.get("/markets");
    let release!: () => void;
    w.holdBuilds(new Promise<void>((r) => (release = r)));
    w.hub.push(state(8)); // forward: block 7's answer is served while block 8's is rebuilt
    expect((await w.get("/markets")).h.get("x-indexed-block")).toBe("7");
    const waiting = w.get("/markets?minBlock=8"); // never below ?minBlock: waits for the rebuild
    release();
    expect((await waiting).h.get("x-indexed-block")).toBe("8");
    expect((await w.get("/markets")).h.get("x-indexed-block")).toBe("8");
    w.holdBuilds(new Promise<void>((r) => (release = r)));
    w.hub.push({ ...state(8), state: "s8b", reverted: true }); // a reorg: nothing carried over
    const after = w.get("/markets");
    await new Promise((r) => setTimeout(r, 20));
    release();
    const a = await after;
    expect([a.h.get("x-cache"), a.h.get("x-indexed-block")]).toEqual(["MISS", "8"]);
    expect(w.builds.length).toBe(3);
    const fresh = await w.get("/markets", { "Cache-Control": "no-cache" });
    expect(fresh.h.get("x-cache")).toBe("MISS");
  });

  it("no-cache below Hono, as the app: the state re-read, the held bytes while it has not moved, the newer block's rebuild; counted once when the app answers", async () => {
    const db = { state: state(7), reads: 0, stateReads: 0 };
    const w = await start("1000", db);
    const noCache = { "Cache-Control": "no-cache" };
    const held = await w.get("/markets"); // built by the app's path
    const same = await w.get("/markets", noCache);
    expect([same.status, same.h.get("x-cache"), same.text, same.h.get("etag"), same.h.get("x-indexed-block")]).toEqual([200, "MISS", held.text, held.h.get("etag"), "7"]);
    expect([db.stateReads, db.reads, w.builds]).toEqual([1, 0, ["/markets"]]); // one state read, not rebuilt
    expect(Number(same.h.get("ratelimit-remaining"))).toBe(998); // written below Hono, counted with the app's
    // the tables at block 8 before the feed's push: the re-read pushes it, the answer is block 8's
    db.state = state(8);
    const newer = await w.get("/markets", noCache);
    expect([newer.h.get("x-indexed-block"), w.hub.current().number, w.builds.length]).toEqual(["8", 8n, 2]);
    const hit = await w.get("/markets");
    expect([hit.h.get("x-cache"), hit.h.get("x-indexed-block")]).toEqual(["HIT", "8"]);
    // the build failing: the app's answer (503 in the envelope), and the client counted once
    const left = Number(hit.h.get("ratelimit-remaining"));
    w.failBuilds(true);
    db.state = state(9);
    const failed = await w.get("/markets", noCache);
    expect([failed.status, JSON.parse(failed.text).error?.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
    w.failBuilds(false);
    const back = await w.get("/markets", noCache);
    expect([back.status, back.h.get("x-indexed-block"), Number(back.h.get("ratelimit-remaining"))]).toEqual([200, "9", left - 2]);
  });

  it("both paths count in one per-client limit; over it, the app answers 429", async () => {
    const w = await start("3");
    expect((await w.get("/markets")).status).toBe(200); // app (build)
    expect((await w.get("/markets")).status).toBe(200); // hot path
    expect((await w.get("/markets")).status).toBe(200);
    const over = await w.get("/markets");
    expect(over.status).toBe(429);
    expect(over.h.get("retry-after")).toBeTruthy();
    expect(JSON.parse(over.text)).toMatchObject({ success: false, error: { code: "RATE_LIMITED" } });
  });

  it("a history page below Hono has the Hono path's headers and bytes; a page that is not a plain 200 is the app's", async () => {
    // history.ts as seen from here: account 1 has a page, account 2 does not exist
    const body = '{"success":true,"data":{"fills":[],"hasMore":false,"nextCursor":null}}';
    let plainReads = 0;
    const pageOf = (path: string) => (/^\/accounts\/(%31|1)\/fills$/.test(path) ? "ok" : /^\/accounts\/2\/fills$/.test(path) ? "missing" : undefined);
    const history: HistoryServer = {
      serves: (c) => pageOf(c.req.path) !== undefined,
      answer: async (c) => {
        const p = pageOf(c.req.path);
        if (!p || c.req.header("accept") === "text/csv") return undefined; // an export: Ponder's
        c.header(SOURCE_HEADER, "reads");
        c.header("X-Indexed-Block", "7");
        if (p === "missing") return errorResponse(c, new ApiError("ACCOUNT_NOT_FOUND", "account 2 does not exist"));
        return c.body(body, 200, { "Content-Type": "application/json", "X-Cache": "MISS" });
      },
      plain: (url) => {
        const p = pageOf(url.split("?")[0]!);
        if (!p) return undefined;
        return async () => {
          plainReads++;
          if (p === "missing") throw new ApiError("ACCOUNT_NOT_FOUND", "account 2 does not exist");
          return { body, block: "7" };
        };
      },
      close: async () => {},
    };
    const w = await start("1000", undefined, history);
    const fast = await w.get("/accounts/1/fills?limit=2", { "X-Request-Id": "trace-2" });
    expect(plainReads).toBe(1);
    const slow = await w.get("/accounts/%31/fills?limit=2", { "X-Request-Id": "trace-2" }); // percent-encoded: the app's
    expect(plainReads).toBe(1);
    expect([fast.status, fast.text]).toEqual([slow.status, slow.text]);
    const headers = (h: Headers) => [...h.entries()].filter(([k]) => !["date", "connection", "keep-alive", "ratelimit-remaining"].includes(k)).sort();
    expect(headers(fast.h)).toEqual(headers(slow.h));
    expect(fast.h.get("x-request-id")).toBe("trace-2");
    expect(Number(slow.h.get("ratelimit-remaining"))).toBe(Number(fast.h.get("ratelimit-remaining")) - 1); // each counted once
    // a 404: the app answers it, the client counted once
    const missing = await w.get("/accounts/2/fills");
    expect(plainReads).toBe(2);
    expect([missing.status, missing.h.get(SOURCE_HEADER), missing.h.get("x-indexed-block")]).toEqual([404, "reads", "7"]);
    expect(Number(missing.h.get("ratelimit-remaining"))).toBe(Number(slow.h.get("ratelimit-remaining")) - 1);
    // an export: the app's (here Ponder is unreachable: its 503), not read here
    expect((await w.get("/accounts/1/fills", { Accept: "text/csv" })).status).toBe(503);
    expect(plainReads).toBe(2);
  });
});
