/**
 * The integration API's write routes (spec: "Write endpoints"), plus operator approval and the
 * status of a write. Each is validated with the shared schemas (core/schemas/writes.ts), needs a
 * SIWE bearer token, and is forwarded to the relayer (core/relayer-client.ts) with the session's
 * wallet as the caller; the relayer's envelope and status are answered as they are.
 */
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { RequestIdVariables } from "hono/request-id";
import { ApiError } from "../errors.js";
import { bearerAuth, type BearerVariables } from "../auth/bearer.js";
import { secret } from "../profiles.js";
import { forwardToRelayer, relayerTargetFromEnv, type ForwardRequest } from "../relayer-client.js";
import { validationError } from "../schemas/validation.js";
import {
  AccountIdParam, AmountBody, ClientKey, ClosePositionBody, CreateAccountBody, MarketId, OperatorApproveBody,
  OperatorTypedDataQuery, PlaceOrderBody, PositionMarginBody, ValidUntil,
} from "../schemas/writes.js";
import {
  CancelOrderResult, ClosePositionResult, CreateAccountResult, DepositResult, OperatorApprovalResult, OperatorTypedData, PositionMarginResult,
  pendingOf, PlaceOrderResult, TransactionStatusResult, WithdrawResult,
} from "../schemas/write-responses.js";
import { BatchOrdersResult, CancelAllResult, CancelTriggerResult, DeadmanResult, ModifyOrderResult, SetTriggerResult } from "../schemas/write-responses.js";
import { BatchOrdersBody, CancelAllBody, CancelTriggerBody, DeadmanBody, ModifyOrderBody, SetTriggerBody } from "../schemas/writes.js";
import { errorResponse, makeOnError } from "./errors.js";
import { ErrorEnvelope } from "../schemas/envelope.js";

const onError = makeOnError();

type Env = { Variables: BearerVariables & RequestIdVariables };

export const writeRoutes = new OpenAPIHono<Env>({
  defaultHook: (result, c) => (result.success ? undefined : errorResponse(c, validationError(result.error))),
});
writeRoutes.onError(onError);

const signedIn = bearerAuth({ secret: () => secret("JWT_SECRET") });

// ─── OpenAPI pieces ───────────────────────────────────────────────────────────────────────────
const ok = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });
const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const err = (description: string) => ({ description, content: json(ErrorEnvelope) });
const IdempotencyHeaders = z.object({
  "idempotency-key": z.string().max(255).optional().openapi({
    description: "same key and body: the same result, nothing sent again (scoped to the caller); same key, other body: 409",
  }),
  "x-request-id": z.string().max(200).optional().openapi({ description: "carried to the relayer's logs" }),
});
const writeResponses = <T extends z.ZodRawShape>(status: 200 | 201, schema: z.ZodObject<T>, pendingName: string) => ({
  [status]: { description: "mined", content: json(ok(schema)) },
  202: {
    description: "not mined within WRITE_TIMEOUT_MS: the fields known before mining, the rest null; follow GET /transactions/{requestId}",
    content: json(ok(pendingOf(schema, pendingName))),
  },
  400: err("VALIDATION_ERROR (naming the field), INVALID_AMOUNT, EXCEEDS_MAX_LEVERAGE, INVALID_PRICE, ORDER_TOO_SMALL, ACCOUNT_EXISTS"),
  401: err("UNAUTHENTICATED: missing or expired bearer token"),
  403: err("UNAUTHORIZED (not the account owner), OPERATOR_NOT_APPROVED, NOT_REGISTERED (closed beta)"),
  404: err("ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND, ORDER_NOT_FOUND, NO_POSITION, TRIGGER_NOT_FOUND"),
  409: err("MARKET_NOT_ACTIVE, IDEMPOTENCY_CONFLICT, CLIENT_KEY_IN_USE, SELF_TRADE, NO_LIQUIDITY, POST_ONLY_WOULD_CROSS, FILL_OR_KILL_UNFILLED, EXPIRED (validUntil passed before it was mined), CANCELLED"),
  422: err("INSUFFICIENT_MARGIN, INSUFFICIENT_BALANCE, INSUFFICIENT_ALLOWANCE, REDUCE_ONLY_EXCEEDS_POSITION, TRANSACTION_REVERTED"),
  429: err("RATE_LIMITED: too many writes of this account or of the caller not mined yet (Retry-After)"),
  503: err("PRICE_STALE, RELAYER_OUT_OF_FUNDS (the relayer's signer is low on ether: nothing was queued), SERVICE_UNAVAILABLE (relayer down)"),
});
const AccountPath = z.object({ accountId: AccountIdParam });
const AccountMarketPath = z.object({ accountId: AccountIdParam, marketId: MarketId.openapi({ param: { name: "marketId", in: "path" } }) });
const security = [{ bearerAuth: [] }];

