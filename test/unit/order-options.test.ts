/**
 * Market v2's order options on the write surfaces: the one rule (core/order-options.ts) through the
 * integration API's schema (camelCase) and the gateway's (snake_case), the contract errors' codes.
 */
import { describe, expect, it } from "vitest";
import { PlaceOrderBody } from "../../core/schemas/writes.js";
import { validationError } from "../../core/schemas/validation.js";
import { TradeBody } from "../../services/gateway/schemas.js";
import { appliedTimeInForce, expiryProblem, orderOptionsProblem } from "../../core/order-options.js";
import { contractError, ERROR_CODES } from "../../core/errors.js";

const m = "0x" + "ab".repeat(32);
const limit = { marketId: m, collateralAmount: "100", side: "LONG", leverage: 5, orderType: "LIMIT", limitPrice: "1080000000000000000" };
const market = { marketId: m, collateralAmount: "100", side: "LONG", leverage: 5, orderType: "MARKET" };
const codeOf = (schema: { safeParse: (v: unknown) => any }, v: unknown) => { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = schema.safeParse(v);
  if (r.success) return "OK";
  const e = validationError(r.error);
  return `${e.code} ${(e.details as { field: string }).field}`;
};

describe("order options (integration API, camelCase)", () => {
  it("absent: today's order; each time in force by name; reduceOnly a boolean; expiresAt positive integer seconds", () => {
    expect(codeOf(PlaceOrderBody, limit)).toBe("OK");
    for (const tif of ["GTC", "IOC", "FOK", "POST_ONLY"]) expect(codeOf(PlaceOrderBody, { ...limit, timeInForce: tif }), tif).toBe("OK");
    for (const tif of ["GTC", "IOC", "FOK"]) expect(codeOf(PlaceOrderBody, { ...market, timeInForce: tif }), tif).toBe("OK");
    expect(codeOf(PlaceOrderBody, { ...limit, timeInForce: "GTD" })).toBe("VALIDATION_ERROR timeInForce");
    expect(codeOf(PlaceOrderBody, { ...limit, timeInForce: 1 })).toBe("VALIDATION_ERROR timeInForce");
    expect(codeOf(PlaceOrderBody, { ...limit, reduceOnly: true })).toBe("OK");
    expect(codeOf(PlaceOrderBody, { ...limit, reduceOnly: "true" })).toBe("VALIDATION_ERROR reduceOnly");
    expect(codeOf(PlaceOrderBody, { ...limit, expiresAt: 1893456000 })).toBe("OK");
    expect(codeOf(PlaceOrderBody, { ...limit, expiresAt: "1893456000" })).toBe("OK");
    expect(codeOf(PlaceOrderBody, { ...limit, timeInForce: "POST_ONLY", expiresAt: 1893456000 })).toBe("OK");
    for (const bad of [0, -1, 1.5, "0", "01", "1e9", 2 ** 40, true]) expect(codeOf(PlaceOrderBody, { ...limit, expiresAt: bad }), String(bad)).toBe("VALIDATION_ERROR expiresAt");
    expect(PlaceOrderBody.parse({ ...limit, expiresAt: 1893456000 }).expiresAt).toBe("1893456000");
  });

  it("the combinations that do not exist: 400 VALIDATION_ERROR naming the field", () => {
    expect(codeOf(PlaceOrderBody, { ...market, timeInForce: "POST_ONLY" })).toBe("VALIDATION_ERROR timeInForce");
    expect(codeOf(PlaceOrderBody, { ...market, expiresAt: 1893456000 })).toBe("VALIDATION_ERROR expiresAt");
    expect(codeOf(PlaceOrderBody, { ...limit, timeInForce: "IOC", expiresAt: 1893456000 })).toBe("VALIDATION_ERROR expiresAt");
    expect(codeOf(PlaceOrderBody, { ...limit, timeInForce: "FOK", expiresAt: 1893456000 })).toBe("VALIDATION_ERROR expiresAt");
    const r = PlaceOrderBody.safeParse({ ...market, timeInForce: "POST_ONLY" });
    expect(validationError(r.error!).message).toBe("timeInForce: POST_ONLY is for LIMIT orders only (a MARKET order always takes)");
  });
});

describe("order options (gateway /v1, snake_case)", () => {
  const trade = { market_id: m, collateral: "100", side: 0, leverage: 5, order_type: 1, limit_price: "1080000000000000000" };
  it("the same fields and rules under snake_case names", () => {
    expect(TradeBody.safeParse({ ...trade, time_in_force: "POST_ONLY", reduce_only: false, expires_at: 1893456000 }).success).toBe(true);
    const issue = (v: unknown) => {
      const r = TradeBody.safeParse(v);
      return r.success ? "OK" : r.error.issues[0]!.path.join(".");
    };
    expect(issue({ ...trade, order_type: 0, limit_price: undefined, time_in_force: "POST_ONLY" })).toBe("time_in_force");
    expect(issue({ ...trade, order_type: 0, limit_price: undefined, expires_at: 1893456000 })).toBe("expires_at");
    expect(issue({ ...trade, time_in_force: "IOC", expires_at: "1893456000" })).toBe("expires_at");
    expect(issue({ ...trade, time_in_force: "FOK", expires_at: 1893456000 })).toBe("expires_at");
    expect(issue({ ...trade, time_in_force: "NOW" })).toBe("time_in_force");
    expect(issue({ ...trade, reduce_only: 1 })).toBe("reduce_only");
    expect(issue({ ...trade, expires_at: 0 })).toBe("expires_at");
  });
});

describe("the rule itself (core/order-options.ts)", () => {
  it("a MARKET's GTC is IOC; an expiry must be after the chain's now", () => {
    expect(appliedTimeInForce("MARKET", undefined)).toBe("IOC");
    expect(appliedTimeInForce("MARKET", "FOK")).toBe("FOK");
    expect(appliedTimeInForce("LIMIT", undefined)).toBe("GTC");
    expect(orderOptionsProblem({ orderType: "LIMIT", timeInForce: "POST_ONLY", expiresAt: 5 })).toBeNull();
    expect(expiryProblem(undefined, 100n)).toBeNull();
    expect(expiryProblem("101", 100n)).toBeNull();
    expect(expiryProblem("100", 100n)).toMatch(/after now/);
    expect(expiryProblem(99, 100n)).toMatch(/after now/);
  });

  it("the contracts' new errors map to their codes", () => {
    expect(contractError("PostOnlyWouldCross", [1n, 2n])).toMatchObject({ code: "POST_ONLY_WOULD_CROSS", status: 409 });
    expect(contractError("FillOrKillUnfilled", [1n, 2n])).toMatchObject({ code: "FILL_OR_KILL_UNFILLED", status: 409 });
    expect(contractError("ReduceOnlyExceedsPosition", [1n, 2n])).toMatchObject({ code: "REDUCE_ONLY_EXCEEDS_POSITION", status: 422 });
    expect(contractError("InvalidOrderOptions", [3n, 0n])).toMatchObject({ code: "VALIDATION_ERROR", status: ERROR_CODES.VALIDATION_ERROR });
    expect(contractError("InvalidExpiry", [3n, 4n])).toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
