/** The per-block clock (ponder.config.ts `blocks.Clock`): hour boundaries for the PnL route, and the index of feed-routed markets. */
import { ponder } from "ponder:registry";
import { tickClock } from "./history/clock.js";
import { followFeeds } from "./oracle/feeds.js";

ponder.on("Clock:block", async ({ event, context }) => {
  await tickClock(context, event.block);
  await followFeeds(context, event.block);
});
