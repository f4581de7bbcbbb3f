/**
 * The hot answers built from the indexed tables by the read service itself, on Postgres: the
 * markets list, a market, its funding, price and book, an account, its orders, a position and its
 * funding (the routes AnswerStore holds, app.ts `HOT`). Each build is one prepared statement of
 * plans.ts (`withState`) on a pool of this service's own that reads the indexed state
 * (checkpoint + `indexed_head`, as core/indexer/blocks.ts does) and the answer's rows in one
 * snapshot, so the answer belongs to the `X-Indexed-Block` it carries: one Postgres round trip
 * per answer. On PGlite the same plans run inside Ponder's process instead (batch.ts, one request
 * and one transaction per block's builds), as no other process may open its database.
 *
 * Same bytes as Ponder's routes for the same URL at the same block (plans.ts).
 * `minBlock`: a build never answers a block below the one it was asked for (the pushed block);
 * if the database is behind it (a revert after the push) it reads again until the bound, then
 * answers Ponder's 503.
 */
import pg from "pg";
import { type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { answerPlans, errorBuilt, type Built, type Executor, type Plan, type Raw } from "../../core/reads/plans.js";
import { stateOfRow } from "../../core/reads/sql.js";
import { waitForMinBlock } from "../../core/reads/min-block.js";


export type TableAnswers = {
  /** AnswerStore's build: the answer of `key` (path and sorted query), at block `minBlock` or later. */
  build(key: string, minBlock: bigint): Promise<Built>;
  close(): Promise<void>;
};

export function tableAnswers(o: { databaseUrl: string; schema: string; feed: BlockFeed; minBlockWaitMs: number; poolMax: number }): TableAnswers {
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: o.poolMax, application_name: "venue-reads-answers" });
  pool.on("error", () => {}); // an idle client's error: the next query gets a new one
  // each statement reads the indexed state too (one snapshot per answer: plans.ts `withState`)
  const plans = answerPlans({ schema: o.schema, withState: true });
  const planOf = plans.planOf;
  // a named statement: prepared once per connection of the pool
  const on = (pool: pg.Pool): Executor => async (s, values) => (await pool.query<Raw>({ ...s, values })).rows;
  const buildExec = on(pool);

  /** The plan's rows and the state they belong to (one snapshot), at block `minBlock` or later; below it after the bound, Ponder's 503. */
  async function run(p: Plan, minBlock: bigint, exec: Executor): Promise<{ rows: Raw[]; st: IndexedState } | Built> {
    // the database behind the pushed block (a revert since): Ponder's bounded wait, then its 503
    const w = await waitForMinBlock(async () => {
      const rows = await exec(p.s, p.values);
      const st = stateOfRow(rows[0]);
      return { block: st.number, value: { rows, st } };
    }, minBlock, o.minBlockWaitMs);
    return w.error ? errorBuilt(w.error, w.block) : w.value;
  }

  const finished = plans.finished;

  async function build(key: string, minBlock: bigint): Promise<Built> {
    const p = planOf(key);
    // as Ponder: the block its middleware read before the validators ran
    if ("invalid" in p) return errorBuilt(p.invalid, o.feed.current().number);
    const r = await run(p.plan, minBlock, buildExec);
    return "rows" in r ? finished(p.plan, r.rows, r.st) : r;
  }

  return { build, close: () => pool.end() };
}
