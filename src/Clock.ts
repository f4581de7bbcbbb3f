/** The per-block clock (ponder.config.ts `blocks.Clock`): hour boundaries for the PnL route. */
import { ponder } from "ponder:registry";
import { tickClock } from "./history/clock.js";

ponder.on("Clock:block", async ({ event, context }) => {
  await tickClock(context, event.block);
});
