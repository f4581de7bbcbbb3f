/**
 * Request schemas of every write, shared by the integration API, the relayer and the gateway
 * (after it translates snake_case). They only check shape: integer strings, uint256 bounds,
 * bytes32, enums. Where the spec names a code for a value (amount "0" → INVALID_AMOUNT,
 * leverage 0 → EXCEEDS_MAX_LEVERAGE) the issue carries `params.code`, and `validationError()`
 * (./validation.ts) answers that code instead of VALIDATION_ERROR.
 * Amounts stay decimal strings here; `toBigInt` converts them where they are used.
 */
import { z } from "@hono/zod-openapi";
import { DEFAULT_OPERATOR_POLICY, OPERATOR_POLICY_LIMITS, OPERATOR_POLICY_TEXT, type OperatorPolicy } from "../operator-policy.js";
import { isAddress } from "viem";
import { TRIGGER_KIND_NAME, TRIGGER_KIND_TEXT, triggerOrderProblem } from "../triggers.js";
import { EXPIRES_AT_TEXT, MAX_EXPIRES_AT, REDUCE_ONLY_TEXT, TIME_IN_FORCE_NAME, TIME_IN_FORCE_TEXT, orderOptionsProblem } from "../order-options.js";

export const UINT256_MAX = 2n ** 256n - 1n;

const UINT_RE = /^\d{1,78}$/;
/** A non-negative integer decimal string no larger than uint256. */
export const isUintString = (v: string) => UINT_RE.test(v) && BigInt(v) <= UINT256_MAX;

const uintString = (what: string) =>
  z
    .string()
    .refine(isUintString, { message: `must be a non-negative integer string (${what}, at most uint256)` });

/** Deposit token amount, 6 decimals, > 0 ("0" → INVALID_AMOUNT). */
export const Amount6 = uintString("base units of the deposit token, 6 decimals")
  .refine((v) => !isUintString(v) || BigInt(v) > 0n, {
    message: "amount must be greater than 0",
    params: { code: "INVALID_AMOUNT" },
  })
  .openapi({ description: "Deposit-token base units (6 decimals), > 0", example: "1000000000" });

/** Collateral of an order, 6 decimals; 0 = reduce-only order for the whole position. */
export const Collateral6 = uintString("base units of the deposit token, 6 decimals").openapi({
  description: "Deposit-token base units (6 decimals); 0 places a reduce-only order for the whole position",
  example: "100000000",
});

export const PriceX18 = uintString("price with 18 decimals").openapi({
  description: "Price with 18 decimals",
  example: "1080000000000000000",
});

export const Address = z
  .string()
  .refine((v) => isAddress(v, { strict: false }), { message: "must be a 0x-prefixed 20-byte hex address" })
  .openapi({ description: "Wallet address", example: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });

export const Bytes32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, { message: "must be a 0x-prefixed 32-byte hex string" })
  .openapi({ example: "0x" + "ab".repeat(32) });

export const MarketId = Bytes32.openapi({ description: "keccak256 of the market symbol, e.g. EUR/USD" });
export const ClientKey = Bytes32.openapi({ description: "Client order key (bytes32), unique per account and market while open" });

export const Side = z.enum(["LONG", "SHORT"]).openapi({ description: "LONG (0) or SHORT (1)" });
export const OrderType = z.enum(["MARKET", "LIMIT"]).openapi({ description: "MARKET (0) or LIMIT (1)" });
/** IMarket.TimeInForce by name (core/order-options.ts); absent: GTC. */
export const TimeInForce = z.enum(TIME_IN_FORCE_NAME).openapi({ description: TIME_IN_FORCE_TEXT });
export const ReduceOnly = z.boolean({ message: "must be a boolean" }).openapi({ description: REDUCE_ONLY_TEXT });
/** A good-til-time order's expiry: unix seconds (JSON integer or decimal string), > 0, fits the market's 40 bits; after now is checked against the chain. */
export const ExpiresAt = z
  .union([z.int().positive(), z.string().regex(/^[1-9]\d{0,19}$/)], { message: "must be a positive integer (unix seconds)" })
  .transform((v) => String(v))
  .refine((v) => BigInt(v) <= MAX_EXPIRES_AT, { message: `must be at most ${MAX_EXPIRES_AT} (unix seconds)` })
  .openapi({ type: "integer", description: EXPIRES_AT_TEXT, example: 1893456000 });

