/**
 * The history lists (issue 13) answered by the read service itself when the indexer is on
 * Postgres: trades, funding history and candles of a market; fills, funding payments, transfers,
 * liquidations and order history of an account. Ponder's server answers the same routes (and
 * still does on PGlite, which only its process can open, for exports, and while the block push
 * is down); this path exists because there a page shares a pool with indexing, where here it
 * is one prepared statement on a pool of its own.
 *
 * The page is the one read model's (core/history/plans.ts, which Ponder's routes run too), with
 * the statement reading the indexed state in its own snapshot (`withState`), so the rows belong
 * to the `X-Indexed-Block` it answers with. Here: the route match, `?minBlock=` (waits on the
 * block feed, as the held reads do), the query and path checks in Ponder's order (`minBlock`,
 * the query, the path; the model then gives the 404s before a bad cursor or range).
 */
import pg from "pg";
import type { Context } from "hono";
import type { CandleResolution } from "../../core/candles.js";
import { ApiError } from "../../core/errors.js";
import { errorResponse } from "../../core/http/errors.js";
import { candleWindow } from "../../core/history/candles.js";
import { HISTORY_LISTS, exportFormatOf, historyQueryOf, type ListSpec } from "../../core/history/lists.js";
import { historyPlans, type CandleQuery, type ListQuery } from "../../core/history/plans.js";
import { waitForIndexedBlock, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import type { Executor } from "../../core/reads/plans.js";
import * as H from "../../core/schemas/history.js";
import { validationError } from "../../core/schemas/validation.js";
import { AccountPath, MarketPath } from "../../core/schemas/reads.js";
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
  const plans = historyPlans({ schema: o.schema, withState: true });
  const run: Executor = async (s, values) => (await pool.query<Record<string, unknown>>({ ...s, values })).rows;

  type SetBlock = (block: string) => void;

  /** Candles: the page's bounds depend on the indexed block's time, read with the rows; when the block read moves them, read again at it. */
  async function candlePage(setBlock: SetBlock, marketId: string, query: CandleQuery) {
    let now = o.feed.current().timestamp;
    for (let attempt = 0; ; attempt++) {
      let st: IndexedState | undefined;
      const page = await plans.candlePage(run, marketId, query, now, (s) => {
        st = s;
        setBlock(s.number.toString());
      });
      if (!st) throw new Error("the candles statement read no indexed state");
      if (st.timestamp !== now && attempt < 2) {
        const moved = (() => {
          try {
            const [w1, w2] = [candleWindow(query.resolution, query, now), candleWindow(query.resolution, query, st.timestamp)];
            return w2.to !== w1.to || w2.pageFrom !== w1.pageFrom;
          } catch {
            return true;
          }
        })();
        now = st.timestamp;
        if (moved) continue;
      }
      return page.data;
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
    if (!route.list) return candlePage(setBlock, param, qr.data as CandleQuery);
    const query = qr.data as ListQuery;
    const scope = route.list.scope === "market" ? { marketId: param } : { accountId: BigInt(param) };
    return (await plans.listPage(run, route.list, scope, query, (st) => setBlock(st.number.toString()))).data;
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
