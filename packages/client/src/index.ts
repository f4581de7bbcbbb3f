/**
 * @venue-indexer/client: typed reads, sign-in, trading, history and streams of the venue.
 *
 *   const venue = new VenueClient({ baseUrl: "http://127.0.0.1:24069", signer: privateKeyToAccount(key) });
 *   const book = await venue.orderBook(EUR, { depth: 5 });
 *   const order = await venue.placeOrder(1, order.limit({ marketId: EUR, side: "LONG", collateral: amount6("100"), leverage: 5, price: x18("1.08") }));
 *   for await (const fill of venue.fills(1)) console.log(fill.priceFormatted);
 */
export * from "./types.js";
export * from "./units.js";
export * from "./errors.js";
export { meta, rateLimitOf, type RateLimit, type ResponseMeta, type RetryPolicy, type HttpOptions } from "./http.js";
export { Emitter } from "./emitter.js";
export { SiweSession, isLocalAccount, type Signer, type SiweNonce, type SessionToken, type SessionOptions, type SessionEvents } from "./auth.js";
export { order, buildPlaceOrder, buildClose, buildModify, buildAmount, buildMargin, buildTrigger, randomClientKey, type OrderSpec, type TriggerSpec, type CloseSpec, type ModifySpec, type MarketRules, type Hex } from "./builders.js";
export {
  BaseClient, VenueClient, GatewayClient,
  type VenueClientOptions, type GatewayClientOptions, type BaseOptions, type ClientEvents, type WriteOptions, type WriteStatus,
  type HistoryQuery, type CandleQuery, type PnlHistoryQuery, type OpenOrdersQuery, type ReadOptions, type Page, type TimeBound,
  type HistoryList, type ExportableList, type ExportFormat, type BatchSpec,
} from "./client.js";
export {
  StreamClient, Subscription, OrderBookView,
  type StreamOptions, type StreamEvents, type SubscribeParams, type StreamMessage, type SubscriptionHandlers, type WebSocketLike, type WebSocketFactory, type BookData, type Level, type OrderBookEvents,
} from "./streams.js";
/** A book after an `orderbook` update (a level with quantity "0" is gone): what `OrderBookView` applies. */
export { applyBookUpdate } from "../../../core/streams/book.js";

import { VenueClient } from "./client.js";
import { StreamClient, type StreamOptions } from "./streams.js";

/**
 * A stream client that signs in with the client's session (account and transactions channels)
 * and sends the renewed token before the old one expires.
 */
export function streamsOf(client: VenueClient, o: Omit<StreamOptions, "token" | "apiKey">): StreamClient {
  const s = new StreamClient({ ...o, token: async () => (client.session ? client.session.bearer() : undefined) });
  client.on("signedIn", () => void s.reauth());
  return s;
}
