/**
 * /v1 history (issue 13): the integration API's history lists in snake_case, behind the API key.
 * JSON pages go through `send` like every read; `Accept: text/csv` or `application/x-ndjson`
 * streams the integration API's export back as it comes, its CSV header and NDJSON keys in
 * snake_case (core/case.ts).
 */
import { z } from "@hono/zod-openapi";
import { snakeKeys, toSnakeCase } from "../../../core/case.js";
import { CANDLE_RESOLUTION_NAMES } from "../../../core/candles.js";
import { ApiError } from "../../../core/errors.js";
import { exportFormatOf } from "../../../core/history/lists.js";
import * as H from "../../../core/schemas/history.js";
import { snakeSchema } from "../../../core/schemas/snake-case.js";
import { InsuranceFundEventList } from "../../../core/schemas/insurance.js";
import type { GatewayApp, GatewayContext, GatewayDeps } from "../context.js";
import { forwardHeaders, send } from "../context.js";
import { AccountIdParam, MarketIdParam, bytes32 } from "../schemas.js";
import { defineRoute } from "./define.js";

const tag = "History";

const time = (d: string) => z.string().max(40).optional().openapi({ description: `${d}: unix seconds or ISO 8601 (checked by the integration API)` });
const minBlock = z.string().regex(/^\d{1,15}$/, "expected a block number").optional().openapi({ description: "wait (bounded) until this block is indexed" });
const page = {
  from: time("only items at or after this time (inclusive)"),
  to: time("only items before this time (exclusive)"),
  limit: z.string().regex(/^\d{1,4}$/, "expected an integer from 1 to 1000").optional().openapi({ description: `items per page (1 to ${H.MAX_HISTORY_LIMIT}, default ${H.DEFAULT_HISTORY_LIMIT})` }),
  cursor: z.string().regex(/^[A-Za-z0-9_-]{1,512}$/, "expected next_cursor of the previous page, unchanged").optional().openapi({ description: "next_cursor of the previous page (opaque)" }),
  min_block: minBlock,
};
const MarketListQuery = z.object(page);
const AccountListQuery = z.object({ ...page, market_id: bytes32("only this market").optional() });
const ModificationsQuery = AccountListQuery.extend({
  order_id: z.string().regex(/^[1-9]\d{0,77}$/, "expected an order id (a positive decimal integer)").optional().openapi({ description: "only this order's modifications (404 ORDER_NOT_FOUND when the account has no such order)" }),
});
const CandlesQuery = z.object({
  resolution: z.enum(CANDLE_RESOLUTION_NAMES as [string, ...string[]]).openapi({ description: "period length (UTC periods)" }),
  ...page,
});
const PnlQuery = z.object({
  resolution: z.enum(H.PNL_RESOLUTION_NAMES).openapi({ description: "period length (UTC periods)" }),
  ...page,
});

const EXPORT_NOTE = " `Accept: text/csv` or `application/x-ndjson` streams the whole range (from/to), oldest first.";

/** Whose list: a market's (`market_id` in the path), an account's (`account_id`), or the venue's (no path parameter). */
type ListScope = "market" | "account" | "venue";
type ListSpec = { path: string; upstream: (p: Record<string, string>) => string; summary: string; data: z.ZodType; name: string; scope: ListScope; exportable: boolean; query: z.ZodObject };

const specs: ListSpec[] = [
  { path: "/v1/markets/{market_id}/trades", upstream: (p) => `/markets/${p.market_id}/trades`, summary: "Every fill of the market, newest first", data: H.TradeList, name: "TradeList", scope: "market", exportable: true, query: MarketListQuery },
  { path: "/v1/markets/{market_id}/candles", upstream: (p) => `/markets/${p.market_id}/candles`, summary: "OHLCV candles, oldest first, gap-free (a period without trades: the previous close, zero volume); from inclusive, to exclusive", data: H.CandleList, name: "CandleList", scope: "market", exportable: false, query: CandlesQuery },
  { path: "/v1/markets/{market_id}/funding/history", upstream: (p) => `/markets/${p.market_id}/funding/history`, summary: "The funding rate and cumulative index at every update, newest first", data: H.FundingRateList, name: "FundingRateList", scope: "market", exportable: true, query: MarketListQuery },
  { path: "/v1/accounts/{account_id}/fills", upstream: (p) => `/accounts/${p.account_id}/fills`, summary: "The account's fills (side, maker or taker, price, size, fee), newest first", data: H.FillList, name: "FillList", scope: "account", exportable: true, query: AccountListQuery },
  { path: "/v1/accounts/{account_id}/funding-payments", upstream: (p) => `/accounts/${p.account_id}/funding-payments`, summary: "Every settlement of funding on the account's positions, newest first", data: H.FundingPaymentList, name: "FundingPaymentList", scope: "account", exportable: true, query: AccountListQuery },
  { path: "/v1/accounts/{account_id}/transfers", upstream: (p) => `/accounts/${p.account_id}/transfers`, summary: "Deposits and withdrawals, newest first", data: H.TransferList, name: "TransferList", scope: "account", exportable: true, query: MarketListQuery },
  { path: "/v1/accounts/{account_id}/liquidations", upstream: (p) => `/accounts/${p.account_id}/liquidations`, summary: "Liquidations of the account's positions, newest first", data: H.LiquidationList, name: "LiquidationList", scope: "account", exportable: true, query: AccountListQuery },
  { path: "/v1/accounts/{account_id}/orders/history", upstream: (p) => `/accounts/${p.account_id}/orders/history`, summary: "Every order with its final status and fill count, newest first", data: H.HistoricalOrderList, name: "HistoricalOrderList", scope: "account", exportable: true, query: AccountListQuery },
  { path: "/v1/accounts/{account_id}/orders/modifications", upstream: (p) => `/accounts/${p.account_id}/orders/modifications`, summary: "Every modification of the account's orders (from_price/price, from_remaining_quantity/remaining_quantity, kept_priority, block, time, transaction), newest first; order_id: one order's", data: H.OrderModificationList, name: "OrderModificationList", scope: "account", exportable: true, query: ModificationsQuery },
  { path: "/v1/insurance-fund/history", upstream: () => "/insurance-fund/history", summary: "Every change of the insurance fund (donations, liquidation fees in, losses covered, positions taken over), newest first", data: InsuranceFundEventList, name: "InsuranceFundEventList", scope: "venue", exportable: true, query: MarketListQuery },
  { path: "/v1/accounts/{account_id}/pnl", upstream: (p) => `/accounts/${p.account_id}/pnl`, summary: "Equity, realized and unrealized PnL, funding and fees at each period end (the state at the last block at or before it, as the contracts' views value it), newest first; from inclusive, to exclusive on the period start", data: H.PnlList, name: "PnlList", scope: "account", exportable: false, query: PnlQuery },
];

