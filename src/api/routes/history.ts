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

const trades: ListDef<typeof trade.$inferSelect, ReturnType<typeof tradeItem>> = {
  name: "trades",
  key: "trades",
  table: trade,
  order: [trade.timestamp, trade.blockNumber, trade.logIndex],
  tiebreakType: "integer",
  toItems: (rows) => rows.map(tradeItem),
};

const fundingRates = (marketId: Hex): ListDef<typeof fundingHistory.$inferSelect, ReturnType<typeof fundingRateItem>> => ({
  name: "funding",
  key: "funding",
  table: fundingHistory,
  order: [fundingHistory.timestamp, fundingHistory.blockNumber, fundingHistory.logIndex],
  tiebreakType: "integer",
  toItems: (rows) => rows.map((r) => fundingRateItem(marketId, r)),
});

const fills: ListDef<typeof accountFill.$inferSelect, ReturnType<typeof fillItem>> = {
  name: "fills",
  key: "fills",
  table: accountFill,
  order: [accountFill.timestamp, accountFill.blockNumber, accountFill.logIndex],
  tiebreakType: "integer",
  toItems: (rows) => rows.map(fillItem),
};

const fundingPayments: ListDef<typeof fundingPayment.$inferSelect, ReturnType<typeof fundingPaymentItem>> = {
  name: "fundingPayments",
  key: "fundingPayments",
  table: fundingPayment,
  order: [fundingPayment.timestamp, fundingPayment.blockNumber, fundingPayment.logIndex],
  tiebreakType: "integer",
  toItems: (rows) => rows.map(fundingPaymentItem),
};

const transfers: ListDef<typeof transfer.$inferSelect, ReturnType<typeof transferItem>> = {
  name: "transfers",
  key: "transfers",
  table: transfer,
  order: [transfer.timestamp, transfer.blockNumber, transfer.logIndex],
  tiebreakType: "integer",
  toItems: (rows) => rows.map(transferItem),
};

const liquidations: ListDef<typeof accountLiquidation.$inferSelect, ReturnType<typeof liquidationItem>> = {
  name: "liquidations",
  key: "liquidations",
  table: accountLiquidation,
  order: [accountLiquidation.timestamp, accountLiquidation.blockNumber, accountLiquidation.logIndex],
  tiebreakType: "integer",
  toItems: (rows) => rows.map(liquidationItem),
};

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

// ─── routes ────────────────────────────────────────────────────────────────────────────

const tradesRoute = list("/markets/{marketId}/trades", "history", "Every fill of the market", MarketPath, H.MarketHistoryQuery, H.TradeList, "TradeListResponse", "MARKET_NOT_FOUND");
const fundingHistoryRoute = list("/markets/{marketId}/funding/history", "history", "The funding rate and cumulative index at every update", MarketPath, H.MarketHistoryQuery, H.FundingRateList, "FundingRateListResponse", "MARKET_NOT_FOUND");
const fillsRoute = list("/accounts/{accountId}/fills", "history", "The account's fills: side, maker or taker, price, size, fee", AccountPath, H.AccountHistoryQuery, H.FillList, "FillListResponse", "ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND");
const fundingPaymentsRoute = list("/accounts/{accountId}/funding-payments", "history", "Every settlement of funding on the account's positions", AccountPath, H.AccountHistoryQuery, H.FundingPaymentList, "FundingPaymentListResponse", "ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND");
const transfersRoute = list("/accounts/{accountId}/transfers", "history", "Deposits and withdrawals", AccountPath, H.MarketHistoryQuery, H.TransferList, "TransferListResponse", "ACCOUNT_NOT_FOUND");
const liquidationsRoute = list("/accounts/{accountId}/liquidations", "history", "Liquidations of the account's positions", AccountPath, H.AccountHistoryQuery, H.LiquidationList, "LiquidationListResponse", "ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND");
const orderHistoryRoute = list("/accounts/{accountId}/orders/history", "history", "Every order with its final status and fill count", AccountPath, H.AccountHistoryQuery, H.HistoricalOrderList, "HistoricalOrderListResponse", "ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND");

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

type Q = { from?: bigint; to?: bigint; limit: number; cursor?: string; marketId?: string };
const marketOf = (raw: string) => raw.toLowerCase() as Hex;

async function accountScope(accountIdRaw: string, q: Q, cols: { accountId: unknown; marketId?: unknown }) {
  const accountId = BigInt(accountIdRaw);
  const marketId = q.marketId ? marketOf(q.marketId) : undefined;
  await Promise.all([requireAccount(accountId), marketId ? requireMarket(marketId) : undefined]);
  return and(eq(cols.accountId as never, accountId), marketId && cols.marketId ? eq(cols.marketId as never, marketId) : undefined);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the list routes share one handler shape
const valid = (c: any, target: "param" | "query") => c.req.valid(target);
const rangeOf = (q: Q) => ({ from: q.from, to: q.to, limit: q.limit, cursor: q.cursor });

export const historyRoutes = createApiApp()
  .openapi(tradesRoute, async (c) => {
    const marketId = marketOf(valid(c, "param").marketId);
    await requireMarket(marketId);
    const q = valid(c, "query") as Q;
    return answerList(c as never, trades, eq(trade.marketId, marketId), rangeOf(q), columnsOf(H.Trade)) as never;
  })
  .openapi(fundingHistoryRoute, async (c) => {
    const marketId = marketOf(valid(c, "param").marketId);
    const m = await requireMarket(marketId);
    const q = valid(c, "query") as Q;
    return answerList(c as never, fundingRates(marketId), eq(fundingHistory.marketAddress, m.marketAddress), rangeOf(q), columnsOf(H.FundingRate)) as never;
  })
  .openapi(fillsRoute, async (c) => {
    const q = valid(c, "query") as Q;
    const scope = await accountScope(valid(c, "param").accountId, q, accountFill);
    return answerList(c as never, fills, scope, rangeOf(q), columnsOf(H.Fill)) as never;
  })
  .openapi(fundingPaymentsRoute, async (c) => {
    const q = valid(c, "query") as Q;
    const scope = await accountScope(valid(c, "param").accountId, q, fundingPayment);
    return answerList(c as never, fundingPayments, scope, rangeOf(q), columnsOf(H.FundingPayment)) as never;
  })
  .openapi(transfersRoute, async (c) => {
    const q = valid(c, "query") as Q;
    const scope = await accountScope(valid(c, "param").accountId, q, { accountId: transfer.accountId });
    return answerList(c as never, transfers, scope, rangeOf(q), columnsOf(H.Transfer)) as never;
  })
  .openapi(liquidationsRoute, async (c) => {
    const q = valid(c, "query") as Q;
    const scope = await accountScope(valid(c, "param").accountId, q, accountLiquidation);
    return answerList(c as never, liquidations, scope, rangeOf(q), columnsOf(H.Liquidation)) as never;
  })
  .openapi(orderHistoryRoute, async (c) => {
    const q = valid(c, "query") as Q;
    const scope = await accountScope(valid(c, "param").accountId, q, order);
    return answerList(c as never, orderHistory, scope, rangeOf(q), columnsOf(H.HistoricalOrder)) as never;
  })
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
