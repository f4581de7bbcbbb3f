/**
 * What a `/sql` query may be, decided from its parse tree alone (nothing planned, nothing
 * evaluated): issue 27 item 6. Postgres' own parser (pg-query-emscripten, the one Ponder's
 * allow-list uses) reads the statement; then
 * - everywhere: one statement of at most SQL_MAX_CHARS characters, and every function call from
 *   SQL_FUNCTIONS (the planner folds constant calls while planning, so `repeat('x', 900000000)`
 *   must be refused before any EXPLAIN);
 * - on PGlite (one connection shared with indexing, no `statement_timeout`): the bounded shape of
 *   `pgliteShapeError` — one venue table, no joins or subqueries, a WHERE with an equality on an
 *   indexed column, LIMIT ≤ SQL_PGLITE_MAX_LIMIT.
 */
import Parser from "pg-query-emscripten";
import { getTableName, isTable } from "drizzle-orm";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";

/** Ponder's own limit on a query's text (ponder/dist/esm/utils/sql-parse.js). */
export const SQL_MAX_CHARS = 5000;
export const SQL_PGLITE_MAX_LIMIT = 1000;
/** Cheap functions (linear in their arguments at most), a subset of Ponder's allow-list. */
export const SQL_FUNCTIONS: ReadonlySet<string> = new Set([
  "count", "sum", "avg", "min", "max", "lower", "upper", "length", "trim", "substring", "concat",
  "coalesce", "abs", "ceil", "ceiling", "floor", "round", "sign", "div", "mod", "now",
  "current_timestamp", "current_date", "json_agg", "json_build_array",
  "row_number", "rank", "dense_rank", "lag", "lead", "first_value", "last_value",
]);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- libpg_query's JSON parse tree
type Node = any;

let parser: ReturnType<typeof Parser> | undefined;

/** The one statement of `sql`, or an Error saying why not (too long, not SQL, several statements). */
export async function parseStatement(sql: string): Promise<Node> {
  if (sql.length > SQL_MAX_CHARS) throw new Error(`at most ${SQL_MAX_CHARS} characters (got ${sql.length})`);
  parser ??= Parser();
  const result = (await parser).parse(sql) as { parse_tree: { stmts: { stmt?: Node }[] }; error: { message: string } | null };
  if (result.error) throw new Error(`not valid SQL: ${result.error.message}`);
  const stmts = result.parse_tree.stmts;
  if (stmts.length !== 1 || !stmts[0]!.stmt) throw new Error("one statement, without ';'");
  return stmts[0]!.stmt;
}

/** Every node of the tree with its type name (`{ FuncCall: {...} }` → ["FuncCall", {...}]). */
function* nodes(value: Node): Generator<[string, Node]> {
  if (Array.isArray(value)) {
    for (const v of value) yield* nodes(v);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (/^[A-Z]/.test(k)) yield [k, v];
      yield* nodes(v);
    }
  }
}

const funcName = (f: Node): string =>
  (f.funcname ?? []).map((n: Node) => n.String?.sval ?? "?").join(".");

/** The first function call outside SQL_FUNCTIONS (qualified names included), or null. */
export function disallowedFunction(stmt: Node): string | null {
  for (const [type, node] of nodes(stmt)) {
    if (type !== "FuncCall") continue;
    const name = funcName(node);
    if (!SQL_FUNCTIONS.has(name)) return name;
  }
  return null;
}

/** Per venue table: the columns an index (or the primary key) starts with. */
export type TableCatalog = ReadonlyMap<string, ReadonlySet<string>>;

/** The catalog of Ponder's schema module (its onchainTable exports). */
export function tableCatalog(schema: Record<string, unknown>): TableCatalog {
  const out = new Map<string, Set<string>>();
  for (const table of Object.values(schema)) {
    if (!isTable(table)) continue;
    const config = getTableConfig(table as PgTable);
    const leading = new Set<string>();
    for (const column of config.columns) if (column.primary) leading.add(column.name);
    for (const pk of config.primaryKeys) if (pk.columns[0]) leading.add(pk.columns[0].name);
    for (const index of config.indexes) {
      const first = index.config.columns[0] as { name?: string } | undefined;
      if (first?.name) leading.add(first.name);
    }
    out.set(getTableName(table), leading);
  }
  return out;
}

