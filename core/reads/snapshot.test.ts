import { describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { cumulativeIndexNow, markPrice } from "../math/index.js";
import { emptyMarketState, marketSnapshot, type MarketRow } from "./snapshot.js";
import { ordersPage } from "./orders.js";
import { decodeUintCursor } from "../cursor.js";

const WAD = 10n ** 18n;
const market = {
  marketId: `0x${"11".repeat(32)}` as Hex,
  marketAddress: `0x${"22".repeat(20)}` as Hex,
  markClampBps: 50,
  createdAt: 1_000n,
  createdBlock: 7n,
} as MarketRow;

describe("market snapshot (core/reads/snapshot.ts)", () => {
  it("before any state, price or order: the empty state, zero prices, the mark of nothing", () => {
    const s = marketSnapshot({ market }, 2_000n);
    expect(s.state).toEqual(emptyMarketState(market));
    expect(s.state.fundingLastUpdate).toBe(1_000n);
    expect(s.state.updatedBlock).toBe(7n);
    expect([s.indexX18, s.bestBidX18, s.bestAskX18, s.markX18, s.cumulativeIndexNowX18]).toEqual([0n, 0n, 0n, 0n, 0n]);
  });

  it("computes mark and cumulative index at `now` from the rows, as core/math does", () => {
    const state = { ...emptyMarketState(market), premiumX18: WAD / 1000n, sampleBidX18: (108216n * WAD) / 100_000n, sampleAskX18: (109n * WAD) / 100n, fundingRateX18PerHour: WAD / 10_000n, cumulativeFundingIndexX18: 5n * WAD, fundingLastUpdate: 1_500n };
    const rows = { market, state, indexX18: (108n * WAD) / 100n, bestBidX18: (1079n * WAD) / 1000n, bestAskX18: (1082n * WAD) / 1000n };
    const s = marketSnapshot(rows, 1_800n);
    expect(s.markX18).toBe(markPrice({ indexX18: rows.indexX18, premiumX18: state.premiumX18, sampleBidX18: state.sampleBidX18, sampleAskX18: state.sampleAskX18, markClampBps: BigInt(market.markClampBps), lastUpdate: 1_500n, now: 1_800n }));
    expect(s.markX18).toBe((rows.indexX18 * (WAD + WAD / 500n)) / WAD); // a full period later: the sample
    expect(s.cumulativeIndexNowX18).toBe(cumulativeIndexNow({ cumulativeIndexX18: 5n * WAD, rateX18PerHour: WAD / 10_000n, indexX18: rows.indexX18, lastUpdate: 1_500n, now: 1_800n }));
    expect(s.cumulativeIndexNowX18).toBeGreaterThan(5n * WAD);
    // at the last update itself nothing has accrued
    expect(marketSnapshot(rows, 1_500n).cumulativeIndexNowX18).toBe(5n * WAD);
  });

  it("derives the session from the indexed calendar at `now` (no event at a switch), and restarts funding at a reopening", () => {
    const at = (iso: string) => BigInt(Date.parse(iso) / 1000);
    // the FX week: REDUCE_ONLY Fri 20:00, CLOSED Fri 21:00 to Sun 21:00 UTC (2026-11-27 is a Friday)
    const state = {
      ...emptyMarketState(market), closeUpliftBps: 30_000, calendarCloseAtMin: 4 * 1440 + 21 * 60, calendarWindowMin: 60, calendarClosedMin: 2880,
      fundingRateX18PerHour: WAD / 10_000n, cumulativeFundingIndexX18: 5n * WAD, fundingLastUpdate: at("2026-11-27T18:00:00Z"),
    };
    const rows = { market, state, indexX18: (108n * WAD) / 100n };
    const open = marketSnapshot(rows, at("2026-11-27T19:00:00Z")).state;
    expect([open.session, open.marginUpliftBps, open.sessionUpdatedAt]).toEqual(["OPEN", 10_000, at("2026-11-22T21:00:00Z")]);
    const window = marketSnapshot(rows, at("2026-11-27T20:30:00Z")).state;
    expect([window.session, window.marginUpliftBps, window.sessionUpdatedAt]).toEqual(["REDUCE_ONLY", 30_000, at("2026-11-27T20:00:00Z")]);
    const closed = marketSnapshot(rows, at("2026-11-28T12:00:00Z"));
    expect([closed.state.session, closed.state.marginUpliftBps]).toEqual(["CLOSED", 30_000]);
    // the next session and when (the market reads' session.nextSession / nextSessionAt)
    expect(marketSnapshot(rows, at("2026-11-27T19:00:00Z")).nextSession).toEqual({ session: "REDUCE_ONLY", at: at("2026-11-27T20:00:00Z") });
    expect(marketSnapshot(rows, at("2026-11-27T20:30:00Z")).nextSession).toEqual({ session: "CLOSED", at: at("2026-11-27T21:00:00Z") });
    expect(closed.nextSession).toEqual({ session: "OPEN", at: at("2026-11-29T21:00:00Z") });
    // no calendar: no change scheduled
    expect(marketSnapshot({ market, state: emptyMarketState(market) }, at("2026-11-27T19:00:00Z")).nextSession).toBeNull();
    // after the reopening: funding from the reopening only (MarketBase._skipClosed)
    const reopened = marketSnapshot(rows, at("2026-11-29T22:00:00Z"));
    expect(reopened.state.session).toBe("OPEN");
    expect(reopened.state.fundingLastUpdate).toBe(at("2026-11-29T21:00:00Z"));
    expect(reopened.cumulativeIndexNowX18).toBe(
      cumulativeIndexNow({ cumulativeIndexX18: 5n * WAD, rateX18PerHour: WAD / 10_000n, indexX18: rows.indexX18, lastUpdate: at("2026-11-29T21:00:00Z"), now: at("2026-11-29T22:00:00Z") }),
    );
  });
});

describe("funding over a stale index (IOracle.priceWindow)", () => {
  it("accrues only over the index's fresh run [freshSince, freshUntil], as MarketBase._indexNow", () => {
    const state = { ...emptyMarketState(market), fundingRateX18PerHour: WAD / 10_000n, cumulativeFundingIndexX18: 5n * WAD, fundingLastUpdate: 1_000n };
    const rows = { market, state, indexX18: WAD };
    const all = marketSnapshot(rows, 8_200n).cumulativeIndexNowX18;
    // the index went stale at 4_600 (its last update at 1_000 + maxAge 3_600): nothing after it
    const stale = marketSnapshot({ ...rows, freshSince: 0n, freshUntil: 4_600n }, 8_200n).cumulativeIndexNowX18;
    expect(stale).toBe(cumulativeIndexNow({ cumulativeIndexX18: 5n * WAD, rateX18PerHour: WAD / 10_000n, indexX18: WAD, lastUpdate: 1_000n, now: 4_600n }));
    expect(stale).not.toBe(all);
    // a new run from 7_000: the gap before it accrues nothing either
    const resumed = marketSnapshot({ ...rows, freshSince: 7_000n, freshUntil: 10_600n }, 8_200n).cumulativeIndexNowX18;
    expect(resumed - 5n * WAD).toBe(cumulativeIndexNow({ cumulativeIndexX18: 0n, rateX18PerHour: WAD / 10_000n, indexX18: WAD, lastUpdate: 7_000n, now: 8_200n }));
  });
});

describe("orders page (core/reads/orders.ts)", () => {
  const order = (id: number, block: number, expiresAt = 0n) =>
    ({
      orderId: BigInt(id), marketId: market.marketId, accountId: 1n, clientKey: `0x${"33".repeat(32)}`, side: "LONG", orderType: "LIMIT", reduceOnly: false,
      priceX18: WAD, originalQty: 10n * WAD, filledQty: 4n * WAD, remainingQty: 6n * WAD, cancelledQty: 0n, marginAllocatedWad: WAD, marginReturnedWad: 0n,
      status: "active", closeReason: null, createdBlock: BigInt(block), createdAt: 100n, updatedAt: 100n, closedAt: null, transactionHash: "0x",
      timeInForce: "GTC", expiresAt, modificationCount: 0, modifiedAt: null, modifiedBlock: null, queueSeq: BigInt(id),
    }) as never;

  it("one row more than the limit: hasMore and the cursor of the page's last order", () => {
    const p = ordersPage([order(9, 5), order(8, 5), order(3, 2)], 7, 2, 100n);
    expect(p.orders.map((o) => o.orderId)).toEqual(["9", "8"]);
    expect([p.totalCount, p.hasMore]).toEqual([7, true]);
    expect(decodeUintCursor("orders", p.nextCursor!, 2)).toEqual([5n, 8n]);
    expect(p.orders[0]!.fillPercent).toBe(40);
  });

  it("the last page: no cursor", () => {
    expect(ordersPage([order(3, 2)], 1, 2, 100n)).toMatchObject({ hasMore: false, nextCursor: null, totalCount: 1 });
    expect(ordersPage([], 0, 100, 100n)).toEqual({ orders: [], totalCount: 0, hasMore: false, nextCursor: null });
  });

  it("a good-til-time order shows active before its expiry, cancelled with nothing remaining from its second on (before anyone removes it)", () => {
    const before = ordersPage([order(3, 2, 150n)], 1, 2, 149n).orders[0]!;
    expect(before).toMatchObject({ status: "active", isActive: true, remainingQuantity: (6n * WAD).toString(), timeInForce: "GTC", expiresAt: 150, expiresAtISO: "1970-01-01T00:02:30.000Z" });
    for (const now of [150n, 151n]) {
      expect(ordersPage([order(3, 2, 150n)], 1, 2, now).orders[0]!).toMatchObject({ status: "cancelled", isActive: false, remainingQuantity: "0", expiresAt: 150 });
    }
    // no expiry: never
    expect(ordersPage([order(3, 2)], 1, 2, 10n ** 12n).orders[0]!).toMatchObject({ status: "active", expiresAt: null, expiresAtISO: null });
  });

  it("an order shows its modifications: none (count 0, nulls), or the count and the last one's time and block", () => {
    expect(ordersPage([order(3, 2)], 1, 2, 100n).orders[0]!).toMatchObject({ modificationCount: 0, modifiedAt: null, modifiedAtISO: null, modifiedBlock: null });
    const modified = { ...(order(3, 2) as object), modificationCount: 2, modifiedAt: 150n, modifiedBlock: 7n } as never;
    expect(ordersPage([modified], 1, 2, 100n).orders[0]!).toMatchObject({ modificationCount: 2, modifiedAt: 150, modifiedAtISO: "1970-01-01T00:02:30.000Z", modifiedBlock: 7 });
  });
});
