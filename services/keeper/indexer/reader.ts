/**
 * Reads the indexed tables the keeper needs (positions, markets, prices, book tops, accounts,
 * liquidations) through Ponder's SQL over HTTP. Every read first takes the latest indexed block,
 * so health is computed at that block's timestamp.
 */
import { and, asc, desc, eq, gt, inArray, lte, ne, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { calendarAt, calendarOf, lastReopen, sessionAt } from "../../../core/calendar.js";
import { indexedBlock, schema, type IndexedBlock, type IndexerDb } from "./sql-client.js";
import type { MarketContext, PositionRow } from "../liquidation/health.js";
import { blockNotIndexed } from "../../../core/reads/errors.js";
import { positionIdOf } from "../../../core/math/ids.js";

export type AccountRow = typeof schema.account.$inferSelect;
export type LiquidationRow = typeof schema.liquidationEvent.$inferSelect;
export type ActiveTrigger = {
  accountId: bigint;
  marketId: Hex;
  kind: string;
  triggerPriceX18: bigint;
  positionSide: string;
  openBlock: bigint;
  positionSize: bigint | null;
  positionOpenBlock: bigint | null;
};

export const MIN_BLOCK_WAIT_MS = 5_000;

/**
 * A no-op condition that carries the indexed block as a parameter. Ponder's `/sql` caches results
 * by query text + parameters and drops them on a change notification that can trail `/status` by
 * a moment: a query tagged with the block it follows is never answered from an older cache entry.
 */
const fresh = (block: IndexedBlock) => sql`${Number(block.number)} >= 0`;

/** `seenBlock`: the newest block any row read was written in (see LiquidationService.consistent). */
export type Snapshot = { block: IndexedBlock; markets: Map<Hex, MarketContext>; seenBlock: bigint };

const positionColumns = {
  positionId: schema.position.positionId,
  accountId: schema.position.accountId,
  marketId: schema.position.marketId,
  sizeQty: schema.position.sizeQty,
  openNotionalWad: schema.position.openNotionalWad,
  marginWad: schema.position.marginWad,
  lastFundingIndexX18: schema.position.lastFundingIndexX18,
  lastSettledAt: schema.position.lastSettledAt,
  openBlock: schema.position.openBlock,
  updatedBlock: schema.position.updatedBlock,
};

export class IndexerReader {
  constructor(
    private readonly db: IndexerDb,
    private readonly integrationUrl: string,
    private readonly chainId: number,
  ) {}

  block(): Promise<IndexedBlock> {
    return indexedBlock(this.integrationUrl, this.chainId);
  }

  /** The latest indexed block, waiting (bounded) until it reaches `minBlock`: a client reads its own writes. */
  async blockAtLeast(minBlock = 0n): Promise<IndexedBlock> {
    const deadline = Date.now() + MIN_BLOCK_WAIT_MS;
    for (;;) {
      const b = await this.block();
      if (b.number >= minBlock) return b;
      if (Date.now() >= deadline) {
        throw blockNotIndexed(minBlock, b.number);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The latest indexed block and every market's context (parameters, index, book top, funding). */
  async snapshot(minBlock = 0n): Promise<Snapshot> {
    return this.marketsAt(await this.blockAtLeast(minBlock));
  }

  /** Every market's context, read after `block` was indexed. */
  async marketsAt(block: IndexedBlock): Promise<Snapshot> {
    const { market, marketState, indexPrice } = schema;
    const at = fresh(block);
    const [markets, prices] = await Promise.all([
      this.db
        .select({
          marketId: market.marketId,
          symbol: market.symbol,
          marketAddress: market.marketAddress,
          maintenanceMarginBps: market.maintenanceMarginBps,
          liquidationFeeBps: market.liquidationFeeBps,
          isActive: marketState.isActive,
          fundingRateX18PerHour: marketState.fundingRateX18PerHour,
          cumulativeFundingIndexX18: marketState.cumulativeFundingIndexX18,
          fundingLastUpdate: marketState.fundingLastUpdate,
          premiumX18: marketState.premiumX18,
          sampleBidX18: marketState.sampleBidX18,
          sampleAskX18: marketState.sampleAskX18,
          markClampBps: market.markClampBps,
          rateStaleSince: marketState.rateStaleSince,
          staleRateX18PerHour: marketState.staleRateX18PerHour,
          closeUpliftBps: marketState.closeUpliftBps,
          calendarCloseAtMin: marketState.calendarCloseAtMin,
          calendarWindowMin: marketState.calendarWindowMin,
          calendarClosedMin: marketState.calendarClosedMin,
          nextCalendarCloseAtMin: marketState.nextCalendarCloseAtMin,
          nextCalendarWindowMin: marketState.nextCalendarWindowMin,
          nextCalendarClosedMin: marketState.nextCalendarClosedMin,
          calendarStartsAt: marketState.calendarStartsAt,
          stateBlock: marketState.updatedBlock,
        })
        .from(market)
        .leftJoin(marketState, eq(marketState.marketAddress, market.marketAddress))
        .where(at),
      this.db.select().from(indexPrice).where(at),
    ]);
    const out = new Map<Hex, MarketContext>();
    let seenBlock = 0n;
    const see = (b: bigint | string | null | undefined) => {
      if (b != null && BigInt(b) > seenBlock) seenBlock = BigInt(b);
    };
    for (const p of prices) see(p.updatedBlock);
    for (const m of markets) {
      see(m.stateBlock);
      const id = m.marketId.toLowerCase() as Hex;
      const price = prices.find((p) => p.marketId.toLowerCase() === id);
      // the session follows the market's calendar at the block's time (core/calendar.ts): no event marks a switch
      const cal = calendarOf({
        calendarCloseAtMin: Number(m.calendarCloseAtMin ?? 0), calendarWindowMin: Number(m.calendarWindowMin ?? 0),
        calendarClosedMin: Number(m.calendarClosedMin ?? 0), nextCalendarCloseAtMin: Number(m.nextCalendarCloseAtMin ?? 0),
        nextCalendarWindowMin: Number(m.nextCalendarWindowMin ?? 0), nextCalendarClosedMin: Number(m.nextCalendarClosedMin ?? 0),
        calendarStartsAt: BigInt(m.calendarStartsAt ?? 0),
      });
      const t = Number(block.timestamp);
      const session = sessionAt(calendarAt(cal, t), t);
      const upliftBps = session === "OPEN" ? 10_000n : BigInt(m.closeUpliftBps ?? 10_000);
      const reopen = BigInt(lastReopen(cal, t));
      const lastUpdate = BigInt(m.fundingLastUpdate ?? 0n);
      out.set(id, {
        marketId: id,
        symbol: m.symbol,
        marketAddress: m.marketAddress,
        // floor, as the market computes it
        maintenanceMarginBps: (BigInt(m.maintenanceMarginBps) * upliftBps) / 10_000n,
        liquidationFeeBps: BigInt(m.liquidationFeeBps),
        isActive: m.isActive ?? true,
        indexPriceX18: price?.priceX18 ?? 0n,
        indexUpdatedAt: price?.updatedAt ?? 0n,
        fundingRateX18PerHour: m.fundingRateX18PerHour ?? 0n,
        cumulativeFundingIndexX18: m.cumulativeFundingIndexX18 ?? 0n,
        // an accrual after a close restarts funding at the reopening (MarketBase._skipClosed)
        fundingLastUpdate: lastUpdate < reopen ? reopen : lastUpdate,
        premiumX18: m.premiumX18 ?? 0n,
        sampleBidX18: m.sampleBidX18 ?? 0n,
        sampleAskX18: m.sampleAskX18 ?? 0n,
        markClampBps: BigInt(m.markClampBps),
        rateStaleSince: m.rateStaleSince ?? 0n,
        staleRateX18PerHour: m.staleRateX18PerHour ?? 0n,
        session,
      });
    }
    return { block, markets: out, seenBlock };
  }

  async position(positionId: Hex, block: IndexedBlock): Promise<PositionRow | undefined> {
    const rows = await this.db
      .select(positionColumns)
      .from(schema.position)
      .where(and(eq(schema.position.positionId, positionId.toLowerCase() as Hex), fresh(block)))
      .limit(1);
    return rows[0];
  }

  /** Open positions (size ≠ 0), optionally of one account or one market. */
  openPositions(block: IndexedBlock, filter: { accountId?: bigint; marketId?: Hex } = {}): Promise<PositionRow[]> {
    const { position } = schema;
    const conds = [ne(position.sizeQty, 0n), fresh(block)];
    if (filter.accountId !== undefined) conds.push(eq(position.accountId, filter.accountId));
    if (filter.marketId !== undefined) conds.push(eq(position.marketId, filter.marketId.toLowerCase() as Hex));
    return this.db.select(positionColumns).from(position).where(and(...conds));
  }

  async account(accountId: bigint, block: IndexedBlock): Promise<AccountRow | undefined> {
    const rows = await this.db.select().from(schema.account).where(and(eq(schema.account.accountId, accountId), fresh(block))).limit(1);
    return rows[0];
  }

  /** Most recent liquidations first. */
  liquidations(block: IndexedBlock, filter: { accountId?: bigint; marketId?: Hex; positionId?: Hex }, limit: number): Promise<LiquidationRow[]> {
    const l = schema.liquidationEvent;
    const conds = [fresh(block)];
    if (filter.accountId !== undefined) conds.push(eq(l.accountId, filter.accountId));
    if (filter.marketId !== undefined) conds.push(eq(l.marketId, filter.marketId.toLowerCase() as Hex));
    if (filter.positionId !== undefined) conds.push(eq(l.positionId, filter.positionId.toLowerCase() as Hex));
    return this.db
      .select()
      .from(l)
      .where(and(...conds))
      .orderBy(desc(l.blockNumber), desc(l.seq))
      .limit(limit);
  }

  /**
   * Open orders of the accounts whose dead-man deadline is set and at or before `now` (chain
   * seconds): what anyone may cancel (Engine.cancelOrders, CloseReason DEADMAN). At most `limit`.
   */
  deadmanOrders(block: IndexedBlock, now: bigint, limit = 1_000): Promise<Array<{ accountId: bigint; marketId: Hex; orderId: bigint }>> {
    const { order, account } = schema;
    return this.db
      .select({ accountId: order.accountId, marketId: order.marketId, orderId: order.orderId })
      .from(order)
      .innerJoin(account, eq(account.accountId, order.accountId))
      .where(and(eq(order.status, "active"), gt(account.deadman, 0n), lte(account.deadman, now), fresh(block)))
      .orderBy(asc(order.orderId))
      .limit(limit);
  }

  /** Active take-profits and stop-losses (table position_trigger), with their position's indexed state (null: never opened). */
  async activeTriggers(block: IndexedBlock, limit = 5_000): Promise<Array<ActiveTrigger>> {
    const { positionTrigger: t, position: p } = schema;
    const rows = await this.db
      .select({
        accountId: t.accountId,
        marketId: t.marketId,
        kind: t.kind,
        triggerPriceX18: t.triggerPriceX18,
        positionSide: t.positionSide,
        openBlock: t.openBlock,
      })
      .from(t)
      .where(and(eq(t.status, "active"), fresh(block)))
      .orderBy(asc(t.id))
      .limit(limit);
    if (rows.length === 0) return [];
    // their positions in a second query (a join's same-named columns would collide in /sql's rows)
    const ids = [...new Set(rows.map((r) => positionIdOf(r.accountId, r.marketId)))];
    const positions = await this.db
      .select({ positionId: p.positionId, sizeQty: p.sizeQty, openBlock: p.openBlock })
      .from(p)
      .where(and(inArray(p.positionId, ids), fresh(block)));
    const byId = new Map(positions.map((x) => [x.positionId.toLowerCase(), x]));
    return rows.map((r) => {
      const pos = byId.get(positionIdOf(r.accountId, r.marketId));
      return { ...r, positionSize: pos?.sizeQty ?? null, positionOpenBlock: pos?.openBlock ?? null };
    });
  }

  /** Resting good-til-time orders at or past their expiry (`expires_at` in 1..now, chain seconds), oldest first. */
  expiredOrders(block: IndexedBlock, now: bigint, limit = 5_000): Promise<Array<{ marketId: Hex; orderId: bigint }>> {
    const { order } = schema;
    return this.db
      .select({ marketId: order.marketId, orderId: order.orderId })
      .from(order)
      .where(and(eq(order.status, "active"), gt(order.expiresAt, 0n), lte(order.expiresAt, now), fresh(block)))
      .orderBy(asc(order.orderId))
      .limit(limit);
  }
}
