/**
 * Response `data` of every write (for the OpenAPI documents; the relayer builds them from the
 * receipt's logs). Amounts are decimal strings: 6 decimals for deposit-token amounts, 18 for
 * margin (WAD), sizes and prices. Every write also answers requestId, transactionHash,
 * transactionStatus (CONFIRMED once mined) and blockNumber; a write not mined within
 * WRITE_TIMEOUT_MS answers 202 with `PendingWrite`.
 */
import { z } from "@hono/zod-openapi";

const Dec = (description: string) => z.string().openapi({ description });
const Hex32 = z.string().openapi({ example: "0x" + "ab".repeat(32) });
const Addr = z.string().openapi({ example: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });

const TxFields = {
  requestId: z.string().openapi({ description: "id of the write; GET /transactions/{requestId}" }),
  transactionHash: Hex32.openapi({ description: "hash of the mined transaction" }),
  transactionStatus: z.enum(["CONFIRMED"]).openapi({ description: "CONFIRMED: mined and succeeded" }),
  blockNumber: z.int().openapi({ description: "block that includes the transaction" }),
};

export const PendingWrite = z
  .object({
    requestId: z.string(),
    transactionHash: Hex32.nullable().openapi({ description: "current hash (changes when the fee is bumped); null until signed" }),
    transactionStatus: z.enum(["PENDING"]),
  })
  .openapi("PendingWrite");

export const OperatorApprovalResult = z
  .object({ owner: Addr, operator: Addr, expiry: z.int(), expiryISO: z.string(), ...TxFields })
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
    kind: z.string().openapi({ description: "createAccount, deposit, withdraw, placeOrder, cancelOrder, closePosition, liquidatePosition, liquidateAccount, approveOperator" }),
    transactionStatus: z.enum(["PENDING", "CONFIRMED", "REVERTED", "FAILED"]).openapi({
      description: "PENDING until mined; CONFIRMED; REVERTED (mined, reverted); FAILED (refused before sending: nothing sent)",
    }),
    transactionHash: Hex32.nullable(),
    blockNumber: z.int().nullable(),
    nonce: z.int().nullable(),
    transactionHashes: z.array(Hex32).openapi({ description: "every signed attempt (fee bumps add one)" }),
    result: z.any().nullable().openapi({ description: "the write's response data once CONFIRMED" }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    httpStatus: z.int().nullable(),
    createdAtISO: z.string(),
    updatedAtISO: z.string(),
  })
  .openapi("TransactionStatus");

export const OperatorTypedData = z
  .object({
    domain: z.object({ name: z.string(), version: z.string(), chainId: z.int(), verifyingContract: Addr }),
    types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
    primaryType: z.literal("OperatorApproval"),
    message: z.object({ owner: Addr, operator: Addr, expiry: z.string(), nonce: z.string(), deadline: z.string() }),
  })
  .openapi("OperatorTypedData", { description: "EIP-712 typed data to sign with eth_signTypedData_v4" });
