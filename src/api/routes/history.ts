/**
 * History (issue 13): trades, candles and funding history of a market; fills, funding
 * payments, transfers, liquidations and order history of an account. Lists page newest first
 * by (time, block, log index) with an opaque cursor, filter by time (`from` inclusive, `to`
 * exclusive) and, for accounts, by market; `Accept: text/csv` or `application/x-ndjson` streams
 * the whole range (lib/exports.ts). Candles are the indexer's rows with the periods without
 * trades filled (previous close, zero volume). Every page is the one read model's
 * (core/history/plans.ts), run on Ponder's `db` inside one indexed state.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import type { CandleResolution } from "../../../core/candles.js";
import * as H from "../../../core/schemas/history.js";
import { createApiApp } from "../lib/app.js";
import { requireAccount } from "../lib/data.js";
import { answerList, historyPlansOfPonder } from "../lib/exports.js";
import { onPonderDb } from "../lib/hotAnswers.js";
import { HISTORY_LISTS, historyQueryOf, type ListSpec } from "../../../core/history/lists.js";
import type { ListQuery, Scope } from "../../../core/history/plans.js";
import { pnlItem } from "../../../core/history/items.js";
import { indexedBlock, readAtIndexedBlock } from "../lib/indexedBlock.js";
import { pnlPage } from "../lib/pnl.js";
import { notFound, readErrors, readHeaders } from "../lib/routes.js";
import { AccountPath, MarketPath, envelope } from "../../../core/schemas/reads.js";

const middleware = [indexedBlock];

const exportTypes = {
  "text/csv": { schema: { type: "string" as const, description: "Accept: text/csv: the whole range, oldest first, one row per item (columns = the item's fields)" } },
  "application/x-ndjson": { schema: { type: "string" as const, description: "Accept: application/x-ndjson: the whole range, oldest first, one JSON item per line" } },
};

const list = <Q extends z.ZodType, P extends z.ZodType>(path: string, tag: string, summary: string, params: P, query: Q, data: z.ZodType, name: string, errors: string) =>
  createRoute({
    method: "get",
    path,
    tags: [tag],
    summary,
    middleware,
    request: { params: params as never, query: query as never },
    responses: {
      200: {
        description: `${summary}, newest first by (block, log index)`,
        headers: readHeaders,
        content: { "application/json": { schema: envelope(data, name) }, ...exportTypes },
      },
      ...readErrors,
      ...notFound(errors),
    },
  });

const columnsOf = (s: z.ZodObject) => Object.keys(s.shape);

// ─── lists ─────────────────────────────────────────────────────────────────────────────
// Every list is one entry of core/history/lists.ts (its route, table, order, scope, cursor and
// item; the read service serves the same lists from it) plus its OpenAPI description here.

type ListRoute = { spec: ListSpec; summary: string; data: z.ZodType; name: string; item: z.ZodObject };
const spec = (path: string) => HISTORY_LISTS.find((l) => l.path === path)!;

const lists: ListRoute[] = [
  { spec: spec("/markets/{marketId}/trades"), summary: "Every fill of the market", data: H.TradeList, name: "TradeListResponse", item: H.Trade },
  { spec: spec("/markets/{marketId}/funding/history"), summary: "The funding rate and cumulative index at every update", data: H.FundingRateList, name: "FundingRateListResponse", item: H.FundingRate },
  { spec: spec("/accounts/{accountId}/fills"), summary: "The account's fills: side, maker or taker, price, size, fee", data: H.FillList, name: "FillListResponse", item: H.Fill },
  { spec: spec("/accounts/{accountId}/funding-payments"), summary: "Every settlement of funding on the account's positions", data: H.FundingPaymentList, name: "FundingPaymentListResponse", item: H.FundingPayment },
  { spec: spec("/accounts/{accountId}/transfers"), summary: "Deposits and withdrawals", data: H.TransferList, name: "TransferListResponse", item: H.Transfer },
  { spec: spec("/accounts/{accountId}/liquidations"), summary: "Liquidations of the account's positions", data: H.LiquidationList, name: "LiquidationListResponse", item: H.Liquidation },
  { spec: spec("/accounts/{accountId}/orders/history"), summary: "Every order with its final status and fill count", data: H.HistoricalOrderList, name: "HistoricalOrderListResponse", item: H.HistoricalOrder },
  { spec: spec("/accounts/{accountId}/orders/modifications"), summary: "Every modification of the account's orders (price and size, before and after, priority kept or lost); orderId: one order's", data: H.OrderModificationList, name: "OrderModificationListResponse", item: H.OrderModification },
];

const routeOf = ({ spec: l, summary, data, name }: ListRoute) => {
  const isMarket = l.scope === "market";
  const errors = isMarket
    ? "MARKET_NOT_FOUND"
    : l.marketColumn
      ? `ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND${l.orderColumn ? ", ORDER_NOT_FOUND (orderId names no order of the account)" : ""}`
      : "ACCOUNT_NOT_FOUND";
  return list(l.path, "history", summary, isMarket ? MarketPath : AccountPath, historyQueryOf(l), data, name, errors);
};

/** The list's scope from the route's path. */
const scopeOf = (l: ListSpec, param: Record<string, string>): Scope =>
  l.scope === "market" ? { marketId: param.marketId! } : { accountId: BigInt(param.accountId!) };

