/**
 * /v1/accounts: reads from the integration API, writes to the relayer's internal API with the
 * key's wallet as the caller (the relayer and the chain check ownership: UNAUTHORIZED, 403).
 */
import type { z } from "@hono/zod-openapi";
import { ApiError } from "../../../core/errors.js";
import type { GatewayApp, GatewayDeps } from "../context.js";
import { forwardHeaders, send } from "../context.js";
import { requireIdentity } from "../middleware/api-key/index.js";
import {
  AccountIdParam,
  AccountMarketParam,
  AddressParam,
  AmountBody,
  CancelBody,
  CloseBody,
  CreateAccountBody,
  policyParams,
  IdParam,
  OrdersQuery,
  PositionMarginBody,
  ReadQuery,
  TradeBody,
  BatchBody,
  CancelAllBody,
  DeadmanBody,
  ModifyBody,
  SetTriggerBody,
  CancelTriggerBody,
  TriggersQuery,
  orderTypeName,
  sideName,
} from "../schemas.js";
import { AccountCreatedData, AccountData, AccountByAddressData, AccountOperatorsData, DepositData, WithdrawData, OrderPlacedData, OrderListData, CancelData, PositionData, PositionFundingData, CloseData, PositionMarginData } from "../responses.js";
import { pendingOf, BatchOrdersData, CancelAllData, DeadmanData, ModifyOrderData } from "../responses.js";
import { CancelTriggerData, SetTriggerData, TriggerListData } from "../responses.js";
import { MAX_BATCH_ITEMS } from "../../../core/schemas/writes.js";
import { defineRoute, jsonBody } from "./define.js";

/** valid_until → the relayer's validUntil, when given. */
const validity = (b: { valid_until?: string }) => (b.valid_until !== undefined ? { validUntil: b.valid_until } : {});

/** An order of /v1 (a trade, or a batch's PLACE item) as the relayer's placement body: every option. */
const placement = (b: z.infer<typeof TradeBody>) => ({
  marketId: b.market_id,
  collateralAmount: b.collateral,
  side: sideName(b.side),
  leverage: b.leverage,
  orderType: orderTypeName(b.order_type),
  ...(b.limit_price !== undefined ? { limitPrice: b.limit_price } : {}),
  ...(b.client_key !== undefined ? { clientKey: b.client_key } : {}),
  ...(b.time_in_force !== undefined ? { timeInForce: b.time_in_force } : {}),
  ...(b.reduce_only !== undefined ? { reduceOnly: b.reduce_only } : {}),
  ...(b.expires_at !== undefined ? { expiresAt: b.expires_at } : {}),
});

const tag = "Accounts";
const writeErrors = [202, 403, 404, 409, 422];

export const createAccount = defineRoute({
  method: "post",
  path: "/v1/accounts/create",
  tag,
  summary: "Create the account of the key's wallet",
  description: "`owner` must be the API key's wallet (else 403 UNAUTHORIZED). One account per wallet (ACCOUNT_EXISTS).",
  request: jsonBody(CreateAccountBody, "{ owner, operator_approval? }"),
  ok: { status: 201, name: "AccountCreated", data: AccountCreatedData, description: "account_id, account_address, owner, transaction_hash, request_id" },
  accepted: { name: "AccountCreatedPending", data: pendingOf(AccountCreatedData, "AccountCreatedPending") },
  errors: writeErrors,
});

export const getAccount = defineRoute({
  method: "get",
  path: "/v1/accounts/{id}",
  tag,
  summary: "Account and its margin",
  request: { params: IdParam, query: ReadQuery },
  ok: { status: 200, name: "Account", data: AccountData, description: "account_id, account_address, owner, margin { available, committed, total (WAD) }" },
  errors: [404],
});

export const getAccountByAddress = defineRoute({
  method: "get",
  path: "/v1/accounts/by-address/{address}",
  tag,
  summary: "Account of a wallet",
  request: { params: AddressParam, query: ReadQuery },
  ok: { status: 200, name: "AccountByAddress", data: AccountByAddressData, description: "account_id (0 when none), exists" },
});

