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

export const MIN_BLOCK_WAIT_MS = 5_000;
const POLL_MS = 25;

export type IndexedBlock = { number: bigint; timestamp: bigint };
export type IndexedBlockEnv = { Variables: { indexed: IndexedBlock } };

/** Checkpoint string: 10 digits timestamp, 16 chain id, 16 block number, ... (ponder/utils/checkpoint). */
export function decodeCheckpoint(checkpoint: string): IndexedBlock {
  return { timestamp: BigInt(checkpoint.slice(0, 10)), number: BigInt(checkpoint.slice(26, 42)) };
}

export async function getIndexedBlock(): Promise<IndexedBlock> {
  const result = await db.execute(sql`SELECT latest_checkpoint FROM _ponder_checkpoint`);
  const rows = (result as unknown as { rows: { latest_checkpoint: string }[] }).rows;
  const checkpoint = rows[0]?.latest_checkpoint;
  return checkpoint ? decodeCheckpoint(checkpoint) : { number: 0n, timestamp: 0n };
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
      throw new ApiError("SERVICE_UNAVAILABLE", `block ${minBlock} is not indexed yet (indexed: ${block.number}); retry`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
    block = await getIndexedBlock();
  }
  c.set("indexed", block);
  c.header("X-Indexed-Block", block.number.toString());
  await next();
});

/**
 * Runs a read so that everything it loads belongs to one indexed block: the checkpoint is read
 * again afterwards, and if a block was indexed meanwhile (Ponder commits a block's rows with its
 * checkpoint), the read runs again at the new block (at most 3 times; then the last answer
 * stands). Time-dependent values use `block.timestamp`.
 */
export async function readAtIndexedBlock<T>(
  c: { var: { indexed: IndexedBlock }; set: (k: "indexed", v: IndexedBlock) => void; header: (k: string, v: string) => void },
  load: (block: IndexedBlock) => Promise<T>,
): Promise<T> {
  let block = c.var.indexed;
  for (let attempt = 0; ; attempt++) {
    const result = await load(block);
    const after = await getIndexedBlock();
    if (after.number === block.number || attempt === 2) return result;
    block = after;
    c.set("indexed", block);
    c.header("X-Indexed-Block", block.number.toString());
  }
}
