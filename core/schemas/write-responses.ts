/**
 * Response `data` of every write (for the OpenAPI documents; the relayer builds them from the
 * receipt's logs). Amounts are decimal strings: 6 decimals for deposit-token amounts, 18 for
 * margin (WAD), sizes and prices. Every write also answers requestId, transactionHash,
 * transactionStatus (CONFIRMED once mined) and blockNumber; a write not mined within
 * WRITE_TIMEOUT_MS answers 202 with the route's `pendingOf` schema: every field known before
 * mining (amounts, clientKey, side, ...) and the rest null.
 */
import { z } from "@hono/zod-openapi";
import { TRANSACTION_STATUS } from "./writes.js";
import { TIME_IN_FORCE_NAME } from "../order-options.js";
import { TRIGGER_KIND_NAME } from "../triggers.js";
import { Trigger } from "./reads.js";

const Dec = (description: string) => z.string().openapi({ description });
const Hex32 = z.string().openapi({ example: "0x" + "ab".repeat(32) });
const Addr = z.string().openapi({ example: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });

const TxFields = {
  requestId: z.string().openapi({ description: "id of the write; GET /transactions/{requestId}" }),
  transactionHash: Hex32.openapi({ description: "hash of the mined transaction" }),
  transactionStatus: z.enum(["CONFIRMED"]).openapi({ description: "CONFIRMED: mined and succeeded" }),
  blockNumber: z.int().openapi({ description: "block that includes the transaction" }),
  confirmations: z.int().openapi({ description: "blocks from the including one to the head, counting it (1 at inclusion: the answer never waits for more)" }),
  final: z.boolean().openapi({ description: "confirmations ≥ CONFIRMATIONS (set per profile). Until then a reorg may undo the block: the write then goes REORGED and is sent again" }),
};

const PendingFields = {
  requestId: z.string().openapi({ description: "id of the write; GET /transactions/{requestId}, POST /transactions/{requestId}/cancel" }),
  transactionHash: Hex32.nullable().openapi({ description: "current hash (changes when the fee is bumped); null until signed" }),
  transactionStatus: z.enum(["PENDING"]),
  blockNumber: z.null(),
  validUntil: z.int().nullable().openapi({ description: "unix seconds: not mined by then, the write is replaced by a no-op and ends EXPIRED" }),
};

/**
 * The 202 of a write: the fields of its result, those known before mining filled (amounts,
 * clientKey, side, marketId, orderType...), the others null until mined.
 */
export function pendingOf<T extends z.ZodRawShape>(result: z.ZodObject<T>, name: string) {
  const nullable = Object.fromEntries(Object.entries(result.shape).map(([k, v]) => [k, (v as z.ZodType).nullable()]));
  return z
    .object({ ...nullable, ...PendingFields })
    .openapi(name, { description: "not mined yet: the fields known before mining, the rest null; follow GET /transactions/{requestId}" });
}

export const OperatorApprovalResult = z
  .object({
    owner: Addr, operator: Addr, expiry: z.int(), expiryISO: z.string(),
    maxLeverage: z.int().openapi({ description: "the policy signed with the approval: the highest leverage of an order the relayer opens" }),
    bandBps: z.int().openapi({ description: "how far from the mark (bps) the relayer may price and fill orders (each market caps it at its operatorBandBps)" }),
    budgetBps: z.int().openapi({ description: "what the relayer's orders may cost beyond the mark plus fees, bps of the account's value per rolling 24 h" }),
    ...TxFields,
  })
  .openapi("OperatorApprovalResult");

export const CreateAccountResult = z
  .object({
    accountId: z.int().openapi({ example: 1 }),
    accountAddress: Addr,
    owner: Addr,
    ...TxFields,
    operatorApproval: z.any().optional().openapi({ description: "result of the operator approval sent with the request, if any" }),
  })
  .openapi("CreateAccountResult");

export const DepositResult = z
  .object({
    accountId: z.int(),
    depositedAmount: Dec("deposit-token units (6 decimals)"),
    depositedAmountFormatted: Dec("exact decimal"),
    newAvailableMargin: Dec("available margin after the deposit, WAD (18 decimals)"),
    newAvailableMarginFormatted: Dec("exact decimal"),
    ...TxFields,
  })
  .openapi("DepositResult");

export const WithdrawResult = z
  .object({
    accountId: z.int(),
    withdrawnAmount: Dec("deposit-token units (6 decimals)"),
    withdrawnAmountFormatted: Dec("exact decimal"),
    newAvailableMargin: Dec("available margin after the withdrawal, WAD (18 decimals)"),
    newAvailableMarginFormatted: Dec("exact decimal"),
    ...TxFields,
  })
  .openapi("WithdrawResult");

