import { PGlite } from "@electric-sql/pglite";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { feedHub, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { memoryLastWrites } from "../../core/indexer/last-writes.js";
import { startStandIn, WALLET_A, type StandIn } from "../../test/unit/gateway-standins.js";
import { createGatewayListener } from "./app.js";
import { cachedReads } from "./block-cache.js";
import { loadGatewayConfig } from "./config.js";
import { openGatewayStore } from "./db/open.js";
import { KeyStore } from "./keys.js";
import { createUpstream } from "./upstream.js";

const state = (n: number, extra: Partial<IndexedState> = {}): IndexedState => ({ number: BigInt(n), timestamp: BigInt(n), hash: `0x${n}`, state: `s${n}`, ...extra });
const MARKET = `0x${"ab".repeat(32)}`;

// The hot path below Hono (held-copies-listener.ts) over real HTTP: it answers only what the app answered from
// the current block's copy, with the same bytes, and counts in the app's per-key limit.
describe("gateway hot path", () => {
  let integration: StandIn;
  let server: Server;
  let base: string;
  let keys: KeyStore;
  let key: string;
  const hub = feedHub();
  const feed: BlockFeed = { ...hub, revalidate: async () => hub.current(), close: async () => {} };
  const lastWrites = memoryLastWrites();
  let pg: PGlite;

  beforeAll(async () => {
    integration = await startStandIn();
    integration.handle((req, c) => c.json({ success: true, data: { marketId: MARKET, atBlock: String(hub.current().number), path: req.path } }, 200, { "X-Indexed-Block": String(hub.current().number) }));
    const config = loadGatewayConfig({ INTEGRATION_URL: integration.url, PGLITE_DIR: "memory://", RATE_LIMIT_PER_MINUTE: "40" });
    pg = await PGlite.create("memory://");
    const store = await openGatewayStore({ pgliteDir: "memory://", schema: "gw_fast", pglite: pg });
    keys = new KeyStore(store, 60_000);
    key = (await keys.create(WALLET_A, "a")).key;
    hub.setLive(true);
    hub.push(state(7));
    const upstream = createUpstream("integration", config.integrationUrl, 2_000, {});
    const { listener } = createGatewayListener({
      config,
      store,
      keys,
      log: pino({ level: "silent" }),
      upstreams: { integration: cachedReads(upstream, feed, lastWrites, 100), relayer: upstream, keeper: upstream },
      feed,
      lastWrites,
    });
    server = createServer(listener).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    server?.close();
    await integration?.close();
    await pg?.close();
  });

  const get = async (path: string, headers: Record<string, string> = { "X-API-Key": key }) => {
    const res = await fetch(base + path, { headers });
    const timing = res.headers.get("server-timing") ?? "";
    // the app's answers name the upstream's time; the hot path's only its own
    return { status: res.status, text: await res.text(), h: res.headers, hot: res.status === 200 && !timing.includes("upstream") };
  };

  it("serves the app's bytes of the current block's copy; a new block, a bad key, no-cache, min_block go to the app", async () => {
    const path = `/v1/markets/${MARKET}/orderbook?depth=5`;
    const first = await get(path); // fetched
    const second = await get(path); // the copy, through the app (captured)
    const third = await get(path, { "X-API-Key": key, "X-Request-Id": "r-1" });
    expect([first.hot, second.hot, third.hot]).toEqual([false, false, true]);
    expect(third.text).toBe(second.text);
    expect(JSON.parse(third.text)).toMatchObject({ success: true, data: { market_id: MARKET, at_block: "7" } });
    expect([third.h.get("x-indexed-block"), third.h.get("x-request-id"), third.h.get("ratelimit-remaining")]).toEqual(["7", "r-1", "37"]);
    expect(integration.requests.length).toBe(1);
    expect((await get(path, { "X-API-Key": key.slice(0, -1) + (key.endsWith("A") ? "B" : "A") })).status).toBe(401);
    expect((await get(path, { "X-API-Key": key, "Cache-Control": "no-cache" })).hot).toBe(false);
    expect((await get(`${path}&min_block=7`)).hot).toBe(false);
    const before = integration.requests.length;
    hub.push(state(8));
    // right after a forward block: block 7's bytes while block 8's copy is fetched (started here)
    const carried = await get(path);
    expect([carried.hot, carried.h.get("x-indexed-block"), carried.text]).toEqual([true, "7", second.text]);
    await vi.waitFor(() => expect(integration.requests.length).toBe(before + 1));
    expect(integration.requests.at(-1)!.query.minBlock).toBe("8");
    await new Promise((r) => setTimeout(r, 20));
    const landed = await get(path); // block 8's copy has landed: the app answers it (and the hot path keeps it)
    expect([landed.hot, landed.h.get("x-indexed-block")]).toEqual([false, "8"]);
    const again = await get(path);
    expect([again.hot, again.h.get("x-indexed-block")]).toEqual([true, "8"]);
    expect(integration.requests.length).toBe(before + 1);
  });

  it("after a revert nothing is carried over on the hot path; after a forward block, not to a wallet whose last write is newer", async () => {
    hub.push(state(9)); // the wallet's last write (test above) indexed
    const path = `/v1/markets/${MARKET}/price`;
    await get(path);
    await get(path);
    expect((await get(path)).hot).toBe(true);
    hub.push(state(10, { state: "s10b", hash: "0x10b", reverted: true }));
    const afterRevert = await get(path);
    expect([afterRevert.hot, afterRevert.h.get("x-indexed-block")]).toEqual([false, "10"]);
    await get(path); // the copy, through the app (captured)
    expect((await get(path)).hot).toBe(true);
    await lastWrites.record(WALLET_A, 11n);
    hub.push(state(11));
    const mine = await get(path); // block 10's copy is older than the wallet's write at 11: the app
    expect([mine.hot, mine.h.get("x-indexed-block")]).toEqual([false, "11"]);
  });

  it("one per-key limit for both paths: over it the app answers 429", async () => {
    const path = `/v1/markets/${MARKET}/orderbook?depth=5`;
    await get(path);
    await get(path);
    const hot = await get(path);
    expect(hot.hot).toBe(true);
    let left = Number(hot.h.get("ratelimit-remaining"));
    const slow = await get(path, { "X-API-Key": key, "Cache-Control": "no-cache" });
    expect(Number(slow.h.get("ratelimit-remaining"))).toBe(--left); // the app counts after the hot path
    while (left-- > 0) expect((await get(path)).status).toBe(200);
    const over = await get(path);
    expect(over.status).toBe(429);
    expect(JSON.parse(over.text)).toMatchObject({ success: false, error: { code: "RATE_LIMITED" } });
  });
});
