/**
 * The indexed-block feed's interface and bookkeeping, whatever its source (pg-feed.ts: LISTEN on
 * Postgres; sse-feed.ts: the integration API's stream): the listeners, the serial and revert-aware
 * state reads, and the channels Ponder's database pushes on.
 */
import { EMPTY_STATE, type IndexedState } from "./indexed-state.js";

/** Ponder's live-query channel of a schema (ponder/drizzle/onchain getLiveQueryChannelName). */
export const liveQueryChannel = (schema: string) => `${schema}_live_query`;

/**
 * The revert signal's channel. Ponder pushes nothing when it reverts a reorg's rows, so the
 * indexer's own trigger on Ponder's reorg table of `indexed_head` (src/ponder/internals.ts
 * `revertSignalSql`, installed by the indexer) sends `NOTIFY "<schema>_reverted"` after a revert
 * commits; a read of the state started after the signal is flagged `reverted`.
 */
export const revertedChannel = (schema: string) => `${schema}_reverted`;

/** Wraps a state read: a read that started after `reverted()` was called returns its state flagged. */
export function revertTracker(read: () => Promise<IndexedState>) {
  let signals = 0;
  let flagged = 0;
  return {
    reverted() {
      signals++;
    },
    async read(): Promise<IndexedState> {
      const at = signals;
      const s = await read();
      if (at === flagged) return s;
      flagged = at;
      return { ...s, reverted: true };
    },
  };
}

export type BlockListener = (s: IndexedState) => void;

export interface BlockFeed {
  /** The latest state pushed (EMPTY_STATE until the first). */
  current(): IndexedState;
  /** Called on every new indexed state, in order; returns the unsubscribe. */
  subscribe(fn: BlockListener): () => void;
  /** Reads the indexed state at the source now (one query), and pushes it if it is new. */
  revalidate(): Promise<IndexedState>;
  /** Resolves once the first state is known. */
  ready: Promise<void>;
  /**
   * True while pushes can arrive (the LISTEN connection or the stream is up): a consumer that
   * holds answers per state must not trust them while this is false, since a block may pass unseen.
   */
  live(): boolean;
  close(): Promise<void>;
}

/** The listener bookkeeping of a feed: only a changed state is passed on. */
export function feedHub() {
  let cur = EMPTY_STATE;
  let up = false;
  const listeners = new Set<BlockListener>();
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  return {
    ready,
    current: () => cur,
    live: () => up,
    setLive(v: boolean) {
      up = v;
    },
    subscribe(fn: BlockListener) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    push(s: IndexedState) {
      resolveReady();
      if (s.state === cur.state) return;
      cur = s;
      for (const fn of listeners) fn(s);
    },
  };
}

/**
 * Reads of the state, one at a time: a caller gets a read that started after it called (a read
 * already running may predate a commit it must see), and every caller arriving during a read
 * shares the one read that follows it.
 */
export function serialReader(read: () => Promise<IndexedState>, push: (s: IndexedState) => void): () => Promise<IndexedState> {
  let current: Promise<IndexedState> | null = null;
  let next: Promise<IndexedState> | null = null;
  const refresh = (): Promise<IndexedState> => {
    if (!current) {
      current = read()
        .then((s) => (push(s), s))
        .finally(() => {
          current = null;
        });
      return current;
    }
    next ??= current
      .catch(() => undefined)
      .then(() => {
        next = null;
        return refresh();
      });
    return next;
  };
  return refresh;
}

/** Resolves true once the feed reaches block `n`, false after `timeoutMs`. */
export function waitForIndexedBlock(feed: BlockFeed, n: bigint, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (feed.current().number >= n) return resolve(true);
    const timer = setTimeout(() => {
      off();
      resolve(false);
    }, timeoutMs);
    const off = feed.subscribe((s) => {
      if (s.number < n) return;
      clearTimeout(timer);
      off();
      resolve(true);
    });
  });
}

