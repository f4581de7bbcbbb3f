/**
 * The gateway's request schemas: each parameter declared once, validating requests and feeding
 * the OpenAPI document. Wire types: `side`, `leverage`, `order_type` are integers, sent as JSON
 * integers or their decimal strings alike (the spec: integer-like values travel as strings);
 * amounts and prices are decimal strings; ids and keys are hex strings.
 */
import { z } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { ApiError } from "../../core/errors.js";
import { errorEnvelope } from "../../core/schemas/envelope.js";
import { DEFAULT_OPERATOR_POLICY, OPERATOR_POLICY_LIMITS, OPERATOR_POLICY_TEXT } from "../../core/operator-policy.js";
import { orderOptionsProblem } from "../../core/order-options.js";
import { TRIGGER_STATUS, triggerOrderProblem } from "../../core/triggers.js";
import * as W from "../../core/schemas/writes.js";

const UINT256_MAX = 2n ** 256n - 1n;
// zod runs every check even after the regex failed: only compare digits (the regex reports the rest).
const fitsUint256 = (s: string) => !/^\d+$/.test(s) || BigInt(s) <= UINT256_MAX;

/** A non-negative integer as a decimal string, at most uint256. */
export const uintString = (description: string, example = "1000000") =>
  z
    .string({ error: "expected a decimal integer string" })
    .regex(/^\d{1,78}$/, "expected a decimal integer string such as \"1000000\"")
    .refine(fitsUint256, "exceeds uint256")
    .openapi({ description, example });

export const bytes32 = (description: string, example = "0x" + "ab".repeat(32)) =>
  z
    .string({ error: "expected a 0x-prefixed 32-byte hex string" })
    .regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x-prefixed 32-byte hex string")
    .openapi({ description, example });

export const address = (description: string) =>
  z
    .string({ error: "expected a 0x-prefixed 20-byte address" })
    .regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x-prefixed 20-byte address")
    .openapi({ description, example: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" });

/** accountId in a path: decimal uint256 (accounts start at 1). */
const accountIdString = (name: string) =>
  z
    .string()
    .regex(/^\d{1,78}$/, "expected a decimal account id")
    .refine(fitsUint256, "exceeds uint256")
    .openapi({ param: { name, in: "path" }, example: "1", description: "account id (uint256, from 1)" });

export const IdParam = z.object({ id: accountIdString("id") });
export const AccountIdParam = z.object({ account_id: accountIdString("account_id") });

const marketIdPath = bytes32("market id: keccak256 of the symbol, e.g. keccak256(\"EUR/USD\")").openapi({
  param: { name: "market_id", in: "path" },
});
export const MarketIdParam = z.object({ market_id: marketIdPath });
export const AccountMarketParam = z.object({ account_id: accountIdString("account_id"), market_id: marketIdPath });
export const PositionIdParam = z.object({
  position_id: bytes32("keccak256(abi.encode(uint256 accountId, bytes32 marketId))").openapi({
    param: { name: "position_id", in: "path" },
  }),
});
export const AddressParam = z.object({
  address: address("wallet address").openapi({ param: { name: "address", in: "path" } }),
});
export const TransactionIdParam = z.object({
  id: z
    .string()
    .regex(/^[\w\-]{1,128}$/, "expected a request id")
    .openapi({ param: { name: "id", in: "path" }, description: "`request_id` of a 202 answer" }),
});

const minBlock = uintString("wait (bounded) until this block is indexed, to read your own writes", "123").optional();
export const ReadQuery = z.object({ min_block: minBlock });
export const OrderbookQuery = z.object({
  depth: z
    .string()
    .regex(/^\d{1,4}$/, "expected an integer")
    .optional()
    .openapi({ description: "price levels per side (default 10)", example: "10" }),
  min_block: minBlock,
});
export const OrdersQuery = z.object({
  market_id: bytes32("only orders of this market").optional(),
  status: z.enum(["active", "filled", "cancelled"]).optional().openapi({ description: "order status filter" }),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, "expected an integer from 1 to 1000")
    .refine((v) => Number(v) >= 1 && Number(v) <= 1000, "expected an integer from 1 to 1000")
    .optional()
    .openapi({ description: "orders per page, newest first (1 to 1000, default 100)", example: "100" }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,512}$/, "expected next_cursor of the previous page, unchanged")
    .optional()
    .openapi({ description: "next_cursor of the previous page (opaque): the orders after it" }),
  min_block: minBlock,
});

