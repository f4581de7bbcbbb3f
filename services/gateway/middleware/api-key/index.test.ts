import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../core/errors.js";
import { apiKeyAuth, type ApiKeyVariables } from "./index.js";

const identity = { keyId: "key_1", wallet: "0x0000000000000000000000000000000000000001" as const };

function app(isOptional?: () => boolean) {
  const a = new Hono<{ Variables: ApiKeyVariables }>();
  a.onError((err, c) =>
    err instanceof ApiError ? c.json({ code: err.code }, err.status as 401) : c.json({ code: "INTERNAL_ERROR" }, 500),
  );
  a.use(apiKeyAuth({ verify: async (k) => (k === "good" ? identity : null), isOptional }));
  a.get("/", (c) => c.json({ wallet: c.get("apiKey")?.wallet ?? null }));
  return a;
}

describe("apiKeyAuth", () => {
  it("sets the identity for a valid key", async () => {
    const res = await app().request("/", { headers: { "X-API-Key": "good" } });
    expect(await res.json()).toEqual({ wallet: identity.wallet });
  });

  it("401 with WWW-Authenticate for a missing or bad key", async () => {
    for (const headers of [{}, { "X-API-Key": "bad" }, { "X-API-Key": "" }] as Record<string, string>[]) {
      const res = await app().request("/", { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain('header="X-API-Key"');
      expect(await res.json()).toEqual({ code: "UNAUTHENTICATED" });
    }
  });

  it("optional routes pass without a header but still refuse a bad one", async () => {
    const a = app(() => true);
    expect(await (await a.request("/")).json()).toEqual({ wallet: null });
    expect((await a.request("/", { headers: { "X-API-Key": "bad" } })).status).toBe(401);
  });
});
