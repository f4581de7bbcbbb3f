/**
 * The AsyncAPI 3 document of the streams: every channel and message. camelCase at the stream
 * service's `GET /asyncapi.json`; snake_case for the gateway's `/v1/ws` at its
 * `GET /v1/asyncapi.json` (beside `/v1/openapi.json`).
 */
import { CANDLE_RESOLUTION_NAMES } from "../candles.js";
import { toSnakeCase } from "../case.js";
import { CHANNELS, MAX_DEPTH } from "./protocol.js";

const str = (description: string) => ({ type: "string", description });
const common = {
  subscriptionId: str("The subscription (from `subscribed`)"),
  channel: { type: "string", enum: CHANNELS },
  seq: { type: "integer", description: "Consecutive per subscription from its snapshot on: a gap means a lost message (resume or resubscribe)" },
  blockNumber: str("The indexed block the message describes (decimal string); equals REST's X-Indexed-Block for the same state"),
};
const frame = (type: string, data: object, extra: object = {}) => ({
  type: "object",
  required: ["type", "subscriptionId", "channel", "seq", "blockNumber"],
  properties: { type: { const: type }, ...common, ...extra, data },
});
const dataOf = (description: string) => ({ type: "object", description });

/** Property names (and `required` lists) in snake_case: what /v1/ws sends and accepts. */
function snakeSchema(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snakeSchema);
  if (!v || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => {
      if (k === "properties" && x && typeof x === "object") return [k, Object.fromEntries(Object.entries(x).map(([p, y]) => [toSnakeCase(p), snakeSchema(y)]))];
      if (k === "required" && Array.isArray(x)) return [k, x.map((p) => toSnakeCase(String(p)))];
      return [k, snakeSchema(x)];
    }),
  );
}

/** The stream service's document (camelCase, `/ws`), or with `v1` the gateway's (snake_case, `/v1/ws`). */
export function asyncApiDocument(serverUrl: string, v1 = false) {
  const doc = camelDocument(serverUrl, v1 ? "/v1/ws" : "/ws");
  if (!v1) return doc;
  return {
    ...doc,
    info: { ...doc.info, title: "Venue streams (/v1/ws)", description: `${doc.info.description} This document: /v1/ws, snake_case (the stream service's own /ws is camelCase). Authentication: X-API-Key on the upgrade, or the first message {"op":"auth","api_key":"vgw_…"}; account and transactions channels: the key's wallet only.` },
    components: snakeSchema((doc as { components?: unknown }).components),
    channels: snakeSchema(doc.channels),
  };
}

