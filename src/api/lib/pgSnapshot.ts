/**
 * Postgres: a read's statements in ONE snapshot (issue 12, "an answer belongs to one indexed block").
 *
 * The API's `db` (`ponder:api`) is Ponder's read-only query builder: drizzle over the `readonly`
 * pool (ponder/dist/esm/utils/pg.js `createReadonlyPool`: search_path, READ ONLY sessions), each
 * statement on whichever connection is free. Ponder commits a block's rows with its checkpoint in
 * one transaction, so one statement sees one block, but a read of several (the state, then the
 * rows: orders and their count, a position's account, market and row) could see two. `snapshot`
 * pins one connection of that pool for a read: `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`
 * sent with its first statement (the indexed state: one round trip), then every statement of the
 * API's `db` issued in the read's async context goes to that connection (drizzle reads
 * `session.client` at each statement: it gets a proxy of the pool that routes `query` by
 * AsyncLocalStorage), so the state and the rows come from one snapshot. Ponder's own
 * `db.transaction(cb, config)` would open one too, but the routes' loads call the module's `db`,
 * not a `tx`, and Ponder retries a failed transaction up to 9 times with backoff.
 *
 * The answer does not wait for the COMMIT (a read-only transaction: nothing to commit); the
 * connection goes back to the pool after it. Work the read started that outlives it (its
 * context inherited) goes to the pool again. Nothing inside a read may wait for another
 * connection of the pool (every pinned read could be waiting: none would return): the routes'
 * loads only use `db`. On PGlite the gate (pgliteGate.ts) does this job. Installed on Ponder's
 * read-only `db` by src/ponder/internals.ts `pgSnapshot`.
 */
import { AsyncLocalStorage } from "node:async_hooks";

type Rows = { rows: Record<string, unknown>[] };
type PgClient = { query: (...a: unknown[]) => Promise<unknown>; release: (err?: Error | boolean) => void };
type PgPool = { connect: () => Promise<PgClient>; query: (...a: unknown[]) => Promise<unknown> };

/** Runs `work` in one read-only REPEATABLE READ snapshot that `first` (SQL text, no parameters) opens; `work` gets its rows. */
export type PgSnapshot = <T>(first: string, work: (rows: Record<string, unknown>[]) => Promise<T>) => Promise<T>;

type Pinned = { client: PgClient; done: boolean };

/** The snapshot runner of a pool, and the proxy that routes a pinned read's statements (exported for tests). */
export function snapshotOn(pool: PgPool): { snapshot: PgSnapshot; client: PgPool } {
  const als = new AsyncLocalStorage<Pinned>();
  const client = new Proxy(pool, {
    get(target, prop) {
      if (prop === "query") {
        return (...a: unknown[]) => {
          const p = als.getStore();
          return p && !p.done ? p.client.query(...a) : target.query(...a);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const snapshot: PgSnapshot = async (first, work) => {
    const conn = await pool.connect();
    const pinned: Pinned = { client: conn, done: false };
    let failed = false;
    try {
      const results = (await conn.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${first}`)) as Rows[];
      return await als.run(pinned, () => work(results[1]!.rows));
    } catch (e) {
      failed = true;
      throw e;
    } finally {
      pinned.done = true;
      conn.query(failed ? "ROLLBACK" : "COMMIT").then(
        () => conn.release(),
        (e: Error) => conn.release(e), // a broken connection leaves the pool
      );
    }
  };
  return { snapshot, client };
}
