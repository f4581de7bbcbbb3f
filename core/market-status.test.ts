/** core/market-status.ts: the reads' status as the contract's status() derives it. */
import { describe, expect, it } from "vitest";
import { MARKET_STATUS, marketStatus } from "./market-status.js";

describe("marketStatus", () => {
  it("the calendar's close first, then the pause, then the window (unless cancel-only), then the guardian's mode", () => {
    expect(marketStatus({ session: "CLOSED", isActive: false, mode: "CANCEL_ONLY" })).toBe("CLOSED");
    expect(marketStatus({ session: "OPEN", isActive: false, mode: "POST_ONLY" })).toBe("PAUSED");
    expect(marketStatus({ session: "REDUCE_ONLY", isActive: true, mode: "POST_ONLY" })).toBe("REDUCE_ONLY");
    expect(marketStatus({ session: "REDUCE_ONLY", isActive: true, mode: "CANCEL_ONLY" })).toBe("CANCEL_ONLY");
    for (const mode of MARKET_STATUS.slice(0, 4)) expect(marketStatus({ session: "OPEN", isActive: true, mode })).toBe(mode);
  });

  it("lists IMarket.MarketStatus in its enum order", () => {
    expect(MARKET_STATUS).toEqual(["ACTIVE", "POST_ONLY", "CANCEL_ONLY", "REDUCE_ONLY", "CLOSED", "PAUSED"]);
  });
});
