/**
 * The latest indexed block (Ponder's `_ponder_checkpoint`, the table behind its `/status`), the
 * `X-Indexed-Block` header on every read, and `?minBlock=N`: a read waits up to
 * MIN_BLOCK_WAIT_MS for block N to be indexed, then answers 503 SERVICE_UNAVAILABLE
 * (Retry-After: 1) rather than stale data, so a client can read its own writes.
 */
import { createMiddleware } from "hono/factory";
import { db } from "ponder:api";
import { sql } from "ponder";
import { ApiError } from "../../../core/errors.js";
import { indexedStateSql, stateFromRow, type IndexedState, type StateRow } from "../../../core/indexer/blocks.js";
import { pgliteGate } from "./pgliteGate.js";
import { blockNotIndexed } from "../../../core/reads/errors.js";

export const MIN_BLOCK_WAIT_MS = 5_000;
const POLL_MS = 25;

/**
 * `state` identifies the indexed state exactly: the checkpoint (block, time) plus the last
 * event applied (its block hash pins the chain before it, so a reorg to another branch at the
 * same height gives another value). Read by one statement (core/indexer/blocks.ts).
 */
export type IndexedBlock = IndexedState;
export type IndexedBlockEnv = { Variables: { indexed: IndexedBlock; consistentAt?: IndexedBlock } };

/** Ponder's schema of this build (set by Ponder before it loads the API). */
export const ponderSchema = (): string =>
  (globalThis as unknown as { PONDER_NAMESPACE_BUILD: { schema: string } }).PONDER_NAMESPACE_BUILD.schema;

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
  let block = await getIndexedBlock();
  const deadline = Date.now() + MIN_BLOCK_WAIT_MS;
  while (block.number < minBlock) {
    if (Date.now() >= deadline) {
      c.header("X-Indexed-Block", block.number.toString());
      throw blockNotIndexed(minBlock, block.number);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
    block = await getIndexedBlock();
  }
  c.set("indexed", block);
  c.header("X-Indexed-Block", block.number.toString());
  await next();
});

/**
 * Runs a read so that everything it loads belongs to one indexed state: the checkpoint is read
 * again afterwards, and if anything was indexed meanwhile (Postgres commits a block's rows with its
 * checkpoint in one transaction), the read runs again at the new state; after 3 tries, 503 rather
 * than an answer of two blocks. On PGlite the state is read with the rows, indexing held off in
 * between (pgliteGate.ts: there a block's statements commit one by one). Time-dependent values
 * use `block.timestamp`. An answer sets `consistentAt`, which lets the response cache keep it.
 */
export async function readAtIndexedBlock<T>(
  c: { var: { indexed: IndexedBlock }; set: (k: "indexed" | "consistentAt", v: IndexedBlock) => void; header: (k: string, v: string) => void },
  load: (block: IndexedBlock) => Promise<T>,
): Promise<T> {
  const at = (b: IndexedBlock) => {
    c.set("indexed", b);
    c.header("X-Indexed-Block", b.number.toString());
  };
  const gate = pgliteGate();
  if (gate) {
    // PGlite: the state and the rows read with indexing held off in between (pgliteGate.ts), one try
    return gate.shared(async () => {
      const block = await readIndexedBlock();
      const result = await load(block);
      if (block.state !== c.var.indexed.state) at(block);
      c.set("consistentAt", block);
      return result;
    });
  }
  let block = c.var.indexed;
  for (let attempt = 0; ; attempt++) {
    const result = await load(block);
    const after = await readIndexedBlock();
    if (after.state === block.state) {
      c.set("consistentAt", block);
      return result;
    }
    // a block landed during each try: no answer rather than one of two blocks
    if (attempt === 2) throw new ApiError("SERVICE_UNAVAILABLE", "new blocks were indexed during each read; retry");
    block = after;
    at(block);
  }
}
