/** Oracle events: index prices, clamped updates, configuration, feeds and updaters. */
import { on } from "./on.js";
import { indexPrice, indexPriceClamp, indexPriceEvent, oracleConfig, oracleUpdater, priceFeed } from "ponder:schema";
import { routeFeed } from "./oracle/feeds.js";

/** Oracle's runAge bound (uint24 seconds). */
const MAX_RUN_AGE = 2n ** 24n - 1n;

on("Oracle:IndexPriceUpdated", async ({ event, context }) => {
  const { marketId, priceX18, timestamp } = event.args;
  // the fresh run goes on while each update comes within maxAge of the one before (Oracle.setPrice)
  const [prev, config] = await Promise.all([context.db.find(indexPrice, { marketId }), context.db.find(oracleConfig, { id: 0 })]);
  const goesOn = prev !== null && prev.updatedAt !== 0n && config !== null && timestamp <= prev.updatedAt + config.maxAgeSeconds;
  const since = goesOn ? prev.freshSince : timestamp;
  const freshSince = timestamp - since > MAX_RUN_AGE ? timestamp - MAX_RUN_AGE : since;
  const values = { priceX18, updatedAt: timestamp, freshSince, updatedBlock: event.block.number };
  await context.db.insert(indexPrice).values({ marketId, ...values }).onConflictDoUpdate(values);
  await context.db.insert(indexPriceEvent).values({
    id: event.id,
    marketId,
    priceX18,
    timestamp,
    freshSince,
    blockNumber: event.block.number,
  });
});

on("Oracle:IndexPriceClamped", async ({ event, context }) => {
  const a = event.args;
  await context.db.insert(indexPriceClamp).values({
    id: event.id,
    marketId: a.marketId,
    requestedPriceX18: a.requestedPriceX18,
    appliedPriceX18: a.appliedPriceX18,
    referencePriceX18: a.referencePriceX18,
    timestamp: event.block.timestamp,
    blockNumber: event.block.number,
  });
});

on("Oracle:OracleConfigUpdated", async ({ event, context }) => {
  const values = {
    maxAgeSeconds: event.args.maxAgeSeconds,
    maxMoveBps: Number(event.args.maxMoveBps),
    updatedBlock: event.block.number,
  };
  await context.db.insert(oracleConfig).values({ id: 0, ...values }).onConflictDoUpdate(values);
});

on("Oracle:FeedSet", async ({ event, context }) => {
  const values = { feed: event.args.feed, updatedBlock: event.block.number };
  await context.db.insert(priceFeed).values({ marketId: event.args.marketId, ...values }).onConflictDoUpdate(values);
  await routeFeed(context, event.block, event.args.marketId, event.args.feed);
});

on("Oracle:UpdaterSet", async ({ event, context }) => {
  const values = { allowed: event.args.allowed, updatedBlock: event.block.number };
  await context.db.insert(oracleUpdater).values({ address: event.args.updater, ...values }).onConflictDoUpdate(values);
});
