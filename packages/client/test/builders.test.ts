import { describe, expect, it } from "vitest";
import { buildAmount, buildClose, buildMargin, buildPlaceOrder, order, type MarketRules } from "../src/builders.js";
import { VenueInputError } from "../src/errors.js";
import { amount6, x18 } from "../src/units.js";

const EUR = `0x${"a9".repeat(32)}` as const;
const rules: MarketRules = { marketId: EUR, maxLeverage: 50, tickSize: x18("0.00001").toString(), isActive: true, symbol: "EUR/USD" };
const NOW = 1_800_000_000;

const refused = (f: () => unknown, code: string, field?: string) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(VenueInputError);
    expect((e as VenueInputError).code).toBe(code);
    if (field) expect((e as VenueInputError).field).toBe(field);
    return;
  }
  throw new Error("not refused");
};

describe("order builders", () => {
  it("builds the integration API's body with a client key", () => {
    const b = buildPlaceOrder(order.limit({ marketId: EUR, side: "LONG", collateral: amount6("100"), leverage: 5, price: x18("1.08") }), rules, NOW);
    expect(b).toMatchObject({ marketId: EUR, collateralAmount: "100000000", side: "LONG", leverage: 5, orderType: "LIMIT", limitPrice: "1080000000000000000" });
    expect(b.clientKey).toMatch(/^0x[0-9a-f]{64}$/);
    const m = buildPlaceOrder(order.market({ marketId: EUR, side: "SHORT", collateral: 1n, leverage: 1 }), rules, NOW);
    expect(m).not.toHaveProperty("limitPrice");
    expect(m.clientKey).not.toBe(b.clientKey);
  });

  it("refuses bad combinations before sending", () => {
    const base = { marketId: EUR, side: "LONG" as const, collateral: amount6("10"), leverage: 5 };
    refused(() => buildPlaceOrder({ ...base, type: "LIMIT" }, rules, NOW), "VALIDATION_ERROR", "price");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", price: x18("1") }, rules, NOW), "VALIDATION_ERROR", "price");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", leverage: 0 }, rules, NOW), "EXCEEDS_MAX_LEVERAGE");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", leverage: 2.5 }, rules, NOW), "EXCEEDS_MAX_LEVERAGE");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", leverage: 51 }, rules, NOW), "EXCEEDS_MAX_LEVERAGE");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", collateral: 0n }, rules, NOW), "INVALID_AMOUNT", "collateral");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", collateral: 5 as unknown as bigint }, rules, NOW), "VALIDATION_ERROR", "collateral");
    refused(() => buildPlaceOrder({ ...base, type: "LIMIT", price: x18("1.000001") }, rules, NOW), "INVALID_PRICE", "price");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", marketId: "0x12" as `0x${string}` }, rules, NOW), "VALIDATION_ERROR", "marketId");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", side: "BUY" as "LONG" }, rules, NOW), "VALIDATION_ERROR", "side");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", clientKey: "0xzz" as `0x${string}` }, rules, NOW), "VALIDATION_ERROR", "clientKey");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", validUntil: NOW - 1 }, rules, NOW), "VALIDATION_ERROR", "validUntil");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", validUntil: NOW + 86_401 }, rules, NOW), "VALIDATION_ERROR", "validUntil");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET" }, { ...rules, isActive: false }, NOW), "MARKET_NOT_ACTIVE");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET" }, { ...rules, marketId: `0x${"11".repeat(32)}` }, NOW), "VALIDATION_ERROR", "marketId");
  });

  it("order options: passed when given, absent otherwise; the server's rule of which combinations exist; an expiry after now", () => {
    const base = { marketId: EUR, side: "LONG" as const, collateral: amount6("10"), leverage: 5 };
    const gtt = buildPlaceOrder(order.limit({ ...base, price: x18("1.08"), timeInForce: "POST_ONLY", reduceOnly: false, expiresAt: NOW + 60 }), rules, NOW);
    expect(gtt).toMatchObject({ timeInForce: "POST_ONLY", reduceOnly: false, expiresAt: NOW + 60 });
    const plain = buildPlaceOrder(order.market(base), rules, NOW);
    for (const k of ["timeInForce", "reduceOnly", "expiresAt"]) expect(plain).not.toHaveProperty(k);
    expect(buildPlaceOrder(order.market({ ...base, timeInForce: "FOK", reduceOnly: true }), rules, NOW)).toMatchObject({ timeInForce: "FOK", reduceOnly: true });
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", timeInForce: "POST_ONLY" }, rules, NOW), "VALIDATION_ERROR", "timeInForce");
    refused(() => buildPlaceOrder({ ...base, type: "MARKET", expiresAt: NOW + 60 }, rules, NOW), "VALIDATION_ERROR", "expiresAt");
    refused(() => buildPlaceOrder({ ...base, type: "LIMIT", price: x18("1.08"), timeInForce: "IOC", expiresAt: NOW + 60 }, rules, NOW), "VALIDATION_ERROR", "expiresAt");
    refused(() => buildPlaceOrder({ ...base, type: "LIMIT", price: x18("1.08"), timeInForce: "FOK", expiresAt: NOW + 60 }, rules, NOW), "VALIDATION_ERROR", "expiresAt");
    refused(() => buildPlaceOrder({ ...base, type: "LIMIT", price: x18("1.08"), expiresAt: NOW }, rules, NOW), "VALIDATION_ERROR", "expiresAt");
    refused(() => buildPlaceOrder({ ...base, type: "LIMIT", price: x18("1.08"), expiresAt: 1.5 }, rules, NOW), "VALIDATION_ERROR", "expiresAt");
    refused(() => buildPlaceOrder({ ...base, type: "LIMIT", price: x18("1.08"), timeInForce: "GTD" as "GTC" }, rules, NOW), "VALIDATION_ERROR", "timeInForce");
    refused(() => buildPlaceOrder({ ...base, type: "LIMIT", price: x18("1.08"), reduceOnly: "yes" as unknown as boolean }, rules, NOW), "VALIDATION_ERROR", "reduceOnly");
  });

  it("close, amounts and margin", () => {
    expect(buildClose({ type: "MARKET" }, rules, NOW)).toMatchObject({ orderType: "MARKET" });
    refused(() => buildClose({ type: "LIMIT" }, rules, NOW), "VALIDATION_ERROR", "price");
    refused(() => buildClose({ type: "MARKET", price: 1n }, rules, NOW), "VALIDATION_ERROR", "price");
    expect(buildAmount(amount6("5"))).toEqual({ amount: "5000000" });
    refused(() => buildAmount(0n), "INVALID_AMOUNT", "amount");
    refused(() => buildAmount(-1n), "VALIDATION_ERROR", "amount");
    expect(buildMargin("ADD", 1n)).toEqual({ action: "ADD", amount: "1" });
    refused(() => buildMargin("MORE" as "ADD", 1n), "VALIDATION_ERROR", "action");
  });
});