/** Leverage: a JSON integer; 0 → EXCEEDS_MAX_LEVERAGE, above the market maximum is checked against the chain. */
export const Leverage = z
  .int({ message: "must be an integer" })
  .nonnegative({ message: "must be an integer from 1 to the market's maximum" })
  .refine((v) => v !== 0, {
    message: "leverage must be between 1 and the market's maximum",
    params: { code: "EXCEEDS_MAX_LEVERAGE" },
  })
  .openapi({ description: "1 to the market's maxLeverage (at most 50)", example: 10 });

/** Account id from a path or a body: positive integer (JSON number or decimal string). */
export const AccountIdParam = z
  .string()
  .regex(/^[1-9]\d{0,77}$/, { message: "must be a positive integer" })
  .refine(isUintString, { message: "must be at most uint256" })
  .openapi({ param: { name: "accountId", in: "path" }, example: "1" });

const AccountIdBody = z
  .union([z.int().positive(), z.string().regex(/^[1-9]\d{0,77}$/).refine(isUintString)], {
    message: "must be a positive integer",
  })
  .transform((v) => String(v))
  .openapi({ type: "integer", example: 1 });

/** Seconds (JSON integer or decimal string) that fit uint64. */
const Seconds = z
  .union([z.int().nonnegative(), z.string().regex(/^\d{1,20}$/)], { message: "must be an integer (seconds)" })
  .transform((v) => String(v))
  .refine((v) => BigInt(v) < 2n ** 64n, { message: "must fit uint64" })
  .openapi({ type: "integer", example: 1893456000 });

/**
 * validUntil of a write (unix seconds): not mined by then, its nonce is replaced by a no-op and
 * it ends EXPIRED (not signed by then: nothing is sent). Default 60 s for MARKET orders and closes,
 * 600 s for the rest (VALID_FOR_MARKET_S, VALID_FOR_OTHER_S); at most one day ahead.
 */
export const ValidUntil = Seconds.optional().openapi({
  type: "integer",
  description: "unix seconds; not mined by then, the write is replaced by a no-op and ends EXPIRED (default: now + 60 s for MARKET orders and closes, + 600 s otherwise; at most one day ahead)",
  example: 1893456000,
});

const Signature = z
  .string()
  .regex(/^0x[0-9a-fA-F]{130}$/, { message: "must be a 65-byte hex signature" })
  .openapi({ example: "0x" + "00".repeat(65) });

/** One policy field (JSON integer or decimal string), default the conservative one (core/operator-policy.ts). */
const policyField = (name: keyof OperatorPolicy) => {
  const { min, max } = OPERATOR_POLICY_LIMITS[name];
  return z
    .union([z.int(), z.string().regex(/^\d{1,5}$/)], { message: `${name} must be an integer` })
    .transform(Number)
    .pipe(z.number().min(min, `${name} must be ${min} .. ${max}`).max(max, `${name} must be ${min} .. ${max}`))
    .optional()
    .openapi({ type: "integer", description: `${OPERATOR_POLICY_TEXT[name]}; default ${DEFAULT_OPERATOR_POLICY[name]}`, example: DEFAULT_OPERATOR_POLICY[name] });
};

/** The operator policy's fields (signed with the approval; docs/CONTRACTS.md "Operators"). */
export const OperatorPolicyFields = {
  maxLeverage: policyField("maxLeverage"),
  bandBps: policyField("bandBps"),
  budgetBps: policyField("budgetBps"),
};

/** The policy of a request: its fields, the defaults for those it leaves out. */
export function policyOf(p: Partial<OperatorPolicy>): OperatorPolicy {
  return {
    maxLeverage: p.maxLeverage ?? DEFAULT_OPERATOR_POLICY.maxLeverage,
    bandBps: p.bandBps ?? DEFAULT_OPERATOR_POLICY.bandBps,
    budgetBps: p.budgetBps ?? DEFAULT_OPERATOR_POLICY.budgetBps,
  };
}

