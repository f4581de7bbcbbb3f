/**
 * The one door to Ponder's internals (docs/ARCHITECTURE.md, "Ponder boundary").
 *
 * Everything the venue uses of Ponder beyond its documented API goes through this module: the
 * globals Ponder sets before it loads the API (`PONDER_DATABASE`, `PONDER_COMMON`,
 * `PONDER_NAMESPACE_BUILD`, `PONDER_PRE_BUILD`), the run-time replacements of its PGlite
 * "transactions" and of its read-only client (the block gate and the read snapshot), its read-only
 * pool's statement timeout, its metrics registry and health check, and the trigger on its internal
 * reorg table of `indexed_head`. Each of these was read off Ponder SUPPORTED_PONDER_VERSION's
 * compiled code and may change in any release: loading this module on another installed version
 * throws, with the steps to take, before anything runs. Upgrading Ponder means re-reading each
 * function here against the new release and the patches in patches/ (one file per change).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { blockGate, type BlockGate } from "../api/lib/pgliteGate.js";
import { snapshotOn, type PgSnapshot } from "../api/lib/pgSnapshot.js";

/** The Ponder release every function below (and every file in patches/) was written against. */
export const SUPPORTED_PONDER_VERSION = "0.16.10";

/** The version of the `ponder` package Node resolves from here (undefined if none is installed). */
export function installedPonderVersion(from: string = import.meta.url): string | undefined {
  const paths = createRequire(from).resolve.paths("ponder") ?? [];
  for (const dir of paths) {
    const file = join(dir, "ponder", "package.json");
    if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  }
  return undefined;
}

/** Why `installed` cannot run the venue's indexer (undefined: it can). */
export function ponderVersionProblem(installed: string | undefined): string | undefined {
  if (installed === SUPPORTED_PONDER_VERSION) return undefined;
  return (
    `Ponder ${installed ?? "(not installed)"} is installed, but the venue's indexer is written against Ponder ${SUPPORTED_PONDER_VERSION} ` +
      `(its internals: src/ponder/internals.ts; its patches: patches/ponder+${SUPPORTED_PONDER_VERSION}+*.patch). ` +
      `Run \`npm ci\` to install ${SUPPORTED_PONDER_VERSION}, or port src/ponder/internals.ts and the patches to ${installed} and raise SUPPORTED_PONDER_VERSION.`
  );
}

/** Throws unless the installed Ponder is the one this module was written against. */
export function assertPonderVersion(): void {
  const problem = ponderVersionProblem(installedPonderVersion());
  if (problem) throw new Error(problem);
}

assertPonderVersion();

type PgClient = { query: (...a: unknown[]) => Promise<unknown>; release: (err?: Error | boolean) => void };
type PgPool = {
  connect: () => Promise<PgClient>;
  query: (...a: unknown[]) => Promise<unknown>;
  options: Record<string, unknown>;
  totalCount: number;
};
type Pglite = {
  query: (...a: unknown[]) => Promise<unknown>;
  exec: (...a: unknown[]) => Promise<unknown>;
  transaction: (...a: unknown[]) => Promise<unknown>;
  listen: (channel: string, cb: (payload: string) => void) => Promise<unknown>;
};
type Qb = { transaction: (...a: unknown[]) => Promise<unknown>; _: { session: { client: unknown } } };
type Driver = { dialect: "pglite"; instance: Pglite } | { dialect: "postgres"; readonly: PgPool; user: PgPool };
type PonderDatabase = { driver: Driver; userQB: Qb; readonlyQB: Qb };
type PonderCommon = {
  metrics: { getMetrics: () => Promise<string> };
  logger: { warn: (o: Record<string, unknown>) => void; info: (o: Record<string, unknown>) => void };
  /** Read by patches/ponder+0.16.10+004+venue.patch's `/health`: a reason makes it answer 503. */
  healthCheck?: () => string | undefined;
};
type Globals = {
  PONDER_DATABASE?: PonderDatabase;
  PONDER_COMMON?: PonderCommon;
  PONDER_NAMESPACE_BUILD?: { schema: string };
  PONDER_PRE_BUILD?: { ordering: string };
};
const g = globalThis as unknown as Globals & Record<symbol, unknown>;

function database(): PonderDatabase {
  const d = g.PONDER_DATABASE;
  if (!d) throw new Error("Ponder's database is not set: src/ponder/internals.ts runs only inside Ponder's process, after its build");
  return d;
}

/** True inside Ponder's process (the API and indexing loaded by Ponder), false elsewhere (unit tests, scripts). */
export const insidePonder = (): boolean => g.PONDER_DATABASE !== undefined;

