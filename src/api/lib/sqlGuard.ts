/**
 * Guard of Ponder's SQL over HTTP (`/sql/*`): open only in the local profile (which is never a
 * silent default off the local chain: core/profiles.ts), else only with `X-Internal-Token` = the
 * keeper's token (the only service with the `sql:read` scope).
 */
import { createMiddleware } from "hono/factory";
import superjson from "superjson";
import { ApiError } from "../../../core/errors.js";
import { profileFromEnv, secret } from "../../../core/profiles.js";
import { sameSecret } from "../../../core/auth/service-tokens.js";
import { errorResponse } from "./errors.js";
import { setReadonlyStatementTimeout } from "../../ponder/internals.js";
import { disallowedFunction, parseStatement, pgliteShapeError, SQL_FUNCTIONS, type TableCatalog } from "./sqlPolicy.js";
import { positiveIntEnv } from "./env.js";

export type SqlGuardVariables = { sqlService?: boolean };

/** Sets `sqlService` when the caller is the service with the sql:read scope (its queries are the venue's own). */
export function sqlGuard(opts: { open?: boolean; token?: string } = {}) {
  const open = opts.open ?? profileFromEnv().openSql;
  const token = opts.token ?? secret("KEEPER_TOKEN");
  return createMiddleware<{ Variables: SqlGuardVariables }>(async function sqlGuard(c, next) {
    const given = c.req.header("X-Internal-Token");
    const service = !!given && sameSecret(given, token);
    if (!open && !service) {
      throw new ApiError("UNAUTHENTICATED", "the SQL endpoint needs X-Internal-Token (a token with the sql:read scope) outside the local profile");
    }
    c.set("sqlService", service);
    await next();
  });
}

/** `EXPLAIN`s a query and answers the planner's total cost. */
export type ExplainCost = (query: SqlQuery) => Promise<number>;

type PlanNode = { "Total Cost"?: number; Plans?: PlanNode[] };
/**
 * The price of a plan (`EXPLAIN (FORMAT JSON)`'s first element's `Plan`): the largest total cost
 * of any of its nodes, i.e. of the costliest subtree run to its end. The root's own total is not
 * enough: under a `LIMIT` the planner scales its children's cost by the share of rows it expects
 * to need, so a never-true filter over a 6-way join priced as if the first row came at once (and
 * then ran until the statement timeout).
 */
export function planCost(plan: PlanNode): number {
  let max = plan["Total Cost"] ?? 0;
  for (const child of plan.Plans ?? []) max = Math.max(max, planCost(child));
  return max;
}
export type SqlQuery = { sql: string; params: unknown[] };

/** SQL_TIMEOUT_MS (default 5 s): Postgres' `statement_timeout` of every statement of Ponder's read-only pool (`/sql/db`, `/sql/live`, the API's reads). */
export function sqlTimeoutMs(): number {
  return positiveIntEnv("SQL_TIMEOUT_MS", 5_000);
}

/** The largest `sql` parameter read (Node's own header limit is 16 KiB, so longer URLs never get here). */
const MAX_PARAMETER_CHARS = 16_384;
const SQL_ROUTES = new Set(["/sql/db", "/sql/live"]);

function readQuery(raw: string | undefined): SqlQuery {
  if (raw === undefined) throw new ApiError("VALIDATION_ERROR", "sql: the query parameter is required (a superjson-encoded { sql, params })");
  if (raw.length > MAX_PARAMETER_CHARS) throw new ApiError("VALIDATION_ERROR", `sql: at most ${MAX_PARAMETER_CHARS} characters`);
  let query: { sql?: unknown; params?: unknown };
  try {
    query = superjson.parse(raw);
  } catch {
    throw new ApiError("VALIDATION_ERROR", "sql: not a superjson-encoded query");
  }
  if (typeof query?.sql !== "string") throw new ApiError("VALIDATION_ERROR", "sql: not a superjson-encoded { sql, params }");
  return { sql: query.sql, params: Array.isArray(query.params) ? query.params : [] };
}

/** A failure Ponder's client() answered as text (or threw) on a /sql route, as an envelope error. */
export function sqlFailure(status: number, message: string): ApiError {
  const text = message.slice(0, 300);
  if (/statement timeout/i.test(message)) {
    return new ApiError("SQL_TIMEOUT", `sql: cancelled after SQL_TIMEOUT_MS (${sqlTimeoutMs()} ms): narrow the query (an indexed filter, a LIMIT)`);
  }
  if (status === 503 || /connect|terminat|ECONN|pool/i.test(message)) return new ApiError("SERVICE_UNAVAILABLE", `sql: ${text}`);
  return new ApiError("VALIDATION_ERROR", `sql: ${text}`);
}

