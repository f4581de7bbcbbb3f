/**
 * `npm run watch:book -- EUR/USD [depth]`: a market's live book in the terminal, from the stream
 * service of the running venue (.venue/local.json), kept by the TypeScript client's order book
 * (packages/client: snapshot + updates, reconnect with backoff, resume after a gap, `stale` until
 * resynced). Stops when the stream service stays away (10 reconnect attempts) or on Ctrl-C.
 */
import { StreamClient, formatX18, type Level } from "../packages/client/src/index.js";
import { readLocalJson } from "./lib/local-venue.js";

const [symbol = "EUR/USD", depthRaw = "10"] = process.argv.slice(2);
const local = readLocalJson();
const market = local.markets.find((m) => m.symbol === symbol);
if (!market || !local.streamsUrl) throw new Error(`no market ${symbol} or no stream service in local.json (npm start first)`);
const depth = Number(depthRaw);
if (!Number.isInteger(depth) || depth < 1) throw new Error(`depth must be a positive integer, not ${depthRaw}`);

const MAX_ATTEMPTS = 10;
const streams = new StreamClient({ url: `${local.streamsUrl.replace(/^http/, "ws")}/ws`, reconnect: { maxAttempts: MAX_ATTEMPTS } });
const book = streams.orderBook(market.marketId, depth);
let status = "connecting";

function draw() {
  const row = (l?: Level) => (l ? `${formatX18(l.quantity).padStart(16)} @ ${formatX18(l.price).padEnd(10)}` : " ".repeat(29));
  const [bids, asks] = [book.levels("bids"), book.levels("asks")];
  const state = book.stale ? `stale (${status})` : `seq ${book.subscription.seq}`;
  const lines = [`${symbol} block ${book.blockNumber < 0 ? "–" : book.blockNumber} ${state}`, `${"bids".padStart(29)} | asks`];
  for (let i = 0; i < Math.max(bids.length, asks.length); i++) lines.push(`${row(bids[i])} | ${row(asks[i])}`);
  process.stdout.write(`\x1b[2J\x1b[H${lines.join("\n")}\n`);
}

book.on("change", draw);
book.on("stale", draw);
book.on("error", (e) => console.error(`${e.code}: ${e.message}`));
streams.on("error", (e) => console.error(`${e.code}: ${e.message}`));
let attempts = 0;
streams.on("open", () => {
  attempts = 0;
  status = "live";
});
streams.on("reconnecting", ({ attempt, delayMs }) => {
  attempts = attempt;
  status = `disconnected; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`;
  draw();
});
// the last attempt failed: the client gives up (reconnect.maxAttempts)
streams.on("close", () => {
  if (attempts >= MAX_ATTEMPTS) {
    console.error(`the stream service at ${local.streamsUrl} stayed away after ${MAX_ATTEMPTS} attempts`);
    process.exit(1);
  }
});
process.on("SIGINT", () => {
  streams.close();
  process.exit(0);
});
