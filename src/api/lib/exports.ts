/**
 * A history list's answer in Ponder's server: a JSON page, or the whole range as CSV or NDJSON
 * when the `Accept` header asks for it. Both are the one read model's (core/history/plans.ts),
 * run on Ponder's `db`: a page inside one indexed state (`readAtIndexedBlock`), an export as
 * keyset pages of 1,000 rows, oldest first, up to the indexed block the request started at.
 */
import type { Context } from "hono";
import { stream } from "hono/streaming";
import { ApiError } from "../../../core/errors.js";
import { exportFormatOf, type ListSpec } from "../../../core/history/lists.js";
import { historyPlans, type HistoryPlans, type ListQuery, type Scope } from "../../../core/history/plans.js";
import { onPonderDb } from "./hotAnswers.js";
import { ponderSchema, readAtIndexedBlock, type IndexedBlockEnv } from "./indexedBlock.js";

// made at the first request: Ponder sets its schema before it serves
let plans: HistoryPlans | undefined;
/** The history plans of this build's schema, the indexed state read apart (`readAtIndexedBlock`). */
export const historyPlansOfPonder = () => (plans ??= historyPlans({ schema: ponderSchema(), withState: false }));

/**
 * A list route's answer. A page's 404 comes from the same indexed-state read as its rows (a reorg
 * that removes an account never answers its empty page as a 200); an export streams in several
 * reads and checks its scope once before.
 */
export async function answerList(c: Context<IndexedBlockEnv>, l: ListSpec, scope: Scope, q: ListQuery, columns: string[]) {
  const format = exportFormatOf(c.req.header("accept"));
  if (format) {
    await historyPlansOfPonder().requireScope(onPonderDb, l, scope, q);
    if (q.cursor !== undefined) throw new ApiError("VALIDATION_ERROR", "cursor: an export streams the whole range; send from/to instead");
    const chunks = historyPlansOfPonder().exportChunks(onPonderDb, l, scope, q, c.var.indexed.number, format, columns);
    c.header("Content-Type", format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson");
    c.header("Cache-Control", "no-store");
    return stream(c, async (out) => {
      for await (const chunk of chunks) await out.write(chunk);
    });
  }
  const data = await readAtIndexedBlock(c, async () => (await historyPlansOfPonder().listPage(onPonderDb, l, scope, q)).data);
  return c.json({ success: true as const, data }, 200);
}