const unwrapCast = (n: Node): Node => (n?.TypeCast ? unwrapCast(n.TypeCast.arg) : n);
const isValue = (n: Node) => {
  const v = unwrapCast(n);
  return !!(v?.A_Const || v?.ParamRef);
};

/** An integer LIMIT (a constant or a parameter), or null. */
function limitValue(n: Node, params: unknown[]): number | null {
  const v = unwrapCast(n);
  if (v?.A_Const) return typeof v.A_Const.ival === "object" ? Number(v.A_Const.ival.ival ?? 0) : null;
  if (v?.ParamRef) {
    const p = params[v.ParamRef.number - 1];
    const x = typeof p === "bigint" ? Number(p) : typeof p === "string" && /^\d+$/.test(p) ? Number(p) : p;
    return typeof x === "number" && Number.isInteger(x) ? x : null;
  }
  return null;
}

/**
 * Why a statement is not of the bounded shape PGlite can answer without stalling indexing, or null:
 * a plain SELECT on one venue table (no joins, subqueries, CTEs, set operations or table
 * functions), a WHERE whose top-level AND holds `indexed_column = value` or `indexed_column IN
 * (values)` (an index's first column; a value is a constant or a parameter), and LIMIT ≤ 1000.
 */
export function pgliteShapeError(stmt: Node, params: unknown[], catalog: TableCatalog): string | null {
  const select = stmt.SelectStmt;
  if (!select) return "only SELECT";
  if (select.op !== "SETOP_NONE" || select.withClause || select.valuesLists) return "no UNION, WITH or VALUES";
  for (const [type] of nodes(select)) {
    if (type === "JoinExpr" || type === "SubLink" || type === "RangeSubselect" || type === "RangeFunction" || type === "CommonTableExpr") {
      return "no joins or subqueries";
    }
  }
  const from = select.fromClause ?? [];
  if (from.length !== 1 || !from[0].RangeVar) return "exactly one table in FROM (no joins)";
  const range = from[0].RangeVar;
  const indexed = catalog.get(range.relname);
  if (!indexed || range.schemaname) return `not a venue table: ${range.relname}`;
  const names = new Set([range.relname, range.alias?.aliasname].filter(Boolean));
  const indexedColumn = (n: Node) => {
    const fields = (n?.ColumnRef?.fields ?? []).map((f: Node) => f.String?.sval);
    if (fields.length === 0 || fields.some((f: unknown) => typeof f !== "string")) return false;
    if (fields.length === 2 && !names.has(fields[0])) return false;
    return fields.length <= 2 && indexed.has(fields.at(-1));
  };
  const where = select.whereClause;
  const conjuncts: Node[] = where?.BoolExpr?.boolop === "AND_EXPR" ? where.BoolExpr.args : where ? [where] : [];
  const bounded = conjuncts.some((c) => {
    const e = c.A_Expr;
    if (!e || e.name?.[0]?.String?.sval !== "=") return false;
    if (e.kind === "AEXPR_OP") return (indexedColumn(e.lexpr) && isValue(e.rexpr)) || (indexedColumn(e.rexpr) && isValue(e.lexpr));
    if (e.kind === "AEXPR_IN") return indexedColumn(e.lexpr) && (e.rexpr?.List?.items ?? []).every(isValue);
    return false;
  });
  if (!bounded) {
    return `a WHERE with an equality on an indexed column of ${range.relname} (${[...indexed].sort().join(", ")})`;
  }
  const limit = select.limitCount ? limitValue(select.limitCount, params) : null;
  if (limit === null || limit < 0 || limit > SQL_PGLITE_MAX_LIMIT || select.limitOption !== "LIMIT_OPTION_COUNT") {
    return `a LIMIT of at most ${SQL_PGLITE_MAX_LIMIT}`;
  }
  return null;
}
