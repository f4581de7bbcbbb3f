/**
 * PGlite: an API read never sees part of a block (issue 12, "an answer belongs to one indexed block").
 *
 * On PGlite, Ponder 0.16's `qb.transaction(cb)` is no transaction: it runs `cb` on the same
 * session with every statement autocommitted (ponder/dist/esm/database/queryBuilder.js, the
 * non-postgres branch), because PGlite is one session and a real transaction would hold its lock
 * across the handlers' awaits. A live block's rows (the cache flush), its reorg rows and, last,
 * `_ponder_checkpoint` are so many commits, and a read of the API between two of them saw the
 * block's rows under the previous checkpoint (measured: 26-42 of ~335 answers per path while
 * trades landed, test/e2e/reads-consistency.test.ts). A crash in between is repaired by Ponder's
 * crash recovery on restart; visibility is what this gate restores.
 *
 * The gate: indexing's "transactions" (`userQB.transaction`, every block, backfill range and
 * revert) hold it exclusively; every statement of the API's `db` (Ponder's read-only query
 * builder, whose session gets a gated client) and every PGlite `transaction()` (only the API
 * calls it: Ponder's are the fake ones) holds it shared. Writers and readers alternate: a writer
 * waits for the statements already running, readers arriving meanwhile wait for the writer. Nested
 * calls of the same holder pass (AsyncLocalStorage); a read started by a writer's work (a NOTIFY's
 * listener) waits for that writer, which never awaits it. Postgres needs none: Ponder's transactions
 * are real there. Installed on Ponder's database by src/ponder/internals.ts `installPgliteGate`.
 */
import { AsyncLocalStorage } from "node:async_hooks";

type Holder = { kind: "read" | "write"; done: boolean };

/** A fair shared/exclusive lock of async work; nested calls of a holder pass through. */
export function blockGate() {
  const als = new AsyncLocalStorage<Holder>();
  let writer: Holder | null = null;
  let readers = 0;
  const writers: (() => void)[] = [];
  let waitingReaders: (() => void)[] = [];
  const startWriter = () => {
    const next = writers.shift();
    if (next) next();
  };
  // a holder that is done (its context inherited by later work) holds nothing; a read started
  // by a writer's work (a NOTIFY's listener) is no nested call: it waits for the writer
  const held = (kind: Holder["kind"]) => {
    const h = als.getStore();
    return h && !h.done && h.kind === kind;
  };
  return {
    async shared<T>(fn: () => Promise<T>): Promise<T> {
      if (held("read")) return fn();
      if (writer || writers.length) await new Promise<void>((r) => waitingReaders.push(r));
      else readers++;
      const h: Holder = { kind: "read", done: false };
      try {
        return await als.run(h, fn);
      } finally {
        h.done = true;
        if (--readers === 0 && !writer) startWriter();
      }
    },
    async exclusive<T>(fn: () => Promise<T>): Promise<T> {
      if (held("write")) return fn();
      const h: Holder = { kind: "write", done: false };
      await new Promise<void>((r) => {
        writers.push(() => {
          writer = h;
          r();
        });
        if (!writer && readers === 0) startWriter();
      });
      try {
        return await als.run(h, fn);
      } finally {
        h.done = true;
        writer = null;
        // the readers that waited go first, then the next writer once they are done
        const rs = waitingReaders;
        waitingReaders = [];
        readers += rs.length;
        for (const r of rs) r();
        if (readers === 0) startWriter();
      }
    },
    /** For tests: readers running, readers and writers waiting. */
    stats: () => ({ readers, writing: writer !== null, waitingReaders: waitingReaders.length, waitingWriters: writers.length }),
  };
}
export type BlockGate = ReturnType<typeof blockGate>;
