/**
 * The history lists (issue 13) as data, in one place: the one read model (plans.ts) pages them
 * for both of their servers, Ponder's routes (src/api/routes/history.ts) and the read service's
 * (services/reads/history.ts, on Postgres). Each list: its route, its table and
 * keyset order (newest first, one index per list in ponder.schema.ts), its scope, the cursor's
 * tag and the key of its items, and the row → item formatting (core/history/items.ts).
 */
import type { Hex } from "viem";
import type * as schema from "../../ponder.schema.js";
import * as H from "../schemas/history.js";
import * as I from "./items.js";

/** whose rows a list holds: a market's, an account's, or the venue's (the insurance fund) */
export type ListScope = "market" | "account" | "venue";
type Tables = typeof schema;
type TableKey = "trade" | "fundingHistory" | "accountFill" | "fundingPayment" | "transfer" | "accountLiquidation" | "order" | "orderModifiedEvent" | "insuranceFundEvent";

export type ListSpec = {
  /** the route (OpenAPI path form) */
  path: string;
  scope: ListScope;
  /** cursor tag: a cursor of one list is refused by another */
  cursor: string;
  /** key of the items array in `data` */
  key: string;
  /** the table (its export name in ponder.schema.ts) */
  table: TableKey;
  /** the order's three columns (time, block, tiebreak), as the table's property names */
  order: [string, string, string];
  /** SQL type of the tiebreak column (the cursor's values are cast to the columns' types) */
  tiebreakType: "integer" | "numeric";
  /** the column the scope selects on: the account id, or the market's id or address (none: the venue's list) */
  scopeColumn?: string;
  /** account lists: the column a `marketId` filter selects on (absent: no filter) */
  marketColumn?: string;
  /** account lists: the column an `orderId` filter selects on (absent: no filter; the order must be the account's, else 404 ORDER_NOT_FOUND) */
  orderColumn?: string;
  /** the row's item; `marketId` is the scope's market (market lists) */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each list's own row type
  item(row: any, ctx: { marketId?: Hex }): Record<string, unknown>;
};

const byLog = ["timestamp", "blockNumber", "logIndex"] as [string, string, string];
type Row<K extends TableKey> = Tables[K]["$inferSelect"];

export const HISTORY_LISTS: ListSpec[] = [
  { path: "/markets/{marketId}/trades", scope: "market", cursor: "trades", key: "trades", table: "trade", order: byLog, tiebreakType: "integer", scopeColumn: "marketId",
    item: (r: Row<"trade">) => I.tradeItem(r) },
  { path: "/markets/{marketId}/funding/history", scope: "market", cursor: "funding", key: "funding", table: "fundingHistory", order: byLog, tiebreakType: "integer", scopeColumn: "marketAddress",
    item: (r: Row<"fundingHistory">, ctx) => I.fundingRateItem(ctx.marketId!, r) },
  { path: "/accounts/{accountId}/fills", scope: "account", cursor: "fills", key: "fills", table: "accountFill", order: byLog, tiebreakType: "integer", scopeColumn: "accountId", marketColumn: "marketId",
    item: (r: Row<"accountFill">) => I.fillItem(r) },
  { path: "/accounts/{accountId}/funding-payments", scope: "account", cursor: "fundingPayments", key: "fundingPayments", table: "fundingPayment", order: byLog, tiebreakType: "integer", scopeColumn: "accountId", marketColumn: "marketId",
    item: (r: Row<"fundingPayment">) => I.fundingPaymentItem(r) },
  { path: "/accounts/{accountId}/transfers", scope: "account", cursor: "transfers", key: "transfers", table: "transfer", order: byLog, tiebreakType: "integer", scopeColumn: "accountId",
    item: (r: Row<"transfer">) => I.transferItem(r) },
  { path: "/accounts/{accountId}/liquidations", scope: "account", cursor: "liquidations", key: "liquidations", table: "accountLiquidation", order: byLog, tiebreakType: "integer", scopeColumn: "accountId", marketColumn: "marketId",
    item: (r: Row<"accountLiquidation">) => I.liquidationItem(r) },
  // orders have no log index: (createdAt, createdBlock, orderId), orderId rising with placement
  { path: "/accounts/{accountId}/orders/history", scope: "account", cursor: "orderHistory", key: "orders", table: "order", order: ["createdAt", "createdBlock", "orderId"], tiebreakType: "numeric", scopeColumn: "accountId", marketColumn: "marketId",
    item: (r: Row<"order">) => I.historicalOrderItem(r) },
  // every modification of the account's orders (Engine.modifyOrder), by market and by order
  { path: "/accounts/{accountId}/orders/modifications", scope: "account", cursor: "orderModifications", key: "modifications", table: "orderModifiedEvent", order: byLog, tiebreakType: "integer", scopeColumn: "accountId", marketColumn: "marketId", orderColumn: "orderId",
    item: (r: Row<"orderModifiedEvent">) => I.orderModificationItem(r) },
];

/** The insurance fund's changes (GET /insurance-fund/history): the venue's one list, not a market's or an account's. */
export const INSURANCE_EVENTS: ListSpec = {
  path: "/insurance-fund/history", scope: "venue", cursor: "insuranceFund", key: "events", table: "insuranceFundEvent", order: byLog, tiebreakType: "integer",
  item: (r: Row<"insuranceFundEvent">) => I.insuranceEventItem(r),
};

/** The list's query: a market filter only where the table has a market, an order filter where the list has one. */
export const historyQueryOf = (l: ListSpec) =>
  l.scope === "market" || !l.marketColumn ? H.MarketHistoryQuery : l.orderColumn ? H.OrderModificationsQuery : H.AccountHistoryQuery;

export type ExportFormat = "csv" | "ndjson";

/** The export an `Accept` header asks for, if any (`text/csv` or `application/x-ndjson`). */
export function exportFormatOf(accept: string | undefined): ExportFormat | undefined {
  if (!accept) return undefined;
  if (/\btext\/csv\b/i.test(accept)) return "csv";
  if (/\bapplication\/x-ndjson\b/i.test(accept)) return "ndjson";
  return undefined;
}