export const OperatorApproval = z
  .strictObject({ expiry: Seconds, deadline: Seconds, ...OperatorPolicyFields, signature: Signature })
  .openapi("OperatorApprovalSignature", {
    description: "The owner's EIP-712 OperatorApproval signature (see GET /operators/typed-data)",
  });

// ─── bodies ──────────────────────────────────────────────────────────────────────────────────

export const CreateAccountBody = z
  .object({ userAddress: Address, operatorApproval: OperatorApproval.optional(), validUntil: ValidUntil })
  .openapi("CreateAccountRequest");

export const AmountBody = z.object({ amount: Amount6, validUntil: ValidUntil }).openapi("AmountRequest");

export const MarginAction = z.enum(["ADD", "REMOVE"]).openapi({
  description: "ADD: available margin into the position; REMOVE: back to available margin, only what exceeds initial margin at the mark (an unrealized loss counts, an unrealized profit is not removable)",
});
export const PositionMarginBody = z
  .object({ action: MarginAction, amount: Amount6, validUntil: ValidUntil })
  .openapi("PositionMarginRequest");

export const PlaceOrderBody = z
  .object({
    marketId: MarketId,
    collateralAmount: Collateral6,
    side: Side,
    leverage: Leverage,
    orderType: OrderType,
    limitPrice: PriceX18.optional(),
    clientKey: ClientKey.optional(),
    timeInForce: TimeInForce.optional(),
    reduceOnly: ReduceOnly.optional(),
    expiresAt: ExpiresAt.optional(),
    validUntil: ValidUntil,
  })
  .superRefine((b, ctx) => {
    if (b.orderType === "LIMIT" && b.limitPrice === undefined)
      ctx.addIssue({ code: "custom", path: ["limitPrice"], message: "limitPrice is required for a LIMIT order" });
    const bad = orderOptionsProblem(b);
    if (bad) ctx.addIssue({ code: "custom", path: [bad.field], message: bad.message });
  })
  .openapi("PlaceOrderRequest");

export const ClosePositionBody = z
  .object({ orderType: OrderType, limitPrice: PriceX18.optional(), clientKey: ClientKey.optional(), validUntil: ValidUntil })
  .superRefine((b, ctx) => {
    if (b.orderType === "LIMIT" && b.limitPrice === undefined)
      ctx.addIssue({ code: "custom", path: ["limitPrice"], message: "limitPrice is required for a LIMIT order" });
  })
  .openapi("ClosePositionRequest");

export const CancelOrderQuery = z.object({
  marketId: MarketId.openapi({ param: { name: "marketId", in: "query", required: true } }),
  validUntil: ValidUntil.openapi({ param: { name: "validUntil", in: "query" } }),
});

/** A position to liquidate may be the insurance fund's own (account 0 of every market). */
const LiquidatedAccountIdBody = z
  .union([z.int().nonnegative(), z.string().regex(/^(0|[1-9]\d{0,77})$/).refine(isUintString)], {
    message: "must be a non-negative integer (0: the insurance fund's position)",
  })
  .transform((v) => String(v))
  .openapi({ type: "integer", example: 1 });

export const LiquidatePositionBody = z
  .object({
    accountId: LiquidatedAccountIdBody,
    marketId: MarketId,
    adlCandidates: z
      .array(z.string().regex(/^\d{1,20}$/))
      .max(64)
      .optional()
      .openapi({ description: "Accounts auto-deleveraging may close if the book and the insurance fund cannot take the position (at most 64, any order: the market ranks them). Absent: accounts 0..256" }),
    validUntil: ValidUntil,
  })
  .openapi("LiquidatePositionRequest");
export const LiquidateAccountBody = z.object({ accountId: AccountIdBody, validUntil: ValidUntil }).openapi("LiquidateAccountRequest");

