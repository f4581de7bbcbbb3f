/**
 * GET /accounts/{accountId}/orders?marketId=&status=&limit=&cursor= (newest first), paged with
 * an opaque keyset cursor (core/cursor.ts) on (createdBlock, orderId): orders placed while a
 * client pages through sort before its cursor, so each order is returned once. The answer is the
 * one read model's (core/reads/plans.ts).
 */
import { createRoute } from "@hono/zod-openapi";
import { createApiApp } from "../lib/app.js";
import { hotAnswer } from "../lib/hotAnswers.js";
import { HOT_ROUTES } from "../../../core/reads/routes.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { AccountPath, OrderList, OrdersQuery, envelope } from "../../../core/schemas/reads.js";

const listOrders = createRoute({
  method: "get",
  path: HOT_ROUTES.orders,
  tags: ["orders"],
  summary: "Orders of an account, filtered by market and status",
  middleware: readMiddleware,
  request: { params: AccountPath, query: OrdersQuery },
  responses: {
    200: { description: "Orders, newest first", headers: readHeaders, content: { "application/json": { schema: envelope(OrderList, "OrderListResponse") } } },
    ...readErrors,
    ...notFound("ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND (marketId filter names no market)"),
  },
});

export const orderRoutes = createApiApp().openapi(listOrders, (c) => hotAnswer(c) as never);
