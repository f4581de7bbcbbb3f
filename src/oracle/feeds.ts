/**
 * Markets routed to a price feed (Oracle.setFeed): the oracle reads their index from the feed
 * (IPriceFeed.latestPrice) and emits nothing when it moves, so the indexer reads it as the chain
 * does, `Oracle.priceWindow` at each block, and writes `index_price` (and an `index_price_event`)
 * when it changed. A feed's fresh run is its own second (Oracle._window: since = updatedAt);
 * unrouted, the market's pushed price and run are back. The routed markets are listed on the `oracle_config` row
 * (`feed_market_ids`), read by key each block: no scan when no market is routed.
 */
import type { Context } from "ponder:registry";
import { indexPrice, indexPriceEvent, oracleConfig } from "ponder:schema";
import type { Hex } from "viem";
import { oracleAbi } from "../../abis/index.js";

type Block = { number: bigint };

/** Every block: each routed market's index as the oracle reads it at that block. */
export async function followFeeds(context: Context, block: Block) {
  const config = await context.db.find(oracleConfig, { id: 0 });
  for (const marketId of config?.feedMarketIds ?? []) await readFeed(context, block, marketId as Hex);
}

/** Oracle:FeedSet: the routed list, and the market's index at once (a feed set, or unset: the pushed price again). */
export async function routeFeed(context: Context, block: Block, marketId: Hex, feed: Hex) {
  const config = await context.db.find(oracleConfig, { id: 0 });
  if (config) {
    const others = (config.feedMarketIds ?? []).filter((id) => id !== marketId);
    const feedMarketIds = BigInt(feed) === 0n ? others : [...others, marketId];
    await context.db.update(oracleConfig, { id: 0 }).set({ feedMarketIds });
  }
  await readFeed(context, block, marketId);
}

/** The index and its fresh run as the oracle's window gives them at the block (a feed: its own second; pushed: the run). */
async function readFeed(context: Context, block: Block, marketId: Hex) {
  const config = await context.db.find(oracleConfig, { id: 0 });
  const [priceX18, freshSince, freshUntil] = await context.client.readContract({
    abi: oracleAbi,
    address: context.contracts.Oracle.address as Hex,
    functionName: "priceWindow",
    args: [marketId],
    blockNumber: block.number,
  });
  const updatedAt = freshUntil - (config?.maxAgeSeconds ?? 0n);
  const prev = await context.db.find(indexPrice, { marketId });
  if (prev && prev.priceX18 === priceX18 && prev.updatedAt === updatedAt && prev.freshSince === freshSince) return;
  const values = { priceX18, updatedAt, freshSince, updatedBlock: block.number };
  await context.db.insert(indexPrice).values({ marketId, ...values }).onConflictDoUpdate(values);
  await context.db.insert(indexPriceEvent).values({
    id: `${block.number}-feed-${marketId}`,
    marketId,
    priceX18,
    timestamp: updatedAt,
    freshSince,
    blockNumber: block.number,
  });
}