export const OperatorTypedDataQuery = z.object({
  maxLeverage: OperatorPolicyFields.maxLeverage.openapi({ param: { name: "maxLeverage", in: "query" } }),
  bandBps: OperatorPolicyFields.bandBps.openapi({ param: { name: "bandBps", in: "query" } }),
  budgetBps: OperatorPolicyFields.budgetBps.openapi({ param: { name: "budgetBps", in: "query" } }),
  owner: Address.openapi({ param: { name: "owner", in: "query", required: true } }),
  expiry: Seconds.optional().openapi({ param: { name: "expiry", in: "query" }, description: "approval expiry (s); default now + 365 days" }),
  deadline: Seconds.optional().openapi({ param: { name: "deadline", in: "query" }, description: "signature deadline (s); default now + 1 hour" }),
});

export const OperatorApproveBody = z
  .object({
    owner: Address, operator: Address.optional(), expiry: Seconds, deadline: Seconds, ...OperatorPolicyFields, signature: Signature,
    validUntil: ValidUntil,
  })
  .openapi("OperatorApproveRequest");

export type CreateAccountInput = z.infer<typeof CreateAccountBody>;
export type AmountInput = z.infer<typeof AmountBody>;
export type PlaceOrderInput = z.infer<typeof PlaceOrderBody>;
export type ClosePositionInput = z.infer<typeof ClosePositionBody>;
export type LiquidatePositionInput = z.infer<typeof LiquidatePositionBody>;
export type LiquidateAccountInput = z.infer<typeof LiquidateAccountBody>;
export type OperatorApproveInput = z.infer<typeof OperatorApproveBody>;

/** Contract enum values. */
export const SIDE_VALUE = { LONG: 0, SHORT: 1 } as const;
export const ORDER_TYPE_VALUE = { MARKET: 0, LIMIT: 1 } as const;
export const SIDE_NAME = ["LONG", "SHORT"] as const;
export const ORDER_TYPE_NAME = ["MARKET", "LIMIT"] as const;
/** IMarket.CloseReason, in its enum order (the value is the index). */
export const CLOSE_REASON_NAME = [
  "FILLED", "USER_CANCEL", "UNFILLED_MARKET", "REDUCE_ONLY_EXPIRED", "FILL_CAP", "LIQUIDATION", "DUST", "MARGIN",
  "REDUCE_ONLY_SESSION", "OPERATOR_BAND", "UNFILLED_IOC", "EXPIRED", "DEADMAN",
] as const;
export const closeReasonValue = (name: (typeof CLOSE_REASON_NAME)[number]): number => CLOSE_REASON_NAME.indexOf(name);

/**
 * Transaction states of a write as GET /transactions/{requestId} answers them: PENDING until
 * mined; CONFIRMED; REVERTED (mined, reverted); FAILED (refused before sending); EXPIRED /
 * CANCELLED (nothing sent, or its nonce went to a no-op); REORGED (it was mined, the chain
 * rewound: its same signed transaction is being sent again, then PENDING and mined again).
 */
export const TRANSACTION_STATUS = ["PENDING", "REORGED", "CONFIRMED", "REVERTED", "FAILED", "EXPIRED", "CANCELLED"] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUS)[number];

// ─── Market v2: dead-man switch, cancel-all, batch ───────────────────────────────────────────

/** Engine.MAX_BATCH: items of one Engine.batch, order ids of one Engine.cancelOrders. */
export const MAX_BATCH_ITEMS = 32;
/** Engine.MIN_DEADMAN_DELAY: a dead-man deadline is 0 (off) or at least this far after the chain's time. */
export const MIN_DEADMAN_DELAY_S = 5;

/**
 * POST /accounts/{accountId}/deadman: the account's dead-man deadline, absolute unix seconds
 * (chain time), 0 = off. Past it anyone (the keeper) may cancel every open order of the account
 * (CloseReason DEADMAN); a client that stays alive sends a later deadline before it passes.
 */
export const DeadmanBody = z
  .object({
    deadline: Seconds.openapi({
      type: "integer",
      description: "unix seconds (chain time): 0 turns the switch off, else at least now + 5 s (DEADMAN_TOO_SOON otherwise)",
      example: 1893456000,
    }),
    validUntil: ValidUntil,
  })
  .openapi("DeadmanRequest");

