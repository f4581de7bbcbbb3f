/**
 * Reads of the indexed tables through Ponder's `db`, and the market snapshot every time-dependent
 * value is computed from (core/reads/snapshot.ts: the same as the read service computes).
 */
import { db } from "ponder:api";
import { account, indexPrice, market, marketState, orderBookLevel, position } from "ponder:schema";
import { and, asc, desc, eq } from "ponder";
import type { Hex } from "viem";
import { accountNotFound, marketNotFound } from "../../../core/reads/errors.js";
import { marketSnapshot, type AccountRow, type LevelRow, type MarketRow, type MarketSnapshot, type PositionRow } from "../../../core/reads/snapshot.js";

export type { AccountRow, LevelRow, MarketRow, MarketSnapshot, MarketStateRow, PositionRow } from "../../../core/reads/snapshot.js";

export async function findAccount(accountId: bigint): Promise<AccountRow | undefined> {
  const rows = await db.select().from(account).where(eq(account.accountId, accountId)).limit(1);
  return rows[0];
}

export async function requireAccount(accountId: bigint): Promise<AccountRow> {
  const row = await findAccount(accountId);
  if (!row) throw accountNotFound(accountId);
  return row;
}

export async function findAccountByOwner(owner: Hex): Promise<AccountRow | undefined> {
  const rows = await db.select().from(account).where(eq(account.owner, owner.toLowerCase() as Hex)).limit(1);
  return rows[0];
}

export async function bookLevels(marketId: Hex, side: "LONG" | "SHORT", depth: number): Promise<LevelRow[]> {
  return db
    .select()
    .from(orderBookLevel)
    .where(and(eq(orderBookLevel.marketId, marketId), eq(orderBookLevel.side, side)))
    .orderBy(side === "LONG" ? desc(orderBookLevel.priceX18) : asc(orderBookLevel.priceX18))
    .limit(depth);
}

async function snapshotOf(m: MarketRow, now: bigint): Promise<MarketSnapshot> {
  const [states, prices, bid, ask] = await Promise.all([
    db.select().from(marketState).where(eq(marketState.marketAddress, m.marketAddress)).limit(1),
    db.select().from(indexPrice).where(eq(indexPrice.marketId, m.marketId)).limit(1),
    bookLevels(m.marketId, "LONG", 1),
    bookLevels(m.marketId, "SHORT", 1),
  ]);
  return marketSnapshot({ market: m, state: states[0], indexX18: prices[0]?.priceX18, bestBidX18: bid[0]?.priceX18, bestAskX18: ask[0]?.priceX18 }, now);
}

export async function requireMarket(marketId: Hex): Promise<MarketRow> {
  const rows = await db.select().from(market).where(eq(market.marketId, marketId.toLowerCase() as Hex)).limit(1);
  const m = rows[0];
  if (!m) throw marketNotFound(marketId);
  return m;
}

/** The market with its live state at time `now` (the indexed block's timestamp). */
export async function requireMarketSnapshot(marketId: Hex, now: bigint): Promise<MarketSnapshot> {
  return snapshotOf(await requireMarket(marketId), now);
}

export async function allMarketSnapshots(now: bigint): Promise<MarketSnapshot[]> {
  const rows = await db.select().from(market).orderBy(asc(market.marketIndex));
  return Promise.all(rows.map((m) => snapshotOf(m, now)));
}

export async function findPosition(accountId: bigint, marketId: Hex): Promise<PositionRow | undefined> {
  const rows = await db
    .select()
    .from(position)
    .where(and(eq(position.accountId, accountId), eq(position.marketId, marketId.toLowerCase() as Hex)))
    .limit(1);
  return rows[0];
}
