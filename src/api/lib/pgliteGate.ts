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
 * are real there. `PGLITE_BLOCK_GATE=off` leaves Ponder as it is (for A/B).
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

type Pglite = { query: (...a: unknown[]) => Promise<unknown>; exec: (...a: unknown[]) => Promise<unknown>; transaction: (...a: unknown[]) => Promise<unknown> };
type Qb = { transaction: (...a: unknown[]) => Promise<unknown>; _: { session: { client: unknown } } };
type PonderDatabase = { driver: { dialect: string; instance?: Pglite }; userQB: Qb; readonlyQB: Qb };

const KEY = Symbol.for("venue.pgliteBlockGate");

/** The installed gate (PGlite only), else undefined. */
export const pgliteGate = (): BlockGate | undefined => (globalThis as Record<symbol, BlockGate | undefined>)[KEY];

/**
 * Installs the gate on Ponder's database (once per process; before indexing starts: Ponder loads
 * the API before it runs the indexing). A no-op on Postgres.
 */
export function installPgliteGate(): BlockGate | undefined {
  const g = globalThis as Record<symbol, BlockGate | undefined> & { PONDER_DATABASE?: PonderDatabase };
  if (g[KEY]) return g[KEY];
  const database = g.PONDER_DATABASE;
  const instance = database?.driver.instance;
  if (database?.driver.dialect !== "pglite" || !instance || process.env.PGLITE_BLOCK_GATE === "off") return undefined;
  const gate = blockGate();
  // writers: Ponder's indexing "transactions" (the tx they pass on is userQB itself: nested calls pass)
  const fake = database.userQB.transaction.bind(database.userQB);
  database.userQB.transaction = (...args: unknown[]) => gate.exclusive(() => fake(...args));
  // readers: the API's db (drizzle reads `session.client` at each statement) and PGlite's own transactions
  const session = database.readonlyQB._.session;
  session.client = new Proxy(instance, {
    get(target, prop) {
      if (prop === "query" || prop === "exec" || prop === "transaction") {
        return (...a: unknown[]) => gate.shared(() => (target[prop] as (...x: unknown[]) => Promise<unknown>)(...a));
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const transaction = instance.transaction.bind(instance);
  instance.transaction = (...a: unknown[]) => gate.shared(() => transaction(...a));
  g[KEY] = gate;
  return gate;
}
