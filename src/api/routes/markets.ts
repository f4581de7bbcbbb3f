/** GET /markets, /markets/{marketId}, .../funding, .../orderbook, .../price. */
import { createRoute } from "@hono/zod-openapi";
import { createApiApp } from "../lib/app.js";
import { hotAnswer } from "../lib/hotAnswers.js";
import { HOT_ROUTES } from "../../../core/reads/routes.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { Funding, MarkPrice, Market, MarketList, MarketPath, OrderBook, OrderBookQuery, ReadQuery, envelope } from "../../../core/schemas/reads.js";

const json = <T extends Parameters<typeof envelope>[0]>(schema: T, name: string, description: string) => ({
  description,
  headers: readHeaders,
  content: { "application/json": { schema: envelope(schema, name) } },
});

const listMarkets = createRoute({
  method: "get",
  path: HOT_ROUTES.markets,
  tags: ["markets"],
  summary: "Every market",
  middleware: readMiddleware,
  request: { query: ReadQuery },
  responses: { 200: json(MarketList, "MarketListResponse", "Markets by creation"), ...readErrors },
});

const getMarket = createRoute({
  method: "get",
  path: HOT_ROUTES.market,
  tags: ["markets"],
  summary: "One market",
  middleware: readMiddleware,
  request: { params: MarketPath, query: ReadQuery },
  responses: { 200: json(Market, "MarketResponse", "The market"), ...readErrors, ...notFound("MARKET_NOT_FOUND") },
});

const getFunding = createRoute({
  method: "get",
  path: HOT_ROUTES.funding,
  tags: ["markets"],
  summary: "Funding rate, its components and the cumulative index",
  middleware: readMiddleware,
  request: { params: MarketPath, query: ReadQuery },
  responses: { 200: json(Funding, "MarketFundingResponse", "Funding"), ...readErrors, ...notFound("MARKET_NOT_FOUND") },
});

const getOrderBook = createRoute({
  method: "get",
  path: HOT_ROUTES.orderbook,
  tags: ["markets"],
  summary: "Aggregated price levels per side",
  middleware: readMiddleware,
  request: { params: MarketPath, query: OrderBookQuery },
  responses: { 200: json(OrderBook, "OrderBookResponse", "The book"), ...readErrors, ...notFound("MARKET_NOT_FOUND") },
});

const getPrice = createRoute({
  method: "get",
  path: HOT_ROUTES.price,
  tags: ["markets"],
  summary: "Mark price",
  middleware: readMiddleware,
  request: { params: MarketPath, query: ReadQuery },
  responses: { 200: json(MarkPrice, "MarkPriceResponse", "Mark and index price"), ...readErrors, ...notFound("MARKET_NOT_FOUND") },
});

// one read model: the plan of core/reads/plans.ts (the read service's too) answers each
export const marketRoutes = createApiApp()
  .openapi(listMarkets, (c) => hotAnswer(c) as never)
  .openapi(getMarket, (c) => hotAnswer(c) as never)
  .openapi(getFunding, (c) => hotAnswer(c) as never)
  .openapi(getOrderBook, (c) => hotAnswer(c) as never)
  .openapi(getPrice, (c) => hotAnswer(c) as never);
