/**
 * Position triggers (TriggerBook): the one side-of-the-mark rule and the LIMIT/MARKET rule
 * (core/triggers.ts), the integration API's bodies (core/schemas/writes.ts SetTriggerBody,
 * CancelTriggerBody), the gateway's snake_case ones (services/gateway/schemas.ts) and the
 * client's builder (packages/client buildTrigger): the same combinations refused everywhere.
 */
import { describe, expect, it } from "vitest";
import { TRIGGER_KIND_NAME, firesUp, triggerId, triggerKindValue, triggerOrderProblem, triggerSideProblem } from "../../core/triggers.js";
import { CancelTriggerBody, SetTriggerBody } from "../../core/schemas/writes.js";
import { validationError } from "../../core/schemas/validation.js";
import { SetTriggerBody as GatewaySetTriggerBody, CancelTriggerBody as GatewayCancelTriggerBody } from "../../services/gateway/schemas.js";
import { SetTriggerData } from "../../services/gateway/responses.js";
import { SUCCESS_STATUS } from "../../services/relayer/ops.js";
import { buildTrigger } from "../../packages/client/src/builders.js";

const m = "0x" + "ab".repeat(32);
const px = (s: string) => BigInt(Math.round(Number(s) * 1e6)) * 10n ** 12n;
const codeOf = (schema: { safeParse: (v: unknown) => any }, v: unknown) => {
  const r = schema.safeParse(v);
  if (r.success) return "OK";
  const e = validationError(r.error);
  return `${e.code} ${(e.details as { field: string }).field}`;
};

describe("the rules (core/triggers.ts)", () => {
  it("the enums in the contract's order; the row id", () => {
    expect(TRIGGER_KIND_NAME).toEqual(["TAKE_PROFIT", "STOP_LOSS"]);
    expect([triggerKindValue("TAKE_PROFIT"), triggerKindValue("STOP_LOSS")]).toEqual([0, 1]);
    expect(triggerId(7n, m.toUpperCase().replace("0X", "0x"), "STOP_LOSS")).toBe(`7-${m}-STOP_LOSS`);
  });

  it("a trigger lies strictly beyond the mark in the direction it fires (TriggerBook._firesUp)", () => {
    const mark = px("1.08");
    expect([firesUp("TAKE_PROFIT", "LONG"), firesUp("STOP_LOSS", "LONG"), firesUp("TAKE_PROFIT", "SHORT"), firesUp("STOP_LOSS", "SHORT")]).toEqual([true, false, false, true]);
    expect(triggerSideProblem("TAKE_PROFIT", "LONG", px("1.09"), mark)).toBeNull();
    expect(triggerSideProblem("TAKE_PROFIT", "LONG", mark, mark)).toMatch(/above the mark/);
    expect(triggerSideProblem("STOP_LOSS", "LONG", px("1.07"), mark)).toBeNull();
    expect(triggerSideProblem("STOP_LOSS", "LONG", px("1.09"), mark)).toMatch(/below the mark/);
    expect(triggerSideProblem("TAKE_PROFIT", "SHORT", px("1.07"), mark)).toBeNull();
    expect(triggerSideProblem("STOP_LOSS", "SHORT", px("1.07"), mark)).toMatch(/above the mark/);
    expect(triggerSideProblem("TAKE_PROFIT", "SHORT", 0n, mark)).toMatch(/above 0/);
  });

  it("a LIMIT carries its price, a MARKET none", () => {
    expect(triggerOrderProblem({ orderType: "MARKET" })).toBeNull();
    expect(triggerOrderProblem({ orderType: "LIMIT", limitPrice: "1" })).toBeNull();
    expect(triggerOrderProblem({ orderType: "LIMIT" })?.field).toBe("limitPrice");
    expect(triggerOrderProblem({ orderType: "LIMIT", limitPrice: "0" })?.field).toBe("limitPrice");
    expect(triggerOrderProblem({ orderType: "MARKET", limitPrice: "1" })?.field).toBe("limitPrice");
  });
});

