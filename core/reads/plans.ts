/**
 * The one read model of the hot answers (issue 28): each hot route's key (path and sorted query,
 * routes.ts) → its validated input → one statement (SQL text and parameters) → one formatter of
 * its rows (responses.ts, orders.ts). Whoever serves an answer runs this plan through an
 * `Executor`, on either database:
 *   - the read service on Postgres, on its own pg pool (services/reads/tables.ts): each statement
 *     reads the indexed state too (`withState`: checkpoint + `indexed_head` in its first clause,
 *     one snapshot);
 *   - Ponder's own hot routes (src/api/lib/hotAnswers.ts), inside its read at one indexed state;
 *   - POST /internal/answers in Ponder's process (the read service's builds on PGlite): the state
 *     read once by `stateStatement`, then every answer's statement, in one transaction (`answersAt`).
 * Inputs are validated with the routes' own schemas (core/schemas/reads.ts), query first, then
 * the path, as Hono's validators run; the 404s before a bad cursor.
 */
import { getTableColumns, getTableName, type Column } from "drizzle-orm";
import type { z } from "zod";
import type { Hex } from "viem";
import * as tables from "../../ponder.schema.js";
import { ApiError } from "../errors.js";
import { fail } from "../envelope.js";
import { indexedStateSql, stateFromRow, type IndexedState, type StateRow } from "../indexer/blocks.js";
import { accountNotFound, marketNotFound } from "./errors.js";
import { ordersCursorKey, ordersPage } from "./orders.js";
import {
  accountResponse,
  fundingResponse,
  markPriceResponse,
  marketResponse,
  orderBookResponse,
  positionFundingResponse,
  positionResponse,
} from "./responses.js";
import { marketSnapshot, type MarketRow, type MarketSnapshot, type MarketStateRow, type PositionRow } from "./snapshot.js";
import { MAX_DEPTH_ORDERS, fillableBook } from "./depth.js";
import { validationError } from "../schemas/validation.js";
import { AccountMarketPath, AccountPath, MarketPath, OrderBookQuery, OrdersQuery, ReadQuery } from "../schemas/reads.js";
import { colName, columnsOf, q, stateCols, stateCte } from "./sql.js";
import { hotRoute, type HotRoute } from "./routes.js";

/** An answer as served: status, the envelope's bytes, and the indexed block it belongs to (null: none known). */
export type Built = { status: number; body: string; block: string | null };

// ─── input (pure) ────────────────────────────────────────────────────────────────────────

/** The query as Hono's validator gives it to zod: a repeated parameter as a list, the others as strings. */
export function queryObject(search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(search)) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}

type Input =
  | { kind: "markets" }
  | { kind: "market" | "funding" | "price"; marketId: Hex }
  | { kind: "orderbook"; marketId: Hex; depth: number }
  | { kind: "account"; accountId: bigint }
  | { kind: "orders"; accountId: bigint; marketId?: Hex; status?: string; limit: number; cursor?: string }
  | { kind: "position" | "positionFunding"; accountId: bigint; marketId: Hex };

const parseWith = <S extends z.ZodType>(schema: S, value: unknown, target: "query" | "param"): z.output<S> => {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(r.error, target);
  return r.data;
};

