import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { ApiError } from "../errors.js";
import { closeRateLimitStores, failureLimit, rateLimit, rateLimitStore } from "./rate-limit.js";

function app(limit: number) {
  const a = new Hono();
  a.onError((err, c) => (err instanceof ApiError ? c.json({ code: err.code }, err.status as 429) : c.json({}, 500)));
  a.use(rateLimit({ limit, key: (c) => c.req.header("x-who") ?? "anon" }));
  a.get("/", (c) => c.text("ok"));
  return a;
}

describe("rateLimit", () => {
  it("counts per key, sets RateLimit-* headers, answers 429 with Retry-After when over", async () => {
    const a = app(2);
    const h = { headers: { "x-who": "k1" } };
    const first = await a.request("/", h);
    expect(first.headers.get("ratelimit-limit")).toBe("2");
    expect(first.headers.get("ratelimit-remaining")).toBe("1");
    expect(first.headers.get("ratelimit-policy")).toBe("2;w=60");
    expect((await a.request("/", h)).status).toBe(200);
    const over = await a.request("/", h);
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ code: "RATE_LIMITED" });
    const retry = Number(over.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expect((await a.request("/", { headers: { "x-who": "k2" } })).status).toBe(200);
  });
});

describe("failureLimit", () => {
  // one address; "good" is a valid credential, anything else fails with 401
  function authApp(limit: number) {
    const a = new Hono();
    a.onError((err, c) => (err instanceof ApiError ? c.json({ code: err.code }, err.status as 401) : c.json({}, 500)));
    a.use(failureLimit({ limit, key: () => "lb-address", isFailure: (status) => status === 401 }));
    a.use(async (c, next) => {
      if (c.req.header("x-key") !== "good") throw new ApiError("UNAUTHENTICATED", "bad key");
      await next();
    });
    a.get("/", (c) => c.text("ok"));
    return a;
  }

  it("blocks failures over the limit, never a valid credential from the same address", async () => {
    const a = authApp(2);
    const bad = { headers: { "x-key": "guess" } };
    const good = { headers: { "x-key": "good" } };
    expect((await a.request("/", bad)).status).toBe(401);
    expect((await a.request("/", good)).status).toBe(200); // successes are not counted
    expect((await a.request("/", bad)).status).toBe(401);
    const over = await a.request("/", bad);
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ code: "RATE_LIMITED" });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) expect((await a.request("/", good)).status).toBe(200);
  });
});

// Redis at REDIS_URL or 127.0.0.1:6379 (.ci/run starts one)
describe("rateLimitStore (Redis)", () => {
  afterAll(closeRateLimitStores);

  it("two limiters on one Redis share a key's count", async () => {
    const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    const prefix = `venue:test:${Date.now().toString(36)}:`;
    const mk = () => {
      const a = new Hono();
      a.onError((err, c) => (err instanceof ApiError ? c.json({ code: err.code }, err.status as 429) : c.json({ err: String(err) }, 500)));
      a.use(rateLimit({ limit: 3, key: () => "shared", store: rateLimitStore(url, prefix) }));
      a.get("/", (c) => c.text("ok"));
      return a;
    };
    const [r1, r2] = [mk(), mk()];
    const statuses = [];
    for (const a of [r1, r2, r1, r2]) statuses.push((await a.request("/")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
