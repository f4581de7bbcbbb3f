import { describe, expect, it } from "vitest";
import pino from "pino";
import { ApiError } from "../../../core/errors.js";
import type { LiquidationService } from "../liquidation/service.js";
import { createKeeperApp } from "./app.js";

const TOKEN = "t0ken";
const POS = "0x" + "ab".repeat(32);
const calls: string[] = [];
// A stand-in service (unit test only): records calls, answers fixed data or a typed error.
const service = {
  position: async (id: string, minBlock?: bigint) => {
    calls.push(`position ${id} ${minBlock ?? "-"}`);
    if (id === POS) return { data: { positionId: id }, block: 42n };
    throw new ApiError("POSITION_NOT_FOUND", "no such position");
  },
  account: async () => ({ data: {}, block: 1n }),
  accountHealth: async () => {
    throw new Error("boom: should never leak");
  },
  market: async (_m: string, limit: number, only: boolean) => ({ data: { limit, only }, block: 1n }),
  liquidatePosition: async (_id: string, h: { callerAddress: string }) => ({ status: 200, body: { success: true, data: { caller: h.callerAddress } } }),
  liquidateAccount: async () => ({ status: 409, body: { success: false, error: { code: "NOT_LIQUIDATABLE", message: "healthy" } } }),
} as unknown as LiquidationService;

const app = createKeeperApp({ service, gatewayToken: TOKEN, log: pino({ level: "silent" }), status: () => ({ loops: {} }) });
const get = async (path: string, init?: RequestInit) => {
  const res = await app.request(path, init);
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
};

describe("keeper HTTP API", () => {
  it("answers a read with the envelope and X-Indexed-Block, passing minBlock", async () => {
    const r = await get(`/liquidation/position/${POS}?minBlock=40`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: { positionId: POS } });
    expect(r.headers.get("x-indexed-block")).toBe("42");
    expect(calls).toContain(`position ${POS} 40`);
  });

  it("rejects malformed ids and queries with VALIDATION_ERROR naming the field", async () => {
    const cases: [string, string][] = [
      ["/liquidation/position/0x12", "positionId"],
      ["/liquidation/position/" + "ab".repeat(33), "positionId"],
      ["/liquidation/account/abc", "accountId"],
      ["/liquidation/account/0", "accountId"],
      ["/liquidation/accounts/-5/health", "accountId"],
      [`/liquidation/account/${"9".repeat(79)}`, "accountId"],
      [`/liquidation/market/0x${"00".repeat(31)}`, "marketId"],
      [`/liquidation/market/0x${"00".repeat(32)}?limit=0`, "limit"],
      [`/liquidation/market/0x${"00".repeat(32)}?limit=abc`, "limit"],
      [`/liquidation/market/0x${"00".repeat(32)}?liquidatable=yes`, "liquidatable"],
      [`/liquidation/position/${POS}?minBlock=-1`, "minBlock"],
    ];
    for (const [path, field] of cases) {
      const r = await get(path);
      expect([r.status, r.body.success, r.body.error.code], path).toEqual([400, false, "VALIDATION_ERROR"]);
      expect(r.body.error.message.startsWith(field), path).toBe(true);
    }
  });

  it("maps typed errors to their status and hides unexpected ones (500 envelope, no stack)", async () => {
    const nf = await get(`/liquidation/position/0x${"cd".repeat(32)}`);
    expect([nf.status, nf.body.error.code]).toEqual([404, "POSITION_NOT_FOUND"]);
    const boom = await get("/liquidation/accounts/1/health");
    expect(boom.status).toBe(500);
    expect(boom.body).toEqual({ success: false, error: { code: "INTERNAL_ERROR", message: "internal error" } });
    const route = await get("/nope");
    expect([route.status, route.body.error.code]).toEqual([404, "NOT_FOUND"]);
  });

  it("passes the market query", async () => {
    const r = await get(`/liquidation/market/0x${"00".repeat(32)}?limit=5&liquidatable=true`);
    expect(r.body.data).toEqual({ limit: 5, only: true });
  });

  it("requires the internal token and a caller on the liquidate routes", async () => {
    const none = await get(`/liquidation/position/${POS}/liquidate`, { method: "POST" });
    expect([none.status, none.body.error.code]).toEqual([401, "UNAUTHENTICATED"]);
    const wrong = await get(`/liquidation/position/${POS}/liquidate`, { method: "POST", headers: { "x-internal-token": "nope!" } });
    expect(wrong.status).toBe(401);
    // the token is checked before the id is even parsed
    const badIdNoToken = await get(`/liquidation/position/0x12/liquidate`, { method: "POST" });
    expect(badIdNoToken.status).toBe(401);
    const noCaller = await get(`/liquidation/position/${POS}/liquidate`, { method: "POST", headers: { "x-internal-token": TOKEN } });
    expect([noCaller.status, noCaller.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    const caller = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
    const ok = await get(`/liquidation/position/${POS}/liquidate`, { method: "POST", headers: { "x-internal-token": TOKEN, "x-caller-address": caller } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.caller).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    const acct = await get(`/liquidation/account/3/liquidate`, { method: "POST", headers: { "x-internal-token": TOKEN, "x-caller-address": caller } });
    expect([acct.status, acct.body.error.code]).toEqual([409, "NOT_LIQUIDATABLE"]);
  });

  it("/health is degraded while a liquidation makes no progress (stalledLiquidations)", async () => {
    const stalled = [{ positionId: "0x01", calls: 5 }];
    const a = createKeeperApp({ service, gatewayToken: TOKEN, log: pino({ level: "silent" }), status: () => ({ loops: {}, stalledLiquidations: stalled }) });
    const h = (await (await a.request("/health")).json()) as { data: Record<string, unknown> };
    expect(h.data).toMatchObject({ status: "degraded", stalledLiquidations: stalled });
  });

  it("serves /health and its OpenAPI document with every route", async () => {
    const h = await get("/health");
    expect(h.body.data).toMatchObject({ service: "keeper", status: "ok" });
    const doc = await get("/openapi.json");
    expect(Object.keys(doc.body.paths).sort()).toEqual([
      "/liquidation/account/{accountId}",
      "/liquidation/account/{accountId}/liquidate",
      "/liquidation/accounts/{accountId}/health",
      "/liquidation/market/{marketId}",
      "/liquidation/position/{positionId}",
      "/liquidation/position/{positionId}/liquidate",
    ]);
  });
});

describe("keeper metrics", () => {
  it("GET /metrics: refused unless open (local) or with the admin token; has requests and liquidations", async () => {
    await app.request(`/liquidation/position/${POS}`);
    expect((await app.request("/metrics")).status).toBe(404); // no metrics config: never served
    const prod = createKeeperApp({ service, gatewayToken: TOKEN, log: pino({ level: "silent" }), status: () => ({}), metrics: { open: false, adminToken: "a".repeat(32) } });
    expect((await prod.request("/metrics")).status).toBe(404);
    const ok = await prod.request("/metrics", { headers: { Authorization: `Bearer ${"a".repeat(32)}` } });
    expect(ok.status).toBe(200);
    const text = await ok.text();
    expect(text).toMatch(/venue_http_request_duration_seconds_count\{[^}]*route="\/liquidation\/position\/:positionId"[^}]*status="200"/);
    const local = createKeeperApp({ service, gatewayToken: TOKEN, log: pino({ level: "silent" }), status: () => ({}), metrics: { open: true } });
    expect((await local.request("/metrics")).status).toBe(200);
  });
});
