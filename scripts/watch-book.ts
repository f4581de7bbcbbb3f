/**
 * `npm run watch:book -- EUR/USD [depth]`: a market's live book in the terminal, from the stream
 * service of the running venue (.venue/local.json), applying snapshot + updates.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { PROJECT_ROOT } from "../core/deployment.js";
import { applyBookUpdate } from "../core/streams/book.js";
import type { LocalJson } from "./start.js";

const [symbol = "EUR/USD", depthRaw = "10"] = process.argv.slice(2);
const local = JSON.parse(readFileSync(join(process.env.VENUE_DIR ?? join(PROJECT_ROOT, ".venue"), "local.json"), "utf8")) as LocalJson;
const market = local.markets.find((m) => m.symbol === symbol);
if (!market || !local.streamsUrl) throw new Error(`no market ${symbol} or no stream service in local.json (npm start first)`);
const ws = new WebSocket(`${local.streamsUrl.replace(/^http/, "ws")}/ws`);
type Level = { price: string; priceFormatted: string; quantity: string; quantityFormatted: string; orderCount: number };
let book: { bids: Level[]; asks: Level[] } = { bids: [], asks: [] };
ws.on("open", () => ws.send(JSON.stringify({ op: "subscribe", channel: "orderbook", marketId: market.marketId, depth: Number(depthRaw) })));
ws.on("message", (raw) => {
  const m = JSON.parse(raw.toString());
  if (m.type === "error") return console.error(`${m.code}: ${m.message}`);
  if (m.type === "snapshot") book = m.data;
  else if (m.type === "update") book = applyBookUpdate(book, m.data);
  else return;
  const row = (l?: Level) => (l ? `${l.quantityFormatted.padStart(16)} @ ${l.priceFormatted.padEnd(10)}` : " ".repeat(29));
  const lines = [`${symbol} block ${m.blockNumber} seq ${m.seq}`, `${"bids".padStart(29)} | asks`];
  for (let i = 0; i < Math.max(book.bids.length, book.asks.length); i++) lines.push(`${row(book.bids[i])} | ${row(book.asks[i])}`);
  process.stdout.write(`\x1b[2J\x1b[H${lines.join("\n")}\n`);
});
ws.on("close", () => process.exit(0));
