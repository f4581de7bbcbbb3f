// The reference page (docs/STREAMS.md "Reference page"): per market, the live order book with a
// depth chart, the trades tape and 1-minute candles, built only from the stream service's
// messages. The stream handling is the TypeScript client's (packages/client, served as
// /live/client.js): one connection that reconnects with backoff and resumes every subscription
// (a replay, or a fresh snapshot when the service cannot: a restarted service has a new epoch),
// a sequence gap resubscribed, a reorg followed by a snapshot, and the book kept by its
// OrderBookView (snapshot + deltas, `stale` until resynced: shown as the section's data-stale).
// Charting: TradingView's lightweight-charts (candles) and uPlot (depth), served from the
// service's node_modules.
import { createChart, CandlestickSeries } from "/live/vendor/lightweight-charts.mjs";
import uPlot from "/live/vendor/uPlot.esm.js";
import { StreamClient } from "/live/client.js";

const BOOK_DEPTH = 20;
const BOOK_ROWS = 10;
const TAPE_ROWS = 40;
const marketIds = JSON.parse(document.getElementById("market-ids").textContent);
const $ = (sel, root = document) => root.querySelector(sel);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** One market's section and its state, applied from the four channels. */
class MarketView {
  constructor(id) {
    this.id = id;
    this.trades = [];
    this.candles = new Map();
    this.el = document.createElement("section");
    this.el.className = "market";
    this.el.dataset.marketId = id;
    this.el.innerHTML = `<h2><span class="symbol">${id.slice(0, 10)}…</span><span class="muted">mark <b class="mark">–</b></span><span class="muted">index <b class="index">–</b></span><span class="muted">funding/h <b class="funding">–</b></span><span class="muted">OI <b class="oi">–</b></span><span class="muted">block <b class="block">–</b></span></h2>
      <div class="book"><table><tbody></tbody></table></div><div class="candles"></div><div class="depth"></div>
      <div class="tape"><table><thead><tr class="muted"><td>time</td><td>taker</td><td>price</td><td>size</td><td>fees m/t</td></tr></thead><tbody></tbody></table></div>`;
    $("#markets").append(this.el);
    this.chart = createChart($(".candles", this.el), { autoSize: true, layout: { background: { color: "#111418" }, textColor: "#8a8f98" }, grid: { vertLines: { color: "#1c2127" }, horzLines: { color: "#1c2127" } }, timeScale: { timeVisible: true } });
    this.series = this.chart.addSeries(CandlestickSeries, { priceFormat: { type: "price", precision: 5, minMove: 0.00001 } });
    const d = $(".depth", this.el);
    this.depth = new uPlot(
      {
        width: d.clientWidth || 600,
        height: 190,
        legend: { show: false },
        scales: { x: { time: false } },
        axes: [{ stroke: "#8a8f98", grid: { stroke: "#1c2127" } }, { stroke: "#8a8f98", grid: { stroke: "#1c2127" }, size: 70 }],
        series: [{}, { label: "bids", stroke: "#26a69a", fill: "#26a69a33", paths: uPlot.paths.stepped({ align: -1 }) }, { label: "asks", stroke: "#ef5350", fill: "#ef535033", paths: uPlot.paths.stepped({ align: 1 }) }],
      },
      [[], [], []],
      d,
    );
    new ResizeObserver(() => this.depth.setSize({ width: d.clientWidth, height: 190 })).observe(d);
  }

  block(n) {
    $(".block", this.el).textContent = n;
    this.el.dataset.block = n;
    $("#block").textContent = n;
  }

  onMarket(d) {
    $(".symbol", this.el).textContent = d.market.symbol;
    this.el.dataset.symbol = d.market.symbol;
    $(".mark", this.el).textContent = d.price.markPriceFormatted;
    $(".index", this.el).textContent = d.price.indexPriceFormatted;
    $(".funding", this.el).textContent = `${d.funding.currentRatePercent}`;
    $(".oi", this.el).textContent = `${d.market.openInterest.longFormatted} / ${d.market.openInterest.shortFormatted}`;
  }

  /** The book as the client's OrderBookView holds it (levels sorted from the best price). */
  onBook(view) {
    this.book = view;
    this.el.dataset.bookBlock = view.blockNumber;
    const row = (cls) => (l) => `<tr class="${cls}" data-price="${esc(l.price)}"><td>${esc(l.priceFormatted)}</td><td>${esc(l.quantityFormatted)}</td><td class="muted">${l.orderCount}</td></tr>`;
    const asks = this.book.asks.slice(0, BOOK_ROWS).reverse().map(row("ask"));
    const bids = this.book.bids.slice(0, BOOK_ROWS).map(row("bid"));
    const [bb, ba] = [this.book.bids[0], this.book.asks[0]];
    const spread = bb && ba ? `spread ${(Number(ba.priceFormatted) - Number(bb.priceFormatted)).toFixed(5)}` : "one-sided book";
    $(".book tbody", this.el).innerHTML = [...asks, `<tr class="spread"><td colspan="3">${spread}</td></tr>`, ...bids].join("");
    this.drawDepth();
  }

