/**
 * docs/CLIENT.md's first session, kept here so that `npx tsc --noEmit` checks it (the doc imports
 * "@venue-indexer/client"; this file the package's source). Run it with `npm start` up:
 *   npx tsx packages/client/examples/first-session.ts
 */
import { createWriteStream, readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { privateKeyToAccount } from "viem/accounts";
import { VenueClient, streamsOf, order, amount6, big, formatX18, meta, type Hex } from "../src/index.js";

const local = JSON.parse(readFileSync(".venue/local.json", "utf8"));
const EUR = local.markets.find((m: { symbol: string }) => m.symbol === "EUR/USD").marketId as Hex;
const venue = new VenueClient({
  baseUrl: local.integrationUrl,
  signer: privateKeyToAccount(local.wallets[0].privateKey), // or window.ethereum
  retry: { retries: 2 },                                    // a 429 is sent again after its Retry-After
});

// 1. read a book (public); every answer carries its block and rate limit
const book = await venue.orderBook(EUR, { depth: 5 });
console.log(book.bids[0]?.priceFormatted, book.asks[0]?.priceFormatted, meta(book)?.indexedBlock, meta(book)?.rateLimit.remaining);

// 2. sign in (GET /auth/nonce, EIP-4361, POST /auth/login); a local account signs in again before
//    the token expires, a wallet gets a `sessionExpiring` event instead. The first write would do it too.
await venue.signIn();

// 3. follow fills on the account stream (signed in with the same session)
const streams = streamsOf(venue, { url: local.streamsUrl.replace(/^http/, "ws") + "/ws" });
const fills = streams.subscribe<{ fills?: { orderId: string; side: string; priceFormatted: string; sizeFormatted: string }[] }>(
  { channel: "account", accountId: 1 },
  { update: (m) => m.data.fills?.forEach((f) => console.log("fill", f.orderId, f.side, f.sizeFormatted, "@", f.priceFormatted)) },
);

// 4. place and cancel: checked before sending (a LIMIT needs a price, leverage within the market's
//    maximum, the price on its tick...), an Idempotency-Key per call, answered once mined and indexed
//    (a bid 0.2 % under the best one, on the market's tick: it rests; the band around the mark is under 1 %)
const { tickSize } = await venue.market(EUR);
const price = ((big(book.bids[0]!.price) * 998n) / 1000n / big(tickSize)) * big(tickSize);
const placed = await venue.placeOrder(1, order.limit({ marketId: EUR, side: "LONG", collateral: amount6("100"), leverage: 5, price }), {
  onStatus: (s) => console.log(s.transactionStatus, s.blockNumber, s.final ? "final" : ""),
});
const open = await venue.ordersPage(1, { status: "active" }); // already there: reads pass minBlock ≥ the write's block
console.log(open.orders.some((o) => o.clientKey === placed.clientKey));
await venue.cancelOrder(1, EUR, placed.clientKey as Hex);

// a market order fills against the local market maker; then close it
await venue.placeOrder(1, order.market({ marketId: EUR, side: "SHORT", collateral: amount6("100"), leverage: 5 }));
await venue.closePosition(1, EUR, { type: "MARKET" });

// 5. history: every page by its cursor, and a month of fills as CSV (streamed)
for await (const f of venue.fills(1, { marketId: EUR, limit: 100 })) console.log(f.timestampISO, f.liquidity, formatX18(f.price));
const csv = await venue.export("fills", 1, "csv", { from: "2026-11-01T00:00:00Z", to: "2026-12-01T00:00:00Z" });
Readable.fromWeb(csv as import("node:stream/web").ReadableStream).pipe(createWriteStream("fills-2026-11.csv"));

fills.unsubscribe();
streams.close();
