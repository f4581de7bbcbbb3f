import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ApiError } from "../errors.js";
import { allowedMethods, methodNotAllowed } from "./method-not-allowed.js";

describe("methodNotAllowed", () => {
  const app = new Hono();
  app.onError((err, c) => (err instanceof ApiError ? c.json({ code: err.code }, err.status as 405) : c.json({}, 500)));
  app.use(methodNotAllowed(app));
  app.use("*", async (_c, next) => next()); // middleware is not a route
  app.get("/accounts/:id", (c) => c.text("get"));
  app.delete("/accounts/:id/orders/:key", (c) => c.text("del"));
  app.post("/accounts/:id/orders", (c) => c.text("post"));

  it("answers 405 with Allow for a path that exists under other methods", async () => {
    const r = await app.request("/accounts/7", { method: "POST" });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET, HEAD");
    expect(await r.json()).toEqual({ code: "METHOD_NOT_ALLOWED" });
    const d = await app.request("/accounts/7/orders/0xab", { method: "GET" });
    expect(d.status).toBe(405);
    expect(d.headers.get("allow")).toBe("DELETE");
  });

  it("leaves matching methods and unknown paths alone", async () => {
    expect((await app.request("/accounts/7")).status).toBe(200);
    expect((await app.request("/nope", { method: "POST" })).status).toBe(404);
    expect(allowedMethods(app.routes, "/accounts/7/orders")).toEqual(["POST"]);
  });
});
