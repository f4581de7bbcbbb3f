/**
 * Lookups through Ponder's `db` for the routes that are not hot answers nor history pages (PnL,
 * an account by address, its operators): does the account exist (its 404), the account of an owner. The hot
 * answers are the one read model's (core/reads/plans.ts, through lib/hotAnswers.ts).
 */
import { db } from "ponder:api";
import { account, operatorApproval } from "ponder:schema";
import { eq } from "ponder";
import type { Hex } from "viem";
import { accountNotFound } from "../../../core/reads/errors.js";
import type { AccountRow, OperatorRow } from "../../../core/reads/snapshot.js";

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