export const TriggersQuery = z.object({
  market_id: bytes32("only this market's triggers").optional(),
  status: z
    .enum([...TRIGGER_STATUS, "all"])
    .optional()
    .openapi({ description: "active (default): set and waiting; executed: fired; cancelled: ended without firing (end_reason); all" }),
  min_block: minBlock,
});

/** valid_until of a write (unix seconds); forwarded to the relayer as validUntil. */
const validUntil = uintString(
  "unix seconds: not mined by then, the write is replaced by a no-op and ends EXPIRED (default now + 60 s for MARKET orders and closes, + 600 s otherwise; at most one day ahead)",
  "1893456000",
).optional();

const SIDE = { 0: "LONG", 1: "SHORT" } as const;
const ORDER_TYPE = { 0: "MARKET", 1: "LIMIT" } as const;
export const sideName = (s: 0 | 1) => SIDE[s];
export const orderTypeName = (t: 0 | 1) => ORDER_TYPE[t];

/**
 * An integer-like field: a JSON integer or its decimal string (the spec: integer-like values may
 * travel as strings), so `0` and `"0"` are the same value; anything else is a 400 naming it.
 */
const intLike = (min: number, max: number, expected: string) =>
  z
    .union([z.number().int(), z.string().regex(/^\d{1,7}$/)], { error: `expected ${expected} (a JSON integer or its decimal string)` })
    .transform(Number)
    .pipe(z.number().min(min, `expected ${expected}`).max(max, `expected ${expected}`));

const intEnum = (description: string) =>
  intLike(0, 1, "0 or 1").openapi({ description, example: 0 }) as unknown as z.ZodType<0 | 1>;

/** The operator policy signed with the approval (core/operator-policy.ts; defaults when left out). */
const policyInt = (name: keyof typeof OPERATOR_POLICY_LIMITS) => {
  const { min, max } = OPERATOR_POLICY_LIMITS[name];
  return intLike(min, max, `${min} .. ${max}`)
    .optional()
    .openapi({ description: `${OPERATOR_POLICY_TEXT[name]}; default ${DEFAULT_OPERATOR_POLICY[name]}`, example: DEFAULT_OPERATOR_POLICY[name] });
};
const policyFields = () => ({ max_leverage: policyInt("maxLeverage"), band_bps: policyInt("bandBps"), budget_bps: policyInt("budgetBps") });
/** The relayer's (camelCase) policy fields of a request that carries them. */
export const policyParams = (b: { max_leverage?: number; band_bps?: number; budget_bps?: number }) => ({
  ...(b.max_leverage !== undefined ? { maxLeverage: b.max_leverage } : {}),
  ...(b.band_bps !== undefined ? { bandBps: b.band_bps } : {}),
  ...(b.budget_bps !== undefined ? { budgetBps: b.budget_bps } : {}),
});

export const CreateAccountBody = z
  .object({
    owner: address("wallet that will own the account: must be the API key's wallet"),
    operator_approval: z
      .object({
        expiry: uintString("operator approval expiry (unix seconds)", "1893456000"),
        deadline: uintString("signature deadline (unix seconds)", "1893456000"),
        ...policyFields(),
        signature: z.string().regex(/^0x[0-9a-fA-F]+$/, "expected a hex signature"),
      })
      .optional()
      .openapi({ description: "optional EIP-712 approval of the relayer as operator, signed by the owner" }),
    valid_until: validUntil,
  })
  .openapi("CreateAccountRequest");

export const AmountBody = z
  .object({ amount: uintString("deposit-token base units (6 decimals), greater than 0", "1000000000"), valid_until: validUntil })
  .openapi("AmountRequest");

export const PositionMarginBody = z
  .object({
    action: z.enum(["ADD", "REMOVE"]).openapi({ description: "ADD: available margin into the position; REMOVE: back to available margin, only what exceeds initial margin at the mark (an unrealized profit is not removable)" }),
    amount: uintString("deposit-token base units (6 decimals), greater than 0", "10000000"),
    valid_until: validUntil,
  })
  .openapi("PositionMarginRequest");

