/**
 * The response cache's rules on a bare Hono app: the state is set by a stand-in of the
 * indexed-block middleware, the route counts its reads (the real routes are e2e-tested in
 * test/e2e/reads.test.ts and reorg.test.ts).
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { IndexedBlockEnv } from "../../src/api/lib/indexedBlock.js";
import { cacheKey, responseCache } from "../../src/api/lib/responseCache.js";

describe("response cache key", () => {
  it("is the path and the sorted query, without minBlock", () => {
    expect(cacheKey("http://h/markets/0xab/orderbook")).toBe("/markets/0xab/orderbook");
    expect(cacheKey("http://h/markets/0xab/orderbook?minBlock=9")).toBe("/markets/0xab/orderbook");
    expect(cacheKey("http://h/a/orders?status=ACTIVE&limit=5&minBlock=3")).toBe(cacheKey("http://h/a/orders?limit=5&status=ACTIVE"));
    expect(cacheKey("http://h/a/orders?limit=5")).not.toBe(cacheKey("http://h/a/orders?limit=6"));
    expect(cacheKey("http://h/a/orders?cursor=x")).not.toBe(cacheKey("http://h/b/orders?cursor=x"));
  });
});

function app() {
  const world = { state: "s1", reads: 0, status: 200, consistent: true };
  const a = new Hono<IndexedBlockEnv>();
  a.use("*", async (c, next) => {
    c.set("indexed", { number: 1n, timestamp: 1n, hash: null, state: world.state });
    await next();
  });
  a.get("/r/:id", responseCache, async (c) => {
    world.reads++;
    const at = c.var.indexed;
    await new Promise((r) => setTimeout(r, 20)); // a read that takes a while
    if (world.consistent) c.set("consistentAt", at);
    return c.json({ id: c.req.param("id"), state: at.state, read: world.reads }, world.status as 200);
  });
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await a.request(path, { headers });
    return { status: res.status, cache: res.headers.get("x-cache"), body: (await res.json()) as { read: number; state: string } };
  };
  return { world, get };
}

describe("response cache", () => {
  it("serves a repeat of one state from memory, and reads again when the state moves", async () => {
    const { world, get } = app();
    expect((await get("/r/1")).cache).toBe("MISS");
    const again = await get("/r/1");
    expect([again.cache, again.body.read, world.reads]).toEqual(["HIT", 1, 1]);
    world.state = "s2";
    const moved = await get("/r/1");
    expect([moved.cache, moved.body.state, world.reads]).toEqual(["MISS", "s2", 2]);
  });

  it("concurrent misses of one key share one read", async () => {
    const { world, get } = app();
    const crowd = await Promise.all(Array.from({ length: 12 }, () => get("/r/2")));
    expect(world.reads).toBe(1);
    expect(crowd.map((r) => r.cache).sort()).toEqual([...Array(11).fill("HIT"), "MISS"]);
    expect(new Set(crowd.map((r) => r.body.read))).toEqual(new Set([1]));
  });

  it("no-cache reads afresh; errors and inconsistent reads are not kept", async () => {
    const { world, get } = app();
    await get("/r/3");
    const fresh = await get("/r/3", { "Cache-Control": "no-cache" });
    expect([fresh.cache, world.reads]).toEqual(["MISS", 2]);
    world.status = 404;
    await get("/r/4");
    expect((await get("/r/4")).cache).toBe("MISS");
    world.status = 200;
    world.consistent = false;
    await get("/r/5");
    expect((await get("/r/5")).cache).toBe("MISS");
  });
});