// ─── forwarding ───────────────────────────────────────────────────────────────────────────────
async function forward(c: Context<Env>, req: Omit<ForwardRequest, "caller" | "idempotencyKey" | "requestId">) {
  const { status, body } = await forwardToRelayer(relayerTargetFromEnv(process.env, secret("INTEGRATION_TOKEN")), {
    ...req,
    caller: c.get("wallet"),
    idempotencyKey: c.req.header("Idempotency-Key") ?? null,
    // the app's requestId middleware has replaced a client's id that is too long or not plain
    requestId: c.get("requestId") ?? null,
  });
  // The relayer's envelope as is (its schema is the route's; typed responses cannot express a pass-through).
  return c.json(body as object, status as 200) as never;
}

// ─── routes ───────────────────────────────────────────────────────────────────────────────────
writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Create the caller's account (one per wallet); optionally approve the relayer as operator in the same request",
    request: { headers: IdempotencyHeaders, body: { required: true, content: json(CreateAccountBody) } },
    responses: writeResponses(201, CreateAccountResult, "PendingCreateAccount"),
  }),
  async (c) => {
    const body = c.req.valid("json");
    if (body.userAddress.toLowerCase() !== c.get("wallet").toLowerCase())
      throw new ApiError("UNAUTHORIZED", "userAddress must be the signed-in wallet");
    return forward(c, { method: "POST", path: "/internal/accounts", body });
  },
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/deposit", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Deposit margin (the owner must have approved the engine for the deposit token)",
    request: { params: AccountPath, headers: IdempotencyHeaders, body: { required: true, content: json(AmountBody) } },
    responses: writeResponses(200, DepositResult, "PendingDeposit"),
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/accounts/${c.req.valid("param").accountId}/deposit`, body: c.req.valid("json") }),
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/withdraw", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Withdraw available margin to the owner",
    request: { params: AccountPath, headers: IdempotencyHeaders, body: { required: true, content: json(AmountBody) } },
    responses: writeResponses(200, WithdrawResult, "PendingWithdraw"),
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/accounts/${c.req.valid("param").accountId}/withdraw`, body: c.req.valid("json") }),
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/orders", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Place an order (clientKey optional: the server makes a random one)",
    request: { params: AccountPath, headers: IdempotencyHeaders, body: { required: true, content: json(PlaceOrderBody) } },
    responses: writeResponses(201, PlaceOrderResult, "PendingPlaceOrder"),
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/accounts/${c.req.valid("param").accountId}/orders`, body: c.req.valid("json") }),
);

writeRoutes.openapi(
  createRoute({
    method: "delete", path: "/accounts/{accountId}/orders/{clientKey}", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Cancel an open order by its client key",
    request: {
      params: z.object({ accountId: AccountIdParam, clientKey: ClientKey.openapi({ param: { name: "clientKey", in: "path" } }) }),
      query: z.object({
        marketId: MarketId.openapi({ param: { name: "marketId", in: "query", required: true } }),
        validUntil: ValidUntil.openapi({ param: { name: "validUntil", in: "query" } }),
      }),
      headers: IdempotencyHeaders,
    },
    responses: writeResponses(200, CancelOrderResult, "PendingCancelOrder"),
  }),
  async (c) => {
    const { accountId, clientKey } = c.req.valid("param");
    const { marketId, validUntil } = c.req.valid("query");
    const qs = new URLSearchParams({ marketId, ...(validUntil ? { validUntil } : {}) });
    return forward(c, { method: "DELETE", path: `/internal/accounts/${accountId}/orders/${clientKey}?${qs}` });
  },
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/positions/{marketId}/close", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Close the position: a reduce-only order on the opposite side with zero collateral",
    request: {
      params: AccountMarketPath,
      headers: IdempotencyHeaders,
      body: { required: true, content: json(ClosePositionBody) },
    },
    responses: writeResponses(201, ClosePositionResult, "PendingClosePosition"),
  }),
  async (c) => {
    const { accountId, marketId } = c.req.valid("param");
    return forward(c, { method: "POST", path: `/internal/accounts/${accountId}/positions/${marketId}/close`, body: c.req.valid("json") });
  },
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/positions/{marketId}/margin", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Add margin to a position from available margin, or remove what exceeds initial margin at the mark (isolated margin)",
    request: {
      params: AccountMarketPath,
      headers: IdempotencyHeaders,
      body: { required: true, content: json(PositionMarginBody) },
    },
    responses: writeResponses(200, PositionMarginResult, "PendingPositionMargin"),
  }),
  async (c) => {
    const { accountId, marketId } = c.req.valid("param");
    return forward(c, { method: "POST", path: `/internal/accounts/${accountId}/positions/${marketId}/margin`, body: c.req.valid("json") });
  },
);

// ─── Market v2: dead-man switch, cancel-all, batch ─────────────────────────────────────────────

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/deadman", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Set the account's dead-man deadline (0: off)",
    description:
      "`deadline`: unix seconds of the chain's clock, 0 (off) or at least now + 5 s (else 400 DEADMAN_TOO_SOON, nothing sent). Once it passes, anyone (the keeper) may cancel every open order of the account (CloseReason DEADMAN, margin back to available). A client that stays alive sends a later deadline before it passes.",
    request: { params: AccountPath, headers: IdempotencyHeaders, body: { required: true, content: json(DeadmanBody) } },
    responses: writeResponses(200, DeadmanResult, "PendingDeadman"),
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/accounts/${c.req.valid("param").accountId}/deadman`, body: c.req.valid("json") }),
);

