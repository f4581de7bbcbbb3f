/**
 * The one read model of the history lists and candles (issue 28): for each list of lists.ts and
 * for candles, one statement (SQL text and parameters), one reading of its rows and one page
 * (items.ts, candles.ts), run by whichever process serves the request, on either database:
 *   - the read service on Postgres (services/reads/history.ts), on its own pg pool: each
 *     statement also reads the indexed state in its first clause (`withState`), so the page's
 *     rows belong to the `X-Indexed-Block` it answers with;
 *   - Ponder's routes (src/api/routes/history.ts), inside its read at one indexed state
 *     (src/api/lib/indexedBlock.ts `readAtIndexedBlock`), and its exports.
 * The checks run in Ponder's order: the 404s of the scope (the account, then the `marketId`
 * filter's market, or the path's market) before a bad cursor or range.
 *
 * A page's rows travel as one text value (string_agg of one line per row, its fields joined by
 * US, the rows by RS, a NULL as NUL_MARK): one field for the driver to decode instead of ~1,500
 * (16 columns of 100 rows), split here natively. The tables' text columns are ids, hex and enums
 * written by the indexer (never these control characters). Numeric columns stay the decimal
 * strings Postgres prints for numeric(78) (what `BigInt(x).toString()` gives): the items
 * (items.ts) format them as they do bigints, so the bigints are never built.
 */
import { getTableName, type Column } from "drizzle-orm";
import type { Hex } from "viem";
import * as tables from "../../ponder.schema.js";
import type { CandleResolution } from "../candles.js";
import { decodeUintCursor, encodeCursor } from "../cursor.js";
import { ApiError } from "../errors.js";
import type { IndexedState } from "../indexer/blocks.js";
import { accountNotFound, marketNotFound, orderNotFound } from "../reads/errors.js";
import type { Executor, Statement } from "../reads/plans.js";
import { colName, columnsOf, q, stateCols, stateCte, stateOfRow } from "../reads/sql.js";
import { MAX_HISTORY_LIMIT } from "../schemas/history.js";
import { candleSeries, candleWindow } from "./candles.js";
import { HISTORY_LISTS, INSURANCE_EVENTS, type ExportFormat, type ListSpec } from "./lists.js";

const US = "\x1f";
const RS = "\x1e";
const NUL_MARK = "\x1d";
type Kind = "text" | "int" | "bool" | "num";
type Col = { key: string; name: string; kind: Kind; nullable: boolean };
type Row = Record<string, unknown>;
const kindOf = (c: Column): Kind => {
  const t = c.getSQLType();
  return t === "integer" ? "int" : t === "boolean" ? "bool" : t.startsWith("numeric") ? "num" : "text";
};
const colsOf = (t: object): Col[] => columnsOf(t).map(([key, c]) => ({ key, name: c.name, kind: kindOf(c), nullable: !c.notNull }));
/** The SQL of one row's line, over the alias `r`. */
const lineSql = (cols: Col[]) =>
  `concat_ws(E'${US}', ${cols.map((c) => (c.nullable ? `coalesce(r.${q(c.name)}::text, E'${NUL_MARK}')` : c.kind === "text" ? `r.${q(c.name)}` : `r.${q(c.name)}::text`)).join(", ")})`;
/**
 * The builder of a row from its line's fields: one object literal per column set (generated once,
 * so every row has one shape and each field one conversion, not a keyed store per cell).
 * `bigints`: the numeric columns built as bigints (the others stay their decimal strings).
 */
function rowBuilder(cols: Col[], bigints: string[] = []): (f: string[]) => Row {
  const field = (c: Col, i: number) => {
    const v = `f[${i}]`;
    const value = c.kind === "int" ? `Number(${v})` : c.kind === "bool" ? `${v} === "true"` : c.kind === "num" && bigints.includes(c.key) ? `BigInt(${v})` : v;
    return c.nullable ? `${v} === N ? null : ${value}` : value;
  };
  const body = `return (f) => ({ ${cols.map((c, i) => `${JSON.stringify(c.key)}: ${field(c, i)}`).join(", ")} });`;
  return new Function("N", body)(NUL_MARK) as (f: string[]) => Row;
}
/** The rows of a page's text. */
const readRows = (text: unknown, build: (f: string[]) => Row): Row[] => (typeof text === "string" ? text.split(RS).map((line) => build(line.split(US))) : []);

