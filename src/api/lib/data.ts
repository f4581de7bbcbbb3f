/**
 * Lookups through Ponder's `db` for the routes that are not hot answers nor history pages (PnL,
 * an account by address, its operators): does the account exist (its 404), the account of an owner. The hot
 * answers are the one read model's (core/reads/plans.ts, through lib/hotAnswers.ts).
 */
import { db } from "ponder:api";
import { account, market, operatorApproval, positionTrigger } from "ponder:schema";
import { and, eq } from "ponder";
import type { Hex } from "viem";
import { accountNotFound, marketNotFound } from "../../../core/reads/errors.js";
import type { AccountRow, OperatorRow, TriggerRow } from "../../../core/reads/snapshot.js";

export async function requireAccount(accountId: bigint): Promise<AccountRow> {
  const rows = await db.select().from(account).where(eq(account.accountId, accountId)).limit(1);
  if (!rows[0]) throw accountNotFound(accountId);
  return rows[0];
}

export async function findAccountByOwner(owner: Hex): Promise<AccountRow | undefined> {
  const rows = await db.select().from(account).where(eq(account.owner, owner.toLowerCase() as Hex)).limit(1);
  return rows[0];
}

/** Every operator approval of an owner (revoked ones included: expiry 0). */
export async function findOperators(owner: Hex): Promise<OperatorRow[]> {
  return db.select().from(operatorApproval).where(eq(operatorApproval.owner, owner.toLowerCase() as Hex));
}

/** An account's position triggers (at most one per market and kind): of one market, of one status ("all": any). */
export async function findTriggers(accountId: bigint, f: { marketId?: Hex; status: string }): Promise<TriggerRow[]> {
  const where = [eq(positionTrigger.accountId, accountId)];
  if (f.marketId !== undefined) where.push(eq(positionTrigger.marketId, f.marketId.toLowerCase() as Hex));
  if (f.status !== "all") where.push(eq(positionTrigger.status, f.status));
  return db.select().from(positionTrigger).where(and(...where));
}

export async function requireMarket(marketId: Hex): Promise<void> {
  const rows = await db.select({ marketId: market.marketId }).from(market).where(eq(market.marketId, marketId.toLowerCase() as Hex)).limit(1);
  if (!rows[0]) throw marketNotFound(marketId);
}
