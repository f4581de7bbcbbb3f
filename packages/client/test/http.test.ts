import { describe, expect, it } from "vitest";
import { VenueClient, GatewayClient } from "../src/client.js";
import { RateLimitedError, UnauthenticatedError, VenueApiError, VenueNetworkError } from "../src/errors.js";
import { meta } from "../src/http.js";
import { fail, fakeFetch, ok, on } from "./fakes.js";

const base = "http://venue.test";
const EUR = `0x${"a9".repeat(32)}` as const;
const RL = { "RateLimit-Limit": "600", "RateLimit-Remaining": "598", "RateLimit-Reset": "42", "RateLimit-Policy": "600;w=60", "X-Indexed-Block": "120", "X-Request-Id": "req-1" };

describe("HTTP transport", () => {
  it("unwraps the envelope and surfaces the rate-limit headers on every answer", async () => {
    const f = fakeFetch([{ match: on("GET", `/markets/${EUR}/orderbook`), reply: ok({ marketId: EUR, bids: [], asks: [], blockNumber: 120 }, 200, RL) }]);
    const seen: unknown[] = [];
    const c = new VenueClient({ baseUrl: base + "/", fetch: f.fetch });
    c.on("response", (m) => seen.push(m));
    const book = await c.orderBook(EUR, { depth: 5 });
    expect(book.blockNumber).toBe(120);
    expect(f.calls[0]!.path).toBe(`/markets/${EUR}/orderbook?depth=5`);
    expect(meta(book)).toMatchObject({ status: 200, indexedBlock: 120, requestId: "req-1", rateLimit: { limit: 600, remaining: 598, reset: 42, policy: "600;w=60" } });
    expect(c.rateLimit?.remaining).toBe(598);
    expect(seen).toHaveLength(1);
  });

  it("turns error envelopes into typed errors with the code", async () => {
    const f = fakeFetch([
      { match: on("GET", "/accounts/9"), reply: fail(404, "ACCOUNT_NOT_FOUND", "account does not exist", RL) },
      { match: on("GET", "/auth/session"), reply: fail(401, "UNAUTHENTICATED") },
    ]);
    const c = new VenueClient({ baseUrl: base, fetch: f.fetch });
    const e = await c.account(9).catch((x) => x);
    expect(e).toBeInstanceOf(VenueApiError);
    expect(e).toMatchObject({ code: "ACCOUNT_NOT_FOUND", status: 404, message: "account does not exist", requestId: "req-1", path: "/accounts/9" });
    expect(e.rateLimit.remaining).toBe(598);
    expect(e.is("ACCOUNT_NOT_FOUND")).toBe(true);
    const g = new GatewayClient({ baseUrl: base, fetch: f.fetch, apiKey: "k" });
    await expect((g as unknown as { call: (m: string, p: string) => Promise<unknown> }).call("GET", "/../auth/session")).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it("retries a 429 after Retry-After when allowed, and only then", async () => {
    const waits: number[] = [];
    const routes = () => [
      { match: on("GET", "/markets"), reply: fail(429, "RATE_LIMITED", "slow down", { "Retry-After": "2", "RateLimit-Remaining": "0" }) },
      { match: on("GET", "/markets"), reply: ok({ markets: [] }) },
    ];
    const f = fakeFetch(routes());
    const c = new VenueClient({ baseUrl: base, fetch: f.fetch, retry: { retries: 2 }, sleep: async (ms) => void waits.push(ms) });
    await expect(c.markets()).resolves.toEqual({ markets: [] });
    expect(waits).toEqual([2000]);
    expect(f.calls).toHaveLength(2);

    const f2 = fakeFetch(routes());
    const strict = new VenueClient({ baseUrl: base, fetch: f2.fetch });
    const e = await strict.markets().catch((x) => x);
    expect(e).toBeInstanceOf(RateLimitedError);
    expect(e.retryAfterSeconds).toBe(2);
    expect(e.rateLimit.remaining).toBe(0);

    const f3 = fakeFetch(routes());
    const impatient = new VenueClient({ baseUrl: base, fetch: f3.fetch, retry: { retries: 3, maxWaitMs: 1000 }, sleep: async () => undefined });
    await expect(impatient.markets()).rejects.toBeInstanceOf(RateLimitedError);
  });

  it("a read's 503 with Retry-After is sent again when allowed; a write's never", async () => {
    const waits: number[] = [];
    const f = fakeFetch([
      { match: on("GET", "/markets"), reply: fail(503, "SERVICE_UNAVAILABLE", "not yet", { "Retry-After": "1" }) },
      { match: on("GET", "/markets"), reply: ok({ markets: [] }) },
      { match: on("POST", "/v1/accounts/1/deposit"), reply: fail(503, "SERVICE_UNAVAILABLE", "down", { "Retry-After": "1" }) },
    ]);
    const c = new VenueClient({ baseUrl: base, fetch: f.fetch, retry: { retries: 1 }, sleep: async (ms) => void waits.push(ms) });
    await expect(c.markets()).resolves.toEqual({ markets: [] });
    expect(waits).toEqual([1000]);
    const g = new GatewayClient({ baseUrl: base, fetch: f.fetch, apiKey: "k", retry: { retries: 1 }, sleep: async (ms) => void waits.push(ms) });
    await expect(g.deposit(1, 1n)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503 });
    expect(waits).toEqual([1000]);
  });

  it("a network failure is a VenueNetworkError", async () => {
    const f = fakeFetch([{ match: () => true, reply: new TypeError("fetch failed") }]);
    await expect(new VenueClient({ baseUrl: base, fetch: f.fetch }).markets()).rejects.toBeInstanceOf(VenueNetworkError);
  });

  it("the gateway: /v1 paths, snake_case on the wire, camelCase answers, X-API-Key", async () => {
    const f = fakeFetch([
      { match: on("GET", `/v1/accounts/1/fills`), reply: ok({ fills: [{ order_id: "7", timestamp_iso: "x", unrealized_pnl: "1" }], has_more: false, next_cursor: null }) },
    ]);
    const g = new GatewayClient({ baseUrl: base, fetch: f.fetch, apiKey: "vgw_k" });
    const page = await g.historyPage("fills", 1, { marketId: EUR, limit: 5, from: new Date("2026-11-01T00:00:00Z") });
    expect(f.calls[0]!.path).toBe(`/v1/accounts/1/fills?market_id=${EUR}&limit=5&from=1793491200`);
    expect(f.calls[0]!.headers["x-api-key"]).toBe("vgw_k");
    expect(page).toMatchObject({ items: [{ orderId: "7", timestampISO: "x", unrealizedPnL: "1" }], hasMore: false, nextCursor: null });
  });
});

describe("history iterators", () => {
  it("walk every page by its cursor", async () => {
    const f = fakeFetch([
      { match: (c) => c.path === "/accounts/3/fills?limit=2", reply: ok({ fills: [{ id: "a" }, { id: "b" }], hasMore: true, nextCursor: "c1" }) },
      { match: (c) => c.path === "/accounts/3/fills?limit=2&cursor=c1", reply: ok({ fills: [{ id: "c" }, { id: "d" }], hasMore: true, nextCursor: "c2" }) },
      { match: (c) => c.path === "/accounts/3/fills?limit=2&cursor=c2", reply: ok({ fills: [{ id: "e" }], hasMore: false, nextCursor: null }) },
      { match: (c) => c.path.startsWith("/accounts/3/orders?"), reply: ok({ orders: [{ orderId: "1" }], totalCount: 1, hasMore: false, nextCursor: null }) },
    ]);
    const c = new VenueClient({ baseUrl: base, fetch: f.fetch });
    const ids: string[] = [];
    for await (const fill of c.fills(3, { limit: 2 })) ids.push(fill.id);
    expect(ids).toEqual(["a", "b", "c", "d", "e"]);
    const orders = [];
    for await (const o of c.orders(3, { status: "active" })) orders.push(o.orderId);
    expect(orders).toEqual(["1"]);
  });

  it("exports stream the body; NDJSON items one by one", async () => {
    const lines = [{ id: "x", order_id: "1" }, { id: "y", order_id: "2" }].map((o) => JSON.stringify(o)).join("\n") + "\n";
    const f = fakeFetch([
      { match: (c) => c.path.startsWith("/v1/accounts/1/fills") && c.headers.accept === "application/x-ndjson", reply: { text: lines } },
      { match: (c) => c.path.startsWith("/accounts/1/fills") && c.headers.accept === "text/csv", reply: { text: "id,price\na,1\n" } },
    ]);
    const g = new GatewayClient({ baseUrl: base, fetch: f.fetch, apiKey: "k" });
    const items = [];
    for await (const i of g.exportItems("fills", 1, { from: 1 })) items.push(i);
    expect(items).toEqual([{ id: "x", orderId: "1" }, { id: "y", orderId: "2" }]);
    const v = new VenueClient({ baseUrl: base, fetch: f.fetch });
    const csv = await new Response(await v.export("fills", 1, "csv", { from: "2026-11-01T00:00:00Z" })).text();
    expect(csv).toBe("id,price\na,1\n");
    expect(f.calls[1]!.path).toBe("/accounts/1/fills?from=2026-11-01T00%3A00%3A00Z");
  });
});