/** POST /accounts/{accountId}/orders/cancel-all: every open order of the account, or of one market. */
export const CancelAllBody = z
  .object({
    marketId: MarketId.optional().openapi({ description: "only this market's open orders (default: every market)" }),
    validUntil: ValidUntil,
  })
  .openapi("CancelAllRequest");

const OrderIdString = uintString("order id").openapi({ description: "On-chain order id (decimal string)", example: "42" });

/**
 * A refinement: exactly one of two optional fields is given (an order named by its id or by its
 * client key, on both surfaces); the issue is reported on the first.
 */
export const exactlyOneOf =
  <A extends string, B extends string>(a: A, b: B) =>
  (v: Partial<Record<A | B, unknown>>, ctx: z.RefinementCtx) => {
    if ((v[a] === undefined) === (v[b] === undefined)) ctx.addIssue({ code: "custom", path: [a], message: `exactly one of ${a} and ${b} is required` });
  };

/** A batch's cancel: by clientKey or by orderId (exactly one). */
export const BatchCancelItem = z
  .object({ marketId: MarketId, clientKey: ClientKey.optional(), orderId: OrderIdString.optional() })
  .superRefine(exactlyOneOf("clientKey", "orderId"))
  .openapi("BatchCancelItem");

// ─── Market v2: modify ───────────────────────────────────────────────────────────────────────

/**
 * POST /accounts/{accountId}/orders/modify: a resting order's new price and remaining size in
 * place (Engine.modifyOrder), by orderId or by clientKey (exactly one). It never matches: a price
 * at or beyond the best opposite one is 409 POST_ONLY_WOULD_CROSS.
 */
export const ModifyOrderBody = z
  .object({
    marketId: MarketId,
    orderId: OrderIdString.optional(),
    clientKey: ClientKey.optional(),
    price: PriceX18.refine((v) => !isUintString(v) || BigInt(v) > 0n, { message: "price must be greater than 0", params: { code: "INVALID_PRICE" } }).openapi({
      description: "The new limit price, 18 decimals: on the tick, inside the band (else 400 INVALID_PRICE), not crossing the best opposite price (else 409 POST_ONLY_WOULD_CROSS)",
      example: "1080000000000000000",
    }),
    quantity: uintString("base units, 18 decimals")
      .refine((v) => !isUintString(v) || BigInt(v) > 0n, { message: "quantity must be greater than 0 (to remove the order, cancel it)" })
      .openapi({
        description: "The new remaining size (base units, 18 decimals): a multiple of the lot, at least the market's minimum (else 400 ORDER_TOO_SMALL; a reduce-only order: any). A smaller size at the same price keeps the order's place in its level; anything else moves it to the level's tail. Its margin follows the notional",
        example: "50000000000000000000",
      }),
    validUntil: ValidUntil,
  })
  .superRefine(exactlyOneOf("orderId", "clientKey"))
  .openapi("ModifyOrderRequest");
export type ModifyOrderInput = z.infer<typeof ModifyOrderBody>;

/**
 * One item of a batch: `{ action: "PLACE", ...PlaceOrderRequest }` (the place-order body, its
 * validUntil ignored: the batch's counts), `{ action: "CANCEL", marketId, clientKey | orderId }`
 * or `{ action: "MODIFY", ...ModifyOrderRequest }` (its validUntil ignored too).
 */
export const BatchItem = z
  .looseObject({ action: z.enum(["PLACE", "CANCEL", "MODIFY"]) })
  .transform((v, ctx) => {
    const r = v.action === "PLACE" ? PlaceOrderBody.safeParse(v) : v.action === "MODIFY" ? ModifyOrderBody.safeParse(v) : BatchCancelItem.safeParse(v);
    if (!r.success) {
      for (const i of r.error.issues)
        ctx.addIssue({ code: "custom", message: i.message, path: i.path as PropertyKey[], params: (i as { params?: Record<string, unknown> }).params });
      return z.NEVER;
    }
    return v.action === "PLACE"
      ? { action: "PLACE" as const, ...(r.data as PlaceOrderInput) }
      : v.action === "MODIFY"
        ? { action: "MODIFY" as const, ...(r.data as z.infer<typeof ModifyOrderBody>) }
        : { action: "CANCEL" as const, ...(r.data as z.infer<typeof BatchCancelItem>) };
  })
  .openapi({
    description: "{ action: \"PLACE\", ...PlaceOrderRequest }, { action: \"CANCEL\", marketId, clientKey | orderId } or { action: \"MODIFY\", marketId, orderId | clientKey, price, quantity }",
    example: { action: "CANCEL", marketId: "0x" + "ab".repeat(32), clientKey: "0x" + "cd".repeat(32) },
  });

