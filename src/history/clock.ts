/**
 * What the PnL route (src/api/lib/pnl.ts) needs beyond the event tables to value an account at a
 * past block exactly as the contracts' views did: per hour boundary, the last block before it and
 * its timestamp (funding accrues to the block's time), kept by the per-block clock (src/Clock.ts).
 */
import type { Context } from "ponder:registry";
import { chainClock, periodEndBlock } from "ponder:schema";
import { endsAnHour } from "../../core/history/period-end.js";

/** Every block: the block before it is the state at every hour end H with last ≤ H < this block. */
export async function tickClock(context: Context, block: { number: bigint; timestamp: bigint }) {
  const last = await context.db.find(chainClock, { id: 0 });
  if (last && endsAnHour(last.timestamp, block.timestamp)) {
    await context.db.insert(periodEndBlock).values({ blockNumber: last.blockNumber, timestamp: last.timestamp, nextTimestamp: block.timestamp });
  }
  const now = { blockNumber: block.number, timestamp: block.timestamp };
  await context.db.insert(chainClock).values({ id: 0, ...now }).onConflictDoUpdate(now);
}
