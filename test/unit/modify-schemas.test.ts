/**
 * Market v2 modify: the integration API's body (core/schemas/writes.ts ModifyOrderBody) and the
 * gateway's snake_case one (services/gateway/schemas.ts ModifyBody): the order named by id or by
 * client key (exactly one), a price and a new remaining size, positive decimal strings.
 */
import { describe, expect, it } from "vitest";
import { BatchOrdersBody, ModifyOrderBody } from "../../core/schemas/writes.js";
import { ModifyOrderResult } from "../../core/schemas/write-responses.js";
import { validationError } from "../../core/schemas/validation.js";
import { BatchBody, ModifyBody } from "../../services/gateway/schemas.js";
import { ModifyOrderData } from "../../services/gateway/responses.js";
import { OPS, SUCCESS_STATUS } from "../../services/relayer/ops.js";

const m = "0x" + "ab".repeat(32);
const key = "0x" + "cd".repeat(32);
const price = "1080000000000000000";
const codeOf = (schema: { safeParse: (v: unknown) => any }, v: unknown) => {
  const r = schema.safeParse(v);
  if (r.success) return "OK";
  const e = validationError(r.error);
  return `${e.code} ${(e.details as { field: string }).field}`;
};

describe("modify body (integration API)", () => {
  it("by orderId or by clientKey, exactly one; price and quantity as decimal strings; validUntil optional", () => {
    expect(ModifyOrderBody.parse({ marketId: m, orderId: "42", price, quantity: "5" })).toEqual({ marketId: m, orderId: "42", price, quantity: "5" });
    expect(ModifyOrderBody.parse({ marketId: m, clientKey: key, price, quantity: "5", validUntil: 1893456000 })).toEqual({ marketId: m, clientKey: key, price, quantity: "5", validUntil: "1893456000" });
    expect(codeOf(ModifyOrderBody, { marketId: m, price, quantity: "5" })).toBe("VALIDATION_ERROR orderId");
    expect(codeOf(ModifyOrderBody, { marketId: m, orderId: "42", clientKey: key, price, quantity: "5" })).toBe("VALIDATION_ERROR orderId");
  });

  it("a zero price is INVALID_PRICE, a zero size, a negative or non-integer number, a bad key or market: VALIDATION_ERROR naming the field", () => {
    const ok = { marketId: m, orderId: "42", price, quantity: "5" };
    expect(codeOf(ModifyOrderBody, { ...ok, price: "0" })).toBe("INVALID_PRICE price");
    expect(codeOf(ModifyOrderBody, { ...ok, quantity: "0" })).toBe("VALIDATION_ERROR quantity");
    expect(codeOf(ModifyOrderBody, { ...ok, quantity: "-1" })).toBe("VALIDATION_ERROR quantity");
    expect(codeOf(ModifyOrderBody, { ...ok, quantity: 5 })).toBe("VALIDATION_ERROR quantity");
    expect(codeOf(ModifyOrderBody, { ...ok, price: "1.08" })).toBe("VALIDATION_ERROR price");
    expect(codeOf(ModifyOrderBody, { ...ok, orderId: "x" })).toBe("VALIDATION_ERROR orderId");
    expect(codeOf(ModifyOrderBody, { marketId: m, clientKey: "0x12", price, quantity: "5" })).toBe("VALIDATION_ERROR clientKey");
    expect(codeOf(ModifyOrderBody, { ...ok, marketId: "EUR/USD" })).toBe("VALIDATION_ERROR marketId");
    expect(codeOf(ModifyOrderBody, { ...ok, price: (2n ** 256n).toString() })).toBe("VALIDATION_ERROR price");
  });
});

describe("modify body (/v1)", () => {
  it("snake_case: order_id or client_key, exactly one", () => {
    expect(ModifyBody.parse({ market_id: m, order_id: "42", price, quantity: "5" })).toEqual({ market_id: m, order_id: "42", price, quantity: "5" });
    expect(ModifyBody.safeParse({ market_id: m, client_key: key, price, quantity: "5", valid_until: "1893456000" }).success).toBe(true);
    expect(ModifyBody.safeParse({ market_id: m, price, quantity: "5" }).success).toBe(false);
    expect(ModifyBody.safeParse({ market_id: m, order_id: "42", client_key: key, price, quantity: "5" }).success).toBe(false);
    expect(ModifyBody.safeParse({ market_id: m, order_id: "42", price: 1, quantity: "5" }).success).toBe(false);
  });
});

describe("modify result and relayer op", () => {
  it("the /v1 answer is the integration API's in snake_case; the op answers 200 and its 202 fields are the request's", () => {
    expect(Object.keys(ModifyOrderData.shape)).toEqual(expect.arrayContaining(["order_id", "client_key", "remaining_quantity", "margin_remaining", "from_price", "transaction_hash"]));
    expect(Object.keys(ModifyOrderResult.shape)).toEqual(expect.arrayContaining(["orderId", "clientKey", "remainingQuantity", "marginRemaining", "fromPrice"]));
    expect(SUCCESS_STATUS.modifyOrder).toBe(200);
    expect(OPS.modifyOrder.lane({ accountId: "7", marketId: m as `0x${string}`, orderId: "42", price, quantity: "5" })).toBe("account:7");
    expect(OPS.modifyOrder.pending({ accountId: "7", marketId: m as `0x${string}`, clientKey: key as `0x${string}`, price, quantity: "5" })).toMatchObject({
      orderId: null, clientKey: key, price, priceFormatted: "1.08", remainingQuantity: "5", marginRemaining: null,
    });
  });
});

describe("batch MODIFY items", () => {
  it("integration API: { action: MODIFY, ...the modify body }, its rules (exactly one name, positive price)", () => {
    const r = BatchOrdersBody.parse({ items: [{ action: "MODIFY", marketId: m, orderId: "7", price, quantity: "5" }, { action: "CANCEL", marketId: m, clientKey: key }] });
    expect(r.items[0]).toEqual({ action: "MODIFY", marketId: m, orderId: "7", price, quantity: "5" });
    expect(codeOf(BatchOrdersBody, { items: [{ action: "MODIFY", marketId: m, price, quantity: "5" }] })).toBe("VALIDATION_ERROR items.0.orderId");
    expect(codeOf(BatchOrdersBody, { items: [{ action: "MODIFY", marketId: m, clientKey: key, price: "0", quantity: "5" }] })).toBe("INVALID_PRICE items.0.price");
  });

  it("/v1: snake_case MODIFY items", () => {
    const g = BatchBody.parse({ items: [{ action: "MODIFY", market_id: m, client_key: key, price, quantity: "5" }] });
    expect(g.items[0]).toEqual({ action: "MODIFY", market_id: m, client_key: key, price, quantity: "5" });
    expect(BatchBody.safeParse({ items: [{ action: "MODIFY", market_id: m, price, quantity: "5" }] }).success).toBe(false);
  });
});