export const getAccountOperators = defineRoute({
  method: "get",
  path: "/v1/accounts/{id}/operators",
  tag,
  summary: "The owner's operators: expiry, on-chain policy, budget used",
  description:
    "Each operator the owner approved (the relayer's address for accounts created through it), the policy bounding it on chain (max_leverage, band_bps, budget_bps per 24 h) and the budget used, decayed to the indexed block's time (budget_used_now).",
  request: { params: IdParam, query: ReadQuery },
  ok: { status: 200, name: "AccountOperators", data: AccountOperatorsData, description: "account_id, owner, operators[] { operator, expiry, active, policy, budget_used, budget_used_now, budget }" },
  errors: [404],
});

export const deposit = defineRoute({
  method: "post",
  path: "/v1/accounts/{id}/deposit",
  tag,
  summary: "Deposit margin",
  description: "Pulls `amount` of the deposit token (6 decimals) from the owner, who approved the engine first.",
  request: { params: IdParam, ...jsonBody(AmountBody, "{ amount }") },
  ok: { status: 200, name: "DepositResult", data: DepositData, description: "account_id, deposited_amount, new_available_margin (WAD), transaction_hash" },
  accepted: { name: "DepositPending", data: pendingOf(DepositData, "DepositPending") },
  errors: writeErrors,
});

export const withdraw = defineRoute({
  method: "post",
  path: "/v1/accounts/{id}/withdraw",
  tag,
  summary: "Withdraw available margin to the owner",
  request: { params: IdParam, ...jsonBody(AmountBody, "{ amount }: deposit-token base units (6 decimals)") },
  ok: { status: 200, name: "WithdrawResult", data: WithdrawData, description: "account_id, withdrawn_amount, new_available_margin (WAD), transaction_hash" },
  accepted: { name: "WithdrawPending", data: pendingOf(WithdrawData, "WithdrawPending") },
  errors: writeErrors,
});

export const trade = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/trade",
  tag,
  summary: "Place an order",
  description:
    "side 0 = LONG, 1 = SHORT; order_type 0 = MARKET, 1 = LIMIT (JSON integers). collateral and limit_price are decimal strings. collateral \"0\" places a reduce-only order for the whole position. Optional order options: time_in_force GTC (default) | IOC | FOK | POST_ONLY, reduce_only (sized by collateral × leverage, capped at the position), expires_at (unix seconds, GTC or POST_ONLY LIMIT only).",
  request: { params: AccountIdParam, ...jsonBody(TradeBody, "order placement") },
  ok: { status: 201, name: "OrderResult", data: OrderPlacedData, description: "client_key, order_id, market_id, side, size, order_type, status, transaction_hash" },
  accepted: { name: "OrderPending", data: pendingOf(OrderPlacedData, "OrderPending") },
  errors: writeErrors,
});

export const listOrders = defineRoute({
  method: "get",
  path: "/v1/accounts/{account_id}/orders",
  tag,
  summary: "Orders of an account",
  request: { params: AccountIdParam, query: OrdersQuery },
  ok: { status: 200, name: "OrderList", data: OrderListData, description: "{ orders: [order], total_count, has_more, next_cursor }: newest first; pass next_cursor back as cursor for the next page" },
  errors: [404],
});

export const cancelOrder = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/orders/cancel",
  tag,
  summary: "Cancel an open order",
  request: { params: AccountIdParam, ...jsonBody(CancelBody, "{ market_id, client_key }") },
  ok: { status: 200, name: "CancelResult", data: CancelData, description: "client_key, order_id, margin_returned (WAD), transaction_hash" },
  accepted: { name: "CancelPending", data: pendingOf(CancelData, "CancelPending") },
  errors: writeErrors,
});

