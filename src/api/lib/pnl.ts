/**
 * An account's PnL at period ends (GET /accounts/{accountId}/pnl): for each period, the state at
 * the last block B with a timestamp at or before its end, valued as the contracts' views value
 * it at B (Engine.getAccount, VenueLens.positionHealth): one query reads, per period and market,
 * the last row at or before B of each history table (each by its index), then core/math computes
 * mark, pending funding and health in exact bigint arithmetic with the contracts' rounding.
 */
import { db } from "ponder:api";
import { chainClock, market, marketState, position } from "ponder:schema";
import { eq, sql } from "ponder";
import type { Hex } from "viem";
import { decodeUintCursor, encodeCursor } from "../../../core/cursor.js";
import { ApiError } from "../../../core/errors.js";
import { fundingNow, markPrice, max, min, pendingFunding, positionHealth } from "../../../core/math/index.js";
import { ponderSchema } from "./indexedBlock.js";
import { pnlPointsQuery } from "./pnlSql.js";
import { calendarAt, calendarOf, lastReopen, sessionAt, type CalendarColumns } from "../../../core/calendar.js";
import type { PnlPoint } from "../../../core/history/items.js";

export const PNL_RESOLUTIONS = { "1h": 3_600n, "1d": 86_400n } as const;
export type PnlResolution = keyof typeof PNL_RESOLUTIONS;

export type { PnlPoint };

const floorTo = (t: bigint, len: bigint) => (t < 0n ? -(((-t + len - 1n) / len) * len) : (t / len) * len);
const ceilTo = (t: bigint, len: bigint) => -floorTo(-t, len);

/**
 * The period starts of one page, newest first: periods starting in [from, to) that ended before
 * the latest block's time (so their last block is final) and not before the account existed.
 */
export function pnlPeriods(p: {
  len: bigint;
  latestBlockTime: bigint;
  accountCreatedAt: bigint;
  from?: bigint;
  to?: bigint;
  after?: bigint; // the cursor: the previous page's last start
  limit: number;
}): bigint[] {
  let hi = floorTo(p.latestBlockTime - p.len - 1n, p.len); // start + len < latest block time
  if (p.to !== undefined) hi = min(hi, floorTo(p.to - 1n, p.len));
  if (p.after !== undefined) hi = min(hi, p.after - p.len);
  let lo = ceilTo(p.accountCreatedAt - p.len, p.len); // start + len ≥ creation
  if (p.from !== undefined) lo = max(lo, ceilTo(p.from, p.len));
  if (lo < 0n) lo = 0n;
  const out: bigint[] = [];
  for (let s = hi; s >= lo && out.length <= p.limit; s -= p.len) out.push(s);
  return out;
}

type Row = Record<string, string | number | null>;
const big = (v: string | number | null | undefined) => (v === null || v === undefined ? 0n : BigInt(v));

/** One page of PnL points, newest first (`limit + 1` periods decide `hasMore`). */
export async function pnlPage(q: { accountId: bigint; createdAt: bigint; resolution: PnlResolution; from?: bigint; to?: bigint; limit: number; cursor?: string }) {
  const len = PNL_RESOLUTIONS[q.resolution];
  if (q.from !== undefined && q.to !== undefined && q.from > q.to) throw new ApiError("VALIDATION_ERROR", "from: must not be after to");
  let after: bigint | undefined;
  if (q.cursor !== undefined) {
    [after] = decodeUintCursor(`pnl:${q.resolution}`, q.cursor, 1);
    if (after! % len !== 0n) throw new ApiError("VALIDATION_ERROR", "cursor: not a cursor of this list (pass nextCursor back unchanged)");
  }
  const [clock] = await db.select().from(chainClock).where(eq(chainClock.id, 0)).limit(1);
  const starts = clock
    ? pnlPeriods({ len, latestBlockTime: clock.timestamp, accountCreatedAt: q.createdAt, from: q.from, to: q.to, after, limit: q.limit })
    : [];
  const hasMore = starts.length > q.limit;
  const page = hasMore ? starts.slice(0, q.limit) : starts;
  const points = page.length ? await pointsAt(q.accountId, page.map((s) => s + len), len) : [];
  return {
    points,
    hasMore,
    nextCursor: hasMore ? encodeCursor(`pnl:${q.resolution}`, [page.at(-1)!]) : null,
  };
}

