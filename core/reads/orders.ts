/**
 * GET /accounts/{accountId}/orders as data, for both of its servers (Ponder's route and the read
 * service's build): newest first by (createdBlock, orderId), a keyset cursor (core/cursor.ts) on
 * that key, one row more than the page to tell whether another follows.
 */
import { decodeUintCursor, encodeCursor } from "../cursor.js";
import type { order } from "../../ponder.schema.js";
import { orderResponse } from "./responses.js";

const LIST = "orders";

/** The sort key after which the page starts (400 VALIDATION_ERROR for anything but this list's cursor). */
export const ordersCursorKey = (cursor: string) => decodeUintCursor(LIST, cursor, 2) as [bigint, bigint];

/** The answer's `data`: `rows` are up to `limit + 1` orders in the list's order, `total` every order the filters match. */
/** `now`: the indexed block's time (an order at or past its expiry shows cancelled). */
export function ordersPage(rows: (typeof order.$inferSelect)[], total: number, limit: number, now: bigint) {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return {
    orders: items.map((o) => orderResponse(o, now)),
    totalCount: total,
    hasMore,
    nextCursor: hasMore && last ? encodeCursor(LIST, [last.createdBlock, last.orderId]) : null,
  };
}
