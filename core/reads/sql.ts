/**
 * What the read service's own statements share (tables.ts for the hot answers, history.ts for the
 * lists): SQL names from the drizzle schema, and the indexed state read inside the statement's
 * snapshot (core/indexer/blocks.ts `indexedStateSql`) as three prefixed columns.
 */
import { getTableColumns, type Column } from "drizzle-orm";
import { indexedStateSql, stateFromRow, type IndexedState } from "../indexer/blocks.js";

export const q = (name: string) => `"${name.replaceAll('"', "")}"`;
export const columnsOf = (t: object) => Object.entries(getTableColumns(t as never)) as [string, Column][];
/** The quoted SQL name of property `key` of table `t`. */
export const colName = (t: object, key: string) => {
  const c = (getTableColumns(t as never) as Record<string, Column>)[key];
  if (!c) throw new Error(`no column ${key}`);
  return q(c.name);
};

/** `WITH st AS (<the indexed state>)`: a statement's first clause, so its rows share the state's snapshot. */
export const stateCte = (schema: string) => `WITH st AS (${indexedStateSql(schema)})`;
/** The state's columns of `st`, as `stateOfRow` reads them. */
export const stateCols = `st.latest_checkpoint AS "__cp", st.block_hash AS "__hash", st.log_index AS "__log"`;
export const stateOfRow = (r: Record<string, unknown> | undefined): IndexedState =>
  stateFromRow(r ? { latest_checkpoint: r.__cp as string | null, block_hash: r.__hash as string | null, log_index: r.__log as number | null } : undefined);