export const modifyOrder = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/orders/modify",
  tag,
  summary: "Modify a resting order's price and remaining size in place (by order_id or client_key)",
  description:
    "The order keeps its id and key and never matches (a price at or beyond the best opposite one: 409 POST_ONLY_WOULD_CROSS, nothing changes). quantity is the new remaining size. Only a smaller size at the same price keeps its place in its level; anything else moves it to the tail of its new level. Its margin follows its notional, the difference committed or released. Not the account's open order: 404 ORDER_NOT_FOUND; off the tick or outside the band: 400 INVALID_PRICE; below the minimum: 400 ORDER_TOO_SMALL; not in lots: 400 VALIDATION_ERROR.",
  request: { params: AccountIdParam, ...jsonBody(ModifyBody, "{ market_id, order_id | client_key, price, quantity }") },
  ok: { status: 200, name: "ModifyResult", data: ModifyOrderData, description: "order_id, client_key, market_id, price, original_quantity, remaining_quantity, margin_remaining (WAD), from_price, transaction_hash" },
  accepted: { name: "ModifyPending", data: pendingOf(ModifyOrderData, "ModifyPending") },
  errors: writeErrors,
});

export const getPosition = defineRoute({
  method: "get",
  path: "/v1/accounts/{account_id}/positions/{market_id}",
  tag,
  summary: "Position of an account in a market",
  request: { params: AccountMarketParam, query: ReadQuery },
  ok: { status: 200, name: "Position", data: PositionData, description: "is_open, side, size, entry_price, margin, leverage, open_block, health" },
  errors: [404],
});

export const getPositionFunding = defineRoute({
  method: "get",
  path: "/v1/accounts/{account_id}/positions/{market_id}/funding",
  tag,
  summary: "Pending funding of a position",
  request: { params: AccountMarketParam, query: ReadQuery },
  ok: { status: 200, name: "PositionFunding", data: PositionFundingData, description: "pending_funding (signed WAD), direction PAY/RECEIVE/NONE, last_settled" },
  errors: [404],
});

export const closePosition = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/positions/{market_id}/close",
  tag,
  summary: "Close a position (reduce-only order on the opposite side)",
  request: { params: AccountMarketParam, ...jsonBody(CloseBody, "{ order_type?, limit_price? } (empty object for MARKET)") },
  ok: { status: 201, name: "CloseResult", data: CloseData, description: "client_key, order_id, market_id, closing_side, size, order_type, transaction_hash" },
  accepted: { name: "ClosePending", data: pendingOf(CloseData, "ClosePending") },
  errors: writeErrors,
});

export const positionMargin = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/positions/{market_id}/margin",
  tag,
  summary: "Add margin to a position, or remove what exceeds initial margin at the mark (isolated margin)",
  request: { params: AccountMarketParam, ...jsonBody(PositionMarginBody, "{ action: ADD | REMOVE, amount }: deposit-token base units (6 decimals)") },
  ok: { status: 200, name: "PositionMarginResult", data: PositionMarginData, description: "account_id, market_id, action, amount, position_margin (WAD), new_available_margin (WAD), transaction_hash" },
  accepted: { name: "PositionMarginPending", data: pendingOf(PositionMarginData, "PositionMarginPending") },
  errors: writeErrors,
});

// ─── Market v2: dead-man switch, cancel-all, batch ─────────────────────────────────────────────

export const setDeadman = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/deadman",
  tag,
  summary: "Set the account's dead-man deadline (0: off)",
  description:
    "`deadline`: unix seconds of the chain's clock, 0 (off) or at least now + 5 s (else 400 DEADMAN_TOO_SOON, nothing sent). Once it passes, anyone (the keeper) may cancel every open order of the account (close reason DEADMAN). Send a later deadline before it passes to stay alive.",
  request: { params: AccountIdParam, ...jsonBody(DeadmanBody, "{ deadline }") },
  ok: { status: 200, name: "DeadmanResult", data: DeadmanData, description: "account_id, deadline, deadline_iso, enabled, transaction_hash" },
  accepted: { name: "DeadmanPending", data: pendingOf(DeadmanData, "DeadmanPending") },
  errors: writeErrors,
});