function camelDocument(serverUrl: string, pathname: string) {
  const messages = {
    subscribe: {
      name: "subscribe",
      payload: {
        type: "object",
        required: ["op", "channel"],
        properties: {
          op: { const: "subscribe" },
          channel: { type: "string", enum: CHANNELS },
          marketId: str("bytes32 market id (orderbook, trades, market, candles)"),
          depth: { type: "integer", minimum: 1, maximum: MAX_DEPTH, default: 10, description: "orderbook: levels per side" },
          resolution: { type: "string", enum: CANDLE_RESOLUTION_NAMES, description: "candles" },
          accountId: { type: "integer", description: "account: needs a sign-in (bearer token) or API key of the account's owner" },
          // transactions takes no parameter: the signed-in wallet's (or the API key's) own writes
          id: str("Echoed in `subscribed` and errors, to match answers to requests"),
          resume: { type: "object", properties: { epoch: str("From the last snapshot"), seq: { type: "integer", description: "The last seq applied" } }, description: "Replays the messages after seq when the service still holds them (else a snapshot)" },
        },
      },
    },
    unsubscribe: { name: "unsubscribe", payload: { type: "object", required: ["op", "subscriptionId"], properties: { op: { const: "unsubscribe" }, subscriptionId: { type: "string" } } } },
    auth: { name: "auth", payload: { type: "object", required: ["op", "token"], properties: { op: { const: "auth" }, token: str("The bearer token of POST /auth/login (gateway: `api_key` instead)") } } },
    ping: { name: "ping", payload: { type: "object", properties: { op: { const: "ping" } } } },
    subscribed: { name: "subscribed", payload: { type: "object", properties: { type: { const: "subscribed" }, subscriptionId: { type: "string" }, channel: { type: "string" } } } },
    snapshot: {
      name: "snapshot",
      payload: frame(
        "snapshot",
        dataOf(
          "orderbook: {marketId, bids, asks} as GET /markets/{id}/orderbook; trades: {marketId, trades} the last 50 as GET /markets/{id}/trades; market: {market, price, funding} as GET /markets/{id}, /price, /funding; candles: {marketId, resolution, candles} as GET /markets/{id}/candles; account: {accountId, account, orders, positions (by market id), fills, fundingPayments, liquidations, operators, triggers} as the account routes (operators as GET /accounts/{id}/operators; orders as GET /accounts/{id}/orders, each with timeInForce, reduceOnly, expiresAt: a good-til-time order shows cancelled from its expiry's block on, triggerKind: TAKE_PROFIT or STOP_LOSS on the order a position trigger placed; a modify changes its price and sizes in place and its modificationCount, modifiedAt, modifiedBlock; triggers as GET /accounts/{id}/triggers?status=all: the positions' take-profits and stop-losses, any status); transactions: {wallet, transactions} every write of the caller not final yet and its last 20, newest first, each as in the transactions update",
        ),
        { epoch: str("The topic's identity, for resume") },
      ),
    },
    update: {
      name: "update",
      payload: frame(
        "update",
        dataOf(
          "Sent once per indexed block. orderbook: {bids, asks} changed levels, quantity \"0\" = level removed; trades: {trades} new fills, newest first, each with takerSide and makerSide, takerFee and makerFee (as GET /markets/{id}/trades); market: the full {market, price, funding}; candles: {candles} new or changed periods; account: {account?, orders?, positions? (changed markets), operators? (on a charge or an approval change, not as the budget used decays), triggers? (each take-profit or stop-loss that changed, as it is now: set (status active), executed (with orderId, the order it placed, and executedMarkPrice), cancelled (with endReason CANCELLED, POSITION_CHANGED, OPERATOR_REVOKED or TWIN_FIRED)), fills, fundingPayments, liquidations (new items)}. transactions (one per state change of one of the caller's writes, not per block): {transactions: [{requestId, kind, status QUEUED|SIGNED|SENT|REORGED|CONFIRMED|REVERTED|FAILED|EXPIRED|CANCELLED (REORGED: a mined write whose block left the canonical chain; SENT again with the same signed transaction, then CONFIRMED with its new blockNumber, or EXPIRED by its no-op), transactionHash, blockNumber (when mined; the message's blockNumber is then that block), httpStatus, code (the error code when REVERTED, FAILED, EXPIRED, CANCELLED), message, clientKey, parentId, reorgs, updatedAt}]}",
        ),
      ),
    },
    reorg: {
      name: "reorg",
      payload: { type: "object", properties: { type: { const: "reorg" }, ...common, commonAncestor: str("The last block both branches share: drop what you hold above it; a snapshot follows") } },
    },
    error: {
      name: "error",
      payload: {
        type: "object",
        properties: {
          type: { const: "error" },
          code: { type: "string", enum: ["VALIDATION_ERROR", "UNAUTHENTICATED", "UNAUTHORIZED", "MARKET_NOT_FOUND", "ACCOUNT_NOT_FOUND", "NOT_FOUND", "LIMIT_EXCEEDED", "RATE_LIMITED", "SERVICE_UNAVAILABLE"] },
          message: { type: "string" },
          subscriptionId: { type: "string" },
          id: { type: "string" },
        },
      },
    },
    pong: { name: "pong", payload: { type: "object", properties: { type: { const: "pong" }, blockNumber: { type: "string" } } } },
  };
  const ref = (m: string) => ({ $ref: `#/channels/ws/messages/${m}` });
  return {
    asyncapi: "3.0.0",
    info: {
      title: "Venue streams",
      version: "1.0.0",
      description:
        "Order book, trades, market, candles and accounts pushed once per indexed block; the caller's writes (transactions) as they move. Every message carries blockNumber and a per-subscription seq; see docs/STREAMS.md for limits and reconnect guidance. The gateway serves the same at /v1/ws in snake_case (API key in X-API-Key or in a first {\"op\":\"auth\",\"api_key\":…} message).",
    },
    servers: { local: { host: serverUrl.replace(/^https?:\/\//, ""), protocol: serverUrl.startsWith("https") ? "wss" : "ws", pathname } },
    channels: { ws: { address: pathname, messages } },
    operations: {
      send: { action: "receive", channel: { $ref: "#/channels/ws" }, messages: ["subscribe", "unsubscribe", "auth", "ping"].map(ref) },
      receive: { action: "send", channel: { $ref: "#/channels/ws" }, messages: ["subscribed", "snapshot", "update", "reorg", "error", "pong"].map(ref) },
    },
  };
}
