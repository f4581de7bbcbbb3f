/** GET /markets, /markets/{marketId}, .../funding, .../orderbook, .../price. */
import { createRoute } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { createApiApp } from "../lib/app.js";
import { allMarketSnapshots, bookLevels, requireMarket, requireMarketSnapshot } from "../lib/data.js";
import { fundingResponse, markPriceResponse, marketResponse, orderBookResponse } from "../../../core/reads/responses.js";
import { readAtIndexedBlock } from "../lib/indexedBlock.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { Funding, MarkPrice, Market, MarketList, MarketPath, OrderBook, OrderBookQuery, ReadQuery, envelope } from "../lib/schemas.js";

const json = <T extends Parameters<typeof envelope>[0]>(schema: T, name: string, description: string) => ({
  description,
  headers: readHeaders,
  content: { "application/json": { schema: envelope(schema, name) } },
});

const listMarkets = createRoute({
  method: "get",
  path: "/markets",
  tags: ["markets"],
  summary: "Every market",
  middleware: readMiddleware,
  request: { query: ReadQuery },
  responses: { 200: json(MarketList, "MarketListResponse", "Markets by creation"), ...readErrors },
});

const getMarket = createRoute({
  method: "get",
  path: "/markets/{marketId}",
  tags: ["markets"],
  summary: "One market",
  middleware: readMiddleware,
  request: { params: MarketPath, query: ReadQuery },
  responses: { 200: json(Market, "MarketResponse", "The market"), ...readErrors, ...notFound("MARKET_NOT_FOUND") },
});

const getFunding = createRoute({
  method: "get",
  path: "/markets/{marketId}/funding",
  tags: ["markets"],
  summary: "Funding rate, its components and the cumulative index",
  middleware: readMiddleware,
  request: { params: MarketPath, query: ReadQuery },
  responses: { 200: json(Funding, "MarketFundingResponse", "Funding"), ...readErrors, ...notFound("MARKET_NOT_FOUND") },
});

const getOrderBook = createRoute({
  method: "get",
  path: "/markets/{marketId}/orderbook",
  tags: ["markets"],
  summary: "Aggregated price levels per side",
  middleware: readMiddleware,
  request: { params: MarketPath, query: OrderBookQuery },
  responses: { 200: json(OrderBook, "OrderBookResponse", "The book"), ...readErrors, ...notFound("MARKET_NOT_FOUND") },
});

const getPrice = createRoute({
  method: "get",
  path: "/markets/{marketId}/price",
  tags: ["markets"],
  summary: "Mark price",
  middleware: readMiddleware,
  request: { params: MarketPath, query: ReadQuery },
  responses: { 200: json(MarkPrice, "MarkPriceResponse", "Mark and index price"), ...readErrors, ...notFound("MARKET_NOT_FOUND") },
});

const idOf = (raw: string) => raw.toLowerCase() as Hex;

export const marketRoutes = createApiApp()
  .openapi(listMarkets, async (c) => {
    const data = await readAtIndexedBlock(c, async (b) => ({ markets: (await allMarketSnapshots(b.timestamp)).map(marketResponse) }));
    return c.json({ success: true as const, data }, 200);
  })
  .openapi(getMarket, async (c) => {
    const id = idOf(c.req.valid("param").marketId);
    const data = await readAtIndexedBlock(c, async (b) => marketResponse(await requireMarketSnapshot(id, b.timestamp)));
    return c.json({ success: true as const, data }, 200);
  })
  .openapi(getFunding, async (c) => {
    const id = idOf(c.req.valid("param").marketId);
    const data = await readAtIndexedBlock(c, async (b) => fundingResponse(await requireMarketSnapshot(id, b.timestamp)));
    return c.json({ success: true as const, data }, 200);
  })
  .openapi(getOrderBook, async (c) => {
    const marketId = idOf(c.req.valid("param").marketId);
    const { depth } = c.req.valid("query");
    const data = await readAtIndexedBlock(c, async (b) => {
      await requireMarket(marketId);
      const [bids, asks] = await Promise.all([bookLevels(marketId, "LONG", depth), bookLevels(marketId, "SHORT", depth)]);
      return orderBookResponse(marketId, bids, asks, b);
    });
    return c.json({ success: true as const, data }, 200);
  })
  .openapi(getPrice, async (c) => {
    const id = idOf(c.req.valid("param").marketId);
    const data = await readAtIndexedBlock(c, async (b) => markPriceResponse(await requireMarketSnapshot(id, b.timestamp), b));
    return c.json({ success: true as const, data }, 200);
  });
