import { describe, expect, it } from "vitest";
import { ApiError } from "../errors.js";
import { parseInput, queryObject } from "./plans.js";
import { hotRoute } from "./routes.js";

const M = `0x${"ab".repeat(32)}`;

const errorOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return `${e.code} ${e.message}`;
    throw e;
  }
  return "no error";
};

// The read service's own builds on Postgres validate as Ponder's routes do: same schemas, query first.
describe("hot routes of the answer plans (core/reads/plans.ts, routes.ts)", () => {
  it("names every held route and nothing else", () => {
    expect(hotRoute("/markets")).toEqual({ kind: "markets" });
    expect(hotRoute(`/markets/${M}`)).toEqual({ kind: "market", marketId: M });
    for (const k of ["funding", "price", "orderbook"] as const) expect(hotRoute(`/markets/${M}/${k}`)).toEqual({ kind: k, marketId: M });
    expect(hotRoute("/accounts/12")).toEqual({ kind: "account", accountId: "12" });
    expect(hotRoute("/accounts/12/orders")).toEqual({ kind: "orders", accountId: "12" });
    expect(hotRoute(`/accounts/12/positions/${M}`)).toEqual({ kind: "position", accountId: "12", marketId: M });
    expect(hotRoute(`/accounts/12/positions/${M}/funding`)).toEqual({ kind: "positionFunding", accountId: "12", marketId: M });
    for (const p of ["/markets/", `/markets/${M}/trades`, "/accounts/12/fills", "/accounts/by-address/0x12/x", `/accounts/12/positions/${M}/x`]) expect(hotRoute(p), p).toBeUndefined();
  });

  it("reads the query as Hono's validator does: repeated parameters as a list", () => {
    expect(queryObject("")).toEqual({});
    expect(queryObject("depth=3")).toEqual({ depth: "3" });
    expect(queryObject("limit=1&limit=2&status=active")).toEqual({ limit: ["1", "2"], status: "active" });
    expect(queryObject("depth=+5&x")).toEqual({ depth: " 5", x: "" });
  });

  it("validates with Ponder's schemas, the query before the path, ids lowercased", () => {
    expect(parseInput({ kind: "orderbook", marketId: M.toUpperCase().replace("0X", "0x") }, "")).toEqual({ kind: "orderbook", marketId: M, depth: 10 });
    expect(parseInput({ kind: "orders", accountId: "7" }, "limit=5&status=filled")).toEqual({ kind: "orders", accountId: 7n, limit: 5, status: "filled", marketId: undefined, cursor: undefined });
    expect(errorOf(() => parseInput({ kind: "orderbook", marketId: M }, "depth=0"))).toBe("VALIDATION_ERROR depth: must be from 1 to 100");
    expect(errorOf(() => parseInput({ kind: "markets" }, "foo=1"))).toBe('VALIDATION_ERROR unknown query parameter: "foo"');
    expect(errorOf(() => parseInput({ kind: "account", accountId: "0" }, ""))).toMatch(/^VALIDATION_ERROR accountId: /);
    // both wrong: the query's error, as zod-openapi runs the query validator first
    expect(errorOf(() => parseInput({ kind: "orderbook", marketId: "0x12" }, "depth=abc"))).toMatch(/^VALIDATION_ERROR depth: /);
    expect(errorOf(() => parseInput({ kind: "orders", accountId: "1" }, "limit=1&limit=2"))).toMatch(/^VALIDATION_ERROR limit: /);
    // a cursor is only decoded by the build (after the 404s), not here
    expect(parseInput({ kind: "orders", accountId: "1" }, "cursor=nope")).toMatchObject({ cursor: "nope" });
  });
});
