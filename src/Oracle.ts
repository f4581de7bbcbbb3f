/** Oracle events: index prices. */
import { on } from "./on";
import { indexPrice, indexPriceEvent } from "ponder:schema";

on("Oracle:IndexPriceUpdated", async ({ event, context }) => {
  const { marketId, priceX18, timestamp } = event.args;
  const values = { priceX18, updatedAt: timestamp, updatedBlock: event.block.number };
  await context.db.insert(indexPrice).values({ marketId, ...values }).onConflictDoUpdate(values);
  await context.db.insert(indexPriceEvent).values({
    id: event.id,
    marketId,
    priceX18,
    timestamp,
    blockNumber: event.block.number,
  });
});
