/**
 * Market v2 write schemas: the dead-man deadline, cancel-all and batch bodies of the integration
 * API (core/schemas/writes.ts) and the gateway's snake_case ones (services/gateway/schemas.ts),
 * and the relayer's dead-man check before queueing.
 */
import { describe, expect, it } from "vitest";
import { BatchOrdersBody, CancelAllBody, DeadmanBody, MAX_BATCH_ITEMS } from "../../core/schemas/writes.js";
import { validationError } from "../../core/schemas/validation.js";
import { BatchBody, CancelAllBody as GwCancelAllBody, DeadmanBody as GwDeadmanBody } from "../../services/gateway/schemas.js";
import { assertDeadman, OPS, type BatchItemParams } from "../../services/relayer/ops.js";
import { ApiError } from "../../core/errors.js";

const m = "0x" + "ab".repeat(32);
const key = "0x" + "cd".repeat(32);
const place = { action: "PLACE", marketId: m, collateralAmount: "100", side: "LONG", leverage: 5, orderType: "LIMIT", limitPrice: "1080000000000000000" };
const codeOf = (schema: { safeParse: (v: unknown) => any }, v: unknown) => {
  const r = schema.safeParse(v);
  if (r.success) return "OK";
  const e = validationError(r.error);
  return `${e.code} ${(e.details as { field: string }).field}`;
};

describe("dead-man and cancel-all bodies", () => {
  it("deadline: unix seconds as an integer or a decimal string, 0 = off; validUntil optional", () => {
    expect(DeadmanBody.parse({ deadline: 0 })).toEqual({ deadline: "0" });
    expect(DeadmanBody.parse({ deadline: "1893456000", validUntil: 1893456000 })).toEqual({ deadline: "1893456000", validUntil: "1893456000" });
    expect(codeOf(DeadmanBody, {})).toBe("VALIDATION_ERROR deadline");
    expect(codeOf(DeadmanBody, { deadline: -1 })).toBe("VALIDATION_ERROR deadline");
    expect(codeOf(DeadmanBody, { deadline: "soon" })).toBe("VALIDATION_ERROR deadline");
    expect(codeOf(DeadmanBody, { deadline: (2n ** 64n).toString() })).toBe("VALIDATION_ERROR deadline");
    expect(GwDeadmanBody.safeParse({ deadline: "0" }).success).toBe(true);
    expect(GwDeadmanBody.safeParse({ deadline: 5 }).success).toBe(false);
  });

  it("the relayer's check: 0 or at least the chain's time + 5 s, else DEADMAN_TOO_SOON (400)", () => {
    const chain = { nowSeconds: () => 1_000n };
    expect(() => assertDeadman(chain, "0")).not.toThrow();
    expect(() => assertDeadman(chain, "1005")).not.toThrow();
    for (const d of ["1004", "999", "1"]) {
      try {
        assertDeadman(chain, d);
        expect.unreachable(d);
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        expect([(e as ApiError).code, (e as ApiError).status]).toEqual(["DEADMAN_TOO_SOON", 400]);
      }
    }
  });

  it("cancel-all: marketId optional, a bytes32", () => {
    expect(codeOf(CancelAllBody, {})).toBe("OK");
    expect(codeOf(CancelAllBody, { marketId: m })).toBe("OK");
    expect(codeOf(CancelAllBody, { marketId: "0x12" })).toBe("VALIDATION_ERROR marketId");
    expect(GwCancelAllBody.safeParse({ market_id: m }).success).toBe(true);
    expect(GwCancelAllBody.safeParse({ market_id: "EUR" }).success).toBe(false);
  });
});