/** A list page's query, validated (core/schemas/history.ts); `marketId`: the filter of the account lists that have one (any case). */
/** `orderId`: the order filter of the lists that have one (a decimal string). */
export type ListQuery = { from?: bigint; to?: bigint; limit: number; cursor?: string; marketId?: string; orderId?: string };
export type CandleQuery = { resolution: CandleResolution; from?: bigint; to?: bigint; limit: number; cursor?: string };
/** A list's scope: the path's market (any case) or account, or the venue (its one list). */
export type Scope = { marketId: string } | { accountId: bigint } | { venue: true };
/** A page's data. */
export type Page = { data: Record<string, unknown> };
/** With `withState`: told the indexed state the statement read, as soon as its rows are in (before a 404 is thrown). */
export type OnState = (state: IndexedState) => void;

export type HistoryPlans = {
  /** One page of list `l`, newest first. Throws the route's 404s and 400s (ApiError). */
  listPage(exec: Executor, l: ListSpec, scope: Scope, query: ListQuery, onState?: OnState): Promise<Page>;
  /** One page of candles at indexed time `now` (oldest first). Throws the route's 404 and 400s. */
  candlePage(exec: Executor, marketId: string, query: CandleQuery, now: bigint, onState?: OnState): Promise<Page>;
  /** Throws the scope's 404 (an export checks it once before it streams). */
  requireScope(exec: Executor, l: ListSpec, scope: Scope, query: Pick<ListQuery, "marketId" | "orderId">): Promise<void>;
  /**
   * The whole range of list `l` as CSV (header = `columns`) or NDJSON chunks, oldest first, up to
   * block `head` (rows of later blocks are left for the next export), read by keyset pages of
   * 1,000 rows: never a cap. A bad range's 400 is thrown at once, before the first chunk.
   */
  exportChunks(exec: Executor, l: ListSpec, scope: Scope, query: Omit<ListQuery, "limit" | "cursor">, head: bigint, format: ExportFormat, columns: string[]): AsyncGenerator<string>;
};

type Variant = { market: boolean; order?: boolean; from: boolean; to: boolean; cursor: boolean };

/**
 * The plans of Ponder's schema `schema`. `withState`: each statement also reads the indexed state
 * (the read service's pool, one statement per page); without, the caller reads the page inside
 * its own read at one indexed state (Ponder's `readAtIndexedBlock`).
 */
