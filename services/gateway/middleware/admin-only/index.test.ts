import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../core/errors.js";
import { adminOnly, isLoopback } from "./index.js";

function app(addr: string | undefined) {
  const a = new Hono();
  a.onError((err, c) => (err instanceof ApiError ? c.json({ code: err.code }, err.status as 401) : c.json({}, 500)));
  a.use(adminOnly({ token: "secret-token", remoteAddress: () => addr }));
  a.get("/", (c) => c.text("ok"));
  return a;
}

describe("adminOnly", () => {
  it("recognises loopback addresses", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) expect(isLoopback(a)).toBe(true);
    for (const a of ["10.0.0.1", "::ffff:10.0.0.1", "0.0.0.0", undefined]) expect(isLoopback(a)).toBe(false);
  });

  it("needs loopback, no forwarding header, and the token", async () => {
    const ok = { headers: { "X-Admin-Token": "secret-token" } };
    expect((await app("127.0.0.1").request("/", ok)).status).toBe(200);
    expect((await app("192.168.1.4").request("/", ok)).status).toBe(404);
    expect((await app(undefined).request("/", ok)).status).toBe(404);
    expect((await app("127.0.0.1").request("/", { headers: { ...ok.headers, "X-Forwarded-For": "8.8.8.8" } })).status).toBe(404);
    expect((await app("127.0.0.1").request("/")).status).toBe(401);
    expect((await app("127.0.0.1").request("/", { headers: { "X-Admin-Token": "secret-tokeN" } })).status).toBe(401);
  });
});