/** camelCase query names of the integration API. */
const upstreamQuery = (q: Record<string, string | undefined>) => ({
  resolution: q.resolution,
  from: q.from,
  to: q.to,
  limit: q.limit,
  cursor: q.cursor,
  marketId: q.market_id,
  orderId: q.order_id,
  minBlock: q.min_block,
});

const exportAccept = (c: GatewayContext) => {
  const f = exportFormatOf(c.req.header("accept"));
  return f === "csv" ? "text/csv" : f === "ndjson" ? "application/x-ndjson" : undefined;
};

/** The export's lines with snake_case keys: the CSV header line, or every NDJSON object. */
function snakeLines(body: ReadableStream<Uint8Array>, csv: boolean): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let rest = "";
  let first = true;
  const line = (l: string) => {
    if (csv) {
      if (!first) return l;
      first = false;
      return l.split(",").map(toSnakeCase).join(",");
    }
    return l ? JSON.stringify(snakeKeys(JSON.parse(l))) : l;
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
        rest = lines.pop()!;
        if (lines.length) out.enqueue(encoder.encode(lines.map(line).join("\n") + "\n"));
      },
      flush(out) {
        rest += decoder.decode();
        if (rest) out.enqueue(encoder.encode(line(rest)));
      },
    }),
  );
}

export function registerHistoryRoutes(app: GatewayApp, { upstreams: { integration } }: GatewayDeps) {
  for (const s of specs) {
    const route = defineRoute({
      method: "get",
      path: s.path,
      tag,
      summary: s.summary,
      description: s.exportable ? `Cursor pagination: pass next_cursor back as cursor.${EXPORT_NOTE}` : "Cursor pagination: pass next_cursor back as cursor.",
      request: { ...(s.scope === "venue" ? {} : { params: s.scope === "account" ? AccountIdParam : MarketIdParam }), query: s.query },
      ok: { status: 200, name: s.name, data: snakeSchema(s.data), description: s.summary },
      errors: [404],
    });
    app.openapi(route, async (c) => {
      const params = (s.scope === "venue" ? {} : c.req.valid("param" as never)) as Record<string, string>;
      const query = upstreamQuery(c.req.valid("query") as Record<string, string | undefined>);
      const path = s.upstream(params);
      const accept = s.exportable ? exportAccept(c) : undefined;
      if (!accept) return send(c, await integration.call({ path, query, headers: forwardHeaders(c) }));
      if (!integration.open) throw new ApiError("SERVICE_UNAVAILABLE", "exports are not available");
      const res = await integration.open({ path, query, headers: { ...forwardHeaders(c), accept } });
      const type = res.headers.get("content-type") ?? "";
      if (!res.ok || !res.body || !type.startsWith(accept)) {
        // an error before streaming: the integration API's envelope, snake_cased as every answer
        const body = (await res.json().catch(() => undefined)) as { success: boolean; error?: { code: string; message: string } } | undefined;
        if (!body || body.success !== false || !body.error) throw new ApiError("UPSTREAM_ERROR", `integration answered ${res.status} to an export`);
        return send(c, { upstream: "integration", status: res.status, body, indexedBlock: res.headers.get("x-indexed-block"), ms: 0 });
      }
      const indexed = res.headers.get("x-indexed-block");
      if (indexed) c.header("X-Indexed-Block", indexed);
      return c.body(snakeLines(res.body, accept === "text/csv"), 200, { "content-type": type, "cache-control": "no-store" }) as never;
    });
  }
}
