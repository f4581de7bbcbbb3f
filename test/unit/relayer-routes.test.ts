/**
 * The integration API's write and auth routes without a relayer: everything that must be
 * answered before forwarding (validation, sign-in, ownership of POST /accounts), and a relayer
 * that is down (503, never 500). The forwarding itself is covered end to end.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { OpenAPIHono } from "@hono/zod-openapi";
import { createSiweMessage } from "viem/siwe";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { authRoutes } from "../../src/api/routes/auth.js";
import { writeRoutes } from "../../core/http/write-routes.js";
import { issueToken } from "../../core/auth/siwe.js";

process.env.JWT_SECRET = "routes-unit-test-secret";
process.env.RELAYER_URL = "http://127.0.0.1:9"; // nothing listens: forwarding fails as 503
process.env.SIWE_DOMAINS = "api.test";
process.env.SIWE_URI_ORIGINS = "https://api.test";
const app = new OpenAPIHono();
app.route("/", authRoutes);
app.route("/", writeRoutes);

const wallet = privateKeyToAccount(generatePrivateKey());
const m = "0x" + "ab".repeat(32);
let token = "";
beforeAll(async () => {
  token = (await issueToken(process.env.JWT_SECRET!, wallet.address)).token;
});
const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await app.request(path, {
    method,
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}`, ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
};

describe("sign-in routes", () => {
  it("nonce → signed message → token → session", async () => {
    const n = await app.request("/auth/nonce");
    expect(n.status).toBe(200);
    const { data } = (await n.json()) as any;
    expect(data).toMatchObject({ domain: "api.test", uri: "https://api.test" });
    const message = createSiweMessage({ address: wallet.address, chainId: 31337, domain: "api.test", nonce: data.nonce, uri: "https://api.test", version: "1" });
    const signature = await wallet.signMessage({ message });
    const login = await app.request("/auth/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ message, signature }) });
    expect(login.status).toBe(200);
    const t = ((await login.json()) as any).data;
    expect(t).toMatchObject({ tokenType: "Bearer", address: wallet.address });
    const s = await app.request("/auth/session", { headers: { Authorization: `Bearer ${t.token}` } });
    expect(((await s.json()) as any).data.address).toBe(wallet.address);
  });

  it("login with a bad body is 400, a bad signature 401", async () => {
    expect((await call("POST", "/auth/login", { message: "x" })).body.error.code).toBe("VALIDATION_ERROR");
    const r = await call("POST", "/auth/login", { message: "hello", signature: "0x" + "11".repeat(65) });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("UNAUTHENTICATED");
  });
});

describe("write routes before the relayer", () => {
  it("no token, a bad token, an expired token: 401 UNAUTHENTICATED", async () => {
    for (const auth of [undefined, "Bearer nope", "Basic abc"]) {
      const res = await app.request("/accounts/1/deposit", {
        method: "POST", headers: { "Content-Type": "application/json", ...(auth ? { Authorization: auth } : {}) }, body: JSON.stringify({ amount: "1" }),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error.code).toBe("UNAUTHENTICATED");
      expect(res.headers.get("WWW-Authenticate")).toContain("Bearer");
    }
    const expired = (await issueToken(process.env.JWT_SECRET!, wallet.address, 60, new Date(Date.now() - 600_000))).token;
    const r = await call("POST", "/accounts/1/deposit", { amount: "1" }, { Authorization: `Bearer ${expired}` });
    expect(r.status).toBe(401);
  });

  it("bad input: 400 with the field named, the spec's codes where it names them", async () => {
    const cases: [string, string, unknown, string, string?][] = [
      ["POST", "/accounts/1/deposit", "{not json", "VALIDATION_ERROR"],
      ["POST", "/accounts/1/deposit", { amount: 5 }, "VALIDATION_ERROR", "amount"],
      ["POST", "/accounts/1/deposit", { amount: "1.5" }, "VALIDATION_ERROR", "amount"],
      ["POST", "/accounts/1/deposit", { amount: "-3" }, "VALIDATION_ERROR", "amount"],
      ["POST", "/accounts/1/deposit", { amount: (2n ** 256n).toString() }, "VALIDATION_ERROR", "amount"],
      ["POST", "/accounts/1/deposit", { amount: "0" }, "INVALID_AMOUNT"],
      ["POST", "/accounts/1/withdraw", { amount: "0" }, "INVALID_AMOUNT"],
      ["POST", "/accounts/abc/withdraw", { amount: "1" }, "VALIDATION_ERROR", "accountId"],
      ["POST", "/accounts/1/orders", { marketId: m, collateralAmount: "1", side: "LONG", leverage: 0, orderType: "MARKET" }, "EXCEEDS_MAX_LEVERAGE"],
      ["POST", "/accounts/1/orders", { marketId: m, collateralAmount: "1", side: "UP", leverage: 2, orderType: "MARKET" }, "VALIDATION_ERROR", "side"],
      ["POST", "/accounts/1/orders", { marketId: m, collateralAmount: "1", side: "LONG", leverage: 2, orderType: "LIMIT" }, "VALIDATION_ERROR", "limitPrice"],
      ["POST", "/accounts/1/orders", { marketId: m, collateralAmount: "1.0", side: "LONG", leverage: 2, orderType: "MARKET" }, "VALIDATION_ERROR", "collateralAmount"],
      ["POST", `/accounts/1/positions/${m}/close`, { orderType: "LIMIT" }, "VALIDATION_ERROR", "limitPrice"],
      ["POST", "/accounts/1/positions/0x12/close", { orderType: "MARKET" }, "VALIDATION_ERROR", "marketId"],
      ["POST", `/accounts/1/positions/${m}/margin`, { action: "MOVE", amount: "1" }, "VALIDATION_ERROR", "action"],
      ["POST", `/accounts/1/positions/${m}/margin`, { amount: "1" }, "VALIDATION_ERROR", "action"],
      ["POST", `/accounts/1/positions/${m}/margin`, { action: "ADD", amount: "0" }, "INVALID_AMOUNT"],
      ["POST", `/accounts/1/positions/${m}/margin`, { action: "REMOVE", amount: "1.5" }, "VALIDATION_ERROR", "amount"],
      ["POST", "/accounts/1/positions/0x12/margin", { action: "ADD", amount: "1" }, "VALIDATION_ERROR", "marketId"],
      ["DELETE", `/accounts/1/orders/${m}`, undefined, "VALIDATION_ERROR", "marketId"],
      ["DELETE", `/accounts/1/orders/0x12?marketId=${m}`, undefined, "VALIDATION_ERROR", "clientKey"],
      ["POST", "/accounts", { userAddress: "nope" }, "VALIDATION_ERROR", "userAddress"],
    ];
    for (const [method, path, body, code, field] of cases) {
      const r = await call(method, path, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.error.code, `${method} ${path} ${JSON.stringify(body)}`).toBe(code);
      if (field) expect(r.body.error.message).toContain(field);
    }
  });

  it("POST /accounts for another wallet: 403 UNAUTHORIZED", async () => {
    const r = await call("POST", "/accounts", { userAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("UNAUTHORIZED");
  });

  it("a relayer that is down: 503 SERVICE_UNAVAILABLE envelope", async () => {
    const r = await call("POST", "/accounts/1/deposit", { amount: "1" });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe("SERVICE_UNAVAILABLE");
  });

  it("the routes are in the OpenAPI document", () => {
    const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    for (const p of ["/accounts", "/accounts/{accountId}/deposit", "/accounts/{accountId}/withdraw", "/accounts/{accountId}/orders",
      "/accounts/{accountId}/orders/{clientKey}", "/accounts/{accountId}/positions/{marketId}/close", "/accounts/{accountId}/positions/{marketId}/margin", "/transactions/{requestId}",
      "/operators/typed-data", "/operators/approve", "/auth/nonce", "/auth/login", "/transactions/{requestId}/cancel",
      "/accounts/{accountId}/deadman", "/accounts/{accountId}/orders/cancel-all", "/accounts/{accountId}/orders/batch",
      "/accounts/{accountId}/triggers", "/accounts/{accountId}/triggers/cancel"]) expect(doc.paths?.[p], p).toBeDefined();
    for (const name of ["DeadmanRequest", "CancelAllRequest", "BatchOrdersRequest", "DeadmanResult", "CancelAllResult", "BatchOrdersResult", "PendingBatchOrders",
      "SetTriggerRequest", "CancelTriggerRequest", "SetTriggerResult", "CancelTriggerResult", "PendingSetTrigger"])
      expect(doc.components?.schemas?.[name], name).toBeDefined();
    expect(doc.components?.securitySchemes?.bearerAuth).toBeDefined();
    // a 202 carries the result's fields, those not known before mining null
    const pending = doc.components?.schemas?.PendingPlaceOrder as { properties: Record<string, { type?: unknown; anyOf?: unknown[] }> };
    for (const f of ["clientKey", "side", "marketId", "orderType", "orderId", "size", "requestId", "validUntil"]) expect(pending.properties[f], f).toBeDefined();
    expect(JSON.stringify(pending.properties.orderId)).toContain("null");
    expect(JSON.stringify(pending.properties.transactionStatus)).toContain("PENDING");
    const deposit202 = (doc.paths?.["/accounts/{accountId}/deposit"] as { post: { responses: Record<string, unknown> } }).post.responses["202"];
    expect(JSON.stringify(deposit202)).toContain("PendingDeposit");
    // validUntil on the write bodies and the cancel's query
    expect((doc.components?.schemas?.PlaceOrderRequest as { properties: Record<string, unknown> }).properties.validUntil).toBeDefined();
    // the order options (Market v2): in the request, the result and the order reads' schema
    for (const f of ["timeInForce", "reduceOnly", "expiresAt"]) {
      expect((doc.components?.schemas?.PlaceOrderRequest as { properties: Record<string, unknown> }).properties[f], f).toBeDefined();
      expect((doc.components?.schemas?.PlaceOrderResult as { properties: Record<string, unknown> }).properties[f], f).toBeDefined();
      expect(pending.properties[f], f).toBeDefined();
    }
    expect(JSON.stringify((doc.components?.schemas?.PlaceOrderRequest as { properties: Record<string, unknown> }).properties.timeInForce)).toContain("POST_ONLY");
    expect(JSON.stringify(doc.paths?.["/accounts/{accountId}/orders/{clientKey}"])).toContain("validUntil");
  });
});