describe("the bodies of both surfaces", () => {
  const tp = "1090000000000000000";
  it("integration API: kind and orderType by name, prices as decimal strings, oco optional; the bad combinations name their field", () => {
    expect(SetTriggerBody.parse({ marketId: m, kind: "TAKE_PROFIT", triggerPrice: tp, orderType: "MARKET", oco: true })).toEqual({ marketId: m, kind: "TAKE_PROFIT", triggerPrice: tp, orderType: "MARKET", oco: true });
    expect(codeOf(SetTriggerBody, { marketId: m, kind: "STOP_LOSS", triggerPrice: tp, orderType: "LIMIT", limitPrice: tp })).toBe("OK");
    expect(codeOf(SetTriggerBody, { marketId: m, kind: "STOP_LOSS", triggerPrice: tp, orderType: "LIMIT" })).toBe("VALIDATION_ERROR limitPrice");
    expect(codeOf(SetTriggerBody, { marketId: m, kind: "STOP_LOSS", triggerPrice: tp, orderType: "MARKET", limitPrice: tp })).toBe("VALIDATION_ERROR limitPrice");
    expect(codeOf(SetTriggerBody, { marketId: m, kind: "TRAILING", triggerPrice: tp, orderType: "MARKET" })).toBe("VALIDATION_ERROR kind");
    expect(codeOf(SetTriggerBody, { marketId: m, kind: "TAKE_PROFIT", triggerPrice: "0", orderType: "MARKET" })).toBe("VALIDATION_ERROR triggerPrice");
    expect(codeOf(SetTriggerBody, { marketId: m, kind: "TAKE_PROFIT", triggerPrice: "1.09", orderType: "MARKET" })).toBe("VALIDATION_ERROR triggerPrice");
    expect(codeOf(SetTriggerBody, { marketId: m, kind: "TAKE_PROFIT", triggerPrice: tp, orderType: "MARKET", oco: "yes" })).toBe("VALIDATION_ERROR oco");
    expect(codeOf(CancelTriggerBody, { marketId: m, kind: "STOP_LOSS" })).toBe("OK");
    expect(codeOf(CancelTriggerBody, { marketId: m })).toBe("VALIDATION_ERROR kind");
  });

  it("/v1: snake_case, order_type 0/1, the same refusals", () => {
    expect(GatewaySetTriggerBody.parse({ market_id: m, kind: "TAKE_PROFIT", trigger_price: tp, order_type: "1", limit_price: tp })).toMatchObject({ order_type: 1, limit_price: tp });
    expect(GatewaySetTriggerBody.safeParse({ market_id: m, kind: "TAKE_PROFIT", trigger_price: tp, order_type: 1 }).success).toBe(false);
    expect(GatewaySetTriggerBody.safeParse({ market_id: m, kind: "TAKE_PROFIT", trigger_price: tp, order_type: 0, limit_price: tp }).success).toBe(false);
    expect(GatewaySetTriggerBody.safeParse({ market_id: m, kind: "TAKE_PROFIT", trigger_price: "0", order_type: 0 }).success).toBe(false);
    expect(GatewayCancelTriggerBody.safeParse({ market_id: m, kind: "STOP_LOSS" }).success).toBe(true);
    expect(Object.keys((SetTriggerData as any).shape)).toEqual(expect.arrayContaining(["trigger_id", "trigger_price", "end_reason", "order_id", "transaction_hash"]));
    expect([SUCCESS_STATUS.setTrigger, SUCCESS_STATUS.cancelTrigger]).toEqual([200, 200]);
  });

  it("the client's builder refuses the same before sending (and a LIMIT off the tick)", () => {
    const market = { tickSize: "10000000000000" } as never;
    expect(buildTrigger({ marketId: m as never, kind: "STOP_LOSS", triggerPrice: 10n ** 18n, type: "LIMIT", limitPrice: 10n ** 18n, oco: true }, market)).toEqual({
      marketId: m, kind: "STOP_LOSS", triggerPrice: "1000000000000000000", orderType: "LIMIT", limitPrice: "1000000000000000000", oco: true,
    });
    expect(() => buildTrigger({ marketId: m as never, kind: "STOP_LOSS", triggerPrice: 10n ** 18n, type: "LIMIT" }, market)).toThrow(/limitPrice/);
    expect(() => buildTrigger({ marketId: m as never, kind: "STOP_LOSS", triggerPrice: 10n ** 18n, type: "MARKET", limitPrice: 1n }, market)).toThrow(/limitPrice/);
    expect(() => buildTrigger({ marketId: m as never, kind: "STOP_LOSS", triggerPrice: 10n ** 18n, type: "LIMIT", limitPrice: 10n ** 18n + 1n }, market)).toThrow(/tick/);
    expect(() => buildTrigger({ marketId: m as never, kind: "X" as never, triggerPrice: 10n ** 18n, type: "MARKET" }, market)).toThrow(/kind/);
  });
});
