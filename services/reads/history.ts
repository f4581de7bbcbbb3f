/**
 * The history lists (issue 13) answered by the read service itself when the indexer is on
 * Postgres: trades, funding history and candles of a market; fills, funding payments, transfers,
 * liquidations and order history of an account. Ponder's server answers the same routes (and
 * still does on PGlite, which only its process can open, for exports, and while the block push
 * is down); this path exists because there every page costs several queries through a pool
 * shared with indexing, where here it is one prepared statement on a pool of its own.
 *
 * Same answer as Ponder's for the same URL at the same block, byte for byte: the same lists
 * (core/history/lists.ts), items (core/history/items.ts), candle paging (core/history/candles.ts),
 * cursors, query schemas and errors (the order of the checks included: `minBlock`, then the
 * query, the path, the 404s, then the cursor and range). One round trip per page: the statement
 * reads the indexed state (checkpoint + `indexed_head`, as core/indexer/blocks.ts does), the
 * scope's existence and the page's rows in one snapshot, so the rows belong to the
 * `X-Indexed-Block` it answers with. `?minBlock=` waits on the block feed, as the held reads do.
 */
import pg from "pg";
import { getTableName, type Column } from "drizzle-orm";
import type { Context } from "hono";
import type { Hex } from "viem";
import * as tables from "../../ponder.schema.js";
import type { CandleResolution } from "../../core/candles.js";
import { decodeUintCursor, encodeCursor } from "../../core/cursor.js";
import { ApiError } from "../../core/errors.js";
import { errorResponse } from "../../core/http/errors.js";
import { candleSeries, candleWindow } from "../../core/history/candles.js";
import { HISTORY_LISTS, exportFormatOf, historyQueryOf, type ListSpec } from "../../core/history/lists.js";
import { waitForIndexedBlock, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import * as H from "../../core/schemas/history.js";
import { validationError } from "../../core/schemas/validation.js";
import { AccountPath, MarketPath } from "../../core/schemas/reads.js";
import { colName, columnsOf, q, stateCols, stateCte, stateOfRow } from "../../core/reads/sql.js";
import { blockNotIndexed } from "../../core/reads/errors.js";

const MIN_BLOCK_RE = /^\d{1,15}$/;
/** The header that says this service answered (not Ponder's server). */
export const SOURCE_HEADER = "X-History-Source";

type Route = { re: RegExp; param: "marketId" | "accountId"; list?: ListSpec };
const routeRe = (path: string) => new RegExp(`^${path.replace(/\{(marketId|accountId)\}/, "([^/]+)")}$`);
const ROUTES: Route[] = [
  ...HISTORY_LISTS.map((l) => ({ re: routeRe(l.path), param: l.scope === "market" ? ("marketId" as const) : ("accountId" as const), list: l })),
  { re: routeRe("/markets/{marketId}/candles"), param: "marketId" },
];


/**
 * A page's rows travel as one text value (string_agg of one line per row, its fields joined by
 * US, the rows by RS, a NULL as NUL_MARK): one field for the driver to decode instead of ~1,500
 * (16 columns of 100 rows, each its own utf8 decode and property set), split here natively. The
 * table's text columns are ids, hex and enums written by the indexer (never these control
 * characters). Numeric columns stay the decimal strings Postgres prints for numeric(78) (what
 * `BigInt(x).toString()` gives): the items (core/history/items.ts) format them as they do
 * bigints (`toString`, core/units.ts formatUnits, `Number`), so the bigints are never built.
 */
const US = "\x1f";
const RS = "\x1e";
const NUL_MARK = "\x1d";
type Kind = "text" | "int" | "bool" | "num";
type Col = { key: string; name: string; kind: Kind; nullable: boolean };
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
function rowBuilder(cols: Col[], bigints: string[] = []): (f: string[]) => Record<string, unknown> {
  const field = (c: Col, i: number) => {
    const v = `f[${i}]`;
    const value = c.kind === "int" ? `Number(${v})` : c.kind === "bool" ? `${v} === "true"` : c.kind === "num" && bigints.includes(c.key) ? `BigInt(${v})` : v;
    return c.nullable ? `${v} === N ? null : ${value}` : value;
  };
  const body = `return (f) => ({ ${cols.map((c, i) => `${JSON.stringify(c.key)}: ${field(c, i)}`).join(", ")} });`;
  return new Function("N", body)(NUL_MARK) as (f: string[]) => Record<string, unknown>;
}
/** The rows of a page's text. */
const readRows = (text: unknown, build: (f: string[]) => Record<string, unknown>): Record<string, unknown>[] =>
  typeof text === "string" ? text.split(RS).map((line) => build(line.split(US))) : [];

type Statement = { name: string; text: string };
type Found = { account?: boolean; market?: boolean };

/** A plain page read below Hono (held-answers-listener.ts): its JSON body and the block it is of. */
export type PlainPage = { body: string; block: string };

export type HistoryServer = {
  /** The answer, or undefined when this request is not one of the lists served here. */
  answer(c: Context): Promise<Response | undefined>;
  /**
   * Below Hono (held-answers-listener.ts): a GET of `url` (path and query, no `minBlock`, no percent-encoding, not an
   * export, the block push live): undefined when it is not one of the lists, else the read of its
   * page, which rejects (an ApiError, the database) when it is not a plain 200: the Hono path
   * answers those.
   */
  plain(url: string): (() => Promise<PlainPage>) | undefined;
  /** Whether this service answers the request (for the per-client limit). */
  serves(c: Context): boolean;
  close(): Promise<void>;
};

export function historyServer(o: { databaseUrl: string; schema: string; feed: BlockFeed; minBlockWaitMs: number; poolMax?: number }): HistoryServer {
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: o.poolMax ?? 8, application_name: "venue-reads-history" });
  pool.on("error", () => {}); // an idle client's error: the next query gets a new one
  const S = q(o.schema);
  const T = (t: object) => `${S}.${q(getTableName(t as never))}`;
  const state = stateCte(o.schema);
  const accountExists = (p: string) => `EXISTS (SELECT 1 FROM ${T(tables.account)} WHERE ${colName(tables.account, "accountId")} = ${p})`;
  const marketExists = (p: string) => `EXISTS (SELECT 1 FROM ${T(tables.market)} WHERE ${colName(tables.market, "marketId")} = ${p})`;
  const statements = new Map<string, Statement>();
  // each list's columns and row builder (order history: the fill count is the order row's)
  const lists = new Map(
    HISTORY_LISTS.map((l) => {
      const cols = colsOf(tables[l.table]);
      return [l, { cols, build: rowBuilder(cols) }];
    }),
  );
  const colsOfList = (l: ListSpec) => lists.get(l)!.cols;

  /** One list's statement for the filters present (each variant prepared once per connection). */
  function listStatement(l: ListSpec, v: { market: boolean; from: boolean; to: boolean; cursor: boolean }): Statement {
    const id = `h_${l.cursor}_${+v.market}${+v.from}${+v.to}${+v.cursor}`;
    const known = statements.get(id);
    if (known) return known;
    const t = tables[l.table];
    const c = (k: string) => `t.${colName(t, k)}`;
    let n = 0;
    const p = (type: string) => `$${++n}::${type}`;
    const scope = p(l.scope === "account" ? "numeric" : "text");
    const found = [`${l.scope === "account" ? accountExists(scope) : marketExists(scope)} AS "__found"`];
    const where = [
      l.scopeColumn === "marketAddress"
        ? `${c("marketAddress")} = (SELECT ${colName(tables.market, "marketAddress")} FROM ${T(tables.market)} WHERE ${colName(tables.market, "marketId")} = ${scope})`
        : `${c(l.scopeColumn)} = ${scope}`,
    ];
    if (v.market) {
      const m = p("text");
      found.push(`${marketExists(m)} AS "__found_market"`);
      where.push(`${c(l.marketColumn!)} = ${m}`);
    }
    const [time, block, tie] = l.order.map(c) as [string, string, string];
    if (v.from) where.push(`${time} >= ${p("numeric")}`);
    if (v.to) where.push(`${time} < ${p("numeric")}`);
    if (v.cursor) where.push(`(${time}, ${block}, ${tie}) < (${p("numeric")}, ${p("numeric")}, ${p(l.tiebreakType)})`);
    const [rt, rb, rk] = l.order.map((k) => `r.${colName(t, k)}`);
    const text = `${state}
SELECT ${stateCols}, ${found.join(", ")}, (SELECT string_agg(${lineSql(colsOfList(l))}, E'${RS}' ORDER BY ${rt} DESC, ${rb} DESC, ${rk} DESC) FROM (
  SELECT t.* FROM ${T(t)} t WHERE ${where.join(" AND ")}
  ORDER BY ${time} DESC, ${block} DESC, ${tie} DESC LIMIT ${p("int")}) r) AS "__rows" FROM st`;
    const s = { name: id, text };
    statements.set(id, s);
    return s;
  }

  const candle = tables.candle;
  const cc = (k: string) => colName(candle, k);
  const candleCols = colsOf(candle);
  // the series steps through the periods by arithmetic on their starts; the prices and volumes
  // are only printed (and an empty period repeats the previous close): decimal strings
  const buildCandle = rowBuilder(candleCols, ["periodStart"]);
  const candleStatement: Statement = {
    name: "h_candles",
    text: `${state}
SELECT ${stateCols}, ${marketExists("$1::text")} AS "__found",
  (SELECT ${cc("closeX18")} FROM ${T(candle)} WHERE ${cc("marketId")} = $1::text AND ${cc("resolution")} = $2::text AND ${cc("periodStart")} < $3::numeric
    ORDER BY ${cc("periodStart")} DESC LIMIT 1) AS "__prev_close",
  (SELECT string_agg(${lineSql(candleCols)}, E'${RS}' ORDER BY r.${cc("periodStart")}) FROM (
  SELECT c.* FROM ${T(candle)} c WHERE ${cc("marketId")} = $1::text AND ${cc("resolution")} = $2::text AND ${cc("periodStart")} >= $3::numeric AND ${cc("periodStart")} < $4::numeric
  ORDER BY ${cc("periodStart")} LIMIT $5::int) r) AS "__rows" FROM st`,
  };
  const existsStatement: Statement = {
    name: "h_exists",
    text: `SELECT ${accountExists("$1::numeric")} AS "account", ${marketExists("$2::text")} AS "market"`,
  };

  const run = async (s: Statement, values: unknown[]) => (await pool.query<Record<string, unknown>>({ ...s, values })).rows;

  /** The 404s of the scope, in Ponder's order: the account, then the `marketId` filter's market (or the path's market). */
  function notFound(found: Found, ids: { accountId?: bigint; marketId?: string }) {
    if (found.account === false) return new ApiError("ACCOUNT_NOT_FOUND", `account ${ids.accountId} does not exist`);
    if (found.market === false) return new ApiError("MARKET_NOT_FOUND", `market ${ids.marketId} does not exist`);
    return undefined;
  }

  /** A bad cursor or range is answered after the 404s, as Ponder checks them in that order. */
  async function inputError(err: unknown, ids: { accountId?: bigint; marketId?: string }): Promise<never> {
    if (!(err instanceof ApiError)) throw err;
    const [r] = await run(existsStatement, [ids.accountId?.toString() ?? null, ids.marketId ?? null]);
    throw notFound({ account: ids.accountId === undefined ? undefined : (r!.account as boolean), market: ids.marketId === undefined ? undefined : (r!.market as boolean) }, ids) ?? err;
  }

  type SetBlock = (block: string) => void;

  async function listPage(setBlock: SetBlock, l: ListSpec, scopeValue: string, query: { from?: bigint; to?: bigint; limit: number; cursor?: string; marketId?: string }, ids: { accountId?: bigint; marketId?: string }) {
    let key: bigint[] | undefined;
    try {
      key = query.cursor === undefined ? undefined : decodeUintCursor(l.cursor, query.cursor, 3);
      if (query.from !== undefined && query.to !== undefined && query.from > query.to) throw new ApiError("VALIDATION_ERROR", "from: must not be after to");
    } catch (e) {
      return inputError(e, ids);
    }
    const market = query.marketId !== undefined && l.marketColumn !== undefined;
    const s = listStatement(l, { market, from: query.from !== undefined, to: query.to !== undefined, cursor: key !== undefined });
    const values: unknown[] = [scopeValue];
    if (market) values.push(query.marketId);
    if (query.from !== undefined) values.push(query.from.toString());
    if (query.to !== undefined) values.push(query.to.toString());
    if (key) values.push(...key.map(String));
    values.push(query.limit + 1);
    const rows = await run(s, values);
    const head = rows[0];
    setBlock(stateOfRow(head).number.toString());
    const missing = notFound(
      { account: l.scope === "account" ? (head?.__found as boolean) : undefined, market: l.scope === "market" ? (head?.__found as boolean) : market ? (head?.__found_market as boolean) : undefined },
      ids,
    );
    if (missing) throw missing;
    const found = readRows(head?.__rows, lists.get(l)!.build);
    const hasMore = found.length > query.limit;
    const page = hasMore ? found.slice(0, query.limit) : found;
    const items = page.map((r) => l.item(r, { marketId: ids.marketId as Hex | undefined }));
    const lastRow = page.at(-1);
    const data = {
      [l.key]: items,
      hasMore,
      nextCursor: hasMore && lastRow ? encodeKey(l, lastRow) : null,
    };
    return { data, state: stateOfRow(head) };
  }

  async function candlePage(setBlock: SetBlock, marketId: string, query: { resolution: CandleResolution; from?: bigint; to?: bigint; limit: number; cursor?: string }) {
    const ids = { marketId };
    let now = o.feed.current().timestamp;
    for (let attempt = 0; ; attempt++) {
      let w: ReturnType<typeof candleWindow>;
      try {
        w = candleWindow(query.resolution, query, now);
      } catch (e) {
        return inputError(e, ids);
      }
      const rows = await run(candleStatement, [marketId, query.resolution, w.pageFrom.toString(), w.to.toString(), query.limit]);
      const head = rows[0];
      setBlock(stateOfRow(head).number.toString());
      const missing = notFound({ market: head?.__found as boolean }, ids);
      if (missing) throw missing;
      const st = stateOfRow(head);
      // the page's bounds depend on the indexed block's time: if the block read differs from the
      // one the bounds were computed at, and moves them, read again at the block read
      if (st.timestamp !== now && attempt < 2) {
        const again = (() => {
          try {
            const w2 = candleWindow(query.resolution, query, st.timestamp);
            return w2.to !== w.to || w2.pageFrom !== w.pageFrom;
          } catch {
            return true;
          }
        })();
        now = st.timestamp;
        if (again) continue;
      }
      const prev = head?.__prev_close;
      const data = candleSeries(
        marketId as Hex,
        query.resolution,
        w,
        query.limit,
        (prev ?? undefined) as bigint | undefined, // its decimal string, printed as the bigint would be
        readRows(head?.__rows, buildCandle) as never,
      );
      return { data, state: st };
    }
  }

  type Hit = { route: Route; raw: string };
  const matchPath = (path: string): Hit | undefined => {
    for (const route of ROUTES) {
      const m = route.re.exec(path);
      if (m) return { route, raw: m[1]! };
    }
    return undefined;
  };
  const match = (c: Context): Hit | undefined =>
    c.req.method !== "GET" || !o.feed.live() || exportFormatOf(c.req.header("accept")) ? undefined : matchPath(c.req.path);

  /** The page's data: the query checked, then the path (Ponder's order), then the page read. */
  async function pageOf(hit: Hit, rawQuery: Record<string, string | string[]>, setBlock: SetBlock): Promise<unknown> {
    const { route } = hit;
    const querySchema = route.list ? historyQueryOf(route.list) : H.CandlesQuery;
    const qr = querySchema.safeParse(rawQuery);
    if (!qr.success) throw validationError(qr.error, "query");
    let param: string;
    try {
      param = decodeURIComponent(hit.raw);
    } catch {
      param = hit.raw;
    }
    const pr = (route.param === "marketId" ? MarketPath : AccountPath).safeParse({ [route.param]: param });
    if (!pr.success) throw validationError(pr.error, "param");
    const query = qr.data as { from?: bigint; to?: bigint; limit: number; cursor?: string; marketId?: string; resolution?: string };
    if (!route.list) return (await candlePage(setBlock, param.toLowerCase(), query as never)).data;
    if (route.list.scope === "market") {
      const marketId = param.toLowerCase();
      return (await listPage(setBlock, route.list, marketId, query, { marketId })).data;
    }
    const accountId = BigInt(param);
    const marketId = query.marketId !== undefined && route.list.marketColumn ? query.marketId.toLowerCase() : undefined;
    return (await listPage(setBlock, route.list, accountId.toString(), { ...query, marketId }, { accountId, marketId })).data;
  }
  const bodyOf = (data: unknown) => JSON.stringify({ success: true, data });

  function plain(url: string): (() => Promise<PlainPage>) | undefined {
    const qi = url.indexOf("?");
    const hit = matchPath(qi < 0 ? url : url.slice(0, qi));
    if (!hit) return undefined;
    return async () => {
      // as Hono's c.req.queries(): every key's values, decoded as URLSearchParams does
      const rawQuery: Record<string, string | string[]> = {};
      if (qi >= 0)
        for (const [k, v] of new URLSearchParams(url.slice(qi + 1))) {
          const had = rawQuery[k];
          rawQuery[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
        }
      let block = "";
      const data = await pageOf(hit, rawQuery, (b) => (block = b));
      return { body: bodyOf(data), block };
    };
  }

  async function answer(c: Context): Promise<Response | undefined> {
    const hit = match(c);
    if (!hit) return undefined;
    c.header(SOURCE_HEADER, "reads");
    try {
      // Ponder's order: ?minBlock (route middleware), then the query, then the path
      const minRaw = c.req.query("minBlock");
      if (minRaw !== undefined) {
        if (!MIN_BLOCK_RE.test(minRaw)) throw new ApiError("VALIDATION_ERROR", "minBlock: must be a non-negative integer block number");
        const min = BigInt(minRaw);
        if (!(await waitForIndexedBlock(o.feed, min, o.minBlockWaitMs))) {
          c.header("X-Indexed-Block", o.feed.current().number.toString());
          throw blockNotIndexed(min, o.feed.current().number);
        }
      }
      // as Ponder's middleware: the block at the start, on every answer after the wait (errors too)
      c.header("X-Indexed-Block", o.feed.current().number.toString());
      const rawQuery = Object.fromEntries(Object.entries(c.req.queries()).map(([k, v]) => (v.length === 1 ? [k, v[0]] : [k, v])));
      const data = await pageOf(hit, rawQuery, (b) => c.header("X-Indexed-Block", b));
      return c.body(bodyOf(data), 200, { "Content-Type": "application/json", "X-Cache": "MISS" });
    } catch (e) {
      if (e instanceof ApiError) return errorResponse(c, e);
      throw e;
    }
  }

  return {
    answer,
    plain,
    serves: (c) => match(c) !== undefined,
    close: () => pool.end(),
  };
}

/** The cursor after a row: its sort key, as Ponder's lists encode it (src/api/lib/history.ts). */
function encodeKey(l: ListSpec, row: Record<string, unknown>): string {
  return encodeCursor(l.cursor, l.order.map((k) => BigInt(row[k] as bigint | number)));
}
