/**
 * Limits of the integration API (issue 11, defect 6): 413 over the body limit, 405 with Allow,
 * unknown query parameters refused (so they cannot make fresh response-cache keys), RateLimit-*
 * headers, and the unauthenticated typed-data route limited per client address (each costs a
 * chain read). The stack trusts loopback as a proxy: X-Forwarded-For names a client of our own.
 */
import { describe, expect, it } from "vitest";
import { sharedStack } from "./helpers/stacks.js";
import { integrationClient } from "./helpers/http.js";

describe.each([sharedStack()])("integration API limits ($kind)", (s) => {
  const req = integrationClient(s);
  const market = s.deployment.markets[0]!;

  it("a body over the limit is 413 PAYLOAD_TOO_LARGE in the envelope", async () => {
    const r = await req("POST", "/auth/login", { raw: JSON.stringify({ message: "x".repeat(20_000), signature: "0x" }) });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ success: false, error: { code: "PAYLOAD_TOO_LARGE" } });
  });

  it("a wrong method is 405 METHOD_NOT_ALLOWED with Allow", async () => {
    const r = await req("PUT", `/markets/${market.marketId}`);
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET, HEAD");
    expect(r.body.error!.code).toBe("METHOD_NOT_ALLOWED");
    const del = await req("GET", `/accounts/1/orders/0x${"ab".repeat(32)}`);
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("DELETE");
    expect((await req("GET", "/no-such-route")).status).toBe(404);
  });

  it("an unknown query parameter is a 400 naming it, not a fresh cache entry", async () => {
    const ok = await req("GET", `/markets/${market.marketId}/orderbook?depth=5`);
    expect(ok.status).toBe(200);
    const r = await req("GET", `/markets/${market.marketId}/orderbook?depth=5&cachebust=${Date.now()}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringContaining('"cachebust"') });
    expect((await req("GET", `/markets?x=1`)).status).toBe(400);
    expect((await req("GET", `/accounts/1?minBlock=0`)).status).not.toBe(400); // documented ones still pass
  });

  it("answers carry the RateLimit-* headers of the per-client limit", async () => {
    const r = await req("GET", "/markets", { headers: { "X-Forwarded-For": "198.51.100.10" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("ratelimit-limit")).toBe("100000");
    expect(r.headers.get("ratelimit-policy")).toBe("100000;w=60");
    expect(Number(r.headers.get("ratelimit-remaining"))).toBeLessThan(100000);
  });

  it("GET /operators/typed-data is limited per client address (429 with Retry-After), others unaffected", async () => {
    const owner = s.wallets[3]!.address;
    const as = (ip: string) => req("GET", `/operators/typed-data?owner=${owner}`, { headers: { "X-Forwarded-For": ip } });
    const client = `198.51.100.${20 + (s.kind === "postgres" ? 1 : 0)}`;
    let first = await as(client);
    expect(first.status).toBe(200);
    const limit = Number(first.headers.get("ratelimit-limit"));
    expect(limit).toBe(30);
    for (let i = 1; i < limit; i++) first = await as(client);
    expect(first.status).toBe(200);
    const over = await as(client);
    expect(over.status).toBe(429);
    expect(over.body.error!.code).toBe("RATE_LIMITED");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await as("198.51.100.99")).status).toBe(200);
  });
});