export const cancelAll = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/orders/cancel-all",
  tag,
  summary: "Cancel every open order of the account (of one market with market_id) in one transaction",
  request: { params: AccountIdParam, ...jsonBody(CancelAllBody, "{ market_id? } ({} for every market)") },
  ok: { status: 200, name: "CancelAllResult", data: CancelAllData, description: "cancelled, margin_returned, markets[] { market_id, cancelled, margin_returned, order_ids }, transaction_hash" },
  accepted: { name: "CancelAllPending", data: pendingOf(CancelAllData, "CancelAllPending") },
  errors: writeErrors,
});

export const batchOrders = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/orders/batch",
  tag,
  summary: "Place and cancel up to 32 orders in one transaction",
  description:
    "items: `{ action: \"PLACE\", ...trade body }`, `{ action: \"CANCEL\", market_id, client_key | order_id }` or `{ action: \"MODIFY\", market_id, order_id | client_key, price, quantity }`, at most 32 (400 BATCH_TOO_LARGE, nothing sent). atomic false (default): per-item results (status OK with the single write's fields, or FAILED with the code its single write would answer); atomic true: all or nothing, a failing item answers its error.",
  request: { params: AccountIdParam, ...jsonBody(BatchBody, "{ items, atomic? }") },
  ok: { status: 200, name: "BatchOrdersResult", data: BatchOrdersData, description: "items[] { index, action, status, code?, ... }, succeeded, failed, transaction_hash" },
  accepted: { name: "BatchOrdersPending", data: pendingOf(BatchOrdersData, "BatchOrdersPending") },
  errors: writeErrors,
});

// ─── Market v2: position triggers (take-profit, stop-loss; TriggerBook) ────────────────────────

export const listTriggers = defineRoute({
  method: "get",
  path: "/v1/accounts/{account_id}/triggers",
  tag,
  summary: "Take-profits and stop-losses of the account's positions (active by default)",
  description: "One of each kind per market: status active (default), executed (order_id: the order it placed, whose trigger_kind names it), cancelled (end_reason) or all; market_id to narrow. One page.",
  request: { params: AccountIdParam, query: TriggersQuery },
  ok: { status: 200, name: "TriggerList", data: TriggerListData, description: "account_id, triggers[] { trigger_id, market_id, kind, status, trigger_price, order_type, limit_price, oco, position_side, open_block, operator, end_reason, order_id, executed_mark_price, executor, ... }" },
  errors: [404],
});

export const setTrigger = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/triggers",
  tag,
  summary: "Set (or replace) the take-profit or stop-loss of the account's position in a market",
  description:
    "kind TAKE_PROFIT | STOP_LOSS; order_type 0 = MARKET, 1 = LIMIT (with limit_price); trigger_price and limit_price decimal strings (18 decimals). Once the mark reaches trigger_price anyone (the venue's keeper) fires it: the owner's reduce-only close of the whole position. oco: firing removes the other kind if it is oco too. The trigger price on the wrong side of the mark (it would fire at once): 400 VALIDATION_ERROR naming trigger_price; limit_price missing for LIMIT or given for MARKET: 400 VALIDATION_ERROR; off the tick: 400 INVALID_PRICE; no position: 404 NO_POSITION; nothing sent on any of them.",
  request: { params: AccountIdParam, ...jsonBody(SetTriggerBody, "{ market_id, kind, trigger_price, order_type, limit_price?, oco? }") },
  ok: { status: 200, name: "SetTriggerResult", data: SetTriggerData, description: "the trigger as set (the fields of GET …/triggers), transaction_hash" },
  accepted: { name: "SetTriggerPending", data: pendingOf(SetTriggerData, "SetTriggerPending") },
  errors: writeErrors,
});

