// The reference page (docs/STREAMS.md "Reference page"): per market, the live order book with a
// depth chart, the trades tape and 1-minute candles, built only from the stream service's
// messages (snapshot, then one update per indexed block; a sequence gap resubscribes for a fresh
// snapshot; a reorg is followed by a snapshot). Charting: TradingView's lightweight-charts
// (candles) and uPlot (depth), served from the service's node_modules.
import { createChart, CandlestickSeries } from "/live/vendor/lightweight-charts.mjs";
import uPlot from "/live/vendor/uPlot.esm.js";

const BOOK_DEPTH = 20;
const BOOK_ROWS = 10;
const TAPE_ROWS = 40;
const marketIds = JSON.parse(document.getElementById("market-ids").textContent);
const $ = (sel, root = document) => root.querySelector(sel);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const byPrice = (desc) => (a, b) => {
  const x = BigInt(a.price), y = BigInt(b.price);
  return x === y ? 0 : (x < y) === desc ? 1 : -1;
};

/** One market's section and its state, applied from the four channels. */
class MarketView {
  constructor(id) {
    this.id = id;
    this.book = { bids: [], asks: [] };
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
  }

  onMarket(d) {
    $(".symbol", this.el).textContent = d.market.symbol;
    this.el.dataset.symbol = d.market.symbol;
    $(".mark", this.el).textContent = d.price.markPriceFormatted;
    $(".index", this.el).textContent = d.price.indexPriceFormatted;
    $(".funding", this.el).textContent = `${d.funding.currentRatePercent}`;
    $(".oi", this.el).textContent = `${d.market.openInterest.longFormatted} / ${d.market.openInterest.shortFormatted}`;
  }

  onBook(d, snapshot) {
    if (snapshot) this.book = { bids: [...d.bids], asks: [...d.asks] };
    else
      for (const side of ["bids", "asks"]) {
        const m = new Map(this.book[side].map((l) => [l.price, l]));
        for (const c of d[side]) c.quantity === "0" ? m.delete(c.price) : m.set(c.price, c);
        this.book[side] = [...m.values()].sort(byPrice(side === "bids"));
      }
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

const views = new Map(marketIds.map((id) => [id, new MarketView(id)]));
const requests = (id) => requestsOf.get(id);
const requestsOf = new Map(marketIds.map((id) => [id, [
  { channel: "market", marketId: id },
  { channel: "orderbook", marketId: id, depth: BOOK_DEPTH },
  { channel: "trades", marketId: id },
  { channel: "candles", marketId: id, resolution: "1m" },
]]));

let ws;
let backoff = 1000;
/** subscriptionId → { req, seq } */
const subs = new Map();
const status = (s) => ($("#status").textContent = s);

/** tag (the request's `id`, echoed by `subscribed`) → request */
const tags = new Map(marketIds.flatMap((id, i) => requests(id).map((r) => [`${r.channel}:${i}`, r])));
function subscribe(req) {
  const tag = [...tags].find(([, r]) => r === req)[0];
  ws.send(JSON.stringify({ op: "subscribe", ...req, id: tag }));
}

function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  subs.clear();
  ws.onopen = () => {
    backoff = 1000;
    status("live");
    for (const id of marketIds) for (const r of requests(id)) subscribe(r);
  };
  ws.onclose = () => {
    // reconnect with backoff and jitter; every subscription starts again from a snapshot
    status(`disconnected; retrying in ${Math.round(backoff / 1000)} s`);
    setTimeout(connect, backoff + Math.random() * 500);
    backoff = Math.min(backoff * 2, 30_000);
  };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "subscribed") {
      subs.set(m.subscriptionId, { req: tags.get(m.id), seq: -1 });
      return;
    }
    if (m.type === "error") {
      status(`error ${m.code}: ${m.message}`);
      console.error(`stream error ${m.code}: ${m.message}`);
      return;
    }
    const s = subs.get(m.subscriptionId);
    if (!s) return;
    if (m.type !== "snapshot" && m.seq !== s.seq + 1) {
      // a lost message: drop this subscription and take a fresh snapshot
      subs.delete(m.subscriptionId);
      ws.send(JSON.stringify({ op: "unsubscribe", subscriptionId: m.subscriptionId }));
      subscribe(s.req);
      return;
    }
    s.seq = m.seq;
    if (m.type === "reorg") return; // the snapshot that follows replaces the state
    const v = views.get(m.marketId);
    const snapshot = m.type === "snapshot";
    if (m.channel === "market") v.onMarket(m.data);
    else if (m.channel === "orderbook") v.onBook(m.data, snapshot);
    else if (m.channel === "trades") v.onTrades(m.data, snapshot);
    else if (m.channel === "candles") v.onCandles(m.data, snapshot);
    v.block(m.blockNumber);
    $("#block").textContent = m.blockNumber;
  };
}

connect();