export const TradeBody = z
  .object({
    market_id: bytes32("market to trade"),
    collateral: uintString("collateral in deposit-token base units (6 decimals); 0 = reduce-only close", "100000000"),
    side: intEnum("0 = LONG, 1 = SHORT"),
    leverage: intLike(0, 1_000_000, "a non-negative integer up to 1000000").openapi({
      description: "leverage multiplier, 1 to the market's max_leverage (a JSON integer or its decimal string)",
      example: 5,
    }),
    order_type: intEnum("0 = MARKET, 1 = LIMIT"),
    limit_price: uintString("limit price, 18 decimals (required for LIMIT, ignored for MARKET)", "1085000000000000000").optional(),
    client_key: bytes32("optional client order id (made by the venue when absent)").optional(),
    // the order options (Market v2): the integration API's schemas (core/schemas/writes.ts), snake_case names
    time_in_force: W.TimeInForce.optional(),
    reduce_only: W.ReduceOnly.optional(),
    expires_at: W.ExpiresAt.optional(),
    valid_until: validUntil,
  })
  .superRefine((b, ctx) => {
    if (b.order_type === 1 && b.limit_price === undefined) {
      ctx.addIssue({ code: "custom", path: ["limit_price"], message: "required for LIMIT orders (order_type 1)" });
    }
    // the combinations that do not exist: one rule for both surfaces (core/order-options.ts)
    const bad = orderOptionsProblem({ orderType: orderTypeName(b.order_type), timeInForce: b.time_in_force, expiresAt: b.expires_at });
    if (bad) ctx.addIssue({ code: "custom", path: [bad.field === "timeInForce" ? "time_in_force" : "expires_at"], message: bad.message });
  })
  .openapi("TradeRequest");

export const CancelBody = z
  .object({
    market_id: bytes32("market of the order"),
    client_key: bytes32("client key of the open order"),
    valid_until: validUntil,
  })
  .openapi("CancelRequest");

/** A resting order's new price and remaining size (Market v2 modify): by order_id or client_key (exactly one). */
export const ModifyBody = z
  .object({
    market_id: bytes32("market of the order"),
    order_id: uintString("on-chain order id", "42").optional(),
    client_key: bytes32("client key of the open order").optional(),
    price: uintString("the new limit price, 18 decimals: on the tick, in the band (400 INVALID_PRICE), not crossing the best opposite price (409 POST_ONLY_WOULD_CROSS)", "1085000000000000000"),
    quantity: uintString("the new remaining size, 18 decimals: in lots, at least the minimum (400 ORDER_TOO_SMALL)", "50000000000000000000"),
    valid_until: validUntil,
  })
  .superRefine(W.exactlyOneOf("order_id", "client_key"))
  .openapi("ModifyRequest");

/** A position's take-profit or stop-loss (TriggerBook.setTrigger): kind by name, order_type 0 = MARKET, 1 = LIMIT. */
export const SetTriggerBody = z
  .object({
    market_id: bytes32("market of the position"),
    kind: W.TriggerKind,
    trigger_price: uintString("the mark price at which it fires, 18 decimals: a long's take-profit above the mark, its stop-loss below; a short's the other way (400 VALIDATION_ERROR otherwise, nothing sent)", "1090000000000000000"),
    order_type: intEnum("the order it places when it fires (a reduce-only close of the whole position): 0 = MARKET, 1 = LIMIT"),
    limit_price: uintString("LIMIT only (required there, absent for MARKET): the close's price, 18 decimals, on the tick (400 INVALID_PRICE)", "1089000000000000000").optional(),
    oco: z.boolean({ error: "expected a JSON boolean" }).optional().openapi({ description: "one cancels other (default false): when this fires, the position's other trigger is removed if it is oco too" }),
    valid_until: validUntil,
  })
  .superRefine((b, ctx) => {
    if (/^0+$/.test(b.trigger_price ?? "")) ctx.addIssue({ code: "custom", path: ["trigger_price"], message: "must be greater than 0" });
    // one rule for both surfaces (core/triggers.ts)
    const bad = b.order_type === undefined ? null : triggerOrderProblem({ orderType: orderTypeName(b.order_type), limitPrice: b.limit_price });
    if (bad) ctx.addIssue({ code: "custom", path: ["limit_price"], message: bad.message });
  })
  .openapi("SetTriggerRequest");

export const CancelTriggerBody = z
  .object({ market_id: bytes32("market of the position"), kind: W.TriggerKind, valid_until: validUntil })
  .openapi("CancelTriggerRequest");

export const CloseBody = z
  .object({
    order_type: intEnum("0 = MARKET (default), 1 = LIMIT").optional(),
    limit_price: uintString("limit price, 18 decimals (required for LIMIT)", "1085000000000000000").optional(),
    valid_until: validUntil,
  })
  .superRefine((b, ctx) => {
    if (b.order_type === 1 && b.limit_price === undefined) {
      ctx.addIssue({ code: "custom", path: ["limit_price"], message: "required for LIMIT orders (order_type 1)" });
    }
  })
  .openapi("CloseRequest");

// ─── Market v2: dead-man switch, cancel-all, batch ─────────────────────────────────────────────