// ─── Market v2: position triggers (TriggerBook; docs/CONTRACTS.md "Triggers") ─────────────────

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/triggers", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Set (or replace) the take-profit or stop-loss of the account's position in a market",
    description:
      "TriggerBook.setTrigger, sent by the relayer as the owner's operator. Once the mark reaches `triggerPrice` anyone (the venue's keeper) may fire it: it places the owner's reduce-only close of the whole position, MARKET or LIMIT at `limitPrice` (the relayer's operator band and budget apply then). One of each kind per market: setting it again replaces it. `oco`: when it fires, the other kind is removed if it is oco too. The trigger price on the wrong side of the mark (it would fire at once: a long's take-profit at or below it, its stop-loss at or above it; a short's the other way): 400 VALIDATION_ERROR naming triggerPrice; a LIMIT without limitPrice, a MARKET with one: 400 VALIDATION_ERROR naming limitPrice; a limit price off the tick: 400 INVALID_PRICE; no position: 404 NO_POSITION. Nothing is sent on any of them. Read them back with GET /accounts/{accountId}/triggers.",
    request: { params: AccountPath, headers: IdempotencyHeaders, body: { required: true, content: json(SetTriggerBody) } },
    responses: writeResponses(200, SetTriggerResult, "PendingSetTrigger"),
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/accounts/${c.req.valid("param").accountId}/triggers`, body: c.req.valid("json") }),
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/triggers/cancel", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Cancel the take-profit or stop-loss of the account's position in a market",
    description: "TriggerBook.cancelTrigger (its TriggerRemoved, CANCELLED). None set: 404 TRIGGER_NOT_FOUND, nothing sent.",
    request: { params: AccountPath, headers: IdempotencyHeaders, body: { required: true, content: json(CancelTriggerBody) } },
    responses: writeResponses(200, CancelTriggerResult, "PendingCancelTrigger"),
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/accounts/${c.req.valid("param").accountId}/triggers/cancel`, body: c.req.valid("json") }),
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/orders/modify", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Modify a resting order's price and remaining size in place (by orderId or clientKey)",
    description:
      "Engine.modifyOrder: the order keeps its id and key and never matches (a price at or beyond the best opposite one: 409 POST_ONLY_WOULD_CROSS, nothing changes). `quantity` is the new remaining size (filled + it = the order's original quantity). Only a smaller size at the same price keeps the order's place in its level; anything else moves it to the tail of its new level. Its margin follows its notional (ceil(margin × new / old)), the difference committed or released. Not the account's open order (filled, cancelled, expired, another account's): 404 ORDER_NOT_FOUND. Off the tick or outside the band: 400 INVALID_PRICE; below the minimum: 400 ORDER_TOO_SMALL; not in lots: 400 VALIDATION_ERROR, nothing sent.",
    request: { params: AccountPath, headers: IdempotencyHeaders, body: { required: true, content: json(ModifyOrderBody) } },
    responses: writeResponses(200, ModifyOrderResult, "PendingModifyOrder"),
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/accounts/${c.req.valid("param").accountId}/orders/modify`, body: c.req.valid("json") }),
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/orders/cancel-all", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Cancel every open order of the account (of one market with marketId), in one transaction",
    description:
      "The open orders are read from the index once it holds the account's earlier writes (the relayer waits for it), then cancelled in one transaction (Engine.cancelOrders, several markets in one Engine.batch). An order that filled meanwhile is skipped. Answers the count per market.",
    request: { params: AccountPath, headers: IdempotencyHeaders, body: { required: false, content: json(CancelAllBody) } },
    responses: writeResponses(200, CancelAllResult, "PendingCancelAll"),
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/accounts/${c.req.valid("param").accountId}/orders/cancel-all`, body: c.req.valid("json") ?? {} }),
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/accounts/{accountId}/orders/batch", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Place, cancel and modify up to 32 orders in one transaction (Engine.batch)",
    description:
      "items: `{ action: \"PLACE\", ...PlaceOrderRequest }`, `{ action: \"CANCEL\", marketId, clientKey | orderId }` or `{ action: \"MODIFY\", marketId, orderId | clientKey, price, quantity }`, at most 32 (400 BATCH_TOO_LARGE, nothing sent). atomic false (default): each item succeeds or fails on its own; the answer lists each item's status with its single write's result, or the error code its single write would answer. atomic true: all or nothing; a failing item answers its error as its single write would, and nothing changes.",
    request: { params: AccountPath, headers: IdempotencyHeaders, body: { required: true, content: json(BatchOrdersBody) } },
    responses: writeResponses(200, BatchOrdersResult, "PendingBatchOrders"),
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/accounts/${c.req.valid("param").accountId}/orders/batch`, body: c.req.valid("json") }),
);

writeRoutes.openapi(
  createRoute({
    method: "get", path: "/transactions/{requestId}", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Status of one of the caller's writes (the hash changes when the fee is bumped)",
    request: { params: z.object({ requestId: z.string().min(1).max(80).openapi({ param: { name: "requestId", in: "path" } }) }) },
    responses: {
      200: { description: "status", content: json(ok(TransactionStatusResult)) },
      401: err("UNAUTHENTICATED"),
      404: err("TRANSACTION_NOT_FOUND"),
    },
  }),
  async (c) => forward(c, { method: "GET", path: `/internal/transactions/${encodeURIComponent(c.req.valid("param").requestId)}` }),
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/transactions/{requestId}/cancel", tags: ["writes"], security, middleware: [signedIn] as const,
    summary: "Cancel one of the caller's writes not mined yet",
    description:
      "Not signed yet: CANCELLED at once, nothing sent (200). Signed or sent: its nonce is replaced by a no-op, a self-transfer of 0 (202); the write then ends CANCELLED, or CONFIRMED if it was mined first: follow GET /transactions/{requestId}.",
    request: { params: z.object({ requestId: z.string().min(1).max(80).openapi({ param: { name: "requestId", in: "path" } }) }) },
    responses: {
      200: { description: "cancelled before anything was sent", content: json(ok(TransactionStatusResult)) },
      202: { description: "a no-op replaces its nonce; follow GET /transactions/{requestId}", content: json(ok(TransactionStatusResult)) },
      401: err("UNAUTHENTICATED"),
      404: err("TRANSACTION_NOT_FOUND (none of the caller's)"),
      409: err("NOT_CANCELLABLE: already final"),
    },
  }),
  async (c) => forward(c, { method: "POST", path: `/internal/transactions/${encodeURIComponent(c.req.valid("param").requestId)}/cancel` }),
);

writeRoutes.openapi(
  createRoute({
    method: "get", path: "/operators/typed-data", tags: ["operators"],
    summary: "EIP-712 typed data that approves the relayer as the owner's operator (sign with eth_signTypedData_v4)",
    request: { query: OperatorTypedDataQuery },
    responses: { 200: { description: "typed data", content: json(ok(OperatorTypedData)) }, 400: err("VALIDATION_ERROR") },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const qs = new URLSearchParams({ owner: q.owner, ...(q.expiry ? { expiry: q.expiry } : {}), ...(q.deadline ? { deadline: q.deadline } : {}) });
    const { status, body } = await forwardToRelayer(relayerTargetFromEnv(process.env, secret("INTEGRATION_TOKEN")), {
      method: "GET", path: `/internal/operators/typed-data?${qs}`,
    });
    return c.json(body as object, status as 200) as never;
  },
);

writeRoutes.openapi(
  createRoute({
    method: "post", path: "/operators/approve", tags: ["operators"], security, middleware: [signedIn] as const,
    summary: "Submit the owner's operator approval signature (the relayer sends setOperatorWithSig); owner must be the signed-in wallet (403 UNAUTHORIZED)",
    request: { headers: IdempotencyHeaders, body: { required: true, content: json(OperatorApproveBody) } },
    responses: writeResponses(200, OperatorApprovalResult, "PendingOperatorApproval"),
  }),
  async (c) => {
    const body = c.req.valid("json");
    // the session's wallet approves for itself only (the signature would prove the owner, but the
    // caller's identity is what idempotency, the closed beta and the logs go by)
    if (body.owner.toLowerCase() !== c.get("wallet").toLowerCase())
      throw new ApiError("UNAUTHORIZED", "owner must be the signed-in wallet");
    return forward(c, { method: "POST", path: "/internal/operators/approve", body });
  },
);

writeRoutes.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "GET /auth/nonce, sign an EIP-4361 message, POST /auth/login",
});