/** A history route that is not a keyset list (PnL, candles): its params, query and page schema. */
const periodRoute = <P extends z.ZodObject, R extends z.ZodObject>(r: { path: string; summary: string; description: string; params: P; query: R; data: z.ZodType; name: string; order: string; errors: string }) =>
  createRoute({
    method: "get",
    path: r.path,
    tags: ["history"],
    summary: r.summary,
    description: r.description,
    middleware: [indexedBlock],
    request: { params: r.params, query: r.query },
    responses: {
      200: { description: r.order, headers: readHeaders, content: { "application/json": { schema: envelope(r.data, r.name) } } },
      ...readErrors,
      ...notFound(r.errors),
    },
  });

const pnlRoute = periodRoute({
  path: "/accounts/{accountId}/pnl",
  summary: "Equity, realized and unrealized PnL, funding and fees at each period end",
  description:
    "One point per UTC period of `resolution` whose start is in [from, to), newest first: the account at the last block with a timestamp at or before the period's end, valued as the contracts' views value it at that block (Engine.getAccount, VenueLens.positionHealth). Only periods that ended before the latest indexed block's time and after the account was created.",
  params: AccountPath,
  query: H.PnlQuery,
  data: H.PnlList,
  name: "PnlListResponse",
  order: "PnL points, newest first",
  errors: "ACCOUNT_NOT_FOUND",
});

const candlesRoute = periodRoute({
  path: "/markets/{marketId}/candles",
  summary: "OHLCV candles, gap-free",
  description:
    "Periods of `resolution` (UTC) whose start is in [from, to), oldest first. A period without trades has open = high = low = close = the previous close and zero volume; periods before the market's first trade are not returned. `to` is capped at the end of the period holding the indexed block (the future has no candles).",
  params: MarketPath,
  query: H.CandlesQuery,
  data: H.CandleList,
  name: "CandleListResponse",
  order: "Candles, oldest first",
  errors: "MARKET_NOT_FOUND",
});

export const historyRoutes = createApiApp();
for (const l of lists) {
  const columns = columnsOf(l.item);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one handler shape for every list's route
  historyRoutes.openapi(routeOf(l), (async (c: any) => {
    const q = c.req.valid("query") as ListQuery;
    return answerList(c as never, l.spec, scopeOf(l.spec, c.req.valid("param") as Record<string, string>), q, columns);
  }) as never);
}
historyRoutes
  .openapi(pnlRoute, async (c) => {
    const accountId = BigInt(c.req.valid("param").accountId);
    const q = c.req.valid("query");
    const data = await readAtIndexedBlock(c as never, async () => {
      const acc = await requireAccount(accountId);
      const page = await pnlPage({ accountId, createdAt: acc.createdAt, resolution: q.resolution, from: q.from, to: q.to, limit: q.limit, cursor: q.cursor });
      return { pnl: page.points.map(pnlItem), hasMore: page.hasMore, nextCursor: page.nextCursor };
    });
    return c.json({ success: true as const, data }, 200) as never;
  })
  .openapi(candlesRoute, async (c) => {
    const marketId = c.req.valid("param").marketId;
    const q = c.req.valid("query");
    const data = await readAtIndexedBlock(c as never, async (b) => (await historyPlansOfPonder().candlePage(onPonderDb, marketId, { ...q, resolution: q.resolution as CandleResolution }, b.timestamp)).data);
    return c.json({ success: true as const, data }, 200) as never;
  });