export const PositionMarginResult = z
  .object({
    accountId: z.int(),
    marketId: Hex32,
    action: z.enum(["ADD", "REMOVE"]),
    amount: Dec("deposit-token units (6 decimals) moved"),
    amountFormatted: Dec("exact decimal"),
    positionMargin: Dec("the position's margin after the move (pending funding settled), WAD (18 decimals)"),
    positionMarginFormatted: Dec("exact decimal"),
    newAvailableMargin: Dec("available margin after the move, WAD (18 decimals)"),
    newAvailableMarginFormatted: Dec("exact decimal"),
    ...TxFields,
  })
  .openapi("PositionMarginResult");

const OrderFields = {
  clientKey: Hex32,
  orderId: Dec("on-chain order id, unique venue-wide"),
  marketId: Hex32,
  size: Dec("order quantity, base units with 18 decimals"),
  sizeFormatted: Dec("exact decimal"),
  orderType: z.enum(["MARKET", "LIMIT"]),
  status: z.enum(["PLACED"]),
  price: Dec("limit price, or the sizing price of a MARKET order (18 decimals)"),
  priceFormatted: Dec("exact decimal"),
  filledQuantity: Dec("filled in this transaction (18 decimals)"),
  filledQuantityFormatted: Dec("exact decimal"),
  orderStatus: z.enum(["active", "filled", "cancelled"]).openapi({ description: "the order after this transaction" }),
  timeInForce: z.enum(TIME_IN_FORCE_NAME).openapi({ description: "the time in force the market applied (a MARKET order's GTC is IOC; a close: IOC for MARKET, GTC for LIMIT)" }),
  reduceOnly: z.boolean().openapi({ description: "the order only reduces the position (collateral 0, reduceOnly: true, or a close)" }),
  expiresAt: z.int().nullable().openapi({ description: "a good-til-time order's expiry (unix seconds); null: none" }),
};

export const PlaceOrderResult = z
  .object({ ...OrderFields, side: z.enum(["LONG", "SHORT"]), ...TxFields })
  .openapi("PlaceOrderResult");

export const ClosePositionResult = z
  .object({ ...OrderFields, closingSide: z.enum(["LONG", "SHORT"]), ...TxFields })
  .openapi("ClosePositionResult");

export const CancelOrderResult = z
  .object({
    clientKey: Hex32,
    orderId: Dec("on-chain order id"),
    marketId: Hex32,
    marginReturned: Dec("margin returned to available, WAD"),
    marginReturnedFormatted: Dec("exact decimal"),
    cancelledQuantity: Dec("18 decimals"),
    filledQuantity: Dec("18 decimals"),
    ...TxFields,
  })
  .openapi("CancelOrderResult");