export const DeadmanBody = z
  .object({
    deadline: uintString("unix seconds (chain time): 0 turns the switch off, else at least now + 5 s (DEADMAN_TOO_SOON otherwise)", "1893456000"),
    valid_until: validUntil,
  })
  .openapi("DeadmanRequest");

export const CancelAllBody = z
  .object({ market_id: bytes32("only this market's open orders (default: every market)").optional(), valid_until: validUntil })
  .openapi("CancelAllRequest");

const BatchCancel = z
  .object({
    market_id: bytes32("market of the order"),
    client_key: bytes32("client key of the open order").optional(),
    order_id: uintString("on-chain order id", "42").optional(),
  })
  .superRefine(W.exactlyOneOf("client_key", "order_id"));

/** `{ action: "PLACE", ...TradeRequest }`, `{ action: "CANCEL", market_id, client_key | order_id }` or `{ action: "MODIFY", ...ModifyRequest }`. */
export const BatchItem = z
  .looseObject({ action: z.enum(["PLACE", "CANCEL", "MODIFY"]) })
  .transform((v, ctx) => {
    const r = v.action === "PLACE" ? TradeBody.safeParse(v) : v.action === "MODIFY" ? ModifyBody.safeParse(v) : BatchCancel.safeParse(v);
    if (!r.success) {
      for (const i of r.error.issues) ctx.addIssue({ code: "custom", message: i.message, path: i.path as PropertyKey[] });
      return z.NEVER;
    }
    return v.action === "PLACE"
      ? { action: "PLACE" as const, ...(r.data as z.infer<typeof TradeBody>) }
      : v.action === "MODIFY"
        ? { action: "MODIFY" as const, ...(r.data as z.infer<typeof ModifyBody>) }
        : { action: "CANCEL" as const, ...(r.data as z.infer<typeof BatchCancel>) };
  })
  .openapi({ description: "{ action: \"PLACE\", ...TradeRequest }, { action: \"CANCEL\", market_id, client_key | order_id } or { action: \"MODIFY\", market_id, order_id | client_key, price, quantity }" });

export const BatchBody = z
  .object({
    items: z.array(BatchItem).min(1, "at least one item").openapi({ description: "1 to 32 items (more: 400 BATCH_TOO_LARGE, nothing sent), run in order in one transaction" }),
    atomic: z.boolean().optional().openapi({ description: "true: all or nothing (a failing item answers its error as its single write would); false (default): per-item results" }),
    valid_until: validUntil,
  })
  .openapi("BatchRequest");

export const TypedDataQuery = z.object({
  owner: address("owner whose approval is signed (default: the API key's wallet)").optional(),
  expiry: uintString("approval expiry (unix seconds)", "1893456000").optional(),
  deadline: uintString("signature deadline (unix seconds)", "1893456000").optional(),
  ...policyFields(),
});

export const ApproveBody = z
  .object({
    owner: address("the signing owner: must be the API key's wallet"),
    operator: address("operator to approve (default: the relayer)").optional(),
    expiry: uintString("approval expiry (unix seconds)", "1893456000"),
    deadline: uintString("signature deadline (unix seconds)", "1893456000"),
    ...policyFields(),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/, "expected a hex signature"),
    valid_until: validUntil,
  })
  .openapi("OperatorApprovalRequest");

export const CreateKeyBody = z.object({
  wallet: address("registered wallet the key acts for"),
  label: z.string().max(100).optional(),
});
export const KeyIdParam = z.object({
  key_id: z
    .string()
    .regex(/^key_[0-9a-f]{16}$/, "expected a key id such as key_0123456789abcdef")
    .openapi({ param: { name: "key_id", in: "path" } }),
});

/** Envelope schemas for the OpenAPI document (data: the integration API's, keys in snake_case). */
export const SuccessEnvelope = (name: string, description: string) =>
  z
    .object({ success: z.literal(true), data: z.record(z.string(), z.unknown()).openapi({ description }) })
    .openapi(name);
export const ErrorEnvelope = errorEnvelope("Error", { code: "VALIDATION_ERROR", message: "side: expected a JSON integer 0 or 1" });

/** Zod failure → 400 VALIDATION_ERROR naming each bad field. */
export function validationError(error: ZodError, target: string): ApiError {
  const parts = error.issues.slice(0, 5).map((i) => {
    const field = i.path.length ? i.path.join(".") : target === "json" ? "body" : target;
    return `${field}: ${i.message}`;
  });
  return new ApiError("VALIDATION_ERROR", parts.join("; "));
}
