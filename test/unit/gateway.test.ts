import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gatewayOverStandIns, WALLET_A, WALLET_B } from "./gateway-standins.js";

const MARKET = "0x" + "11".repeat(32);
const CLIENT_KEY = "0x" + "22".repeat(32);

/** The endpoint table of spec/gateway-v1.md, in OpenAPI path form. */
export const SPEC_ROUTES: [string, string][] = [
  ["get", "/health"],
  ["get", "/health/{service}"],
  ["post", "/v1/accounts/create"],
  ["get", "/v1/accounts/{id}"],
  ["post", "/v1/accounts/{id}/deposit"],
  ["post", "/v1/accounts/{id}/withdraw"],
  ["post", "/v1/accounts/{account_id}/trade"],
  ["get", "/v1/accounts/{account_id}/orders"],
  ["post", "/v1/accounts/{account_id}/orders/cancel"],
  ["get", "/v1/markets"],
  ["get", "/v1/markets/{market_id}/orderbook"],
  ["get", "/v1/markets/{market_id}/funding"],
  ["get", "/v1/liquidation/accounts/{id}/health"],
  ["get", "/v1/liquidation/market/{market_id}"],
  ["get", "/v1/liquidation/account/{account_id}"],
  ["get", "/v1/liquidation/position/{position_id}"],
  ["post", "/v1/liquidation/account/{account_id}/liquidate"],
  ["post", "/v1/liquidation/position/{position_id}/liquidate"],
];

let gw: Awaited<ReturnType<typeof gatewayOverStandIns>>;
const json = (body: unknown, key?: string, extra: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...(key ? { "X-API-Key": key } : {}), ...extra },
  body: JSON.stringify(body),
});

beforeAll(async () => {
  gw = await gatewayOverStandIns({ RATE_LIMIT_PER_MINUTE: "1000", INTEGRATION_TIMEOUT_MS: "300", HEALTH_CACHE_MS: "0" });
}, 120_000);
afterAll(() => gw?.close());
beforeEach(() => {
  for (const s of [gw.integration, gw.relayer, gw.keeper]) {
    s.requests.length = 0;
    s.handle((_r, c) => c.json({ success: true, data: {} }));
  }
});

describe("authentication", () => {
  it("401 with WWW-Authenticate without a key, and never reaches the upstream", async () => {
    const res = await gw.app.request("/v1/accounts/1");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/X-API-Key/);
    expect(await res.json()).toMatchObject({ success: false, error: { code: "UNAUTHENTICATED" } });
    expect(gw.integration.requests).toHaveLength(0);
  });

  it("401 for a malformed or unknown key", async () => {
    for (const key of ["nope", "vgw_" + "A".repeat(43)]) {
      const res = await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": key } });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBeTruthy();
    }
  });

  it("401 once a key is revoked (immediately, despite the cache)", async () => {
    const { key, record } = await gw.keys.create(WALLET_A, "to revoke");
    expect((await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": key } })).status).toBe(200);
    await gw.keys.revoke(record.keyId);
    const res = await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": key } });
    expect(res.status).toBe(401);
  });

  it("GET /v1/markets needs no key, but a bad key is still refused", async () => {
    gw.integration.handle((_r, c) => c.json({ success: true, data: { markets: [{ marketId: MARKET, maxLeverage: 50 }] } }));
    const res = await gw.app.request("/v1/markets");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, data: { markets: [{ market_id: MARKET, max_leverage: 50 }] } });
    expect((await gw.app.request("/v1/markets", { headers: { "X-API-Key": "bad" } })).status).toBe(401);
  });

  it("stores keys only as hashes and lists them without the secret", async () => {
    const list = await gw.keys.list(WALLET_A);
    expect(list.length).toBeGreaterThan(0);
    for (const r of list) expect(JSON.stringify(r)).not.toContain(gw.keyA.key);
  });
});

