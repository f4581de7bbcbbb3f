/**
 * `POST /internal/answers`: a block's held answers in one request, for the read service
 * (services/reads/batch.ts), which on PGlite cannot open the database itself. Body
 * `{ minBlock, paths }` (≤ MAX_ANSWER_PATHS keys: path and sorted query of a held route); answer
 * `{ success, data: { block, answers: [{ status, body, block }] } }`, one per path in order, each
 * the exact bytes Ponder's own route gives for that URL at that block (core/reads/plans.ts, as Ponder's own hot routes: lib/hotAnswers.ts).
 *
 * Everything is read in ONE transaction: the indexed state once, then one statement per distinct
 * plan, so every answer belongs to the one state and block it carries. On PGlite the transaction
 * holds PGlite's lock and the block gate's shared hold (src/api/lib/pgliteGate.ts), so no part of a
 * block commits between its statements; on Postgres one connection of Ponder's read-only pool in a
 * REPEATABLE READ snapshot (src/ponder/internals.ts `readTransaction`).
 * Where the read service used to ask each answer from its route (~4 statements each, the state
 * read twice), a block's rebuilds cost one request and about one statement per answer here.
 *
 * `minBlock`: as a read's `?minBlock=` (core/reads/min-block.ts): while the state is below it, read
 * again every 25 ms (outside any transaction, so indexing goes on) until MIN_BLOCK_WAIT_MS, then
 * the 503 envelope with `X-Indexed-Block`. Only for the integration token (the read service's):
 * 401 without or with an unknown `X-Internal-Token`, 403 with another service's; not counted by
 * the per-client limit (limits.ts). Bad input is a 400 envelope.
 */
import { z } from "zod";
import { ApiError } from "../../../core/errors.js";
import { ok } from "../../../core/envelope.js";
import { callerTokens, identifyService, requireScope, CALLERS, type ServiceCaller, type ServiceVariables } from "../../../core/auth/service-tokens.js";
import { configured } from "../../../core/profiles.js";
import { parseOrThrow } from "../../../core/schemas/validation.js";
import { answersAt, MAX_ANSWER_PATHS } from "../../../core/reads/plans.js";
import { isHotKey } from "../../../core/reads/routes.js";
import { ponderPlans } from "../lib/hotAnswers.js";
import { createApiApp } from "../lib/app.js";
import { MIN_BLOCK_WAIT_MS } from "../lib/indexedBlock.js";
import { waitForMinBlock } from "../../../core/reads/min-block.js";
import { readTransaction } from "../../ponder/internals.js";

export const AnswersBody = z.strictObject({
  minBlock: z.union([z.string().regex(/^\d{1,15}$/, "must be a non-negative integer block number"), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)]),
  paths: z
    .array(z.string().max(2_048).refine(isHotKey, "must be a held route's path (and sorted query)"))
    .min(1)
    .max(MAX_ANSWER_PATHS),
});


/** The callers whose tokens this process was given (outside local the indexer has no gateway token): an unknown one is 401. */
const known = (Object.keys(CALLERS) as ServiceCaller[]).filter((c) => configured(CALLERS[c].env));

export const answersRoutes = createApiApp<{ Variables: ServiceVariables }>();
answersRoutes.post(
  "/internal/answers",
  identifyService(callerTokens(known)),
  requireScope("answers:build"),
  async (c) => {
    const raw = await c.req.json().catch(() => {
      throw new ApiError("VALIDATION_ERROR", "body: must be JSON");
    });
    const body = parseOrThrow(AnswersBody, raw);
    const minBlock = BigInt(body.minBlock);
    const plans = ponderPlans();
    const w = await waitForMinBlock(async () => {
      const { state, answers } = await readTransaction((exec) => answersAt(plans, body.paths, minBlock, exec));
      return { block: state.number, value: answers };
    }, minBlock, MIN_BLOCK_WAIT_MS);
    c.header("X-Indexed-Block", w.block.toString());
    if (w.error) throw w.error;
    return c.json(ok({ block: w.block.toString(), answers: w.value! }), 200); // at minBlock or later: answered
  },
);
