import { describe, expect, it } from "vitest";
import { AmountBody, CreateAccountBody, LiquidateAccountBody, LiquidatePositionBody, PlaceOrderBody, ClosePositionBody, UINT256_MAX } from "../../core/schemas/writes.js";
import { validationError } from "../../core/schemas/validation.js";

const m = "0x" + "ab".repeat(32);
const order = { marketId: m, collateralAmount: "100", side: "LONG", leverage: 5, orderType: "MARKET" };
const codeOf = (schema: { safeParse: (v: unknown) => any }, v: unknown) => {
  const r = schema.safeParse(v);
  if (r.success) return "OK";
  const e = validationError(r.error);
  return `${e.code} ${(e.details as { field: string }).field}`;
};

describe("write schemas", () => {
  it("amounts: integer strings up to uint256, 0 is INVALID_AMOUNT", () => {
    expect(codeOf(AmountBody, { amount: "1" })).toBe("OK");
    expect(codeOf(AmountBody, { amount: UINT256_MAX.toString() })).toBe("OK");
    expect(codeOf(AmountBody, { amount: (UINT256_MAX + 1n).toString() })).toBe("VALIDATION_ERROR amount");
    expect(codeOf(AmountBody, { amount: "0" })).toBe("INVALID_AMOUNT amount");
    expect(codeOf(AmountBody, { amount: "1.5" })).toBe("VALIDATION_ERROR amount");
    expect(codeOf(AmountBody, { amount: "-1" })).toBe("VALIDATION_ERROR amount");
    expect(codeOf(AmountBody, { amount: "1e6" })).toBe("VALIDATION_ERROR amount");
    expect(codeOf(AmountBody, { amount: 1000 })).toBe("VALIDATION_ERROR amount");
    expect(codeOf(AmountBody, { amount: "" })).toBe("VALIDATION_ERROR amount");
    expect(codeOf(AmountBody, {})).toBe("VALIDATION_ERROR amount");
    expect(codeOf(AmountBody, null)).toBe("VALIDATION_ERROR body");
  });

  it("liquidations: a position may be the insurance fund's (account 0); an account liquidation may not", () => {
    expect(codeOf(LiquidatePositionBody, { accountId: 0, marketId: m })).toBe("OK");
    expect(codeOf(LiquidatePositionBody, { accountId: "0", marketId: m })).toBe("OK");
    expect(codeOf(LiquidatePositionBody, { accountId: 7, marketId: m })).toBe("OK");
    expect(codeOf(LiquidatePositionBody, { accountId: -1, marketId: m })).toBe("VALIDATION_ERROR accountId");
    expect(codeOf(LiquidatePositionBody, { accountId: "00", marketId: m })).toBe("VALIDATION_ERROR accountId");
    expect(codeOf(LiquidatePositionBody, { accountId: 1.5, marketId: m })).toBe("VALIDATION_ERROR accountId");
    expect(codeOf(LiquidateAccountBody, { accountId: 0 })).toBe("VALIDATION_ERROR accountId");
    expect(codeOf(LiquidateAccountBody, { accountId: 3 })).toBe("OK");
  });

  it("orders: enums, leverage, limitPrice for LIMIT, clientKey", () => {
    expect(codeOf(PlaceOrderBody, order)).toBe("OK");
    expect(codeOf(PlaceOrderBody, { ...order, collateralAmount: "0" })).toBe("OK"); // reduce-only
    expect(codeOf(PlaceOrderBody, { ...order, leverage: 0 })).toBe("EXCEEDS_MAX_LEVERAGE leverage");
    expect(codeOf(PlaceOrderBody, { ...order, leverage: 1.5 })).toBe("VALIDATION_ERROR leverage");
    expect(codeOf(PlaceOrderBody, { ...order, leverage: "5" })).toBe("VALIDATION_ERROR leverage");
    expect(codeOf(PlaceOrderBody, { ...order, leverage: -1 })).toBe("VALIDATION_ERROR leverage");
    expect(codeOf(PlaceOrderBody, { ...order, side: "BUY" })).toBe("VALIDATION_ERROR side");
    expect(codeOf(PlaceOrderBody, { ...order, side: 0 })).toBe("VALIDATION_ERROR side");
    expect(codeOf(PlaceOrderBody, { ...order, orderType: "STOP" })).toBe("VALIDATION_ERROR orderType");
    expect(codeOf(PlaceOrderBody, { ...order, orderType: "LIMIT" })).toBe("VALIDATION_ERROR limitPrice");
    expect(codeOf(PlaceOrderBody, { ...order, orderType: "LIMIT", limitPrice: "1.08" })).toBe("VALIDATION_ERROR limitPrice");
    expect(codeOf(PlaceOrderBody, { ...order, orderType: "LIMIT", limitPrice: "1080000000000000000" })).toBe("OK");
    expect(codeOf(PlaceOrderBody, { ...order, marketId: "0x1234" })).toBe("VALIDATION_ERROR marketId");
    expect(codeOf(PlaceOrderBody, { ...order, clientKey: "abc" })).toBe("VALIDATION_ERROR clientKey");
    expect(codeOf(PlaceOrderBody, { ...order, clientKey: "0x" + "01".repeat(32) })).toBe("OK");
    expect(codeOf(ClosePositionBody, { orderType: "LIMIT" })).toBe("VALIDATION_ERROR limitPrice");
    expect(codeOf(ClosePositionBody, { orderType: "MARKET" })).toBe("OK");
  });

  it("create account: address and the optional approval", () => {
    const a = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    expect(codeOf(CreateAccountBody, { userAddress: a })).toBe("OK");
    expect(codeOf(CreateAccountBody, { userAddress: a.toLowerCase() })).toBe("OK");
    expect(codeOf(CreateAccountBody, { userAddress: "0x123" })).toBe("VALIDATION_ERROR userAddress");
    expect(codeOf(CreateAccountBody, { userAddress: a, operatorApproval: { expiry: 1, deadline: 2, signature: "0x00" } })).toBe(
      "VALIDATION_ERROR operatorApproval.signature",
    );
  });
});