describe("reads", () => {
  it("forwards to the integration API and snake_cases the answer", async () => {
    gw.integration.handle((_r, c) => {
      c.header("X-Indexed-Block", "42");
      return c.json({
        success: true,
        data: {
          accountId: 1,
          margin: { availableFormatted: "1.0" },
          health: { unrealizedPnL: "-5", marginRatioBps: 1200, lastUpdateISO: "2026-01-01T00:00:00.000Z" },
        },
      });
    });
    const res = await gw.app.request("/v1/accounts/1?min_block=40", { headers: { "X-API-Key": gw.keyA.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-indexed-block")).toBe("42");
    expect(await res.json()).toEqual({
      success: true,
      data: {
        account_id: 1,
        margin: { available_formatted: "1.0" },
        health: { unrealized_pnl: "-5", margin_ratio_bps: 1200, last_update_iso: "2026-01-01T00:00:00.000Z" },
      },
    });
    const [req] = gw.integration.requests;
    expect(req).toMatchObject({ method: "GET", path: "/accounts/1", query: { minBlock: "40" } });
    expect(req!.headers["x-caller-address"]).toBe(WALLET_A.toLowerCase());
  });

  it("passes the orders filters as market_id → marketId, status", async () => {
    await gw.app.request(`/v1/accounts/3/orders?market_id=${MARKET}&status=active`, { headers: { "X-API-Key": gw.keyA.key } });
    expect(gw.integration.requests[0]).toMatchObject({ path: "/accounts/3/orders", query: { marketId: MARKET, status: "active" } });
  });

  it("forwards the order book depth and the funding route", async () => {
    await gw.app.request(`/v1/markets/${MARKET}/orderbook?depth=5`, { headers: { "X-API-Key": gw.keyA.key } });
    await gw.app.request(`/v1/markets/${MARKET}/funding`, { headers: { "X-API-Key": gw.keyA.key } });
    expect(gw.integration.requests.map((r) => [r.path, r.query])).toEqual([
      [`/markets/${MARKET}/orderbook`, { depth: "5" }],
      [`/markets/${MARKET}/funding`, {}],
    ]);
  });

  it("passes upstream errors through with the code's status", async () => {
    gw.integration.handle((_r, c) => c.json({ success: false, error: { code: "ACCOUNT_NOT_FOUND", message: "account does not exist" } }, 404));
    const res = await gw.app.request("/v1/accounts/999", { headers: { "X-API-Key": gw.keyA.key } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, error: { code: "ACCOUNT_NOT_FOUND", message: "account does not exist" } });
  });

  it.each([
    ["/v1/accounts/abc", "id"],
    ["/v1/accounts/-1", "id"],
    ["/v1/markets/0x1234/orderbook", "market_id"],
    [`/v1/markets/${MARKET}/orderbook?depth=ten`, "depth"],
    [`/v1/accounts/1/orders?status=open`, "status"],
    [`/v1/accounts/1/orders?market_id=xyz`, "market_id"],
    ["/v1/liquidation/position/0x12/liquidate", "position_id"],
  ])("GET %s is a 400 naming %s", async (path, field) => {
    const method = path.endsWith("/liquidate") ? "POST" : "GET";
    const res = await gw.app.request(path, { method, headers: { "X-API-Key": gw.keyA.key } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.message).toContain(field);
  });
});

describe("writes", () => {
  it("translates the trade body (integers → enums, snake → camel) and forwards caller, idempotency key, request id", async () => {
    gw.relayer.handle((_r, c) =>
      c.json({ success: true, data: { clientKey: CLIENT_KEY, orderId: "1", orderType: "LIMIT", transactionHash: "0xab" } }, 201),
    );
    const res = await gw.app.request(
      "/v1/accounts/7/trade",
      json(
        { market_id: MARKET, collateral: "100000000", side: 1, leverage: 5, order_type: 1, limit_price: "1085000000000000000" },
        gw.keyA.key,
        { "Idempotency-Key": "idem-1", "X-Request-Id": "req-abc" },
      ),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("x-request-id")).toBe("req-abc");
    expect(await res.json()).toEqual({
      success: true,
      data: { client_key: CLIENT_KEY, order_id: "1", order_type: "LIMIT", transaction_hash: "0xab" },
    });
    const [req] = gw.relayer.requests;
    expect(req).toMatchObject({
      method: "POST",
      path: "/internal/accounts/7/orders",
      body: { marketId: MARKET, collateralAmount: "100000000", side: "SHORT", leverage: 5, orderType: "LIMIT", limitPrice: "1085000000000000000" },
    });
    expect(req!.headers["x-internal-token"]).toBe(gw.config.gatewayToken);
    expect(req!.headers["x-caller-address"]).toBe(WALLET_A.toLowerCase());
    expect(req!.headers["idempotency-key"]).toBe("idem-1");
    expect(req!.headers["x-request-id"]).toBe("req-abc");
  });

  it("integer-like fields accept 0 and \"0\" alike (side, order_type, leverage) and forward the same body", async () => {
    const base = { market_id: MARKET, collateral: "1000", limit_price: "1085000000000000000" };
    for (const body of [{ ...base, side: 1, leverage: 5, order_type: 1 }, { ...base, side: "1", leverage: "5", order_type: "1" }]) {
      const res = await gw.app.request("/v1/accounts/7/trade", json(body, gw.keyA.key));
      expect(res.status).toBe(200);
    }
    const [asNumbers, asStrings] = gw.relayer.requests;
    expect(asStrings!.body).toEqual(asNumbers!.body);
    expect(asStrings!.body).toMatchObject({ side: "SHORT", leverage: 5, orderType: "LIMIT" });
    const close = await gw.app.request(`/v1/accounts/7/positions/${MARKET}/close`, json({ order_type: "0" }, gw.keyA.key));
    expect(close.status).toBe(200);
    expect(gw.relayer.requests[2]!.body).toMatchObject({ orderType: "MARKET" });
  });

  it("a batch's PLACE item forwards what the trade route forwards, every order option included", async () => {
    const order = {
      market_id: MARKET, collateral: "100000000", side: 1, leverage: 5, order_type: 1, limit_price: "1085000000000000000",
      client_key: CLIENT_KEY, time_in_force: "POST_ONLY", reduce_only: true, expires_at: 1893456000,
    };
    expect((await gw.app.request("/v1/accounts/7/trade", json(order, gw.keyA.key))).status).toBe(200);
    expect((await gw.app.request("/v1/accounts/7/orders/batch", json({ items: [{ action: "PLACE", ...order }] }, gw.keyA.key))).status).toBe(200);
    const [single, batch] = gw.relayer.requests;
    expect(single!.body).toMatchObject({ timeInForce: "POST_ONLY", reduceOnly: true, expiresAt: "1893456000", clientKey: CLIENT_KEY });
    expect((batch!.body as { items: unknown[] }).items).toEqual([{ action: "PLACE", ...(single!.body as object) }]);
  });

  it.each([
    [{ side: "2" }, "side"],
    [{ side: 2 }, "side"],
    [{ side: "LONG" }, "side"],
    [{ side: "-1" }, "side"],
    [{ leverage: "2.5" }, "leverage"],
    [{ leverage: 2.5 }, "leverage"],
    [{ order_type: "MARKET" }, "order_type"],
    [{ order_type: " 0" }, "order_type"],
    [{ collateral: 100 }, "collateral"],
    [{ collateral: "1.5" }, "collateral"],
    [{ collateral: "1" + "0".repeat(78) }, "collateral"],
    [{ market_id: "EUR/USD" }, "market_id"],
    [{ order_type: 1 }, "limit_price"],
  ])("trade with %j is a 400 naming %s, not forwarded", async (patch, field) => {
    const body = { market_id: MARKET, collateral: "1000", side: 0, leverage: 2, order_type: 0, ...patch };
    const res = await gw.app.request("/v1/accounts/7/trade", json(body, gw.keyA.key));
    expect(res.status).toBe(400);
    const b = (await res.json()) as { success: boolean; error: { code: string; message: string } };
    expect(b.success).toBe(false);
    expect(b.error.code).toBe("VALIDATION_ERROR");
    expect(b.error.message).toContain(field);
    expect(gw.relayer.requests).toHaveLength(0);
  });

  it("malformed JSON and a missing body are 400 VALIDATION_ERROR, never 500", async () => {
    const bad = await gw.app.request("/v1/accounts/1/deposit", {
      method: "POST",
      headers: { "content-type": "application/json", "X-API-Key": gw.keyA.key },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_ERROR");
    const none = await gw.app.request("/v1/accounts/1/deposit", { method: "POST", headers: { "X-API-Key": gw.keyA.key } });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_ERROR");
  });

  it("deposit and withdraw forward { amount }", async () => {
    await gw.app.request("/v1/accounts/4/deposit", json({ amount: "5000000" }, gw.keyA.key));
    await gw.app.request("/v1/accounts/4/withdraw", json({ amount: "1000000" }, gw.keyA.key));
    expect(gw.relayer.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ["POST", "/internal/accounts/4/deposit", { amount: "5000000" }],
      ["POST", "/internal/accounts/4/withdraw", { amount: "1000000" }],
    ]);
    const res = await gw.app.request("/v1/accounts/4/deposit", json({ amount: 5 }, gw.keyA.key));
    expect(res.status).toBe(400);
  });

  it("cancel becomes DELETE /internal/accounts/:id/orders/:clientKey?marketId=", async () => {
    await gw.app.request("/v1/accounts/4/orders/cancel", json({ market_id: MARKET, client_key: CLIENT_KEY }, gw.keyA.key));
    expect(gw.relayer.requests[0]).toMatchObject({
      method: "DELETE",
      path: `/internal/accounts/4/orders/${CLIENT_KEY}`,
      query: { marketId: MARKET },
    });
  });

  it("create: owner must be the key's wallet (403), else forwarded as userAddress", async () => {
    const other = await gw.app.request("/v1/accounts/create", json({ owner: WALLET_B }, gw.keyA.key));
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    gw.relayer.handle((_r, c) => c.json({ success: true, data: { accountId: 3, owner: WALLET_A } }, 201));
    const mine = await gw.app.request("/v1/accounts/create", json({ owner: WALLET_A.toLowerCase() }, gw.keyA.key));
    expect(mine.status).toBe(201);
    expect(await mine.json()).toEqual({ success: true, data: { account_id: 3, owner: WALLET_A } });
    expect(gw.relayer.requests).toHaveLength(1);
    expect(gw.relayer.requests[0]!.body).toEqual({ userAddress: WALLET_A.toLowerCase() });
  });

  it("another wallet's account: the relayer's UNAUTHORIZED is 403 whatever status it used", async () => {
    gw.relayer.handle((_r, c) => c.json({ success: false, error: { code: "UNAUTHORIZED", message: "caller is not the account owner" } }, 401));
    const res = await gw.app.request("/v1/accounts/1/withdraw", json({ amount: "1" }, gw.keyB.key));
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toBeNull();
    expect(gw.relayer.requests[0]!.headers["x-caller-address"]).toBe(WALLET_B.toLowerCase());
  });

  it("a 202 answer is passed on and GET /v1/transactions/{id} follows it", async () => {
    gw.relayer.handle((_r, c) => c.json({ success: true, data: { requestId: "r-1", transactionHash: "0x01", transactionStatus: "PENDING" } }, 202));
    const res = await gw.app.request("/v1/accounts/1/deposit", json({ amount: "1" }, gw.keyA.key));
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ success: true, data: { request_id: "r-1", transaction_hash: "0x01", transaction_status: "PENDING" } });
    const tx = await gw.app.request("/v1/transactions/r-1", { headers: { "X-API-Key": gw.keyA.key } });
    expect(tx.status).toBe(202);
    expect(gw.relayer.requests[1]).toMatchObject({ method: "GET", path: "/internal/transactions/r-1" });
  });

  it("close: order_type integer → MARKET/LIMIT", async () => {
    await gw.app.request(`/v1/accounts/2/positions/${MARKET}/close`, json({}, gw.keyA.key));
    expect(gw.relayer.requests[0]).toMatchObject({ path: `/internal/accounts/2/positions/${MARKET}/close`, body: { orderType: "MARKET" } });
  });

  it("position margin: action and amount go to the relayer as they came; a bad action is a 400 that sends nothing", async () => {
    await gw.app.request(`/v1/accounts/2/positions/${MARKET}/margin`, json({ action: "REMOVE", amount: "2500000" }, gw.keyA.key));
    expect(gw.relayer.requests[0]).toMatchObject({ path: `/internal/accounts/2/positions/${MARKET}/margin`, body: { action: "REMOVE", amount: "2500000" } });
    const bad = await gw.app.request(`/v1/accounts/2/positions/${MARKET}/margin`, json({ action: "take", amount: "1" }, gw.keyA.key));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_ERROR");
    expect(gw.relayer.requests).toHaveLength(1);
  });

  it("operator routes: typed data for the key's wallet; approve only for it", async () => {
    const typedData = { domain: { chainId: 31337, verifyingContract: "0x01" }, types: { OperatorApproval: [] }, primaryType: "OperatorApproval", message: {} };
    gw.relayer.handle((_r, c) => c.json({ success: true, data: typedData }));
    const td = await gw.app.request("/v1/operators/typed-data?expiry=100", { headers: { "X-API-Key": gw.keyA.key } });
    expect(await td.json()).toEqual({ success: true, data: typedData }); // EIP-712 keys kept verbatim
    gw.relayer.handle((_r, c) => c.json({ success: true, data: {} }));
    expect(gw.relayer.requests[0]).toMatchObject({ path: "/internal/operators/typed-data", query: { owner: WALLET_A.toLowerCase(), expiry: "100" } });
    const body = { owner: WALLET_B, expiry: "1", deadline: "2", signature: "0xabcd" };
    expect((await gw.app.request("/v1/operators/approve", json(body, gw.keyA.key))).status).toBe(403);
    expect((await gw.app.request("/v1/operators/approve", json(body, gw.keyB.key))).status).toBe(200);
    expect(gw.relayer.requests[1]).toMatchObject({ method: "POST", path: "/internal/operators/approve", body });
  });
});

describe("liquidation routes go to the keeper", () => {
  const pos = "0x" + "33".repeat(32);
  it.each([
    ["GET", "/v1/liquidation/accounts/5/health", "/liquidation/accounts/5/health"],
    ["GET", `/v1/liquidation/market/${MARKET}`, `/liquidation/market/${MARKET}`],
    ["GET", "/v1/liquidation/account/5", "/liquidation/account/5"],
    ["GET", `/v1/liquidation/position/${pos}`, `/liquidation/position/${pos}`],
    ["POST", "/v1/liquidation/account/5/liquidate", "/liquidation/account/5/liquidate"],
    ["POST", `/v1/liquidation/position/${pos}/liquidate`, `/liquidation/position/${pos}/liquidate`],
  ])("%s %s", async (method, path, upstreamPath) => {
    gw.keeper.handle((_r, c) => c.json({ success: true, data: { isLiquidatable: false } }));
    const res = await gw.app.request(path, { method, headers: { "X-API-Key": gw.keyB.key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, data: { is_liquidatable: false } });
    expect(gw.keeper.requests[0]).toMatchObject({ method, path: upstreamPath });
    expect(gw.keeper.requests[0]!.headers["x-caller-address"]).toBe(WALLET_B.toLowerCase());
  });
});

describe("upstream failures", () => {
  it("a slow upstream is 504 UPSTREAM_TIMEOUT", async () => {
    gw.integration.handle(async (_r, c) => {
      await new Promise((r) => setTimeout(r, 800));
      return c.json({ success: true, data: {} });
    });
    const res = await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": gw.keyA.key } });
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UPSTREAM_TIMEOUT");
  });

  it("a non-envelope answer is 502 UPSTREAM_ERROR; an upstream INTERNAL_ERROR is 502", async () => {
    gw.integration.handle((_r, c) => c.text("oops", 500));
    expect((await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": gw.keyA.key } })).status).toBe(502);
    gw.integration.handle((_r, c) => c.json({ success: false, error: { code: "INTERNAL_ERROR", message: "x" } }, 500));
    const res = await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": gw.keyA.key } });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UPSTREAM_ERROR");
  });

  it("an upstream that is down is 503 SERVICE_UNAVAILABLE", async () => {
    const down = await gatewayOverStandIns({});
    await down.integration.close();
    const res = await down.app.request("/v1/accounts/1", { headers: { "X-API-Key": down.keyA.key } });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SERVICE_UNAVAILABLE");
    await Promise.all([down.relayer.close(), down.keeper.close()]);
  });
});

describe("request id", () => {
  it("every answer carries X-Request-Id, also errors, and it reaches the upstream", async () => {
    const res = await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": gw.keyA.key } });
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(gw.integration.requests[0]!.headers["x-request-id"]).toBe(id);
    expect((await gw.app.request("/v1/accounts/1")).headers.get("x-request-id")).toBeTruthy();
    expect((await gw.app.request("/nope")).headers.get("x-request-id")).toBeTruthy();
  });

  it("a read's Cache-Control reaches the integration API (the read service revalidates a no-cache read)", async () => {
    await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": gw.keyA.key, "Cache-Control": "no-cache" } });
    expect(gw.integration.requests.at(-1)!.headers["cache-control"]).toBe("no-cache");
  });
});

describe("server timing", () => {
  it("says how long the upstream took and how long the gateway itself", async () => {
    const res = await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": gw.keyA.key } });
    expect(res.headers.get("server-timing")).toMatch(/^upstream;dur=\d+\.\d\d, gateway;dur=-?\d+\.\d\d$/);
    const err = await gw.app.request("/v1/accounts/1");
    expect(err.headers.get("server-timing")).toMatch(/^gateway;dur=/);
  });
});

describe("rate limit", () => {
  it("429 RATE_LIMITED with Retry-After and RateLimit-* once a key is over its limit", async () => {
    const small = await gatewayOverStandIns({ RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const h = { headers: { "X-API-Key": small.keyA.key } };
      for (let i = 0; i < 3; i++) {
        const ok = await small.app.request("/v1/accounts/1", h);
        expect(ok.status).toBe(200);
        expect(ok.headers.get("ratelimit-remaining")).toBe(String(2 - i));
      }
      const over = await small.app.request("/v1/accounts/1", h);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(over.headers.get("ratelimit-limit")).toBe("3");
      expect(((await over.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
      // another key has its own budget
      expect((await small.app.request("/v1/accounts/1", { headers: { "X-API-Key": small.keyB.key } })).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe("failed authentications", () => {
  it("an address with too many 401s gets 429 for the window", async () => {
    const g = await gatewayOverStandIns({ AUTH_FAILURES_PER_MINUTE: "3" }, () => "10.1.2.3");
    try {
      const ok = { headers: { "X-API-Key": g.keyA.key } };
      expect((await g.app.request("/v1/accounts/1", ok)).status).toBe(200); // successes do not count
      for (let i = 0; i < 3; i++) expect((await g.app.request("/v1/accounts/1", { headers: { "X-API-Key": "guess" + i } })).status).toBe(401);
      const blocked = await g.app.request("/v1/accounts/1", { headers: { "X-API-Key": "guess" } });
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get("retry-after")).toBeTruthy();
      // a valid key from the same address (a load balancer, a NAT) is never locked out
      for (let i = 0; i < 3; i++) expect((await g.app.request("/v1/accounts/1", ok)).status).toBe(200);
    } finally {
      await g.close();
    }
  });

  it("behind a trusted proxy each client is counted on its own X-Forwarded-For address; from anyone else the header is ignored", async () => {
    let peer = "10.0.0.5"; // the load balancer
    const g = await gatewayOverStandIns({ AUTH_FAILURES_PER_MINUTE: "2", TRUSTED_PROXIES: "10.0.0.0/8" }, () => peer);
    try {
      const from = (client: string, key = "guess") => g.app.request("/v1/accounts/1", { headers: { "X-API-Key": key, "X-Forwarded-For": client } });
      for (let i = 0; i < 2; i++) expect((await from("198.51.100.1")).status).toBe(401);
      expect((await from("198.51.100.1")).status).toBe(429);
      expect((await from("198.51.100.2")).status).toBe(401); // another client behind the same LB
      // a client that is not a proxy cannot pick a fresh address per request
      peer = "203.0.113.9";
      for (let i = 0; i < 2; i++) expect((await from(`192.0.2.${i}`)).status).toBe(401);
      expect((await from("192.0.2.99")).status).toBe(429);
    } finally {
      await g.close();
    }
  });
});

describe("method and size", () => {
  it("a wrong method is 405 METHOD_NOT_ALLOWED with Allow, in the envelope", async () => {
    const res = await gw.app.request("/v1/accounts/1/trade", { method: "GET", headers: { "X-API-Key": gw.keyA.key } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await res.json()).toMatchObject({ success: false, error: { code: "METHOD_NOT_ALLOWED" } });
    const noKey = await gw.app.request("/v1/markets", { method: "DELETE" });
    expect(noKey.status).toBe(405);
    expect(noKey.headers.get("allow")).toBe("GET, HEAD");
    expect((await gw.app.request("/v1/nope", { headers: { "X-API-Key": gw.keyA.key } })).status).toBe(404);
  });

  it("a body over BODY_LIMIT_BYTES is 413 PAYLOAD_TOO_LARGE, in the envelope, and never reaches the upstream", async () => {
    const big = { amount: "1", pad: "x".repeat(gw.config.bodyLimitBytes) };
    const res = await gw.app.request("/v1/accounts/1/deposit", json(big, gw.keyA.key));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ success: false, error: { code: "PAYLOAD_TOO_LARGE" } });
    expect(gw.relayer.requests).toHaveLength(0);
  });
});

describe("metrics", () => {
  it("GET /metrics (local) has requests by route and status, latency and rate-limit rejections", async () => {
    await gw.app.request("/v1/accounts/1", { headers: { "X-API-Key": gw.keyA.key } });
    const res = await gw.app.request("/metrics");
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/venue_http_request_duration_seconds_count\{[^}]*route="\/v1\/accounts\/:id"[^}]*status="200"/);
    expect(text).toContain("venue_rate_limit_rejections_total");
    expect(text).toContain('service="gateway"');
  });

  it("outside local, /metrics needs the admin token", async () => {
    const secrets = { GATEWAY_TOKEN: "i".repeat(32), ADMIN_TOKEN: "a".repeat(32), JWT_SECRET: "j".repeat(32) };
    const prod = await gatewayOverStandIns({ PROFILE: "production", ...secrets });
    try {
      expect((await prod.app.request("/metrics")).status).toBe(404);
      expect((await prod.app.request("/metrics", { headers: { Authorization: "Bearer wrong" } })).status).toBe(404);
      const ok = await prod.app.request("/metrics", { headers: { Authorization: `Bearer ${secrets.ADMIN_TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain("venue_http_request_duration_seconds");
    } finally {
      await prod.close();
    }
  });
});

describe("OpenAPI and docs", () => {
  it("the document lists every route of the spec's table", async () => {
    const res = await gw.app.request("/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    for (const [method, path] of SPEC_ROUTES) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    for (const [method, path] of [["get", "/v1/transactions/{id}"], ["post", "/v1/transactions/{id}/cancel"], ["get", "/v1/operators/typed-data"], ["post", "/v1/operators/approve"],
      ["post", "/v1/accounts/{account_id}/deadman"], ["post", "/v1/accounts/{account_id}/orders/cancel-all"], ["post", "/v1/accounts/{account_id}/orders/batch"],
      ["get", "/v1/accounts/{account_id}/triggers"], ["post", "/v1/accounts/{account_id}/triggers"], ["post", "/v1/accounts/{account_id}/triggers/cancel"]]) {
      expect(doc.paths[path!]?.[method!], `${method} ${path}`).toBeDefined();
    }
    // a 202 carries the result's fields, those not known before mining null; writes take valid_until
    const schemas = (doc as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas;
    for (const f of ["client_key", "side", "market_id", "order_type", "order_id", "request_id", "valid_until"]) expect(schemas.OrderPending!.properties[f], f).toBeDefined();
    expect(JSON.stringify(schemas.OrderPending!.properties.order_id)).toContain("null");
    expect(JSON.stringify(doc.paths["/v1/accounts/{account_id}/trade"]!.post)).toContain("OrderPendingEnvelope");
    expect(schemas.TradeRequest!.properties.valid_until).toBeDefined();
    // the order options (Market v2), snake_case: request, answer, and the orders read
    for (const f of ["time_in_force", "reduce_only", "expires_at"]) {
      expect(schemas.TradeRequest!.properties[f], f).toBeDefined();
      expect(schemas.OrderResult!.properties[f], f).toBeDefined();
    }
    expect(JSON.stringify(schemas)).toContain("expires_at_iso");
  });

  it("serves the docs page and its assets locally", async () => {
    const page = await gw.app.request("/v1/docs");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("/v1/docs/assets/swagger-ui-bundle.js");
    expect(html).not.toMatch(/https?:\/\//);
    const js = await gw.app.request("/v1/docs/assets/swagger-ui-bundle.js");
    expect(js.status).toBe(200);
    expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    expect((await gw.app.request("/v1/docs/assets/package.json")).status).toBe(404);
  });
});

describe("health", () => {
  const admin = () => ({ headers: { "X-Admin-Token": gw.config.adminToken } });

  it("/health/{service}: unknown is 404; a dead dependency is 503; details (blocks behind) only with the admin token", async () => {
    expect((await gw.app.request("/health/nothing")).status).toBe(404);
    gw.relayer.handle((_r, c) => c.json({ success: true, data: { queue: 0 } }));
    const relayer = await gw.app.request("/health/relayer", admin());
    expect(relayer.status).toBe(200);
    expect(await relayer.json()).toMatchObject({ success: true, data: { service: "relayer", status: "ok", details: { queue: 0 } } });
    expect(await (await gw.app.request("/health/relayer")).json()).toEqual({ success: true, data: { service: "relayer", status: "ok" } });

    gw.integration.handle(async (r, c) => {
      if (r.path === "/rpc") {
        const b = r.body as { method: string; id: number };
        return c.json({ jsonrpc: "2.0", id: b.id, result: b.method === "eth_chainId" ? "0x7a69" : "0x64" });
      }
      if (r.path === "/status") return c.json({ anvil: { id: 31337, block: { number: 97, timestamp: 1 } } });
      return c.text("", 200);
    });
    const indexer = await gw.app.request("/health/indexer", admin());
    expect(await indexer.json()).toMatchObject({
      success: true,
      data: { service: "indexer", status: "ok", indexed_block: 97, head_block: 100, blocks_behind: 3 },
    });
    const chain = await gw.app.request("/health/chain", admin());
    expect(await chain.json()).toMatchObject({ data: { status: "ok", chain_id: 31337, head_block: 100 } });
    expect(await (await gw.app.request("/health/database", admin())).json()).toMatchObject({ data: { status: "ok", kind: "pglite" } });
    gw.keeper.handle((_r, c) => c.text("down", 500));
    const keeper = await gw.app.request("/health/keeper");
    expect(keeper.status).toBe(503);
    expect(await keeper.json()).toEqual({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: "keeper is down" } });
    const why = (await (await gw.app.request("/health/keeper", admin())).json()) as { error: { message: string } };
    expect(why.error.message).toContain("/health answered 500");
    const all = await gw.app.request("/health");
    expect(all.status).toBe(200);
    expect(await all.json()).toEqual({
      success: true,
      data: { service: "gateway", status: "degraded", services: { indexer: "ok", relayer: "ok", keeper: "down", database: "ok", chain: "ok" } },
    });
    expect(await (await gw.app.request("/health", admin())).json()).toMatchObject({ data: { profile: "local", details: { keeper: { status: "down" } } } });
    expect((await gw.app.request("/health", { headers: { "X-Admin-Token": "wrong" } })).status).toBe(401);
  });

  it("a relayer that says degraded (its nonce stuck) is degraded on /health/relayer and degrades /health", async () => {
    const g = await gatewayOverStandIns({ HEALTH_CACHE_MS: "0" });
    try {
      g.relayer.handle((_r, c) => c.json({ success: true, data: { status: "degraded", degradedReasons: ["nonce-stuck"] } }));
      const one = await g.app.request("/health/relayer");
      expect(one.status).toBe(200);
      expect(await one.json()).toEqual({ success: true, data: { service: "relayer", status: "degraded" } });
      expect(((await (await g.app.request("/health")).json()) as { data: { status: string; services: { relayer: string } } }).data).toMatchObject({ status: "degraded", services: { relayer: "degraded" } });
      g.relayer.handle((_r, c) => c.json({ success: true, data: { status: "ok" } }));
      expect(await (await g.app.request("/health/relayer")).json()).toEqual({ success: true, data: { service: "relayer", status: "ok" } });
    } finally {
      await g.close();
    }
  });

  it("never shows the RPC URL or an error text publicly, nor the URL to the admin", async () => {
    const rpc = "http://127.0.0.1:9/v2/secret-provider-key";
    const leaky = await gatewayOverStandIns({ RPC_URL: rpc, HEALTH_CACHE_MS: "0" });
    try {
      const pub = await (await leaky.app.request("/health/chain")).text();
      expect(pub).toBe(JSON.stringify({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: "chain is down" } }));
      const adm = await (await leaky.app.request("/health/chain", { headers: { "X-Admin-Token": leaky.config.adminToken } })).text();
      expect(adm).toContain("chain is down:");
      expect(adm).not.toContain("secret-provider-key");
      const all = await (await leaky.app.request("/health", { headers: { "X-Admin-Token": leaky.config.adminToken } })).text();
      expect(all).not.toContain("secret-provider-key");
    } finally {
      await leaky.close();
    }
  });

  it("checks each dependency at most once per HEALTH_CACHE_MS, however many requests", async () => {
    const cached = await gatewayOverStandIns({ HEALTH_CACHE_MS: "600000" });
    try {
      await Promise.all(Array.from({ length: 20 }, () => cached.app.request("/health")));
      await Promise.all(Array.from({ length: 20 }, () => cached.app.request("/health/relayer")));
      expect(cached.relayer.requests.filter((r) => r.path === "/health")).toHaveLength(1);
      expect(cached.keeper.requests.filter((r) => r.path === "/health")).toHaveLength(1);
      expect(cached.integration.requests.filter((r) => r.path === "/status")).toHaveLength(1);
    } finally {
      await cached.close();
    }
  });
});

describe("admin endpoint", () => {
  it("is loopback-only and needs the admin token", async () => {
    const remote = await gatewayOverStandIns({}, () => "10.0.0.7");
    try {
      const res = await remote.app.request("/admin/keys", { headers: { "X-Admin-Token": remote.config.adminToken } });
      expect(res.status).toBe(404);
    } finally {
      await remote.close();
    }
    const local = await gatewayOverStandIns({}, () => "127.0.0.1");
    try {
      expect((await local.app.request("/admin/keys")).status).toBe(401);
      expect((await local.app.request("/admin/keys", { headers: { "X-Admin-Token": "wrong" } })).status).toBe(401);
      const fwd = await local.app.request("/admin/keys", {
        headers: { "X-Admin-Token": local.config.adminToken, "X-Forwarded-For": "1.2.3.4" },
      });
      expect(fwd.status).toBe(404);
      const admin = { "X-Admin-Token": local.config.adminToken, "content-type": "application/json" };
      const created = await local.app.request("/admin/keys", { method: "POST", headers: admin, body: JSON.stringify({ wallet: WALLET_B, label: "x" }) });
      expect(created.status).toBe(201);
      const { data } = (await created.json()) as { data: { key: string; key_id: string; wallet: string } };
      expect(data.key).toMatch(/^vgw_/);
      expect(data.wallet).toBe(WALLET_B.toLowerCase());
      expect((await local.app.request("/v1/accounts/1", { headers: { "X-API-Key": data.key } })).status).toBe(200);
      const list = (await (await local.app.request(`/admin/keys?wallet=${WALLET_B}`, { headers: admin })).json()) as {
        data: { keys: { key_id: string }[] };
      };
      expect(list.data.keys.map((k) => k.key_id)).toContain(data.key_id);
      expect(JSON.stringify(list)).not.toContain(data.key);
      const revoked = await local.app.request(`/admin/keys/${data.key_id}`, { method: "DELETE", headers: admin });
      expect(revoked.status).toBe(200);
      expect((await local.app.request("/v1/accounts/1", { headers: { "X-API-Key": data.key } })).status).toBe(401);
      expect((await local.app.request("/admin/keys/key_0000000000000000", { method: "DELETE", headers: admin })).status).toBe(404);
      const bad = await local.app.request("/admin/keys", { method: "POST", headers: admin, body: JSON.stringify({ wallet: "nope" }) });
      expect(bad.status).toBe(400);
    } finally {
      await local.close();
    }
  });
});

describe("invite-only profiles", () => {
  it("a key is made only for a wallet in the relayer's registry", async () => {
    const secrets = { GATEWAY_TOKEN: "i".repeat(32), ADMIN_TOKEN: "a".repeat(32), JWT_SECRET: "j".repeat(32) };
    const dev = await gatewayOverStandIns({ PROFILE: "development", ...secrets }, () => "127.0.0.1");
    try {
      dev.relayer.handle((r, c) =>
        c.json({ success: true, data: { address: r.path.split("/").pop(), registered: r.path.toLowerCase().endsWith(WALLET_A.toLowerCase()) } }),
      );
      const admin = { "X-Admin-Token": secrets.ADMIN_TOKEN, "content-type": "application/json" };
      const ok = await dev.app.request("/admin/keys", { method: "POST", headers: admin, body: JSON.stringify({ wallet: WALLET_A }) });
      expect(ok.status).toBe(201);
      const no = await dev.app.request("/admin/keys", { method: "POST", headers: admin, body: JSON.stringify({ wallet: WALLET_B }) });
      expect(no.status).toBe(403);
      expect(((await no.json()) as { error: { code: string } }).error.code).toBe("NOT_REGISTERED");
      const asked = dev.relayer.requests.map((r) => r.path);
      expect(asked).toEqual([`/internal/registry/${WALLET_A}`, `/internal/registry/${WALLET_B}`]);
      expect(dev.relayer.requests[0]!.headers["x-admin-token"]).toBeUndefined(); // the gateway's own token reads the registry
      expect(dev.relayer.requests[0]!.headers["x-internal-token"]).toBe(secrets.GATEWAY_TOKEN);
    } finally {
      await dev.close();
    }
  });
});

describe("junk input never gives a 5xx", () => {
  const junk: unknown[] = [null, [], "x", 1, true, {}, { amount: null }, { amount: {} }, { amount: ["1"] }, { market_id: {}, client_key: [] },
    { owner: 1 }, { side: null, leverage: -1 }, { collateral: "-1" }, { collateral: "0x10" }, { collateral: " 1" }, { leverage: 1e308 },
    { order_type: 1.0000001 }, { limit_price: "" }, { __proto__: { amount: "1" } }, { amount: "1".repeat(200) }];
  const routes = [
    "/v1/accounts/create",
    "/v1/accounts/1/deposit",
    "/v1/accounts/1/withdraw",
    "/v1/accounts/1/trade",
    "/v1/accounts/1/orders/cancel",
    `/v1/accounts/1/positions/${MARKET}/close`,
    "/v1/operators/approve",
  ];
  it("every write route answers junk bodies with a 4xx envelope", async () => {
    for (const path of routes) {
      for (const body of junk) {
        const res = await gw.app.request(path, json(body, gw.keyA.key));
        const b = (await res.json()) as { success: boolean; error?: { code: string } };
        expect(res.status, `${path} ${JSON.stringify(body)}`).toBeLessThan(500);
        if (res.status >= 400) expect(b.success).toBe(false);
      }
    }
  });
});
