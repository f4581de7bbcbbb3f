/**
 * A page of candles (GET /markets/{marketId}/candles), apart from how its rows are read, so that
 * Ponder's route and the read service page the same way: `candleWindow` checks the query and
 * bounds the page at the indexed block's time, `candleSeries` fills the periods without trades
 * with the previous close.
 */
import type { Hex } from "viem";
import { CANDLE_RESOLUTIONS, emptyCandle, type CandleResolution, type Ohlcv } from "../candles.js";
import { decodeUintCursor, encodeCursor } from "../cursor.js";
import { ApiError } from "../errors.js";
import { candleItem } from "./items.js";

export type CandleQuery = { from?: bigint; to?: bigint; limit: number; cursor?: string };

/**
 * The page's bounds at indexed time `now`: periods starting in [pageFrom, to), `to` capped at the
 * end of the period holding the indexed block (the future has no candles). Throws the route's
 * 400s (from after to, a foreign cursor).
 */
export function candleWindow(resolution: CandleResolution, q: CandleQuery, now: bigint): { pageFrom: bigint; to: bigint; len: bigint } {
  const len = CANDLE_RESOLUTIONS[resolution];
  const cap = now - (now % len) + len;
  const to = q.to === undefined || q.to > cap ? cap : q.to;
  if (q.from !== undefined && q.to !== undefined && q.from > q.to) throw new ApiError("VALIDATION_ERROR", "from: must not be after to");
  const fromRaw = q.from ?? (to - BigInt(q.limit) * len > 0n ? to - BigInt(q.limit) * len : 0n);
  const from = ((fromRaw + len - 1n) / len) * len; // the first period starting at or after it
  let pageFrom = from;
  if (q.cursor !== undefined) {
    const [next] = decodeUintCursor("candles", q.cursor, 1);
    if (next! % len !== 0n || next! < from) throw new ApiError("VALIDATION_ERROR", "cursor: not a cursor of this list (pass nextCursor back unchanged)");
    pageFrom = next!;
  }
  return { pageFrom, to, len };
}

/**
 * The page from the indexer's rows: `prevClose` is the close of the last period before
 * `pageFrom` (undefined: no trade before it, so the series starts at the first row), `rows` the
 * rows of periods in [pageFrom, to) oldest first (at least the page's `limit` periods' worth).
 */
export function candleSeries(
  marketId: Hex,
  resolution: CandleResolution,
  w: { pageFrom: bigint; to: bigint; len: bigint },
  limit: number,
  prevClose: bigint | undefined,
  rows: (Ohlcv & { periodStart: bigint })[],
) {
  const empty = { candles: [], hasMore: false, nextCursor: null };
  let pageFrom = w.pageFrom;
  if (pageFrom >= w.to) return empty;
  let close = prevClose;
  if (close === undefined) {
    if (!rows[0]) return empty;
    pageFrom = rows[0].periodStart;
  }
  const span = BigInt(limit) * w.len;
  const pageEnd = pageFrom + span < w.to ? pageFrom + span : w.to;
  const byStart = new Map(rows.map((r) => [r.periodStart, r]));
  const candles = [];
  for (let t = pageFrom; t < pageEnd; t += w.len) {
    const row = byStart.get(t);
    const ohlcv = row ? ohlcvOf(row) : emptyCandle(close!);
    close = ohlcv.closeX18;
    candles.push(candleItem(marketId, resolution, t, ohlcv));
  }
  const hasMore = pageEnd < w.to;
  return { candles, hasMore, nextCursor: hasMore ? encodeCursor("candles", [pageEnd]) : null };
}

const ohlcvOf = (r: Ohlcv): Ohlcv => ({
  openX18: r.openX18,
  highX18: r.highX18,
  lowX18: r.lowX18,
  closeX18: r.closeX18,
  baseVolumeQty: r.baseVolumeQty,
  quoteVolumeWad: r.quoteVolumeWad,
  tradeCount: r.tradeCount,
});
