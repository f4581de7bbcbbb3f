/**
 * GET /accounts/{accountId}/triggers?marketId=&status=: the account's take-profits and stop-losses
 * (TriggerBook, docs/CONTRACTS.md "Triggers"), active ones by default. At most one of each kind
 * per market (setting one again replaces it), so one page. Rows → answer: core/reads/responses.ts.
 */
import { createRoute } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { createApiApp } from "../lib/app.js";
import { findTriggers, requireAccount, requireMarket } from "../lib/data.js";
import { triggerListResponse } from "../../../core/reads/responses.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { AccountPath, TriggerList, TriggersQuery, envelope } from "../../../core/schemas/reads.js";

const listTriggers = createRoute({
  method: "get",
  path: "/accounts/{accountId}/triggers",
  tags: ["positions"],
  summary: "Take-profits and stop-losses of an account's positions (active by default)",
  description:
    "One of each kind per account and market: `status` active (default), executed (fired: the order it placed, `orderId`, whose `triggerKind` names it), cancelled (ended without firing: `endReason`) or all. Set and cancel them with POST /accounts/{accountId}/triggers and POST /accounts/{accountId}/triggers/cancel.",
  middleware: readMiddleware,
  request: { params: AccountPath, query: TriggersQuery },
  responses: {
    200: { description: "The triggers", headers: readHeaders, content: { "application/json": { schema: envelope(TriggerList, "TriggerListResponse") } } },
    ...readErrors,
    ...notFound("ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND (marketId filter names no market)"),
  },
});

export const triggerRoutes = createApiApp().openapi(listTriggers, async (c) => {
  const { accountId } = c.req.valid("param");
  const { marketId, status } = c.req.valid("query");
  const id = BigInt(accountId);
  await requireAccount(id);
  if (marketId !== undefined) await requireMarket(marketId as Hex);
  const rows = await findTriggers(id, { marketId: marketId as Hex | undefined, status });
  return c.json({ success: true as const, data: triggerListResponse(id, rows) }, 200);
});
