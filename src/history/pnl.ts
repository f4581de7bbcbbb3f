/**
 * What the PnL route (src/api/lib/pnl.ts) needs beyond the event tables to value an account at a
 * past block exactly as the contracts' views did: the book's best prices after every change
 * (the mark moves towards the book) and, per hour boundary, the last block before it and its
 * timestamp (funding accrues to the block's time), kept by the per-block clock (src/Clock.ts).
 */
import type { Context } from "ponder:registry";
import { bookBest, bookBestEvent, chainClock, orderBookLevel, periodEndBlock } from "ponder:schema";
import { and, asc, desc, eq } from "ponder";
import type { Hex } from "viem";
import { endsAnHour } from "../../core/history/period-end.js";
import type { EventPlace } from "./record.js";

/** After a level changed (`order_book_level` already updated): the new best of its side, if it moved. */
export async function recordBookBest(context: Context, e: EventPlace, marketId: Hex, side: "LONG" | "SHORT", priceX18: bigint, totalQty: bigint) {
  const now = await context.db.find(bookBest, { marketId });
  const isBid = side === "LONG";
  const best = (isBid ? now?.bestBidX18 : now?.bestAskX18) ?? 0n;
  let next = best;
  if (totalQty > 0n) {
    if (best === 0n || (isBid ? priceX18 > best : priceX18 < best)) next = priceX18;
  } else if (priceX18 === best) {
    // the best level emptied: the next one (a query, only here)
    const rows = await context.db.sql
      .select({ priceX18: orderBookLevel.priceX18 })
      .from(orderBookLevel)
      .where(and(eq(orderBookLevel.marketId, marketId), eq(orderBookLevel.side, side)))
      .orderBy(isBid ? desc(orderBookLevel.priceX18) : asc(orderBookLevel.priceX18))
      .limit(1);
    next = rows[0]?.priceX18 ?? 0n;
  }
  if (next === best && now) return;
  const values = {
    bestBidX18: isBid ? next : (now?.bestBidX18 ?? 0n),
    bestAskX18: isBid ? (now?.bestAskX18 ?? 0n) : next,
  };
  await context.db.insert(bookBest).values({ marketId, ...values, updatedBlock: e.block.number }).onConflictDoUpdate({ ...values, updatedBlock: e.block.number });
  await context.db.insert(bookBestEvent).values({
    id: e.id,
    marketId,
    ...values,
    blockNumber: e.block.number,
    logIndex: e.log.logIndex,
    timestamp: e.block.timestamp,
  });
}

/** Every block: the block before it is the state at every hour end H with last ≤ H < this block. */
export async function tickClock(context: Context, block: { number: bigint; timestamp: bigint }) {
  const last = await context.db.find(chainClock, { id: 0 });
  if (last && endsAnHour(last.timestamp, block.timestamp)) {
    await context.db.insert(periodEndBlock).values({ blockNumber: last.blockNumber, timestamp: last.timestamp, nextTimestamp: block.timestamp });
  }
  const now = { blockNumber: block.number, timestamp: block.timestamp };
  await context.db.insert(chainClock).values({ id: 0, ...now }).onConflictDoUpdate(now);
}
