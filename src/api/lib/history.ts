/**
 * Paging of the history lists: keyset on (time, block, log index) or the list's equivalent, one
 * index per list (ponder.schema.ts "history"), newest first, `limit + 1` rows to know whether a
 * page follows. `Accept: text/csv` or `application/x-ndjson` streams the whole range instead,
 * oldest first, as of the indexed block the request started at, 1,000 rows per query.
 */
import type { Context } from "hono";
import { stream } from "hono/streaming";
import { db } from "ponder:api";
import { and, asc, desc, gte, lt, lte, sql } from "ponder";
import type { SQL } from "drizzle-orm";
import { decodeUintCursor, encodeCursor } from "../../../core/cursor.js";
import { ApiError } from "../../../core/errors.js";
import { MAX_HISTORY_LIMIT } from "../../../core/schemas/history.js";
import { exportFormatOf, type ExportFormat } from "../../../core/history/lists.js";
import { readAtIndexedBlock, type IndexedBlockEnv } from "./indexedBlock.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any of the history tables and its columns
type Table = any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Column = any;

/** A list: its table, the three columns of its order (time first, then block, then a tiebreak), and its item. */
export interface ListDef<Row, Item> {
  /** cursor tag: a cursor of one list is refused by another */
  name: string;
  /** key of the items array in `data` */
  key: string;
  table: Table;
  order: [time: Column, block: Column, tiebreak: Column];
  /** SQL type of the tiebreak column (the cursor's values are cast to the columns' types) */
  tiebreakType: "integer" | "numeric";
  toItems(rows: Row[]): Promise<Item[]> | Item[];
}

export type Range = { from?: bigint; to?: bigint; limit: number; cursor?: string };

function rangeWhere(def: ListDef<unknown, unknown>, r: Range): SQL | undefined {
  if (r.from !== undefined && r.to !== undefined && r.from > r.to) {
    throw new ApiError("VALIDATION_ERROR", "from: must not be after to");
  }
  const [time] = def.order;
  return and(r.from === undefined ? undefined : gte(time, r.from), r.to === undefined ? undefined : lt(time, r.to));
}

const keyAfter = (def: ListDef<unknown, unknown>, k: bigint[], dir: "<" | ">") => {
  const [time, block, tie] = def.order;
  return sql`(${time}, ${block}, ${tie}) ${sql.raw(dir)} (cast(${k[0]!.toString()} as numeric), cast(${k[1]!.toString()} as numeric), cast(${k[2]!.toString()} as ${sql.raw(def.tiebreakType)}))`;
};

const keyOf = (def: ListDef<unknown, unknown>, row: Record<string, unknown>): bigint[] =>
  def.order.map((c: Column) => BigInt(row[keyName(def, c)] as bigint | number));

/** The row property of a column (drizzle keeps the TypeScript name on the table's columns). */
function keyName(def: ListDef<unknown, unknown>, col: Column): string {
  for (const [k, v] of Object.entries(def.table)) if (v === col) return k;
  throw new Error(`column ${col.name} not in the table`);
}

/** One page, newest first. */
export async function loadPage<Row, Item>(def: ListDef<Row, Item>, scope: SQL | undefined, r: Range) {
  const after = r.cursor === undefined ? undefined : decodeUintCursor(def.name, r.cursor, 3);
  const [time, block, tie] = def.order;
  const rows = (await db
    .select()
    .from(def.table)
    .where(and(scope, rangeWhere(def as ListDef<unknown, unknown>, r), after ? keyAfter(def as ListDef<unknown, unknown>, after, "<") : undefined))
    .orderBy(desc(time), desc(block), desc(tie))
    .limit(r.limit + 1)) as Row[];
  const hasMore = rows.length > r.limit;
  const pageRows = hasMore ? rows.slice(0, r.limit) : rows;
  const last = pageRows.at(-1) as Record<string, unknown> | undefined;
  return {
    [def.key]: await def.toItems(pageRows),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor(def.name, keyOf(def as ListDef<unknown, unknown>, last)) : null,
  };
}

/** The export the request asks for by its Accept header, if any. */
export const exportFormat = (c: Context): ExportFormat | undefined => exportFormatOf(c.req.header("accept"));

const csvCell = (v: unknown): string => {
  if (v === null || v === undefined) return "";
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/**
 * The whole range as CSV (header = `columns`) or NDJSON, oldest first, up to the indexed block
 * the request started at (rows of later blocks are left for the next export), read by keyset
 * pages of 1,000 rows: never a cap.
 */
export function exportList<Row, Item extends Record<string, unknown>>(
  c: Context<IndexedBlockEnv>,
  def: ListDef<Row, Item>,
  scope: SQL | undefined,
  r: Range,
  format: ExportFormat,
  columns: string[],
) {
  const [time, block, tie] = def.order;
  const head = c.var.indexed.number;
  const base = and(scope, rangeWhere(def as ListDef<unknown, unknown>, r), lte(block, head));
  c.header("Content-Type", format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson");
  c.header("Cache-Control", "no-store");
  return stream(c, async (out) => {
    if (format === "csv") await out.write(columns.join(",") + "\n");
    let after: bigint[] | undefined;
    for (;;) {
      const rows = (await db
        .select()
        .from(def.table)
        .where(and(base, after ? keyAfter(def as ListDef<unknown, unknown>, after, ">") : undefined))
        .orderBy(asc(time), asc(block), asc(tie))
        .limit(MAX_HISTORY_LIMIT)) as Row[];
      const items = await def.toItems(rows);
      let chunk = "";
      for (const item of items) {
        chunk += format === "csv" ? columns.map((k) => csvCell(item[k])).join(",") + "\n" : JSON.stringify(item) + "\n";
      }
      if (chunk) await out.write(chunk);
      if (rows.length < MAX_HISTORY_LIMIT) break;
      after = keyOf(def as ListDef<unknown, unknown>, rows.at(-1) as Record<string, unknown>);
    }
  });
}

/**
 * A list route's answer: a JSON page, or the export the client asked for. `list` resolves the
 * list and its scope, checking that the scope exists (its 404): for a page inside the same
 * indexed-state read as the rows, so the 404 and the rows belong to one block (a reorg that
 * removes an account never answers its empty page as a 200); an export streams in several reads
 * anyway and checks once before.
 */
export async function answerList<Row, Item extends Record<string, unknown>>(
  c: Context<IndexedBlockEnv>,
  list: () => Promise<{ def: ListDef<Row, Item>; scope: SQL | undefined }>,
  r: Range,
  columns: string[],
) {
  const format = exportFormat(c);
  if (format) {
    const { def, scope } = await list();
    if (r.cursor !== undefined) throw new ApiError("VALIDATION_ERROR", "cursor: an export streams the whole range; send from/to instead");
    return exportList(c, def, scope, r, format, columns);
  }
  const data = await readAtIndexedBlock(c as never, async () => {
    const { def, scope } = await list();
    return loadPage(def, scope, r);
  });
  return c.json({ success: true as const, data }, 200);
}