export type SqlQueryGuardOptions = {
  /** the venue's tables and their indexed columns (PGlite's allow-list) */
  catalog: TableCatalog;
  /** the database Ponder runs /sql on (read per request: Ponder sets it up after the API is built) */
  dialect: () => "pglite" | "postgres";
  /** Postgres: the planner's cost of an already validated query */
  explain: ExplainCost;
  maxCost?: number;
  /** SQL_MAX_CONCURRENT (default 2): anyone's /sql queries running at once */
  maxConcurrent?: number;
};

/**
 * The budget of `/sql/db` and `/sql/live` (issue 27 item 6), in front of Ponder's client(). Every
 * query is first judged from its parse tree alone (src/api/lib/sqlPolicy.ts), so nothing a refused
 * query holds is ever planned or evaluated: one statement, functions from a list; then
 * - on PGlite, which runs every statement on the connection indexing uses and cannot stop one
 *   (no `statement_timeout`): only the bounded shape, else 400 SQL_NOT_SUPPORTED_ON_PGLITE;
 * - on Postgres: `EXPLAIN`ed (nothing runs) and refused above `maxCost` (SQL_MAX_COST), and every
 *   statement of Ponder's read-only pool (/sql and the API's reads) has `statement_timeout` =
 *   SQL_TIMEOUT_MS (src/ponder/internals.ts `setReadonlyStatementTimeout`): a slow one answers 400 SQL_TIMEOUT.
 * At most `maxConcurrent` (SQL_MAX_CONCURRENT) such queries run at once, else 429 RATE_LIMITED:
 * on Postgres they share Ponder's read-only pool (a few connections) with /status, /ready and every
 * API read, which statements of up to SQL_TIMEOUT_MS each would otherwise queue behind.
 * Ponder's own refusals and failures (500 text/plain upstream) leave as envelopes. The keeper's
 * queries (`sqlService`, set by sqlGuard) skip the shape, the price and the cap, not the timeout.
 */
export function sqlQueryGuard(opts: SqlQueryGuardOptions) {
  const maxCost = opts.maxCost ?? positiveIntEnv("SQL_MAX_COST", 1_000_000);
  const maxConcurrent = opts.maxConcurrent ?? positiveIntEnv("SQL_MAX_CONCURRENT", 2);
  setReadonlyStatementTimeout(sqlTimeoutMs());
  let running = 0;
  return createMiddleware<{ Variables: SqlGuardVariables }>(async function sqlQueryGuard(c, next) {
    if (!SQL_ROUTES.has(c.req.path)) return next();
    const query = c.get("sqlService") ? undefined : readQuery(c.req.query("sql"));
    // the parse tree first (no database), then the cap, then the price (an EXPLAIN on Postgres)
    if (query) await judge(query);
    const capped = query !== undefined;
    if (capped) {
      if (running >= maxConcurrent) throw new ApiError("RATE_LIMITED", `sql: at most ${maxConcurrent} /sql queries run at once (SQL_MAX_CONCURRENT): retry`);
      running++;
    }
    try {
      if (query && opts.dialect() === "postgres") await price(query);
      await next(); // for /sql/live: until its first answer, when the stream opens
    } finally {
      if (capped) running--;
    }
    // Ponder answers its refusals and failures as text (a failed /sql/live throws): envelopes here
    if (c.error) {
      const failure = c.error instanceof ApiError ? c.error : sqlFailure(500, c.error.message);
      c.error = undefined;
      c.res = undefined;
      c.res = errorResponse(c, failure);
    } else if (c.res.status >= 400 && !c.res.headers.get("content-type")?.includes("json")) {
      const failure = sqlFailure(c.res.status, await c.res.text());
      c.res = undefined;
      c.res = errorResponse(c, failure);
    }
  });

  async function judge(query: SqlQuery) {
    let stmt;
    try {
      stmt = await parseStatement(query.sql);
    } catch (e) {
      throw new ApiError("VALIDATION_ERROR", `sql: ${(e as Error).message}`.slice(0, 300));
    }
    const fn = disallowedFunction(stmt);
    if (fn) throw new ApiError("VALIDATION_ERROR", `sql: function ${fn} is not allowed (allowed: ${[...SQL_FUNCTIONS].join(", ")})`);
    if (opts.dialect() === "pglite") {
      const shape = pgliteShapeError(stmt, query.params, opts.catalog);
      if (shape) {
        throw new ApiError(
          "SQL_NOT_SUPPORTED_ON_PGLITE",
          `sql: on PGlite /sql answers only ${shape}; run this query on Postgres (start with DATABASE_URL; docs/SQL.md)`,
        );
      }
    }
  }

  async function price(query: SqlQuery) {
    let cost: number;
    try {
      cost = await opts.explain(query);
    } catch (e) {
      throw new ApiError("VALIDATION_ERROR", `sql: ${(e as Error).message}`.slice(0, 300));
    }
    if (!(cost <= maxCost)) {
      throw new ApiError("VALIDATION_ERROR", `sql: the planner's estimated cost ${Math.round(cost)} is above the limit ${maxCost} (SQL_MAX_COST): narrow the query`);
    }
  }
}