/** The route's input, validated as Ponder's route does (its schemas; query first, then the path): 400 VALIDATION_ERROR. */
export function parseInput(route: HotRoute, search: string): Input {
  const query = queryObject(search);
  const lower = (id: string) => id.toLowerCase() as Hex;
  switch (route.kind) {
    case "markets":
      parseWith(ReadQuery, query, "query");
      return route;
    case "market":
    case "funding":
    case "price":
      parseWith(ReadQuery, query, "query");
      return { kind: route.kind, marketId: lower(parseWith(MarketPath, { marketId: route.marketId }, "param").marketId) };
    case "orderbook": {
      const { depth } = parseWith(OrderBookQuery, query, "query");
      return { kind: "orderbook", marketId: lower(parseWith(MarketPath, { marketId: route.marketId }, "param").marketId), depth };
    }
    case "account":
      parseWith(ReadQuery, query, "query");
      return { kind: "account", accountId: BigInt(parseWith(AccountPath, { accountId: route.accountId }, "param").accountId) };
    case "orders": {
      const q = parseWith(OrdersQuery, query, "query");
      const accountId = BigInt(parseWith(AccountPath, { accountId: route.accountId }, "param").accountId);
      return { kind: "orders", accountId, marketId: q.marketId === undefined ? undefined : lower(q.marketId), status: q.status, limit: q.limit, cursor: q.cursor };
    }
    case "position":
    case "positionFunding": {
      parseWith(ReadQuery, query, "query");
      const p = parseWith(AccountMarketPath, { accountId: route.accountId, marketId: route.marketId }, "param");
      return { kind: route.kind, accountId: BigInt(p.accountId), marketId: lower(p.marketId) };
    }
  }
}

/** Most keys in one request of a block's answers (batch.ts → POST /internal/answers). */
export const MAX_ANSWER_PATHS = 50;

// ─── statements ─────────────────────────────────────────────────────────────────────────

/** `name`: a driver that prepares statements (pg) keeps one per name and connection. */
export type Statement = { name: string; text: string };
export type Raw = Record<string, unknown>;
/** Runs one statement: its text and parameters → its rows as objects (column name → driver value). */
export type Executor = (s: Statement, values: unknown[]) => Promise<Raw[]>;
/** What a build makes of its statement's rows (throws the 404s). */
type Finish = (rows: Raw[], state: IndexedState) => unknown;
export type Plan = { s: Statement; values: unknown[]; finish: Finish };
/** A key's validated plan, or its 400. */
export type Planned = { plan: Plan } | { invalid: ApiError };

/** `alias`'s columns of table `t`, each renamed `prefix` + its SQL name (tables joined in one row). */
const selectAs = (t: object, alias: string, prefix: string) => columnsOf(t).map(([, c]) => `${alias}.${q(c.name)} AS ${q(prefix + c.name)}`).join(", ");

/** The statement's row → the table's row as drizzle gives it (property names, bigints); undefined when `key` is null (no row joined). */
function rowReader<R>(t: object, prefix: string, key: string) {
  const cols = columnsOf(t).map(([k, c]) => [k, prefix + c.name, c] as const);
  const keyName = prefix + (getTableColumns(t as never) as Record<string, Column>)[key]!.name;
  return (raw: Raw): R | undefined => {
    if (raw[keyName] === null || raw[keyName] === undefined) return undefined;
    const row: Record<string, unknown> = {};
    for (const [k, name, c] of cols) {
      const v = raw[name];
      row[k] = v === null || v === undefined ? null : c.mapFromDriverValue(v);
    }
    return row as R;
  };
}

/** An error answer (its envelope), at `block` (null: none known). */
export const errorBuilt = (e: ApiError, block: bigint | null): Built => ({ status: e.status, body: JSON.stringify(fail(e.code, e.message)), block: block === null ? null : block.toString() });

export type AnswerPlans = {
  /** The key's plan, or its 400 (validated once per key). Throws for a key that is not a held route's (`isHotKey`). */
  planOf(key: string): Planned;
  /** The answer of the plan's rows at state `st`: 200, or the 404 its rows say. */
  finished(p: Plan, rows: Raw[], st: IndexedState): Built;
  /** The statement that reads the indexed state alone (core/indexer/blocks.ts), and its state. */
  stateStatement: Statement;
  stateOf(rows: Raw[]): IndexedState;
};

/**
 * The plans of Ponder's schema `schema`. `withState`: each statement also reads the indexed state
 * in its own snapshot (its rows carry it: sql.ts `stateOfRow`), for a driver that runs each
 * statement on its own (a pool); without, the caller reads the state itself, in the same
 * transaction as the statements (`answersAt`).
 */