export const cancelTrigger = defineRoute({
  method: "post",
  path: "/v1/accounts/{account_id}/triggers/cancel",
  tag,
  summary: "Cancel the take-profit or stop-loss of the account's position in a market",
  description: "None set: 404 TRIGGER_NOT_FOUND, nothing sent.",
  request: { params: AccountIdParam, ...jsonBody(CancelTriggerBody, "{ market_id, kind }") },
  ok: { status: 200, name: "CancelTriggerResult", data: CancelTriggerData, description: "account_id, market_id, kind, end_reason CANCELLED, transaction_hash" },
  accepted: { name: "CancelTriggerPending", data: pendingOf(CancelTriggerData, "CancelTriggerPending") },
  errors: writeErrors,
});

export function registerAccountRoutes(app: GatewayApp, { upstreams: { integration, relayer } }: GatewayDeps) {
  app.openapi(createAccount, async (c) => {
    const { wallet } = requireIdentity(c);
    const body = c.req.valid("json");
    if (body.owner.toLowerCase() !== wallet.toLowerCase()) {
      throw new ApiError("UNAUTHORIZED", "owner must be the wallet of the API key");
    }
    const approval = body.operator_approval;
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: "/internal/accounts",
        body: {
          userAddress: body.owner,
          ...(approval
            ? { operatorApproval: { expiry: approval.expiry, deadline: approval.deadline, signature: approval.signature, ...policyParams(approval) } }
            : {}),
          ...validity(body),
        },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(getAccount, async (c) =>
    send(
      c,
      await integration.call({
        path: `/accounts/${c.req.valid("param").id}`,
        query: { minBlock: c.req.valid("query").min_block },
        headers: forwardHeaders(c),
      }),
    ),
  );

  app.openapi(getAccountOperators, async (c) =>
    send(
      c,
      await integration.call({
        path: `/accounts/${c.req.valid("param").id}/operators`,
        query: { minBlock: c.req.valid("query").min_block },
        headers: forwardHeaders(c),
      }),
    ),
  );

  app.openapi(getAccountByAddress, async (c) =>
    send(
      c,
      await integration.call({
        path: `/accounts/by-address/${c.req.valid("param").address}`,
        query: { minBlock: c.req.valid("query").min_block },
        headers: forwardHeaders(c),
      }),
    ),
  );

  app.openapi(deposit, async (c) =>
    send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${c.req.valid("param").id}/deposit`,
        body: { amount: c.req.valid("json").amount, ...validity(c.req.valid("json")) },
        headers: forwardHeaders(c, true),
      }),
    ),
  );

  app.openapi(withdraw, async (c) =>
    send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${c.req.valid("param").id}/withdraw`,
        body: { amount: c.req.valid("json").amount, ...validity(c.req.valid("json")) },
        headers: forwardHeaders(c, true),
      }),
    ),
  );

  app.openapi(trade, async (c) => {
    const b = c.req.valid("json");
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${c.req.valid("param").account_id}/orders`,
        body: { ...placement(b), ...validity(b) },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(listOrders, async (c) => {
    const q = c.req.valid("query");
    return send(
      c,
      await integration.call({
        path: `/accounts/${c.req.valid("param").account_id}/orders`,
        query: { marketId: q.market_id, status: q.status, limit: q.limit, cursor: q.cursor, minBlock: q.min_block },
        headers: forwardHeaders(c),
      }),
    );
  });

  app.openapi(cancelOrder, async (c) => {
    const b = c.req.valid("json");
    return send(
      c,
      await relayer.call({
        method: "DELETE",
        path: `/internal/accounts/${c.req.valid("param").account_id}/orders/${b.client_key}`,
        query: { marketId: b.market_id, validUntil: b.valid_until },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(modifyOrder, async (c) => {
    const b = c.req.valid("json");
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${c.req.valid("param").account_id}/orders/modify`,
        body: {
          marketId: b.market_id, price: b.price, quantity: b.quantity,
          ...(b.client_key !== undefined ? { clientKey: b.client_key } : { orderId: b.order_id }),
          ...validity(b),
        },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(getPosition, async (c) => {
    const p = c.req.valid("param");
    return send(
      c,
      await integration.call({
        path: `/accounts/${p.account_id}/positions/${p.market_id}`,
        query: { minBlock: c.req.valid("query").min_block },
        headers: forwardHeaders(c),
      }),
    );
  });

  app.openapi(getPositionFunding, async (c) => {
    const p = c.req.valid("param");
    return send(
      c,
      await integration.call({
        path: `/accounts/${p.account_id}/positions/${p.market_id}/funding`,
        query: { minBlock: c.req.valid("query").min_block },
        headers: forwardHeaders(c),
      }),
    );
  });

  app.openapi(closePosition, async (c) => {
    const p = c.req.valid("param");
    const b = c.req.valid("json");
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${p.account_id}/positions/${p.market_id}/close`,
        body: {
          orderType: orderTypeName(b.order_type ?? 0),
          ...(b.limit_price !== undefined ? { limitPrice: b.limit_price } : {}),
          ...validity(b),
        },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(positionMargin, async (c) => {
    const p = c.req.valid("param");
    const b = c.req.valid("json");
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${p.account_id}/positions/${p.market_id}/margin`,
        body: { action: b.action, amount: b.amount, ...validity(b) },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(setDeadman, async (c) => {
    const b = c.req.valid("json");
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${c.req.valid("param").account_id}/deadman`,
        body: { deadline: b.deadline, ...validity(b) },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(cancelAll, async (c) => {
    const b = c.req.valid("json");
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${c.req.valid("param").account_id}/orders/cancel-all`,
        body: { ...(b.market_id !== undefined ? { marketId: b.market_id } : {}), ...validity(b) },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(listTriggers, async (c) => {
    const q = c.req.valid("query");
    return send(
      c,
      await integration.call({
        path: `/accounts/${c.req.valid("param").account_id}/triggers`,
        query: { marketId: q.market_id, status: q.status, minBlock: q.min_block },
        headers: forwardHeaders(c),
      }),
    );
  });

  app.openapi(setTrigger, async (c) => {
    const b = c.req.valid("json");
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${c.req.valid("param").account_id}/triggers`,
        body: {
          marketId: b.market_id, kind: b.kind, triggerPrice: b.trigger_price, orderType: orderTypeName(b.order_type),
          ...(b.limit_price !== undefined ? { limitPrice: b.limit_price } : {}),
          ...(b.oco !== undefined ? { oco: b.oco } : {}),
          ...validity(b),
        },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(cancelTrigger, async (c) => {
    const b = c.req.valid("json");
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${c.req.valid("param").account_id}/triggers/cancel`,
        body: { marketId: b.market_id, kind: b.kind, ...validity(b) },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(batchOrders, async (c) => {
    const b = c.req.valid("json");
    if (b.items.length > MAX_BATCH_ITEMS) throw new ApiError("BATCH_TOO_LARGE", `items: at most ${MAX_BATCH_ITEMS} (got ${b.items.length})`);
    const items = b.items.map((i) =>
      i.action === "CANCEL"
        ? { action: "CANCEL", marketId: i.market_id, ...(i.client_key !== undefined ? { clientKey: i.client_key } : { orderId: i.order_id }) }
        : i.action === "MODIFY"
        ? { action: "MODIFY", marketId: i.market_id, price: i.price, quantity: i.quantity, ...(i.client_key !== undefined ? { clientKey: i.client_key } : { orderId: i.order_id }) }
        : { action: "PLACE", ...placement(i) },
    );
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: `/internal/accounts/${c.req.valid("param").account_id}/orders/batch`,
        body: { items, ...(b.atomic !== undefined ? { atomic: b.atomic } : {}), ...validity(b) },
        headers: forwardHeaders(c, true),
      }),
    );
  });
}
