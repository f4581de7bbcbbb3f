/**
 * History (issue 13): trades, candles and funding history of a market; fills, funding
 * payments, transfers, liquidations and order history of an account. Lists page newest first
 * by (time, block, log index) with an opaque cursor, filter by time (`from` inclusive, `to`
 * exclusive) and, for accounts, by market; `Accept: text/csv` or `application/x-ndjson` streams
 * the whole range (src/api/lib/history.ts). Candles are the indexer's rows with the periods
 * without trades filled (previous close, zero volume).
 */
import { createRoute, type z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { db } from "ponder:api";
import { accountFill, accountLiquidation, candle, fundingHistory, fundingPayment, order, trade, transfer } from "ponder:schema";
import { and, asc, count, desc, eq, gte, inArray, lt } from "ponder";
import type { SQL } from "drizzle-orm";
import type { Hex } from "viem";
import { CANDLE_RESOLUTIONS, emptyCandle, type CandleResolution, type Ohlcv } from "../../../core/candles.js";
import { decodeUintCursor, encodeCursor } from "../../../core/cursor.js";
import { ApiError } from "../../../core/errors.js";
import * as H from "../../../core/schemas/history.js";
import { createApiApp } from "../lib/app.js";
import { requireAccount, requireMarket } from "../lib/data.js";
import { answerList, exportFormat, type ListDef } from "../lib/history.js";
import {
  candleItem,
  fillItem,
  fundingPaymentItem,
  fundingRateItem,
  historicalOrderItem,
  liquidationItem,
  pnlItem,
  transferItem,
  tradeItem,
} from "../lib/historyResponses.js";
import { indexedBlock, readAtIndexedBlock } from "../lib/indexedBlock.js";
import { pnlPage } from "../lib/pnl.js";
import { responseCache } from "../lib/responseCache.js";
import { notFound, readErrors, readHeaders } from "../lib/routes.js";
import { AccountPath, MarketPath, envelope } from "../lib/schemas.js";

/** The response cache keys on the URL alone: exports (chosen by Accept) never go through it. */
const cacheUnlessExport = createMiddleware(async function cacheUnlessExport(c, next) {
  if (exportFormat(c)) return next();
  return responseCache(c as never, next);
});
const middleware = [indexedBlock, cacheUnlessExport];

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
// Every list is one row of `lists`: its route, its table's order and item, and its scope (a
// market's rows, or an account's, by market when asked). The list routes are made from it.

type Q = { from?: bigint; to?: bigint; limit: number; cursor?: string; marketId?: string };
type MarketRow = Awaited<ReturnType<typeof requireMarket>>;
const marketOf = (raw: string) => raw.toLowerCase() as Hex;

/** A list ordered by (timestamp, block, log index): the history tables' layout. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const byLog = <T extends Record<string, any>, I>(name: string, key: string, table: T, toItems: ListDef<T["$inferSelect"], I>["toItems"]): ListDef<T["$inferSelect"], I> => ({
  name,
  key,
  table,
  order: [table.timestamp, table.blockNumber, table.logIndex],
  tiebreakType: "integer",
  toItems,
});

/** Orders have no log index: (createdAt, createdBlock, orderId), orderId rising with placement. */
const orderHistory: ListDef<typeof order.$inferSelect, ReturnType<typeof historicalOrderItem>> = {
  name: "orderHistory",
  key: "orders",
  table: order,
  order: [order.createdAt, order.createdBlock, order.orderId],
  tiebreakType: "numeric",
  async toItems(rows) {
    if (rows.length === 0) return [];
    const counts = await db
      .select({ orderId: accountFill.orderId, n: count() })
      .from(accountFill)
      .where(inArray(accountFill.orderId, rows.map((r) => r.orderId)))
      .groupBy(accountFill.orderId);
    const byId = new Map(counts.map((r) => [r.orderId, Number(r.n)]));
    return rows.map((r) => historicalOrderItem(r, byId.get(r.orderId) ?? 0));
  },
};

type ListRoute = {
  path: string;
  summary: string;
  data: z.ZodType;
  name: string;
  item: z.ZodObject;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  def: ListDef<any, any> | ((m: MarketRow) => ListDef<any, any>);
} & (
  | { market: (m: MarketRow) => SQL }
  /** the account's rows; `marketId` narrows to one market when the table has it */
  | { account: { accountId: unknown; marketId?: unknown } }
);

const lists: ListRoute[] = [
  {
    path: "/markets/{marketId}/trades",
    summary: "Every fill of the market",
    data: H.TradeList,
    name: "TradeListResponse",
    item: H.Trade,
    def: byLog("trades", "trades", trade, (rows) => rows.map(tradeItem)),
    market: (m) => eq(trade.marketId, m.marketId),
  },
  {
    path: "/markets/{marketId}/funding/history",
    summary: "The funding rate and cumulative index at every update",
    data: H.FundingRateList,
    name: "FundingRateListResponse",
    item: H.FundingRate,
    def: (m) => byLog("funding", "funding", fundingHistory, (rows) => rows.map((r) => fundingRateItem(m.marketId, r))),
    market: (m) => eq(fundingHistory.marketAddress, m.marketAddress),
  },
  {
    path: "/accounts/{accountId}/fills",
    summary: "The account's fills: side, maker or taker, price, size, fee",
    data: H.FillList,
    name: "FillListResponse",
    item: H.Fill,
    def: byLog("fills", "fills", accountFill, (rows) => rows.map(fillItem)),
    account: accountFill,
  },
  {
    path: "/accounts/{accountId}/funding-payments",
    summary: "Every settlement of funding on the account's positions",
    data: H.FundingPaymentList,
    name: "FundingPaymentListResponse",
    item: H.FundingPayment,
    def: byLog("fundingPayments", "fundingPayments", fundingPayment, (rows) => rows.map(fundingPaymentItem)),
    account: fundingPayment,
  },
  {
    path: "/accounts/{accountId}/transfers",
    summary: "Deposits and withdrawals",
    data: H.TransferList,
    name: "TransferListResponse",
    item: H.Transfer,
    def: byLog("transfers", "transfers", transfer, (rows) => rows.map(transferItem)),
    account: { accountId: transfer.accountId },
  },
  {
    path: "/accounts/{accountId}/liquidations",
    summary: "Liquidations of the account's positions",
    data: H.LiquidationList,
    name: "LiquidationListResponse",
    item: H.Liquidation,
    def: byLog("liquidations", "liquidations", accountLiquidation, (rows) => rows.map(liquidationItem)),
    account: accountLiquidation,
  },
  {
    path: "/accounts/{accountId}/orders/history",
    summary: "Every order with its final status and fill count",
    data: H.HistoricalOrderList,
    name: "HistoricalOrderListResponse",
    item: H.HistoricalOrder,
    def: orderHistory,
    account: order,
  },
];

const routeOf = (l: ListRoute) => {
  const isMarket = "market" in l;
  // a market filter only where the table has a market
  const query = isMarket || !l.account.marketId ? H.MarketHistoryQuery : H.AccountHistoryQuery;
  const errors = isMarket ? "MARKET_NOT_FOUND" : l.account.marketId ? "ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND" : "ACCOUNT_NOT_FOUND";
  return list(l.path, "history", l.summary, isMarket ? MarketPath : AccountPath, query, l.data, l.name, errors);
};

/** The list's scope (404 for an unknown market or account) and its definition. */
async function scopeOf(l: ListRoute, param: Record<string, string>, q: Q) {
  if ("market" in l) {
    const m = await requireMarket(marketOf(param.marketId!));
    return { scope: l.market(m), def: typeof l.def === "function" ? l.def(m) : l.def };
  }
  const accountId = BigInt(param.accountId!);
  const marketId = q.marketId ? marketOf(q.marketId) : undefined;
  await Promise.all([requireAccount(accountId), marketId ? requireMarket(marketId) : undefined]);
  const cols = l.account;
  const scope = and(eq(cols.accountId as never, accountId), marketId && cols.marketId ? eq(cols.marketId as never, marketId) : undefined);
  return { scope, def: l.def as ListDef<unknown, Record<string, unknown>> };
}

const pnlRoute = createRoute({
  method: "get",
  path: "/accounts/{accountId}/pnl",
  tags: ["history"],
  summary: "Equity, realized and unrealized PnL, funding and fees at each period end",
  description:
    "One point per UTC period of `resolution` whose start is in [from, to), newest first: the account at the last block with a timestamp at or before the period's end, valued as the contracts' views value it at that block (Engine.getAccount, VenueLens.positionHealth). Only periods that ended before the latest indexed block's time and after the account was created.",
  middleware: [indexedBlock, responseCache],
  request: { params: AccountPath, query: H.PnlQuery },
  responses: {
    200: { description: "PnL points, newest first", headers: readHeaders, content: { "application/json": { schema: envelope(H.PnlList, "PnlListResponse") } } },
    ...readErrors,
    ...notFound("ACCOUNT_NOT_FOUND"),
  },
});

const candlesRoute = createRoute({
  method: "get",
  path: "/markets/{marketId}/candles",
  tags: ["history"],
  summary: "OHLCV candles, gap-free",
  description:
    "Periods of `resolution` (UTC) whose start is in [from, to), oldest first. A period without trades has open = high = low = close = the previous close and zero volume; periods before the market's first trade are not returned. `to` is capped at the end of the period holding the indexed block (the future has no candles).",
  middleware: [indexedBlock, responseCache],
  request: { params: MarketPath, query: H.CandlesQuery },
  responses: {
    200: { description: "Candles, oldest first", headers: readHeaders, content: { "application/json": { schema: envelope(H.CandleList, "CandleListResponse") } } },
    ...readErrors,
    ...notFound("MARKET_NOT_FOUND"),
  },
});

export const historyRoutes = createApiApp();
for (const l of lists) {
  const columns = columnsOf(l.item);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one handler shape for every list's route
  historyRoutes.openapi(routeOf(l), (async (c: any) => {
    const q = c.req.valid("query") as Q;
    const { scope, def } = await scopeOf(l, c.req.valid("param") as Record<string, string>, q);
    return answerList(c as never, def, scope, { from: q.from, to: q.to, limit: q.limit, cursor: q.cursor }, columns);
  }) as never);
}
historyRoutes
  .openapi(pnlRoute, async (c) => {
    const accountId = BigInt(c.req.valid("param").accountId);
    const acc = await requireAccount(accountId);
    const q = c.req.valid("query");
    const data = await readAtIndexedBlock(c as never, async () => {
      const page = await pnlPage({ accountId, createdAt: acc.createdAt, resolution: q.resolution, from: q.from, to: q.to, limit: q.limit, cursor: q.cursor });
      return { pnl: page.points.map(pnlItem), hasMore: page.hasMore, nextCursor: page.nextCursor };
    });
    return c.json({ success: true as const, data }, 200) as never;
  })
  .openapi(candlesRoute, async (c) => {
    const marketId = marketOf(c.req.valid("param").marketId);
    await requireMarket(marketId);
    const q = c.req.valid("query");
    const data = await readAtIndexedBlock(c as never, (b) => candlePage(marketId, q.resolution as CandleResolution, q, b.timestamp));
    return c.json({ success: true as const, data }, 200) as never;
  });

const ohlcvOf = (r: typeof candle.$inferSelect): Ohlcv => ({
  openX18: r.openX18,
  highX18: r.highX18,
  lowX18: r.lowX18,
  closeX18: r.closeX18,
  baseVolumeQty: r.baseVolumeQty,
  quoteVolumeWad: r.quoteVolumeWad,
  tradeCount: r.tradeCount,
});

/** One page of candles: the indexer's rows for the periods in it, the gaps filled with the previous close. */
export async function candlePage(marketId: Hex, resolution: CandleResolution, q: Q, now: bigint) {
  const len = CANDLE_RESOLUTIONS[resolution];
  const cap = now - (now % len) + len; // end of the period holding the indexed block
  const to = q.to === undefined || q.to > cap ? cap : q.to;
  if (q.from !== undefined && q.to !== undefined && q.from > q.to) throw new ApiError("VALIDATION_ERROR", "from: must not be after to");
  const fromRaw = q.from ?? (to - BigInt(q.limit) * len > 0n ? to - BigInt(q.limit) * len : 0n);
  const from = ((fromRaw + len - 1n) / len) * len; // the first period starting at or after it
  let pageFrom = from;
  if (q.cursor !== undefined) {
    const [next] = decodeUintCursor("candles", q.cursor, 1);
    if (next! % len !== 0n || next! < from) throw new ApiError("VALIDATION_ERROR", "cursor: not a cursor of this list (pass nextCursor back unchanged)");
    pageFrom = next!;
  }
  const scope = and(eq(candle.marketId, marketId), eq(candle.resolution, resolution));
  const empty = { candles: [], hasMore: false, nextCursor: null };
  if (pageFrom >= to) return empty;
  const prev = await db.select().from(candle).where(and(scope, lt(candle.periodStart, pageFrom))).orderBy(desc(candle.periodStart)).limit(1);
  let close = prev[0]?.closeX18;
  if (close === undefined) {
    // no trade before the page: the series starts at the first period with one
    const first = await db.select().from(candle).where(and(scope, gte(candle.periodStart, pageFrom), lt(candle.periodStart, to))).orderBy(asc(candle.periodStart)).limit(1);
    if (!first[0]) return empty;
    pageFrom = first[0].periodStart;
  }
  const span = BigInt(q.limit) * len;
  const pageEnd = pageFrom + span < to ? pageFrom + span : to;
  const rows = await db.select().from(candle).where(and(scope, gte(candle.periodStart, pageFrom), lt(candle.periodStart, pageEnd))).orderBy(asc(candle.periodStart));
  const byStart = new Map(rows.map((r) => [r.periodStart, r]));
  const candles = [];
  for (let t = pageFrom; t < pageEnd; t += len) {
    const row = byStart.get(t);
    const ohlcv = row ? ohlcvOf(row) : emptyCandle(close!);
    close = ohlcv.closeX18;
    candles.push(candleItem(marketId, resolution, t, ohlcv));
  }
  const hasMore = pageEnd < to;
  return { candles, hasMore, nextCursor: hasMore ? encodeCursor("candles", [pageEnd]) : null };
}