export function answerPlans(o: { schema: string; withState: boolean }): AnswerPlans {
  const S = q(o.schema);
  const T = (t: object) => `${S}.${q(getTableName(t as never))}`;
  const { market, marketState, indexPrice, oracleConfig, account, position, order } = tables;
  const m = (k: string) => colName(market, k);
  const od = (k: string) => colName(order, k);
  const ps = (k: string) => colName(position, k);
  // with the state: the statement's first clause reads it, in its snapshot; `(SELECT 1)` keeps one row before any checkpoint
  const head = (extra: string[]) => (o.withState ? `${stateCte(o.schema)}\nSELECT ${[stateCols, ...extra].join(", ")}` : `SELECT ${extra.join(", ")}`);
  const from = o.withState ? `FROM (SELECT 1) one LEFT JOIN st ON true` : `FROM (SELECT 1) one`;
  // the same statement text under one name per variant (a pg connection prepares each name once)
  const named = (name: string) => (o.withState ? `a_${name}` : `b_${name}`);
  const accountExists = (p: string) => `EXISTS (SELECT 1 FROM ${T(account)} WHERE ${colName(account, "accountId")} = ${p})`;
  const marketExists = (p: string) => `EXISTS (SELECT 1 FROM ${T(market)} WHERE ${m("marketId")} = ${p})`;
  // A side's resting orders from the best price outwards in the chain's queue order (a level's FIFO:
  // `queueSeq`, the seq of the event that put the order at its level's tail, its placement or a
  // modify that lost its priority; the order matters where MAX_DEPTH_ORDERS cuts a level), at most
  // MAX_DEPTH_ORDERS as the chain's view (getFillableLevels) reads,
  // each with what `_fillable` reads of it and of its owner's position: one JSON array of decimal
  // strings per order (depth.ts `bookOrders`), one column per side (index: orders' marketIdx)
  const bookSide = (side: "LONG" | "SHORT") => {
    const dir = side === "LONG" ? "DESC" : "ASC";
    return `(SELECT json_agg(json_build_array(b.p::text, b.l::text, b.ro, b.mr::text, b.sz::text, b.oq::text, b.mg::text, b.fi::text, b.ex::text) ORDER BY b.p ${dir}, b.qs)
    FROM (SELECT o.${od("priceX18")} AS p, o.${od("queueSeq")} AS qs, o.${od("remainingQty")} AS l, o.${od("reduceOnly")} AS ro, o.${od("marginRemainingWad")} AS mr, o.${od("expiresAt")} AS ex,
        p.${ps("sizeQty")} AS sz, p.${ps("openNotionalWad")} AS oq, p.${ps("marginWad")} AS mg, p.${ps("lastFundingIndexX18")} AS fi
      FROM ${T(order)} o LEFT JOIN ${T(position)} p ON p.${ps("accountId")} = o.${od("accountId")} AND p.${ps("marketId")} = o.${od("marketId")}
      WHERE o.${od("marketId")} = mk.${m("marketId")} AND o.${od("status")} = 'active' AND o.${od("side")} = '${side}'
      ORDER BY o.${od("priceX18")} ${dir}, o.${od("queueSeq")} LIMIT ${MAX_DEPTH_ORDERS}) b)`;
  };
  // a market with its state and index price: the snapshot's rows (data.ts snapshotOf); `book`:
  // with its resting orders too (`__bids`, `__asks`), for the answers that show depth or best prices
  const snapshotRows = (where: string, book = false) => `SELECT ${selectAs(market, "mk", "m.")}, ${selectAs(marketState, "s", "s.")},
    ip.${colName(indexPrice, "priceX18")} AS "ip", ip.${colName(indexPrice, "freshSince")} AS "fs",
    ip.${colName(indexPrice, "updatedAt")} + (SELECT oc.${colName(oracleConfig, "maxAgeSeconds")} FROM ${T(oracleConfig)} oc LIMIT 1) AS "fu"${
      book ? `,
    ${bookSide("LONG")} AS "__bids",
    ${bookSide("SHORT")} AS "__asks"` : ""
    }
  FROM ${T(market)} mk
  LEFT JOIN ${T(marketState)} s ON s.${colName(marketState, "marketAddress")} = mk.${m("marketAddress")}
  LEFT JOIN ${T(indexPrice)} ip ON ip.${colName(indexPrice, "marketId")} = mk.${m("marketId")}${where ? `\n  WHERE ${where}` : ""}`;
  const readMarket = rowReader<MarketRow>(market, "m.", "marketId");
  const readState = rowReader<MarketStateRow>(marketState, "s.", "marketAddress");
  const readAccount = rowReader<typeof account.$inferSelect>(account, "a.", "accountId");
  const readPosition = rowReader<PositionRow>(position, "p.", "accountId");
  const readOrder = rowReader<typeof order.$inferSelect>(order, "o.", "orderId");
  const big = (v: unknown) => (v === null || v === undefined ? undefined : BigInt(v as string));
  // the snapshot's best bid and ask are read only where an answer shows them (the book statement: `bookOf`)
  const snapshotOf = (r: Raw, now: bigint): MarketSnapshot | undefined => {
    const mr = readMarket(r);
    return mr && marketSnapshot({ market: mr, state: readState(r), indexX18: big(r.ip), freshSince: big(r.fs), freshUntil: big(r.fu) }, now);
  };
  /** The snapshot of a book statement's row, its best bid and ask those that could fill now, and its `depth` fillable levels per side. */
  const bookOf = (r: Raw, now: bigint, depth: number) => {
    const snap = snapshotOf(r, now);
    if (!snap) return undefined;
    const book = fillableBook(snap, now, r.__bids, r.__asks, depth);
    return { snap: { ...snap, bestBidX18: book.bids[0]?.priceX18 ?? 0n, bestAskX18: book.asks[0]?.priceX18 ?? 0n }, ...book };
  };

  const statements = {
    markets: { name: named("markets"), text: `${head(["r.*"])} ${from} LEFT JOIN LATERAL (${snapshotRows("")}) r ON true ORDER BY r."m.${getTableColumns(market).marketIndex.name}"` },
    market: { name: named("market"), text: `${head(["r.*"])} ${from} LEFT JOIN LATERAL (${snapshotRows(`mk.${m("marketId")} = $1::text`)}) r ON true` },
    // the market with its resting orders: its book (any depth: the levels are counted from the orders) and its price
    book: { name: named("book"), text: `${head(["r.*"])} ${from} LEFT JOIN LATERAL (${snapshotRows(`mk.${m("marketId")} = $1::text`, true)}) r ON true` },
    account: { name: named("account"), text: `${head([selectAs(account, "a", "a.")])} ${from} LEFT JOIN ${T(account)} a ON a.${colName(account, "accountId")} = $1::numeric` },
    position: {
      name: named("position"),
      text: `${head([`${accountExists("$1::numeric")} AS "__account"`, "r.*", selectAs(position, "p", "p.")])} ${from}
  LEFT JOIN LATERAL (${snapshotRows(`mk.${m("marketId")} = $2::text`)}) r ON true
  LEFT JOIN ${T(position)} p ON p.${colName(position, "accountId")} = $1::numeric AND p.${colName(position, "marketId")} = $2::text`,
    },
  } satisfies Record<string, Statement>;

  // the indexed block's time (its checkpoint's first 10 digits, as `decodeCheckpoint` reads them), in the statement's snapshot
  const nowSql = `COALESCE((SELECT substr(c.latest_checkpoint, 1, 10)::numeric FROM ${S}."_ponder_checkpoint" c LIMIT 1), 0)`;
  const shownStatusSql = (t: string) =>
    `(CASE WHEN ${t}.${od("status")} = 'active' AND ${t}.${od("expiresAt")} <> 0 AND ${t}.${od("expiresAt")} <= ${nowSql} THEN 'cancelled' ELSE ${t}.${od("status")} END)`;

  /** The orders statement for the filters present (each variant prepared once per connection). */
  const ordersStatements = new Map<string, Statement>();
  function ordersStatement(v: { market: boolean; status: boolean; cursor: boolean }): Statement {
    const name = named(`orders_${+v.market}${+v.status}${+v.cursor}`);
    const known = ordersStatements.get(name);
    if (known) return known;
    let n = 1;
    const p = (type: string) => `$${++n}::${type}`;
    const where = [`t.${od("accountId")} = $1::numeric`];
    const extra = [`${accountExists("$1::numeric")} AS "__account"`];
    if (v.market) {
      const mp = p("text");
      where.push(`t.${od("marketId")} = ${mp}`);
      extra.push(`${marketExists(mp)} AS "__market"`);
    }
    // the status as shown: an active order at or past its expiry is cancelled from that second (responses.ts `shownOrder`)
    if (v.status) where.push(`${shownStatusSql("t")} = ${p("text")}`);
    const page = v.cursor ? [...where, `(t.${od("createdBlock")}, t.${od("orderId")}) < (${p("numeric")}, ${p("numeric")})`] : where;
    extra.push(`(SELECT count(*) FROM ${T(order)} t WHERE ${where.join(" AND ")}) AS "__total"`, "r.*");
    const text = `${head(extra)} ${from} LEFT JOIN LATERAL (
  SELECT ${selectAs(order, "t", "o.")} FROM ${T(order)} t WHERE ${page.join(" AND ")}
  ORDER BY t.${od("createdBlock")} DESC, t.${od("orderId")} DESC LIMIT ${p("int")}) r ON true
  ORDER BY r."o.${getTableColumns(order).createdBlock.name}" DESC, r."o.${getTableColumns(order).orderId.name}" DESC`;
    const s = { name, text };
    ordersStatements.set(name, s);
    return s;
  }

  const one = <T>(rows: Raw[], read: (r: Raw) => T | undefined): T[] => rows.map(read).filter((x): x is T => x !== undefined);

  /** The statement, its values and what to make of its rows, for a validated input. */
  function plan(input: Input): Plan {
    switch (input.kind) {
      case "markets":
        return { s: statements.markets, values: [], finish: (rows, st) => ({ markets: rows.map((r) => snapshotOf(r, st.timestamp)).filter((x) => x !== undefined).map(marketResponse) }) };
      case "market":
      case "funding": {
        const kind = input.kind;
        return {
          s: statements.market,
          values: [input.marketId],
          finish: (rows, st) => {
            const snap = snapshotOf(rows[0]!, st.timestamp);
            if (!snap) throw marketNotFound(input.marketId);
            return kind === "market" ? marketResponse(snap) : fundingResponse(snap);
          },
        };
      }
      // the price (its best bid and ask) and the book: from the orders that could fill now (depth.ts)
      case "price":
        return {
          s: statements.book,
          values: [input.marketId],
          finish: (rows, st) => {
            const b = bookOf(rows[0]!, st.timestamp, 1);
            if (!b) throw marketNotFound(input.marketId);
            return markPriceResponse(b.snap, st);
          },
        };
      case "orderbook":
        return {
          s: statements.book,
          values: [input.marketId],
          finish: (rows, st) => {
            const b = bookOf(rows[0]!, st.timestamp, input.depth);
            if (!b) throw marketNotFound(input.marketId);
            return orderBookResponse(input.marketId, b.bids, b.asks, st);
          },
        };
      case "account":
        return {
          s: statements.account,
          values: [input.accountId.toString()],
          finish: (rows) => {
            const a = readAccount(rows[0]!);
            if (!a) throw accountNotFound(input.accountId);
            return accountResponse(a);
          },
        };
      case "position":
      case "positionFunding":
        return {
          s: statements.position,
          values: [input.accountId.toString(), input.marketId],
          finish: (rows, st) => {
            const r = rows[0]!;
            if (r.__account !== true) throw accountNotFound(input.accountId);
            const snap = snapshotOf(r, st.timestamp);
            if (!snap) throw marketNotFound(input.marketId);
            return (input.kind === "position" ? positionResponse : positionFundingResponse)(input.accountId, snap, readPosition(r));
          },
        };
      case "orders": {
        // Ponder answers the 404s before a bad cursor: read them first, the cursor's error after
        let after: [bigint, bigint] | undefined;
        let cursorError: unknown;
        try {
          after = input.cursor === undefined ? undefined : ordersCursorKey(input.cursor);
        } catch (e) {
          cursorError = e;
        }
        const values: unknown[] = [input.accountId.toString()];
        if (input.marketId !== undefined) values.push(input.marketId);
        if (input.status !== undefined) values.push(input.status);
        if (after) values.push(...after.map(String));
        values.push(cursorError ? 0 : input.limit + 1);
        return {
          s: ordersStatement({ market: input.marketId !== undefined, status: input.status !== undefined, cursor: after !== undefined }),
          values,
          finish: (rows, st) => {
            const r = rows[0]!;
            if (r.__account !== true) throw accountNotFound(input.accountId);
            if (input.marketId !== undefined && r.__market !== true) throw marketNotFound(input.marketId);
            if (cursorError) throw cursorError;
            return ordersPage(one(rows, readOrder), Number(r.__total), input.limit, st.timestamp);
          },
        };
      }
    }
  }

  // key → validated plan (or its 400): validation and statement choice once per key, not per read
  const plans = new Map<string, Planned>();
  function planOf(key: string): Planned {
    let p = plans.get(key);
    if (p) return p;
    const qi = key.indexOf("?");
    const route = hotRoute(qi < 0 ? key : key.slice(0, qi));
    if (!route) throw new Error(`not a held route: ${key}`);
    try {
      p = { plan: plan(parseInput(route, qi < 0 ? "" : key.slice(qi + 1))) };
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      p = { invalid: e };
    }
    if (plans.size >= 10_000) plans.clear();
    plans.set(key, p);
    return p;
  }

  const finished = (p: Plan, rows: Raw[], st: IndexedState): Built => {
    try {
      return { status: 200, body: JSON.stringify({ success: true, data: p.finish(rows, st) }), block: st.number.toString() };
    } catch (e) {
      if (e instanceof ApiError) return errorBuilt(e, st.number);
      throw e;
    }
  };

  return {
    planOf,
    finished,
    stateStatement: { name: named("state"), text: indexedStateSql(o.schema) },
    stateOf: (rows) => stateFromRow(rows[0] as StateRow | undefined),
  };
}