/** "pglite" or "postgres": the database Ponder was started with. */
export const ponderDialect = (): "pglite" | "postgres" => database().driver.dialect;

/** Ponder's schema of this build (set by Ponder before it loads the API). */
export function ponderSchema(): string {
  const n = g.PONDER_NAMESPACE_BUILD;
  if (!n) throw new Error("Ponder's schema is not set: src/ponder/internals.ts runs only inside Ponder's process");
  return n.schema;
}

/**
 * The venue's patch changes only the `multichain` runtime (ponder.config.ts `ordering`): refuses
 * to run under another ordering, whose runtime would run unpatched.
 */
export function assertMultichainOrdering(): void {
  const ordering = g.PONDER_PRE_BUILD?.ordering;
  if (ordering !== undefined && ordering !== "multichain") {
    throw new Error(`ponder.config.ts: ordering "${ordering}": the venue runs Ponder's "multichain" ordering only (patches/ponder+${SUPPORTED_PONDER_VERSION}+004+venue.patch patches that runtime)`);
  }
}

/** Ponder's logger (console outside Ponder's process). */
export const ponderLogger = (): Pick<PonderCommon["logger"], "warn" | "info"> =>
  g.PONDER_COMMON?.logger ?? { warn: (o) => console.warn(JSON.stringify(o)), info: (o) => console.log(JSON.stringify(o)) };

/**
 * Ponder's metrics registry (what its `/metrics` serves): `read` gives Ponder's text, `serve`
 * replaces what `/metrics` answers. Undefined outside Ponder's process.
 */
export function ponderMetrics(): { read: () => Promise<string>; serve: (text: () => Promise<string>) => void } | undefined {
  const metrics = g.PONDER_COMMON?.metrics;
  if (!metrics) return undefined;
  const read = metrics.getMetrics.bind(metrics);
  return {
    read,
    serve: (text) => {
      metrics.getMetrics = text;
    },
  };
}

/** Makes Ponder's `/health` answer 503 with the reason `check` returns (200 while it returns undefined). */
export function setHealthCheck(check: () => string | undefined): void {
  const common = g.PONDER_COMMON;
  if (common) common.healthCheck = check;
}

/** Subscribes to a NOTIFY channel of Ponder's PGlite (in this process); PGlite only. */
export function listenPglite(channel: string, cb: (payload: string) => void): Promise<unknown> {
  const driver = database().driver;
  if (driver.dialect !== "pglite") throw new Error("listenPglite: Ponder runs on Postgres");
  return driver.instance.listen(channel, cb);
}

/**
 * Postgres: `statement_timeout` of every connection Ponder's read-only pool opens from now on (the
 * API's `db`, `/sql/*`, `/status`; Ponder's default 30 s). Called at the API's load, before the
 * pool's first connection. A no-op on PGlite (which has no statement timeout).
 */
export function setReadonlyStatementTimeout(ms: number): void {
  if (!insidePonder()) return;
  const driver = database().driver;
  if (driver.dialect !== "postgres") return;
  driver.readonly.options.statement_timeout = ms;
  if (driver.readonly.totalCount > 0) ponderLogger().warn({ msg: "Ponder's read-only pool has connections already: they keep the previous statement_timeout until recycled" });
}

const GATE = Symbol.for("venue.pgliteBlockGate");
const SNAPSHOT = Symbol.for("venue.pgReadSnapshot");

/**
 * PGlite: the block gate (src/api/lib/pgliteGate.ts) around Ponder's indexing "transactions"
 * (`userQB.transaction`, which on PGlite autocommits each statement) and every statement of the
 * API's read-only `db` and every PGlite `transaction()`. Once per process, before indexing
 * starts (Ponder loads the API first). A no-op on Postgres, whose transactions are real.
 */