describe("batch body", () => {
  it("places take the place-order body (its rules too); cancels a clientKey or an orderId", () => {
    const r = BatchOrdersBody.parse({ items: [place, { action: "CANCEL", marketId: m, clientKey: key }, { action: "CANCEL", marketId: m, orderId: "7" }], atomic: true });
    expect(r.atomic).toBe(true);
    expect(r.items[0]).toMatchObject({ action: "PLACE", marketId: m, orderType: "LIMIT", leverage: 5 });
    expect(r.items[1]).toEqual({ action: "CANCEL", marketId: m, clientKey: key });
    expect(r.items[2]).toEqual({ action: "CANCEL", marketId: m, orderId: "7" });
    expect(codeOf(BatchOrdersBody, { items: [{ ...place, leverage: 0 }] })).toBe("EXCEEDS_MAX_LEVERAGE items.0.leverage");
    expect(codeOf(BatchOrdersBody, { items: [{ ...place, limitPrice: undefined }] })).toBe("VALIDATION_ERROR items.0.limitPrice");
    expect(codeOf(BatchOrdersBody, { items: [place, { action: "CANCEL", marketId: m }] })).toBe("VALIDATION_ERROR items.1.clientKey");
    expect(codeOf(BatchOrdersBody, { items: [{ action: "CANCEL", marketId: m, clientKey: key, orderId: "1" }] })).toBe("VALIDATION_ERROR items.0.clientKey");
    expect(codeOf(BatchOrdersBody, { items: [{ action: "MOVE" }] })).toBe("VALIDATION_ERROR items.0.action");
    expect(codeOf(BatchOrdersBody, { items: [] })).toBe("VALIDATION_ERROR items");
    expect(codeOf(BatchOrdersBody, { items: [place], atomic: "yes" })).toBe("VALIDATION_ERROR atomic");
  });

  it(`at most ${MAX_BATCH_ITEMS} items: BATCH_TOO_LARGE (400)`, () => {
    expect(codeOf(BatchOrdersBody, { items: Array(MAX_BATCH_ITEMS).fill(place) })).toBe("OK");
    expect(codeOf(BatchOrdersBody, { items: Array(MAX_BATCH_ITEMS + 1).fill(place) })).toBe("BATCH_TOO_LARGE items");
    expect(validationError(BatchOrdersBody.safeParse({ items: Array(33).fill(place) }).error!).status).toBe(400);
  });

  it("gateway: snake_case items, the trade body's rules for places", () => {
    const g = BatchBody.parse({
      items: [
        { action: "PLACE", market_id: m, collateral: "100", side: 0, leverage: "5", order_type: 1, limit_price: "1" },
        { action: "CANCEL", market_id: m, order_id: "3" },
      ],
    });
    expect(g.items[0]).toMatchObject({ action: "PLACE", side: 0, leverage: 5, order_type: 1 });
    expect(g.items[1]).toEqual({ action: "CANCEL", market_id: m, order_id: "3" });
    expect(BatchBody.safeParse({ items: [{ action: "PLACE", market_id: m, collateral: "100", side: 0, leverage: 5, order_type: 1 }] }).success).toBe(false);
    expect(BatchBody.safeParse({ items: [{ action: "CANCEL", market_id: m }] }).success).toBe(false);
  });
});

describe("a write's default lifetime", () => {
  const item = (orderType: "MARKET" | "LIMIT"): BatchItemParams => ({
    action: "PLACE", accountId: "1", marketId: m as `0x${string}`, collateralAmount: "100", side: "LONG", leverage: 5, orderType, clientKey: m as `0x${string}`,
  } as BatchItemParams);
  const cancel: BatchItemParams = { action: "CANCEL", accountId: "1", marketId: m as `0x${string}`, orderId: "3" };
  it("a batch with a MARKET placement is as short-lived as that order sent alone; one of LIMIT places and cancels is not", () => {
    const urgent = (items: BatchItemParams[]) => OPS.batchOrders.urgent?.({ accountId: "1", atomic: false, items }) ?? false;
    expect(OPS.placeOrder.urgent?.({ ...item("MARKET") } as never)).toBe(true);
    expect(urgent([cancel, item("MARKET")])).toBe(true);
    expect(urgent([item("LIMIT"), cancel])).toBe(false);
  });
});
