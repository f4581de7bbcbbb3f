/**
 * GET /accounts/{accountId}/orders?marketId=&status=&limit=&cursor= (newest first), paged with
 * an opaque keyset cursor (core/cursor.ts) on (createdBlock, orderId): orders placed while a
 * client pages through sort before its cursor, so each order is returned once.
 */
import { createRoute } from "@hono/zod-openapi";
import { db } from "ponder:api";
import { order } from "ponder:schema";
import { and, count, desc, eq, lt, or } from "ponder";
import type { Hex } from "viem";
import { ordersCursorKey, ordersPage } from "../../../core/reads/orders.js";
import { createApiApp } from "../lib/app.js";
import { requireAccount, requireMarket } from "../lib/data.js";
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
  const where = and(
    eq(order.accountId, accountId),
    marketId ? eq(order.marketId, marketId) : undefined,
    q.status ? eq(order.status, q.status) : undefined,
  );
  // the 404s read the same indexed state as the page
  const data = await readAtIndexedBlock(c, async () => {
    await Promise.all([requireAccount(accountId), marketId ? requireMarket(marketId) : undefined]);
    // a 404 goes before a bad cursor's 400
    const after = q.cursor === undefined ? undefined : ordersCursorKey(q.cursor);
    const page = after
      ? and(where, or(lt(order.createdBlock, after[0]!), and(eq(order.createdBlock, after[0]!), lt(order.orderId, after[1]!))))
      : where;
    const [rows, total] = await Promise.all([
      // one more than the page says whether another follows
      db.select().from(order).where(page).orderBy(desc(order.createdBlock), desc(order.orderId)).limit(q.limit + 1),
      db.select({ n: count() }).from(order).where(where),
    ]);
    return ordersPage(rows, Number(total[0]?.n ?? 0), q.limit);
  });
  return c.json({ success: true as const, data }, 200);
});
