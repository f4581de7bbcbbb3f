/** The integration API's guards outside Ponder (CORS policy, /sql access and cost, Ponder's /metrics). */
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../core/errors.js";
import { DEFAULT_SECRETS } from "../../core/profiles.js";
import { corsOrigins, corsPolicy } from "../../core/http/cors.js";
import { guardPonderMetrics } from "../../src/api/lib/metrics.js";
import { apiLimitsFromEnv, clientRateLimit } from "../../core/http/limits.js";
import { planCost, sqlGuard, sqlQueryGuard } from "../../src/api/lib/sqlGuard.js";
import { tableCatalog } from "../../src/api/lib/sqlPolicy.js";
import * as schema from "../../ponder.schema.js";

const onError = (err: Error, c: { json: (b: unknown, s: number) => Response }) =>
  err instanceof ApiError ? c.json({ success: false, error: { code: err.code, message: err.message } }, err.status) : c.json({}, 500);

describe("CORS", () => {
  it("defaults: all origins in local, none elsewhere; CORS_ORIGINS configures", () => {
    expect(corsOrigins({})).toBe("*");
    expect(corsOrigins({ PROFILE: "production" })).toEqual([]);
    expect(corsOrigins({ PROFILE: "production", CORS_ORIGINS: "https://app.venue.example/, https://x.example" })).toEqual([
      "https://app.venue.example", "https://x.example",
    ]);
  });

  it("an allowed origin may read the answer, another may not (whatever Ponder's outer cors said)", async () => {
    const app = new Hono();
    app.use(async (c, next) => {
      c.header("Access-Control-Allow-Origin", "*"); // Ponder's server: cors({ origin: "*" }) sets it before the app runs
      await next();
    });
    app.use(corsPolicy(["https://app.venue.example"]));
    app.get("/markets", (c) => c.json({ ok: true }));
    const ok = await app.request("/markets", { headers: { Origin: "https://app.venue.example" } });
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.venue.example");
    expect(ok.headers.get("vary")).toContain("Origin");
    const other = await app.request("/markets", { headers: { Origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("/sql", () => {
  let explained = 0;
  const app = (guard: ReturnType<typeof sqlGuard>, cost = 10, dialect: "pglite" | "postgres" = "postgres") => {
    const a = new Hono();
    a.onError(onError as never);
    const explain = async () => (explained++, cost);
    a.use("/sql/*", guard, sqlQueryGuard({ catalog: tableCatalog(schema), dialect: () => dialect, explain, maxCost: 1_000 }));
    // Ponder's client() answers its own refusals and failures as text
    a.get("/sql/db", (c) => (c.req.query("sql")!.includes("fails") ? c.text("canceling statement due to statement timeout", 500) : c.json({ rows: [] })));
    return a;
  };
  const url = (sql: string) => `/sql/db?sql=${encodeURIComponent(JSON.stringify({ json: { sql, params: [] } }))}`;

  it("is closed outside local without the token, open in local", async () => {
    const closed = app(sqlGuard({ open: false, token: "t".repeat(20) }));
    expect((await closed.request(url("select 1"))).status).toBe(401);
    expect((await closed.request(url("select 1"), { headers: { "X-Internal-Token": "t".repeat(20) } })).status).toBe(200);
    expect((await app(sqlGuard({ open: true })).request(url("select 1"))).status).toBe(200);
  });

  it("refuses a query priced above the budget, and more than one statement", async () => {
    const costly = app(sqlGuard({ open: true }), 5_000);
    const r = await costly.request(url("select 1"));
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: { code: "VALIDATION_ERROR", message: expect.stringContaining("SQL_MAX_COST") } });
    expect((await app(sqlGuard({ open: true })).request(url("select 1; drop table x"))).status).toBe(400);
    // the keeper's own queries are not priced (their cost may include planner penalties)
    const keeper = app(sqlGuard({ open: true, token: "k".repeat(20) }), 5_000);
    expect((await keeper.request(url("select 1"), { headers: { "X-Internal-Token": "k".repeat(20) } })).status).toBe(200);
  });

  it("prices a plan by its costliest node: a LIMIT's discounted root does not hide a join run to the end", () => {
    // EXPLAIN of `SELECT … FROM t a, t b, … WHERE <never true> LIMIT 1`, abridged: the Limit's
    // total is the share of its child's the planner expects to need for one row
    const limited = { "Node Type": "Limit", "Total Cost": 0.42, Plans: [{ "Node Type": "Nested Loop", "Total Cost": 9.8e12, Plans: [{ "Total Cost": 12.5 }, { "Total Cost": 3.1e10 }] }] };
    expect(planCost(limited)).toBe(9.8e12);
    expect(planCost({ "Total Cost": 8.27, Plans: [{ "Total Cost": 8.27 }] })).toBe(8.27);
    expect(planCost({ "Total Cost": 5 })).toBe(5);
  });

  it("judges before planning: a function off the list is refused without an EXPLAIN", async () => {
    explained = 0;
    const r = await app(sqlGuard({ open: true })).request(url("select repeat('x', 900000000)"));
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", message: expect.stringContaining("repeat") } });
    expect(explained).toBe(0);
  });

  it("PGlite: only the bounded shape, else SQL_NOT_SUPPORTED_ON_PGLITE, never planned", async () => {
    explained = 0;
    const pglite = app(sqlGuard({ open: true }), 10, "pglite");
    const r = await pglite.request(url("select * from orders a, orders b where a.market_id = '1' limit 1"));
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: { code: "SQL_NOT_SUPPORTED_ON_PGLITE", message: expect.stringContaining("Postgres") } });
    expect((await pglite.request(url("select * from orders where market_id = '1' limit 10"))).status).toBe(200);
    expect(explained).toBe(0);
  });

  it("at most SQL_MAX_CONCURRENT queries run at once (429 past it); refused ones never count", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const a = new Hono();
    a.onError(onError as never);
    a.use("/sql/*", sqlGuard({ open: true }), sqlQueryGuard({ catalog: tableCatalog(schema), dialect: () => "postgres", explain: async () => 1, maxConcurrent: 1 }));
    a.get("/sql/db", async (c) => (await held, c.json({ rows: [] })));
    const first = a.request(url("select 1"));
    await new Promise((r) => setTimeout(r, 50));
    expect((await a.request(url("select repeat('x', 9)"))).status).toBe(400); // judged before the cap
    const second = await a.request(url("select 2"));
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ error: { code: "RATE_LIMITED", message: expect.stringContaining("SQL_MAX_CONCURRENT") } });
    release();
    expect((await first).status).toBe(200);
    expect((await a.request(url("select 3"))).status).toBe(200);
  });

  it("Ponder's text failures leave as envelopes (a statement timeout: SQL_TIMEOUT)", async () => {
    const r = await app(sqlGuard({ open: true })).request(url("select 'fails'"));
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ success: false, error: { code: "SQL_TIMEOUT" } });
  });
});

