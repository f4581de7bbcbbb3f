/**
 * State reads that may overlap, for a feed whose source takes concurrent queries (Postgres): a
 * caller gets a read that started after it called, callers of one turn of the event loop share
 * one read (started at `setImmediate`), and a read's state is passed on only if no read started
 * after it has been passed on already, so the feed never steps back to an older state.
 *
 * Unlike `serialReader` (blocks.ts: one read at a time, a caller arriving during a read waits for
 * it and then for the next), a `Cache-Control: no-cache` read costs one round trip, not up to two.
 */
import type { IndexedState } from "./indexed-state.js";

export function overlappingReader(read: () => Promise<IndexedState>, push: (s: IndexedState) => void): () => Promise<IndexedState> {
  let pending: Promise<IndexedState> | null = null;
  let started = 0;
  let pushed = 0;
  return () => {
    pending ??= new Promise<IndexedState>((resolve, reject) => {
      setImmediate(() => {
        pending = null;
        const seq = ++started;
        read().then((s) => {
          if (seq > pushed) {
            pushed = seq;
            push(s);
          }
          resolve(s);
        }, reject);
      });
    });
    return pending;
  };
}
