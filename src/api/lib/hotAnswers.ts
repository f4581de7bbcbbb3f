/**
 * Ponder's hot read routes (markets, a market, its funding, price and book, an account, its
 * orders, a position and its funding) answered by the one read model, core/reads/plans.ts: the
 * same plan, statement and formatter the read service runs (on its own pool on Postgres, through
 * POST /internal/answers on PGlite). Here the statement runs on Ponder's `db`, inside
 * `readAtIndexedBlock` (one indexed state: indexedBlock.ts), and its rows become the answer.
 */
import type { Context } from "hono";
import { db } from "ponder:api";
import { sql } from "ponder";
import { answerPlans, type AnswerPlans, type Executor, type Raw } from "../../../core/reads/plans.js";
import { answerKey } from "../../../core/reads/routes.js";
import { ponderSchema, readAtIndexedBlock, type IndexedBlockEnv } from "./indexedBlock.js";

/** A plan's statement (`$n` parameters) on Ponder's read-only `db`: its rows as objects. */
export const onPonderDb: Executor = async (s, values) => {
  const parts = s.text.split(/\$(\d+)/);
  const query = sql.join(parts.map((p, i) => (i % 2 === 0 ? sql.raw(p) : sql`${values[Number(p) - 1]}`)));
  return ((await db.execute(query)) as unknown as { rows: Raw[] }).rows;
};

// made at the first request: Ponder sets its schema before it serves
let plans: AnswerPlans | undefined;
/** The plans of this build's schema, the indexed state read apart (`readAtIndexedBlock`). */
export const ponderPlans = () => (plans ??= answerPlans({ schema: ponderSchema(), withState: false }));

/** The hot route's answer for the request's URL (validated by the route's schemas before: a plan's 400 is the same one). */
export async function hotAnswer(c: Context<IndexedBlockEnv>) {
  const url = new URL(c.req.url);
  const p = ponderPlans().planOf(answerKey(url.pathname, url.searchParams));
  if ("invalid" in p) throw p.invalid;
  const data = await readAtIndexedBlock(c, async (b) => p.plan.finish(await onPonderDb(p.plan.s, p.plan.values), b));
  return c.json({ success: true as const, data }, 200);
}
