/**
 * One indexed state of Ponder's database: its value (`IndexedState`), the one statement that reads
 * it (Ponder's `_ponder_checkpoint` and the venue's `indexed_head`), and its wire form.
 */
/** Ponder's checkpoint string: 10 digits timestamp, 16 chain id, 16 block number, ... */
export function decodeCheckpoint(checkpoint: string): { timestamp: bigint; number: bigint } {
  return { timestamp: BigInt(checkpoint.slice(0, 10)), number: BigInt(checkpoint.slice(26, 42)) };
}

/**
 * One indexed state. `state` identifies it exactly: the checkpoint plus the last event applied
 * (its block hash pins the chain before it, so a reorg to another branch gives another value).
 * `hash` is the block hash of the last venue event indexed (null before any).
 */
export type IndexedState = {
  number: bigint;
  timestamp: bigint;
  hash: string | null;
  state: string;
  /**
   * Set when the feed knows rows were reverted since the previous state it pushed (a reorg):
   * answers of the previous state may belong to an orphaned branch, so a consumer must not
   * carry them over while it rebuilds. Absent on an ordinary new block.
   */
  reverted?: true;
};
export const EMPTY_STATE: IndexedState = { number: 0n, timestamp: 0n, hash: null, state: "" };

/** The one statement that reads the indexed state (Ponder's schema given; `indexed_head` is ours). */
export const indexedStateSql = (schema: string) =>
  `SELECT c.latest_checkpoint, h.block_hash, h.log_index FROM "${schema}"."_ponder_checkpoint" c LEFT JOIN "${schema}"."indexed_head" h ON h.id = 0 LIMIT 1`;

export type StateRow = { latest_checkpoint: string | null; block_hash: string | null; log_index: number | null };

export function stateFromRow(row: StateRow | undefined): IndexedState {
  if (!row?.latest_checkpoint) return EMPTY_STATE;
  return {
    ...decodeCheckpoint(row.latest_checkpoint),
    hash: row.block_hash,
    state: `${row.latest_checkpoint}:${row.block_hash}:${row.log_index}`,
  };
}

/** Wire form of a state (SSE data): bigints as decimal strings. */
export const stateToJson = (s: IndexedState) =>
  JSON.stringify({ number: s.number.toString(), timestamp: s.timestamp.toString(), hash: s.hash, state: s.state, ...(s.reverted ? { reverted: true } : {}) });
export function stateFromJson(text: string): IndexedState {
  const o = JSON.parse(text) as { number: string; timestamp: string; hash: string | null; state: string; reverted?: boolean };
  const s: IndexedState = { number: BigInt(o.number), timestamp: BigInt(o.timestamp), hash: o.hash, state: o.state };
  if (o.reverted === true) s.reverted = true;
  return s;
}

/**
 * Whether `next` follows `prev` forward on the same branch as far as the feed can tell: a higher
 * block and no revert seen in between. Only then may answers of `prev` be served while the ones
 * of `next` are being built (they were the newest a moment ago, and stay true of block `prev`).
 */
export const advancedFrom = (prev: IndexedState, next: IndexedState) => next.number > prev.number && !next.reverted && prev.state !== "";