export const BatchOrdersBody = z
  .object({
    items: z
      .array(BatchItem)
      .min(1, { message: "at least one item" })
      .refine((a) => a.length <= MAX_BATCH_ITEMS, { message: `at most ${MAX_BATCH_ITEMS} items`, params: { code: "BATCH_TOO_LARGE" } })
      .openapi({ description: `1 to ${MAX_BATCH_ITEMS} items, run in order in one Engine.batch transaction` }),
    atomic: z.boolean().optional().openapi({
      description: "true: all or nothing (the first failing item's error answers, as its single write would); false (default): each item succeeds or fails on its own",
    }),
    validUntil: ValidUntil,
  })
  .openapi("BatchOrdersRequest");

export type BatchItemInput = z.infer<typeof BatchItem>;
export type BatchOrdersInput = z.infer<typeof BatchOrdersBody>;

// ─── Market v2: position triggers (take-profit, stop-loss; TriggerBook) ───────────────────────

/** ITriggerBook.TriggerKind by name (core/triggers.ts). */
export const TriggerKind = z.enum(TRIGGER_KIND_NAME).openapi({ description: TRIGGER_KIND_TEXT });

/**
 * POST /accounts/{accountId}/triggers: set (or replace) the take-profit or stop-loss of the
 * account's position in a market (TriggerBook.setTrigger; docs/CONTRACTS.md "Triggers"). The
 * trigger price must lie beyond the mark in the direction it fires (else 400 VALIDATION_ERROR on
 * triggerPrice, nothing sent); no position: 404 NO_POSITION.
 */
export const SetTriggerBody = z
  .object({
    marketId: MarketId,
    kind: TriggerKind,
    triggerPrice: PriceX18.openapi({
      description: "The mark price at which it fires, 18 decimals, > 0: a long's take-profit above the mark, its stop-loss below; a short's the other way (else 400 VALIDATION_ERROR, nothing sent)",
      example: "1090000000000000000",
    }),
    orderType: OrderType.openapi({ description: "The order it places when it fires, a reduce-only close of the whole position: MARKET (IOC within the market's band) or LIMIT at limitPrice (GTC)" }),
    limitPrice: PriceX18.optional().openapi({ description: "LIMIT only (required there, absent for MARKET): the close's price, 18 decimals, on the market's tick (else 400 INVALID_PRICE)", example: "1089000000000000000" }),
    oco: z.boolean({ message: "must be a boolean" }).optional().openapi({ description: "One cancels other (default false): when this fires, the position's other trigger is removed if it is oco too (TWIN_FIRED)" }),
    validUntil: ValidUntil,
  })
  .superRefine((b, ctx) => {
    if (b.triggerPrice !== undefined && isUintString(b.triggerPrice) && BigInt(b.triggerPrice) === 0n)
      ctx.addIssue({ code: "custom", path: ["triggerPrice"], message: "must be greater than 0" });
    const bad = b.orderType === undefined ? null : triggerOrderProblem(b);
    if (bad) ctx.addIssue({ code: "custom", path: [bad.field], message: bad.message });
  })
  .openapi("SetTriggerRequest");
export type SetTriggerInput = z.infer<typeof SetTriggerBody>;

/** POST /accounts/{accountId}/triggers/cancel: remove the take-profit or stop-loss of the account's position in a market (TriggerBook.cancelTrigger). */
export const CancelTriggerBody = z
  .object({ marketId: MarketId, kind: TriggerKind, validUntil: ValidUntil })
  .openapi("CancelTriggerRequest");
