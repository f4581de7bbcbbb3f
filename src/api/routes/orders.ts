/** GET /accounts/{accountId}/orders?marketId=&status=&limit=&offset= (newest first). */
import { createRoute } from "@hono/zod-openapi";
import { db } from "ponder:api";
import { order } from "ponder:schema";
import { and, count, desc, eq } from "ponder";
import type { Hex } from "viem";
import { createApiApp } from "../lib/app.js";
import { requireAccount, requireMarket } from "../lib/data.js";
import { orderResponse } from "../lib/responses.js";
import { readAtIndexedBlock } from "../lib/indexedBlock.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { AccountPath, OrderList, OrdersQuery, envelope } from "../lib/schemas.js";

const listOrders = createRoute({
  method: "get",
  path: "/accounts/{accountId}/orders",
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

export const orderRoutes = createApiApp().openapi(listOrders, async (c) => {
  const { accountId: raw } = c.req.valid("param");
  const q = c.req.valid("query");
  const accountId = BigInt(raw);
  const marketId = q.marketId?.toLowerCase() as Hex | undefined;
  await Promise.all([requireAccount(accountId), marketId ? requireMarket(marketId) : undefined]);
  const where = and(
    eq(order.accountId, accountId),
    marketId ? eq(order.marketId, marketId) : undefined,
    q.status ? eq(order.status, q.status) : undefined,
  );
  const data = await readAtIndexedBlock(c, async () => {
    const [rows, total] = await Promise.all([
      db.select().from(order).where(where).orderBy(desc(order.createdBlock), desc(order.orderId)).limit(q.limit).offset(q.offset),
      db.select({ n: count() }).from(order).where(where),
    ]);
    return { orders: rows.map(orderResponse), totalCount: Number(total[0]?.n ?? 0) };
  });
  return c.json({ success: true as const, data }, 200);
});
