import { createServer, get as httpGet, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { feedHub, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { AnswerStore } from "./answers.js";
import { createReadsListener } from "./app.js";

const state = (n: number): IndexedState => ({ number: BigInt(n), timestamp: BigInt(n), hash: `0x${n}`, state: `s${n}` });

// The hot path below Hono (fast.ts) over real HTTP: what it writes must be what the app writes
// (block, envelope, limits, request id), and what it cannot answer must reach the app.
describe("read service hot path", () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    delete process.env.RATE_LIMIT_PER_MINUTE;
  });

  async function start(limit = "1000") {
    process.env.RATE_LIMIT_PER_MINUTE = limit;
    const hub = feedHub();
    const feed: BlockFeed = { ...hub, revalidate: async () => hub.current(), close: async () => {} };
    hub.setLive(true);
    hub.push(state(7));
    const builds: string[] = [];
    let hold: Promise<void> | undefined;
    const store = new AnswerStore(
      feed,
      async (path) => {
        builds.push(path);
        await hold;
        const n = hub.current().number;
        return { status: 200, body: `{"success":true,"data":{"path":"${path}","block":${n}}}`, block: String(n) };
      },
      { hotMs: 60_000, maxAnswers: 10, concurrency: 4, carryMs: 60_000 },
    );
    const { listener } = createReadsListener({ store, feed, indexerUrl: "http://127.0.0.1:9", minBlockWaitMs: 200 });
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
    return { hub, store, builds, get, conditional, holdBuilds: (p?: Promise<void>) => (hold = p) };
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

  it("a new block's answer once rebuilt; no-cache and ?minBlock go to the app; a revert is never carried over", async () => {
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
});
