/**
 * The latest indexed block (Ponder's `_ponder_checkpoint`, the table behind its `/status`), the
 * `X-Indexed-Block` header on every read, and `?minBlock=N`: a read waits up to
 * MIN_BLOCK_WAIT_MS (env, default 5 s) for block N to be indexed, then answers 503 SERVICE_UNAVAILABLE
 * (Retry-After: 1) rather than stale data, so a client can read its own writes.
 */
import { createMiddleware } from "hono/factory";
import { db } from "ponder:api";
import { sql } from "ponder";
import { ApiError } from "../../../core/errors.js";
import { indexedStateSql, stateFromRow, type IndexedState, type StateRow } from "../../../core/indexer/indexed-state.js";
import { pgliteGate, pgSnapshot, ponderSchema } from "../../ponder/internals.js";
import { waitForMinBlock } from "../../../core/reads/min-block.js";
import { positiveIntEnv } from "./env.js";

/** The `?minBlock` wait bound, ms: MIN_BLOCK_WAIT_MS (default 5000), as the read service's. */
export const MIN_BLOCK_WAIT_MS = positiveIntEnv("MIN_BLOCK_WAIT_MS", 5_000);

/**
 * `state` identifies the indexed state exactly: the checkpoint (block, time) plus the last
 * event applied (its block hash pins the chain before it, so a reorg to another branch at the
 * same height gives another value). Read by one statement (core/indexer/indexed-state.ts).
 */
export type IndexedBlock = IndexedState;
export type IndexedBlockEnv = { Variables: { indexed: IndexedBlock } };

/** Ponder's schema of this build (src/ponder/internals.ts). */
export { ponderSchema };

/** One statement, so the checkpoint and the head come from one snapshot. */
export async function readIndexedBlock(): Promise<IndexedBlock> {
  const result = await db.execute(sql.raw(indexedStateSql(ponderSchema())));
  return stateFromRow((result as unknown as { rows: StateRow[] }).rows[0]);
}

let inflight: Promise<IndexedBlock> | null = null;
/**
 * The latest indexed block, shared by concurrent requests (one query in flight at a time). Only
 * for where a read starts: a consistency check after loading must call `readIndexedBlock`.
 */
export function getIndexedBlock(): Promise<IndexedBlock> {
  inflight ??= readIndexedBlock().finally(() => {
    inflight = null;
  });
  return inflight;
}

const MIN_BLOCK_RE = /^\d{1,15}$/;

/** Route middleware of every read: waits for `minBlock`, exposes the block, sets the header. */
export const indexedBlock = createMiddleware<IndexedBlockEnv>(async function indexedBlock(c, next) {
  const raw = c.req.query("minBlock");
  if (raw !== undefined && !MIN_BLOCK_RE.test(raw)) {
    throw new ApiError("VALIDATION_ERROR", "minBlock: must be a non-negative integer block number");
  }
  const minBlock = raw === undefined ? 0n : BigInt(raw);
  const w = await waitForMinBlock(async () => {
    const b = await getIndexedBlock();
    return { block: b.number, value: b };
  }, minBlock, MIN_BLOCK_WAIT_MS);
  c.header("X-Indexed-Block", w.block.toString());
  if (w.error) throw w.error;
  c.set("indexed", w.value);
  await next();
});

/**
 * Runs a read so that everything it loads belongs to one indexed state, read with the rows: on
 * Postgres in one read-only REPEATABLE READ snapshot (pgSnapshot.ts: the state, then every
 * statement of the API's `db` in the load, on one connection), on PGlite with indexing held off
 * in between (pgliteGate.ts: there a block's statements commit one by one). One try: a block
 * indexed meanwhile is simply not seen, so no retry and no 503 for it. When the state moved since
 * the middleware's read, the answer carries its own (`X-Indexed-Block`). Time-dependent values
 * use `block.timestamp`.
 */
export async function readAtIndexedBlock<T>(
  c: { var: { indexed: IndexedBlock }; set: (k: "indexed", v: IndexedBlock) => void; header: (k: string, v: string) => void },
  load: (block: IndexedBlock) => Promise<T>,
): Promise<T> {
  const at = async (block: IndexedBlock) => {
    const result = await load(block);
    if (block.state !== c.var.indexed.state) {
      c.set("indexed", block);
      c.header("X-Indexed-Block", block.number.toString());
    }
    return result;
  };
  const gate = pgliteGate();
  if (gate) return gate.shared(async () => at(await readIndexedBlock()));
  const snapshot = pgSnapshot();
  if (!snapshot) throw new Error("readAtIndexedBlock: neither the PGlite block gate nor the Postgres snapshot is installed");
  return snapshot(indexedStateSql(ponderSchema()), (rows) => at(stateFromRow(rows[0] as StateRow | undefined)));
}