describe("Ponder's /metrics", () => {
  const g = globalThis as { PONDER_COMMON?: unknown };
  afterEach(() => {
    delete g.PONDER_COMMON;
  });

  it("outside local: the public answer is emptied, the real one needs the admin token", async () => {
    const metrics = { getMetrics: async () => "ponder_indexing_total 42\n" };
    g.PONDER_COMMON = { metrics };
    const app = new Hono();
    app.onError(onError as never);
    const admin = "a".repeat(32);
    guardPonderMetrics(app, { PROFILE: "production", ADMIN_TOKEN: admin });
    expect(await metrics.getMetrics()).not.toContain("42");
    expect((await app.request("/ops/metrics")).status).toBe(401);
    const r = await app.request("/ops/metrics", { headers: { "X-Admin-Token": admin } });
    expect(await r.text()).toContain("ponder_indexing_total 42");
  });

  it("in local it stays public, with the integration API's own series beside Ponder's", async () => {
    const metrics = { getMetrics: async () => "ponder_indexing_total 42\n" };
    g.PONDER_COMMON = { metrics };
    clientRateLimit(apiLimitsFromEnv({})); // the API's limiter, as src/api/index.ts installs it
    guardPonderMetrics(new Hono(), {});
    const text = await metrics.getMetrics();
    expect(text).toContain("ponder_indexing_total 42");
    expect(text).toMatch(/venue_rate_limit_rejections_total\{limiter="integration"\} \d+/);
  });
});

describe("the per-client limit and the services' tokens", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  // the indexer's process outside local: given INTEGRATION_TOKEN and KEEPER_TOKEN (INDEXER_SECRETS), not GATEWAY_TOKEN
  const indexerEnv = { PROFILE: "production", CHAIN_ID: "1", INTEGRATION_TOKEN: "i".repeat(20), KEEPER_TOKEN: "k".repeat(20), GATEWAY_TOKEN: "" };
  const app = () => {
    const a = new Hono();
    a.onError(onError as never);
    a.use(clientRateLimit(apiLimitsFromEnv({ RATE_LIMIT_PER_MINUTE: "1" })));
    a.get("/markets", (c) => c.json({ ok: true }));
    return a;
  };
  const get = (a: Hono, token?: string) => a.request("/markets", { headers: token ? { "X-Internal-Token": token } : {} });

  it("a token this process lacks matches nothing (no throw, no 500); the integration and keeper tokens are not counted", async () => {
    for (const [k, v] of Object.entries(indexerEnv)) vi.stubEnv(k, v);
    const a = app();
    // an unknown token (or the gateway's, which this process was not given) is an ordinary client: counted
    expect((await get(a, "g".repeat(20))).status).toBe(200);
    expect((await get(a, "g".repeat(20))).status).toBe(429);
    for (let i = 0; i < 3; i++) {
      expect((await get(a, "i".repeat(20))).status).toBe(200);
      expect((await get(a, "k".repeat(20))).status).toBe(200);
    }
    expect((await get(a)).status).toBe(429);
  });

  it("in local every service's default token is known, the integration token's too", async () => {
    vi.stubEnv("PROFILE", "local");
    const a = app();
    for (let i = 0; i < 3; i++) expect((await get(a, DEFAULT_SECRETS.INTEGRATION_TOKEN)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(a, DEFAULT_SECRETS.GATEWAY_TOKEN)).status).toBe(200);
    expect((await get(a)).status).toBe(200);
    expect((await get(a)).status).toBe(429);
  });
});
