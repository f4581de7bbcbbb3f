/**
 * Candle resolutions and periods (UTC), shared by the indexer (which keeps one row per market,
 * resolution and period) and the candles route (which fills periods without trades).
 */
export const CANDLE_RESOLUTIONS = { "1m": 60n, "5m": 300n, "15m": 900n, "1h": 3_600n, "4h": 14_400n, "1d": 86_400n } as const;
export type CandleResolution = keyof typeof CANDLE_RESOLUTIONS;
export const CANDLE_RESOLUTION_NAMES = Object.keys(CANDLE_RESOLUTIONS) as CandleResolution[];

/** Start of the UTC period of `resolution` that contains `timestamp` (unix seconds, ≥ 0). */
export const periodStart = (timestamp: bigint, resolution: CandleResolution): bigint =>
  timestamp - (timestamp % CANDLE_RESOLUTIONS[resolution]);

export type Ohlcv = {
  openX18: bigint;
  highX18: bigint;
  lowX18: bigint;
  closeX18: bigint;
  baseVolumeQty: bigint;
  quoteVolumeWad: bigint;
  tradeCount: number;
};

/** A period's candle after one more trade (trades applied in chain order). */
export function withTrade(c: Ohlcv | undefined, priceX18: bigint, quantityQty: bigint, notionalWad: bigint): Ohlcv {
  if (!c) return { openX18: priceX18, highX18: priceX18, lowX18: priceX18, closeX18: priceX18, baseVolumeQty: quantityQty, quoteVolumeWad: notionalWad, tradeCount: 1 };
  return {
    openX18: c.openX18,
    highX18: priceX18 > c.highX18 ? priceX18 : c.highX18,
    lowX18: priceX18 < c.lowX18 ? priceX18 : c.lowX18,
    closeX18: priceX18,
    baseVolumeQty: c.baseVolumeQty + quantityQty,
    quoteVolumeWad: c.quoteVolumeWad + notionalWad,
    tradeCount: c.tradeCount + 1,
  };
}

/** The empty period after a close: open = high = low = close = the previous close, no volume. */
export const emptyCandle = (previousCloseX18: bigint): Ohlcv => ({
  openX18: previousCloseX18,
  highX18: previousCloseX18,
  lowX18: previousCloseX18,
  closeX18: previousCloseX18,
  baseVolumeQty: 0n,
  quoteVolumeWad: 0n,
  tradeCount: 0,
});