export function installPgliteGate(): BlockGate | undefined {
  if (g[GATE]) return g[GATE] as BlockGate;
  const d = g.PONDER_DATABASE;
  if (d?.driver.dialect !== "pglite") return undefined;
  const instance = d.driver.instance;
  const gate = blockGate();
  // writers: Ponder's indexing "transactions" (the tx they pass on is userQB itself: nested calls pass)
  const fake = d.userQB.transaction.bind(d.userQB);
  d.userQB.transaction = (...args: unknown[]) => gate.exclusive(() => fake(...args));
  // readers: the API's db (drizzle reads `session.client` at each statement) and PGlite's own transactions
  d.readonlyQB._.session.client = new Proxy(instance, {
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
  g[GATE] = gate;
  return gate;
}

/** The installed block gate (PGlite), else undefined. */
export const pgliteGate = (): BlockGate | undefined => g[GATE] as BlockGate | undefined;

/**
 * Postgres: the read snapshot (src/api/lib/pgSnapshot.ts) on Ponder's read-only `db` (its
 * session's client replaced by a proxy of the pool that routes a pinned read's statements).
 * Installed at the first call, once per process; undefined on PGlite.
 */
export function pgSnapshot(): PgSnapshot | undefined {
  const installed = g[SNAPSHOT] as PgSnapshot | null | undefined;
  if (installed !== undefined) return installed ?? undefined;
  const d = g.PONDER_DATABASE;
  if (d?.driver.dialect !== "postgres") {
    g[SNAPSHOT] = null;
    return undefined;
  }
  const { snapshot, client } = snapshotOn(d.driver.readonly);
  d.readonlyQB._.session.client = client;
  g[SNAPSHOT] = snapshot;
  return snapshot;
}

/** A statement runner of one read transaction. */
export type Exec = (s: { text: string }, values?: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * One read transaction on Ponder's database, every statement of `work` in it: on PGlite its
 * `transaction()` (BEGIN … COMMIT under its lock and the block gate's shared hold: no part of a
 * block commits in between), on Postgres a connection of the read-only pool in a REPEATABLE READ
 * READ ONLY snapshot.
 */
export async function readTransaction<T>(work: (exec: Exec) => Promise<T>): Promise<T> {
  const driver = database().driver;
  if (driver.dialect === "pglite") {
    type Tx = { query: (text: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }> };
    const instance = driver.instance as unknown as { transaction: (f: (tx: Tx) => Promise<T>) => Promise<T> };
    return instance.transaction((tx) => work(async (s, values) => (await tx.query(s.text, values)).rows));
  }
  type Client = { query: (q: string | { text: string; values?: unknown[] }) => Promise<{ rows: Record<string, unknown>[] }>; release: () => void };
  const client = (await driver.readonly.connect()) as unknown as Client;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const out = await work(async (s, values) => (await client.query({ text: s.text, values })).rows);
    await client.query("COMMIT");
    return out;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/**
 * The revert signal (core/indexer/feed.ts `revertedChannel`). Ponder pushes nothing when it
 * reverts a reorg's rows (its live-query NOTIFY fires only in a live block's transaction), so the
 * next pushed state could be read straight from the new branch and look like an ordinary next
 * block. A statement trigger on Ponder's reorg table of `indexed_head` (`_reorg__indexed_head`)
 * tells a revert apart: the revert deletes its newest rows after dropping Ponder's own `reorg`
 * trigger of `indexed_head` in the same transaction (finalization, the only other deletion, runs
 * with it in place), and then it sends `NOTIFY "<schema>_reverted"`, delivered after the revert
 * commits (payload `[]`: Ponder's own client on PGlite parses every notification of the
 * connection as a JSON list of tables). Two statements, run one by one (PGlite's extended
 * protocol takes one per query).
 */
export const revertSignalSql = (schema: string, channel: string): [string, string] => [
  `CREATE OR REPLACE FUNCTION "${schema}".venue_reverted() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = '"${schema}"."indexed_head"'::regclass AND tgname = 'reorg') THEN
    PERFORM pg_notify('${channel}', '[]');
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE TRIGGER venue_reverted AFTER DELETE ON "${schema}"."_reorg__indexed_head"
  FOR EACH STATEMENT EXECUTE PROCEDURE "${schema}".venue_reverted()`,
];

/**
 * Installs the revert signal's trigger through Ponder's own database connection (PGlite: its one
 * session; Postgres: its user pool, which may write), retried every `retryMs` until Ponder's
 * tables exist. Once per process.
 */
export function installRevertSignal(channel: string, retryMs = 1_000): Promise<void> {
  const KEY = Symbol.for("venue.revertSignal");
  if (g[KEY]) return g[KEY] as Promise<void>;
  const run = async () => {
    const driver = database().driver;
    for (const q of revertSignalSql(ponderSchema(), channel)) {
      if (driver.dialect === "postgres") await driver.user.query(q);
      else {
        const exec = () => driver.instance.exec(q);
        // never between two of a block's statements (PGlite's are autocommitted one by one)
        await (pgliteGate()?.shared(exec) ?? exec());
      }
    }
  };
  const done = (async () => {
    for (;;) {
      try {
        return await run();
      } catch {
        await new Promise((r) => setTimeout(r, retryMs));
      }
    }
  })();
  g[KEY] = done;
  return done;
}