export const TransactionStatusResult = z
  .object({
    requestId: z.string(),
    kind: z.string().openapi({ description: "createAccount, deposit, withdraw, placeOrder, cancelOrder, modifyOrder, closePosition, adjustMargin, liquidatePosition, liquidateAccount, approveOperator, setDeadman, cancelAll, batchOrders, setTrigger, cancelTrigger" }),
    transactionStatus: z.enum(TRANSACTION_STATUS).openapi({
      description:
        "PENDING until mined; CONFIRMED; REVERTED (mined, reverted); FAILED (refused before sending: nothing sent); EXPIRED (validUntil passed: nothing sent, or its nonce went to a no-op that was mined); CANCELLED (the same, at the caller's request); REORGED (it was mined, then its block left the canonical chain: the same signed transaction is sent again at the same nonce, then PENDING and mined again, or past validUntil its no-op; blockNumber and result follow the new block)",
    }),
    transactionHash: Hex32.nullable(),
    blockNumber: z.int().nullable(),
    confirmations: z.int().openapi({ description: "as of the latest head, counting the including block; 0 until mined" }),
    final: z.boolean().openapi({ description: "confirmations ≥ CONFIRMATIONS (set per profile)" }),
    reorgs: z.int().openapi({ description: "times its block left the canonical chain (each time REORGED, then sent again)" }),
    nonce: z.int().nullable(),
    transactionHashes: z.array(Hex32).openapi({ description: "every signed attempt (fee bumps add one)" }),
    result: z.any().nullable().openapi({ description: "the write's response data once CONFIRMED; while PENDING, the fields known before mining (the rest null)" }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    httpStatus: z.int().nullable(),
    validUntil: z.int().nullable().openapi({ description: "unix seconds" }),
    validUntilISO: z.string().nullable(),
    cancelRequested: z.boolean().openapi({ description: "the caller asked to cancel (the nonce goes to a no-op)" }),
    createdAtISO: z.string(),
    updatedAtISO: z.string(),
  })
  .openapi("TransactionStatus");

export const OperatorTypedData = z
  .object({
    domain: z.object({ name: z.string(), version: z.string(), chainId: z.int(), verifyingContract: Addr }),
    types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
    primaryType: z.literal("OperatorApproval"),
    message: z.object({
      owner: Addr, operator: Addr, expiry: z.string(),
      maxLeverage: z.int().openapi({ description: "the policy this approval sets, shown by the wallet before signing (defaults 10, 100, 100: core/operator-policy.ts)" }),
      bandBps: z.int(), budgetBps: z.int(), nonce: z.string(), deadline: z.string(),
    }),
  })
  .openapi("OperatorTypedData", { description: "EIP-712 typed data to sign with eth_signTypedData_v4" });

// ─── Market v2: dead-man switch, cancel-all, batch ───────────────────────────────────────────

export const DeadmanResult = z
  .object({
    accountId: z.int(),
    deadline: z.int().openapi({ description: "unix seconds (chain time); 0: the switch is off" }),
    deadlineISO: z.string().nullable().openapi({ description: "`deadline` as ISO 8601 UTC; null when off" }),
    enabled: z.boolean().openapi({ description: "a deadline is set: past it anyone (the keeper) may cancel every open order of the account (CloseReason DEADMAN)" }),
    ...TxFields,
  })
  .openapi("DeadmanResult");

export const CancelAllResult = z
  .object({
    accountId: z.int(),
    marketId: Hex32.nullable().openapi({ description: "the market asked for; null: every market" }),
    cancelled: z.int().openapi({ description: "orders cancelled, every market" }),
    marginReturned: Dec("margin returned to available, WAD, every market"),
    marginReturnedFormatted: Dec("exact decimal"),
    markets: z.array(
      z.object({
        marketId: Hex32.nullable(),
        cancelled: z.int(),
        marginReturned: Dec("WAD"),
        marginReturnedFormatted: Dec("exact decimal"),
        orderIds: z.array(Dec("on-chain order id")),
      }),
    ).openapi({ description: "per market: the orders cancelled (ids that had filled or closed meanwhile are skipped)" }),
    ...TxFields,
  })
  .openapi("CancelAllResult");

export const BatchItemResult = z
  .object({
    index: z.int(),
    action: z.enum(["PLACE", "CANCEL", "MODIFY"]),
    status: z.enum(["OK", "FAILED", "UNKNOWN"]).openapi({ description: "OK: the item ran (its single write's result fields follow); FAILED: it reverted (code and message: what its single write would answer); UNKNOWN: the node has no call tracer to tell" }),
    code: z.string().optional().openapi({ description: "FAILED: the error code its single write would answer (docs/ERRORS.md)" }),
    message: z.string().optional(),
  })
  .catchall(z.unknown())
  .openapi("BatchItemResult");

export const BatchOrdersResult = z
  .object({
    accountId: z.int(),
    atomic: z.boolean(),
    items: z.array(BatchItemResult),
    succeeded: z.int(),
    failed: z.int(),
    ...TxFields,
  })
  .openapi("BatchOrdersResult");

// ─── Market v2: modify ───────────────────────────────────────────────────────────────────────

export const ModifyOrderResult = z
  .object({
    orderId: Dec("on-chain order id (kept)"),
    clientKey: Hex32.nullable().openapi({ description: "the key the request named the order by; null when it named the id" }),
    marketId: Hex32,
    price: Dec("the order's price now, 18 decimals"),
    priceFormatted: Dec("exact decimal"),
    originalQuantity: Dec("filled so far + the new remaining size, 18 decimals"),
    originalQuantityFormatted: Dec("exact decimal"),
    remainingQuantity: Dec("the new remaining size, 18 decimals"),
    remainingQuantityFormatted: Dec("exact decimal"),
    marginRemaining: Dec("the order's margin now, WAD: ceil(margin × new notional / old notional), the difference committed or released"),
    marginRemainingFormatted: Dec("exact decimal"),
    fromPrice: Dec("the price it had, 18 decimals"),
    fromPriceFormatted: Dec("exact decimal"),
    ...TxFields,
  })
  .openapi("ModifyOrderResult");

// ─── Market v2: position triggers ──────────────────────────────────────────────────────────────

/** The trigger as set (its TriggerSet): the fields of GET /accounts/{accountId}/triggers' Trigger, status active. */
export const SetTriggerResult = Trigger.extend(TxFields).openapi("SetTriggerResult");

export const CancelTriggerResult = z
  .object({
    accountId: z.int(),
    marketId: Hex32,
    kind: z.enum(TRIGGER_KIND_NAME),
    endReason: z.literal("CANCELLED").openapi({ description: "its TriggerRemoved's reason" }),
    ...TxFields,
  })
  .openapi("CancelTriggerResult");
