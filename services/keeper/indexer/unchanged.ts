/**
 * A keeper round over the index (and the chain's head) finds what the previous round found while
 * neither has moved: the rows are the index's at its block, the chain's time and marks are its
 * head's, and whatever a round sent waits until a newer indexed block (IndexHolds). Such a round
 * is skipped until `maxAgeMs` has passed since the last one that ran (a reorg can replace a block
 * with one of the same number): an idle venue's keeper asks the indexer every few seconds instead
 * of every loop period.
 */
export const RERUN_UNCHANGED_MS = 5_000;

/** A round's key: the indexed block it read and, for a round that reads the chain's time or marks, the chain's head. */
export const roundKey = (indexed: { number: bigint; timestamp: bigint }, head?: bigint): string =>
  head === undefined ? `${indexed.number}:${indexed.timestamp}` : `${indexed.number}:${indexed.timestamp}:${head}`;

export class UnchangedRounds {
  private last: { key: string; atMs: number } | null = null;

  constructor(private readonly maxAgeMs = RERUN_UNCHANGED_MS) {}

  /** Whether a round at `key` (what it reads: the indexed block, the chain's head) ran less than maxAgeMs before `nowMs`. */
  unchanged(key: string, nowMs = Date.now()): boolean {
    return this.last !== null && this.last.key === key && nowMs - this.last.atMs < this.maxAgeMs;
  }

  /** A round at `key`, started at `atMs`, completed. */
  ran(key: string, atMs: number): void {
    this.last = { key, atMs };
  }
}