/** The account's PnL at each period end `ends` (newest first), read by one query. */
async function pointsAt(accountId: bigint, ends: bigint[], len: bigint): Promise<PnlPoint[]> {
  const markets = await db
    .select({
      marketId: market.marketId, marketAddress: market.marketAddress, positionId: position.positionId, mmBps: market.maintenanceMarginBps, markClampBps: market.markClampBps,
      calendarCloseAtMin: marketState.calendarCloseAtMin, calendarWindowMin: marketState.calendarWindowMin, calendarClosedMin: marketState.calendarClosedMin,
      nextCalendarCloseAtMin: marketState.nextCalendarCloseAtMin, nextCalendarWindowMin: marketState.nextCalendarWindowMin,
      nextCalendarClosedMin: marketState.nextCalendarClosedMin, calendarStartsAt: marketState.calendarStartsAt,
    })
    .from(position)
    .innerJoin(market, eq(market.marketId, position.marketId))
    .leftJoin(marketState, eq(marketState.marketAddress, market.marketAddress))
    .where(eq(position.accountId, accountId));
  const { text, values } = pnlPointsQuery(ponderSchema(), accountId, ends, markets);
  // the text's $n placeholders → drizzle parameters
  const parts = text.split(/\$(\d+)/);
  const result = await db.execute(sql.join(parts.map((part, i) => (i % 2 ? sql`${values[Number(part) - 1]}` : sql.raw(part)))));
  const rows = (result as unknown as { rows: Row[] }).rows;
  const byEnd = new Map<bigint, PnlPoint>();
  for (const r of rows) {
    const end = big(r.p);
    let pt = byEnd.get(end);
    if (!pt) {
      const collateral = big(r.available_wad) + big(r.committed_wad);
      pt = {
        periodStart: end - len,
        periodEnd: end,
        blockNumber: big(r.b),
        blockTimestamp: big(r.bt),
        collateralWad: collateral,
        equityWad: collateral,
        unrealizedPnlWad: 0n,
        pendingFundingWad: 0n,
        realizedPnlWad: 0n,
        fundingPaidWad: 0n,
        feesPaidWad: 0n,
        openPositions: 0,
      };
      byEnd.set(end, pt);
    }
    if (!r.market_id || r.size_qty === null || r.size_qty === undefined) continue;
    pt.realizedPnlWad += big(r.realized_pnl_total_wad);
    pt.fundingPaidWad += big(r.funding_paid_total_wad);
    pt.feesPaidWad += big(r.fees_paid_total_wad);
    const sizeQty = big(r.size_qty);
    if (sizeQty === 0n) continue;
    const m = markets.find((x) => x.marketId === r.market_id)!;
    const now = pt.blockTimestamp;
    const indexX18 = big(r.index_x18);
    // sessions follow the market's calendar (the one indexed now: calendars rarely change); an
    // accrual after a close restarts funding at the reopening; while CLOSED nothing accrues
    const cal = m.calendarStartsAt === null ? null : calendarOf(m as CalendarColumns);
    const t = Number(now);
    const lastUpdate = max(max(big(r.last_update), big(r.session_last_update)), cal ? BigInt(lastReopen(cal, t)) : 0n);
    const closed = cal ? sessionAt(calendarAt(cal, t), t) === "CLOSED" : false;
    const mark = markPrice({
      indexX18,
      premiumX18: big(r.premium_x18),
      sampleBidX18: big(r.sample_bid_x18),
      sampleAskX18: big(r.sample_ask_x18),
      markClampBps: BigInt(m.markClampBps),
      lastUpdate,
      now,
    });
    const { cumulativeIndexNowX18: indexNow } = fundingNow({
      cumulativeIndexX18: big(r.cumulative_index_x18),
      rateX18PerHour: big(r.rate_x18_per_hour),
      // a cancel after the last accrual: the stored rate up to its second (or the reopening), the stale rate from it
      rateStaleSince: big(r.stale_since),
      staleRateX18PerHour: big(r.stale_rate_x18_per_hour),
      indexX18,
      // only over the index's unbroken fresh run (IOracle.priceWindow, as the chain's view)
      ...(r.fresh_since === null || r.fresh_since === undefined ? {} : { freshSince: big(r.fresh_since) }),
      ...(r.fresh_until === null || r.fresh_until === undefined ? {} : { freshUntil: big(r.fresh_until) }),
      lastUpdate,
      now,
      closed,
    });
    const pending = pendingFunding(sizeQty, indexNow, big(r.funding_index_x18));
    const h = positionHealth({ sizeQty, openNotionalWad: big(r.open_notional_wad), marginWad: big(r.margin_wad) }, mark, pending, BigInt(m.mmBps));
    pt.equityWad += h.equityWad;
    pt.unrealizedPnlWad += h.unrealizedPnlWad;
    pt.pendingFundingWad += pending;
    pt.openPositions += 1;
  }
  // newest first, as asked; a period end before the first indexed block has no point
  return ends.flatMap((e) => byEnd.get(e) ?? []);
}