export function historyPlans(o: { schema: string; withState: boolean }): HistoryPlans {
  const S = q(o.schema);
  const T = (t: object) => `${S}.${q(getTableName(t as never))}`;
  const { account, market, candle, order } = tables;
  const accountExists = (p: string) => `EXISTS (SELECT 1 FROM ${T(account)} WHERE ${colName(account, "accountId")} = ${p})`;
  const marketExists = (p: string) => `EXISTS (SELECT 1 FROM ${T(market)} WHERE ${colName(market, "marketId")} = ${p})`;
  // an order filter names one of the account's orders
  const orderExists = (p: string, accountParam: string) =>
    `EXISTS (SELECT 1 FROM ${T(order)} WHERE ${colName(order, "orderId")} = ${p} AND ${colName(order, "accountId")} = ${accountParam})`;
  // the same text under one name per variant (a pg connection prepares each name once)
  const named = (name: string) => `${o.withState ? "hs" : "hp"}_${name}`;
  const head = (extra: string[]) => (o.withState ? `${stateCte(o.schema)}\nSELECT ${[stateCols, ...extra].join(", ")}` : `SELECT ${extra.join(", ")}`);
  const tail = o.withState ? " FROM st" : "";
  const tell = (r: Row | undefined, onState: OnState | undefined) => {
    if (o.withState && onState) onState(stateOfRow(r));
  };
  const statements = new Map<string, Statement>();
  const once = (id: string, text: () => string): Statement => {
    let s = statements.get(id);
    if (!s) statements.set(id, (s = { name: named(id), text: text() }));
    return s;
  };
  // each list's columns and row builder
  const lists = new Map(
    [...HISTORY_LISTS, INSURANCE_EVENTS].map((l) => {
      const cols = colsOf(tables[l.table]);
      return [l, { cols, build: rowBuilder(cols) }];
    }),
  );

  /** The WHERE of list `l`'s rows for the filters present (`dir`: the keyset's direction), and its parameters' SQL in order. */
  function listWhere(l: ListSpec, v: Variant, dir: "<" | ">", p: (type: string) => string, scopeParam: string | undefined, marketParam?: string, orderParam?: string) {
    const t = tables[l.table];
    const c = (k: string) => `t.${colName(t, k)}`;
    const where = ["true"];
    if (scopeParam)
      where.push(
        l.scopeColumn === "marketAddress"
          ? `${c("marketAddress")} = (SELECT ${colName(market, "marketAddress")} FROM ${T(market)} WHERE ${colName(market, "marketId")} = ${scopeParam})`
          : `${c(l.scopeColumn!)} = ${scopeParam}`,
      );
    if (marketParam) where.push(`${c(l.marketColumn!)} = ${marketParam}`);
    if (orderParam) where.push(`${c(l.orderColumn!)} = ${orderParam}`);
    const [time, block, tie] = l.order.map(c) as [string, string, string];
    if (v.from) where.push(`${time} >= ${p("numeric")}`);
    if (v.to) where.push(`${time} < ${p("numeric")}`);
    if (v.cursor) where.push(`(${time}, ${block}, ${tie}) ${dir} (${p("numeric")}, ${p("numeric")}, ${p(l.tiebreakType)})`);
    return { where, order: [time, block, tie] };
  }
  const scopeParam = (l: ListSpec, p: (type: string) => string) => (l.scope === "venue" ? undefined : p(l.scope === "account" ? "numeric" : "text"));
  const params = () => {
    let n = 0;
    return (type: string) => `$${++n}::${type}`;
  };

  /** A page of list `l`: the scope's existence and the page's rows (newest first, `limit` + 1), one statement. */
  const listStatement = (l: ListSpec, v: Variant) =>
    once(`${l.cursor}_${+v.market}${v.order ? "o" : ""}${+v.from}${+v.to}${+v.cursor}`, () => {
      const p = params();
      const scope = scopeParam(l, p);
      const found = scope ? [`${l.scope === "account" ? accountExists(scope) : marketExists(scope)} AS "__found"`] : [];
      const m = v.market ? p("text") : undefined;
      if (m) found.push(`${marketExists(m)} AS "__found_market"`);
      const od = v.order ? p("numeric") : undefined;
      if (od) found.push(`${orderExists(od, scope!)} AS "__found_order"`);
      const { where, order } = listWhere(l, v, "<", p, scope, m, od);
      const t = tables[l.table];
      const [rt, rb, rk] = l.order.map((k) => `r.${colName(t, k)}`);
      return `${head([
        ...found,
        `(SELECT string_agg(${lineSql(lists.get(l)!.cols)}, E'${RS}' ORDER BY ${rt} DESC, ${rb} DESC, ${rk} DESC) FROM (
  SELECT t.* FROM ${T(t)} t WHERE ${where.join(" AND ")}
  ORDER BY ${order.map((x) => `${x} DESC`).join(", ")} LIMIT ${p("int")}) r) AS "__rows"`,
      ])}${tail}`;
    });

  /** An export's page of list `l`: rows of blocks up to the head, oldest first, after the keyset. */
  const exportStatement = (l: ListSpec, v: Variant) =>
    once(`x_${l.cursor}_${+v.market}${v.order ? "o" : ""}${+v.from}${+v.to}${+v.cursor}`, () => {
      const p = params();
      const scope = scopeParam(l, p);
      const m = v.market ? p("text") : undefined;
      const od = v.order ? p("numeric") : undefined;
      const { where, order } = listWhere(l, v, ">", p, scope, m, od);
      const t = tables[l.table];
      where.push(`${order[1]} <= ${p("numeric")}`);
      const [rt, rb, rk] = l.order.map((k) => `r.${colName(t, k)}`);
      return `SELECT (SELECT string_agg(${lineSql(lists.get(l)!.cols)}, E'${RS}' ORDER BY ${rt}, ${rb}, ${rk}) FROM (
  SELECT t.* FROM ${T(t)} t WHERE ${where.join(" AND ")}
  ORDER BY ${order.join(", ")} LIMIT ${MAX_HISTORY_LIMIT}) r) AS "__rows"`;
    });

  const cc = (k: string) => colName(candle, k);
  const candleCols = colsOf(candle);
  // the series steps through the periods by arithmetic on their starts; the prices and volumes
  // are only printed (and an empty period repeats the previous close): decimal strings
  const buildCandle = rowBuilder(candleCols, ["periodStart"]);
  const candleStatement = () =>
    once("candles", () =>
      `${head([
        `${marketExists("$1::text")} AS "__found"`,
        `(SELECT ${cc("closeX18")} FROM ${T(candle)} WHERE ${cc("marketId")} = $1::text AND ${cc("resolution")} = $2::text AND ${cc("periodStart")} < $3::numeric
    ORDER BY ${cc("periodStart")} DESC LIMIT 1) AS "__prev_close"`,
        `(SELECT string_agg(${lineSql(candleCols)}, E'${RS}' ORDER BY r.${cc("periodStart")}) FROM (
  SELECT c.* FROM ${T(candle)} c WHERE ${cc("marketId")} = $1::text AND ${cc("resolution")} = $2::text AND ${cc("periodStart")} >= $3::numeric AND ${cc("periodStart")} < $4::numeric
  ORDER BY ${cc("periodStart")} LIMIT $5::int) r) AS "__rows"`,
      ])}${tail}`,
    );
  const existsStatement = () =>
    once("exists", () => `SELECT ${accountExists("$1::numeric")} AS "account", ${marketExists("$2::text")} AS "market", ${orderExists("$3::numeric", "$1::numeric")} AS "order"`);

  type Ids = { accountId?: bigint; marketId?: string; orderId?: string };
  type Found = { account?: boolean; market?: boolean; order?: boolean };
  /** The 404s of the scope, in Ponder's order: the account, then the `marketId` filter's market (or the path's market), then the `orderId` filter's order. */
  function notFound(found: Found, ids: Ids) {
    if (found.account === false) return accountNotFound(ids.accountId!);
    if (found.market === false) return marketNotFound(ids.marketId!);
    if (found.order === false) return orderNotFound(ids.accountId!, ids.orderId!);
    return undefined;
  }
  /** The scope's 404 if there is one (a query of its own). */
  async function scopeError(exec: Executor, ids: Ids) {
    const [r] = await exec(existsStatement(), [ids.accountId?.toString() ?? null, ids.marketId ?? null, ids.orderId ?? null]);
    return notFound(
      {
        account: ids.accountId === undefined ? undefined : (r!.account as boolean),
        market: ids.marketId === undefined ? undefined : (r!.market as boolean),
        order: ids.orderId === undefined ? undefined : (r!.order as boolean),
      },
      ids,
    );
  }
  /** A bad cursor or range is answered after the 404s, as the routes check them in that order. */
  async function inputError(exec: Executor, err: unknown, ids: Ids): Promise<never> {
    if (!(err instanceof ApiError)) throw err;
    throw (await scopeError(exec, ids)) ?? err;
  }
  /** The scope's ids and parameter value; `marketId`, `orderId`: the account list's filters (where the list has them). */
  const scopeOf = (l: ListSpec, scope: Scope, marketId: string | undefined, orderId?: string) => {
    if ("venue" in scope) return { ids: {} as Ids, value: undefined, market: undefined, order: undefined };
    // ids are stored lower-case; a path or filter may come in any case
    if ("marketId" in scope) return { ids: { marketId: scope.marketId.toLowerCase() } as Ids, value: scope.marketId.toLowerCase(), market: undefined, order: undefined };
    const market = marketId !== undefined && l.marketColumn !== undefined ? marketId.toLowerCase() : undefined;
    const order = orderId !== undefined && l.orderColumn !== undefined ? orderId : undefined;
    return { ids: { accountId: scope.accountId, marketId: market, orderId: order } as Ids, value: scope.accountId.toString(), market, order };
  };
  /** What an item knows of its scope: the market of a market list. */
  const itemContext = (scope: Scope) => ("marketId" in scope ? { marketId: scope.marketId.toLowerCase() as Hex } : {});
  const checkRange = (r: { from?: bigint; to?: bigint }) => {
    if (r.from !== undefined && r.to !== undefined && r.from > r.to) throw new ApiError("VALIDATION_ERROR", "from: must not be after to");
  };
  /** A list statement's parameters in their order: the scope, the market filter, the order filter, the range, the keyset. */
  const valuesOf = (scope: string | undefined, market: string | undefined, r: { from?: bigint; to?: bigint }, key: bigint[] | undefined, order?: string) => {
    const values: unknown[] = [];
    if (scope !== undefined) values.push(scope);
    if (market !== undefined) values.push(market);
    if (order !== undefined) values.push(order);
    if (r.from !== undefined) values.push(r.from.toString());
    if (r.to !== undefined) values.push(r.to.toString());
    if (key) values.push(...key.map(String));
    return values;
  };
  const cursorAfter = (l: ListSpec, row: Row) => l.order.map((k) => BigInt(row[k] as string | number));

  async function listPage(exec: Executor, l: ListSpec, scope: Scope, query: ListQuery, onState?: OnState): Promise<Page> {
    const { ids, value, market, order } = scopeOf(l, scope, query.marketId, query.orderId);
    let key: bigint[] | undefined;
    try {
      key = query.cursor === undefined ? undefined : decodeUintCursor(l.cursor, query.cursor, 3);
      checkRange(query);
    } catch (e) {
      return inputError(exec, e, ids);
    }
    const s = listStatement(l, { market: market !== undefined, order: order !== undefined, from: query.from !== undefined, to: query.to !== undefined, cursor: key !== undefined });
    const values = valuesOf(value, market, query, key, order);
    values.push(query.limit + 1);
    const [r] = await exec(s, values);
    tell(r, onState);
    const missing = notFound(
      {
        account: l.scope === "account" ? (r?.__found as boolean) : undefined,
        market: l.scope === "market" ? (r?.__found as boolean) : market !== undefined ? (r?.__found_market as boolean) : undefined,
        order: order !== undefined ? (r?.__found_order as boolean) : undefined,
      },
      ids,
    );
    if (missing) throw missing;
    const found = readRows(r?.__rows, lists.get(l)!.build);
    const hasMore = found.length > query.limit;
    const page = hasMore ? found.slice(0, query.limit) : found;
    const last = page.at(-1);
    const data = {
      [l.key]: page.map((row) => l.item(row, itemContext(scope))),
      hasMore,
      nextCursor: hasMore && last ? encodeCursor(l.cursor, cursorAfter(l, last)) : null,
    };
    return { data };
  }

  async function candlePage(exec: Executor, rawMarketId: string, query: CandleQuery, now: bigint, onState?: OnState): Promise<Page> {
    const marketId = rawMarketId.toLowerCase();
    const ids = { marketId };
    let w: ReturnType<typeof candleWindow>;
    try {
      w = candleWindow(query.resolution, query, now);
    } catch (e) {
      return inputError(exec, e, ids);
    }
    const [r] = await exec(candleStatement(), [marketId, query.resolution, w.pageFrom.toString(), w.to.toString(), query.limit]);
    tell(r, onState);
    const missing = notFound({ market: r?.__found as boolean }, ids);
    if (missing) throw missing;
    const prev = r?.__prev_close;
    const data = candleSeries(
      marketId as Hex,
      query.resolution,
      w,
      query.limit,
      (prev ?? undefined) as bigint | undefined, // its decimal string, printed as the bigint would be
      readRows(r?.__rows, buildCandle) as never,
    );
    return { data };
  }

  async function requireScope(exec: Executor, l: ListSpec, scope: Scope, query: Pick<ListQuery, "marketId" | "orderId">) {
    const missing = await scopeError(exec, scopeOf(l, scope, query.marketId, query.orderId).ids);
    if (missing) throw missing;
  }

  function exportChunks(exec: Executor, l: ListSpec, scope: Scope, query: Omit<ListQuery, "limit" | "cursor">, headBlock: bigint, format: ExportFormat, columns: string[]) {
    checkRange(query);
    return exportRows(exec, l, scope, query, headBlock, format, columns);
  }
  async function* exportRows(exec: Executor, l: ListSpec, scope: Scope, query: Omit<ListQuery, "limit" | "cursor">, headBlock: bigint, format: ExportFormat, columns: string[]) {
    const { value, market, order } = scopeOf(l, scope, query.marketId, query.orderId);
    const ctx = itemContext(scope);
    if (format === "csv") yield columns.join(",") + "\n";
    let after: bigint[] | undefined;
    for (;;) {
      const s = exportStatement(l, { market: market !== undefined, order: order !== undefined, from: query.from !== undefined, to: query.to !== undefined, cursor: after !== undefined });
      const values = valuesOf(value, market, query, after, order);
      values.push(headBlock.toString());
      const [r] = await exec(s, values);
      const rows = readRows(r?.__rows, lists.get(l)!.build);
      let chunk = "";
      for (const row of rows) {
        const item = l.item(row, ctx);
        chunk += format === "csv" ? columns.map((k) => csvCell(item[k])).join(",") + "\n" : JSON.stringify(item) + "\n";
      }
      if (chunk) yield chunk;
      if (rows.length < MAX_HISTORY_LIMIT) return;
      after = cursorAfter(l, rows.at(-1)!);
    }
  }

  return { listPage, candlePage, requireScope, exportChunks };
}

const csvCell = (v: unknown): string => {
  if (v === null || v === undefined) return "";
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};