/**
 * Every key's answer at one indexed state, read through `exec` (the caller's one transaction,
 * so the state and every answer's rows are one snapshot): the state once, then each distinct
 * statement once (a market and its funding share one, its price and book another; a position and its funding too).
 * `behind`: the state is below `minBlock` (nothing else was read). A key's 400 carries the state's
 * block, as Ponder's middleware reads it before its validators run.
 */
export async function answersAt(
  plans: AnswerPlans,
  keys: readonly string[],
  minBlock: bigint,
  exec: Executor,
): Promise<{ state: IndexedState; answers?: Built[] }> {
  const state = plans.stateOf(await exec(plans.stateStatement, []));
  if (state.number < minBlock) return { state };
  const runs = new Map<string, Promise<Raw[]>>();
  const answers: Built[] = [];
  for (const key of keys) {
    const p = plans.planOf(key);
    if ("invalid" in p) {
      answers.push(errorBuilt(p.invalid, state.number));
      continue;
    }
    const same = `${p.plan.s.name}\u0000${JSON.stringify(p.plan.values)}`;
    let rows = runs.get(same);
    if (!rows) runs.set(same, (rows = exec(p.plan.s, p.plan.values)));
    answers.push(plans.finished(p.plan, await rows, state));
  }
  return { state, answers };
}
