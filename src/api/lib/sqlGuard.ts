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
export type ExplainCost = (query: { sql: string; params: unknown[] }) => Promise<number>;

/**
 * A statement budget for `/sql/db` that works on PGlite too: PGlite runs every query on its one
 * connection and ignores `statement_timeout`, so a runaway query (a cross join) would stall the
 * indexer and the API. Each query is first planned (`EXPLAIN`, nothing executed) and refused with
 * 400 when the planner's total cost is above `maxCost` (SQL_MAX_COST). On Postgres, Ponder's
 * read-only pool also stops any statement after 30 s. One statement per request (no `;`).
 * The keeper's own queries (`sqlService`, set by sqlGuard) are not priced: planner costs include
 * penalties (1e10 for a disabled plan type) that say nothing about a known, bounded query.
 */
export function sqlCostGuard(explain: ExplainCost, maxCost = Number(process.env.SQL_MAX_COST || 10_000_000)) {
  return createMiddleware<{ Variables: SqlGuardVariables }>(async function sqlCostGuard(c, next) {
    if (c.req.path !== "/sql/db" || c.get("sqlService")) return next();
    const raw = c.req.query("sql");
    if (raw === undefined) return next(); // Ponder answers the missing parameter
    let query: { sql?: unknown; params?: unknown };
    try {
      query = superjson.parse(raw);
    } catch {
      throw new ApiError("VALIDATION_ERROR", "sql: not a superjson-encoded query");
    }
    if (typeof query?.sql !== "string" || query.sql.includes(";")) throw new ApiError("VALIDATION_ERROR", "sql: one statement, without ';'");
    const params = Array.isArray(query.params) ? query.params : [];
    let cost: number;
    try {
      cost = await explain({ sql: query.sql, params });
    } catch (e) {
      throw new ApiError("VALIDATION_ERROR", `sql: ${(e as Error).message}`.slice(0, 300));
    }
    if (!(cost <= maxCost)) {
      throw new ApiError("VALIDATION_ERROR", `sql: the planner's estimated cost ${Math.round(cost)} is above the limit ${maxCost} (SQL_MAX_COST): narrow the query`);
    }
    return next();
  });
}