  /** Cumulative quantity from the best price outwards, per side, on one ascending price axis. */
  drawDepth() {
    const pts = [];
    let cum = 0;
    for (const l of this.book.bids) pts.push([Number(l.priceFormatted), (cum += Number(l.quantityFormatted)), null]);
    cum = 0;
    for (const l of this.book.asks) pts.push([Number(l.priceFormatted), null, (cum += Number(l.quantityFormatted))]);
    pts.sort((a, b) => a[0] - b[0]);
    this.depth.setData([pts.map((p) => p[0]), pts.map((p) => p[1]), pts.map((p) => p[2])]);
  }

  onTrades(d, snapshot) {
    this.trades = snapshot ? [...d.trades] : [...d.trades, ...this.trades];
    this.trades = this.trades.slice(0, TAPE_ROWS);
    $(".tape tbody", this.el).innerHTML = this.trades
      .map((t) => `<tr data-tx="${esc(t.transactionHash)}" data-id="${esc(t.id)}"><td class="muted">${esc(t.timestampISO.slice(11, 19))}</td><td class="${esc(t.takerSide ?? t.side)}">${esc(t.takerSide ?? t.side)}</td><td>${esc(t.priceFormatted)}</td><td>${esc(t.sizeFormatted)}</td><td class="muted">${t.makerFeeFormatted === undefined ? "" : `${esc(t.makerFeeFormatted)} / ${esc(t.takerFeeFormatted)}`}</td></tr>`)
      .join("");
  }

  onCandles(d, snapshot) {
    if (snapshot) this.candles.clear();
    const last = Math.max(-1, ...this.candles.keys());
    const bar = (c) => ({ time: c.startedAt, open: Number(c.openFormatted), high: Number(c.highFormatted), low: Number(c.lowFormatted), close: Number(c.closeFormatted) });
    for (const c of d.candles) this.candles.set(c.startedAt, bar(c));
    const sorted = [...this.candles.values()].sort((a, b) => a.time - b.time);
    // update() only takes the newest period onwards; anything older redraws the set
    if (snapshot || d.candles.some((c) => c.startedAt < last)) this.series.setData(sorted);
    else for (const c of [...d.candles].sort((a, b) => a.startedAt - b.startedAt)) this.series.update(this.candles.get(c.startedAt));
  }
}

const status = (s) => ($("#status").textContent = s);
const views = new Map(marketIds.map((id) => [id, new MarketView(id)]));
const client = new StreamClient({ url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`, reconnect: { initialMs: 1000, maxMs: 30_000 } });
client.on("open", () => status("live"));
client.on("reconnecting", ({ delayMs }) => status(`disconnected; retrying in ${Math.round(delayMs / 1000)} s`));
client.on("error", (e) => status(`error ${e.code}: ${e.message}`));

for (const [id, v] of views) {
  // every channel's snapshot and update: its data, and the block it describes (a reorg is
  // followed by a snapshot, which replaces what the client held)
  const on = (apply) => ({
    snapshot: (m) => (apply(m.data, true), v.block(m.blockNumber)),
    update: (m) => (apply(m.data, false), v.block(m.blockNumber)),
    error: (e) => status(`error ${e.code} on ${id.slice(0, 10)}…: ${e.message}`),
  });
  client.subscribe({ channel: "market", marketId: id }, on((d) => v.onMarket(d)));
  client.subscribe({ channel: "trades", marketId: id }, on((d, snapshot) => v.onTrades(d, snapshot)));
  client.subscribe({ channel: "candles", marketId: id, resolution: "1m" }, on((d, snapshot) => v.onCandles(d, snapshot)));
  const book = client.orderBook(id, BOOK_DEPTH);
  v.el.dataset.stale = "true";
  book.on("change", () => {
    v.onBook(book);
    v.block(book.blockNumber);
  });
  book.on("stale", () => (v.el.dataset.stale = "true"));
  book.on("resynced", () => (v.el.dataset.stale = "false"));
  book.on("error", (e) => status(`error ${e.code} on ${id.slice(0, 10)}…: ${e.message}`));
}
