/** /v1/markets: reads from the integration API. The list is public; the rest needs a key. */
import type { GatewayApp, GatewayDeps } from "../context.js";
import { forwardHeaders, send } from "../context.js";
import { MarketIdParam, OrderbookQuery, ReadQuery } from "../schemas.js";
import { MarketListData, MarketData, OrderBookData, FundingData, MarkPriceData } from "../responses.js";
import { defineRoute } from "./define.js";

const tag = "Markets";

export const listMarkets = defineRoute({
  method: "get",
  path: "/v1/markets",
  tag,
  summary: "List markets",
  description: "Public: no X-API-Key needed (a key, when sent, is checked and counted).",
  isPublic: true,
  request: { query: ReadQuery },
  ok: { status: 200, name: "MarketList", data: MarketListData, description: "{ markets: [market] }" },
});

export const getMarket = defineRoute({
  method: "get",
  path: "/v1/markets/{market_id}",
  tag,
  summary: "One market",
  request: { params: MarketIdParam, query: ReadQuery },
  ok: { status: 200, name: "Market", data: MarketData, description: "market fields, open_interest" },
  errors: [404],
});

export const getOrderbook = defineRoute({
  method: "get",
  path: "/v1/markets/{market_id}/orderbook",
  tag,
  summary: "Order book of a market",
  request: { params: MarketIdParam, query: OrderbookQuery },
  ok: { status: 200, name: "OrderBook", data: OrderBookData, description: "market_id, timestamp (ms), bids, asks, spread, mid_price" },
  errors: [404],
});

export const getFunding = defineRoute({
  method: "get",
  path: "/v1/markets/{market_id}/funding",
  tag,
  summary: "Funding of a market",
  request: { params: MarketIdParam, query: ReadQuery },
  ok: { status: 200, name: "MarketFunding", data: FundingData, description: "current_rate (per hour, 18 decimals), cumulative_funding, prices, components, direction" },
  errors: [404],
});

export const getPrice = defineRoute({
  method: "get",
  path: "/v1/markets/{market_id}/price",
  tag,
  summary: "Mark price of a market",
  request: { params: MarketIdParam, query: ReadQuery },
  ok: { status: 200, name: "MarkPrice", data: MarkPriceData, description: "market_id, mark_price, mark_price_formatted, timestamp (s)" },
  errors: [404],
});

export function registerMarketRoutes(app: GatewayApp, { upstreams: { integration } }: GatewayDeps) {
  app.openapi(listMarkets, async (c) =>
    send(c, await integration.call({ path: "/markets", query: { minBlock: c.req.valid("query").min_block }, headers: forwardHeaders(c) })),
  );
  app.openapi(getMarket, async (c) => {
    const { market_id } = c.req.valid("param");
    const q = c.req.valid("query");
    return send(c, await integration.call({ path: `/markets/${market_id}`, query: { minBlock: q.min_block }, headers: forwardHeaders(c) }));
  });
  app.openapi(getOrderbook, async (c) => {
    const { market_id } = c.req.valid("param");
    const q = c.req.valid("query");
    return send(
      c,
      await integration.call({
        path: `/markets/${market_id}/orderbook`,
        query: { depth: q.depth, minBlock: q.min_block },
        headers: forwardHeaders(c),
      }),
    );
  });
  app.openapi(getFunding, async (c) => {
    const { market_id } = c.req.valid("param");
    const q = c.req.valid("query");
    return send(c, await integration.call({ path: `/markets/${market_id}/funding`, query: { minBlock: q.min_block }, headers: forwardHeaders(c) }));
  });
  app.openapi(getPrice, async (c) => {
    const { market_id } = c.req.valid("param");
    const q = c.req.valid("query");
    return send(c, await integration.call({ path: `/markets/${market_id}/price`, query: { minBlock: q.min_block }, headers: forwardHeaders(c) }));
  });
}
