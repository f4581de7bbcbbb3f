import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../core/errors";
import { rateLimit } from "./index";

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
