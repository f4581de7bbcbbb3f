/**
 * `?minBlock=N`'s bounded wait, one loop for every server that polls the database for it: Ponder's
 * read middleware (src/api/lib/indexedBlock.ts), the batch route (src/api/routes/answers.ts) and
 * the read service's builds from the tables (services/reads/tables.ts). Each turn reads what its
 * caller needs at the indexed state (the state alone, or the state and the rows in one snapshot);
 * below N it reads again every POLL_MS until `ms` after the start, then the caller answers
 * `blockNotIndexed`'s 503 (errors.ts, Retry-After: 1) at the last read's block (its
 * `X-Indexed-Block`). The read service's app waits on its block feed instead (a push, no polling).
 */
import type { ApiError } from "../errors.js";
import { blockNotIndexed } from "./errors.js";

export const MIN_BLOCK_POLL_MS = 25;

/** One turn's read: the indexed block it saw and what it read there. */
export type BlockRead<T> = { block: bigint; value: T };
/** The first read at `minBlock` or later; or, after the bound, the last read and the 503 to answer. */
export type MinBlockWait<T> = BlockRead<T> & { error?: ApiError };

export async function waitForMinBlock<T>(read: () => Promise<BlockRead<T>>, minBlock: bigint, ms: number, pollMs = MIN_BLOCK_POLL_MS): Promise<MinBlockWait<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await read();
    if (r.block >= minBlock) return r;
    if (Date.now() >= deadline) return { ...r, error: blockNotIndexed(minBlock, r.block) };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
