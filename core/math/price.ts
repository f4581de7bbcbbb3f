/** Mark price (docs/CONTRACTS.md "Prices"). */
import { BPS, clamp, median3 } from "./ints";

/**
 * median(index, bestBid, bestAsk) when both sides of the book are non-empty (0 = empty side),
 * else the index; then clamped to index × (1e4 ∓ markClampBps) / 1e4 (floor).
 */
export function markPrice(indexX18: bigint, bestBidX18: bigint, bestAskX18: bigint, markClampBps: bigint): bigint {
  const raw = bestBidX18 > 0n && bestAskX18 > 0n ? median3(indexX18, bestBidX18, bestAskX18) : indexX18;
  const lo = (indexX18 * (BPS - markClampBps)) / BPS;
  const hi = (indexX18 * (BPS + markClampBps)) / BPS;
  return clamp(raw, lo, hi);
}
