/**
 * The indexed-block feed: learn of each block Ponder has indexed, by push, after its rows are
 * committed. The read service holds per-block answers on it; the streams reuse it.
 *
 * The push is Ponder's own: every live block is committed in one transaction that updates
 * `_ponder_checkpoint`, whose statement trigger sends `NOTIFY "<schema>_live_query"` (the
 * channel of Ponder's live queries), delivered only after the commit. On each push the feed
 * reads the indexed state once (checkpoint + `indexed_head`, one statement) and tells its
 * listeners the block's number, time and hash. Two sources, one interface:
 *   - `pgBlockFeed`: `LISTEN` on Postgres directly (DATABASE_URL), any number of replicas;
 *   - `sseBlockFeed`: the integration API's `GET /blocks/stream` (server-sent events), which
 *     Ponder's process feeds from the same NOTIFY (in-process on PGlite, which no other
 *     process may open); its `revalidate` asks a thread of Ponder's process that indexing does
 *     not block, when Ponder advertises one (`STATE_URL_HEADER`).
 * No query runs per request: only one per pushed block, `revalidate()` on demand, and one every
 * `safetyPollMs` (1 s) in case a push was missed: Ponder sends none for blocks of its backfill;
 * the revert of a reorg is pushed by our own trigger (`revertSignalSql`), flagged `reverted`.
 */
import pg from "pg";
import { rawRequest } from "../http/raw-request.js";
import { readSseData } from "../http/sse.js";
import { overlappingReader } from "./overlapping-reader.js";

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

/** Ponder's live-query channel of a schema (ponder/drizzle/onchain getLiveQueryChannelName). */
export const liveQueryChannel = (schema: string) => `${schema}_live_query`;

/**
 * The revert signal. Ponder pushes nothing when it reverts a reorg's rows (its live-query NOTIFY
 * fires only in a live block's transaction), so the next pushed state could be read straight
 * from the new branch and look like an ordinary next block. A statement trigger on Ponder's
 * reorg table of `indexed_head` tells a revert apart: the revert deletes its newest rows after
 * dropping Ponder's own `reorg` trigger of `indexed_head` in the same transaction (finalization,
 * the only other deletion, runs with it in place), and then it sends `NOTIFY "<schema>_reverted"`,
 * delivered after the revert commits (payload `[]`: Ponder's own client on PGlite parses every
 * notification of the connection as a JSON list of tables). Installed (idempotent) by each feed's source once Ponder
 * has created its tables; a read of the state started after the signal is flagged `reverted`.
 */
export const revertedChannel = (schema: string) => `${schema}_reverted`;
/** Two statements (run one by one: PGlite's extended protocol takes one per query). */
export const revertSignalSql = (schema: string): [string, string] => [
  `CREATE OR REPLACE FUNCTION "${schema}".venue_reverted() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = '"${schema}"."indexed_head"'::regclass AND tgname = 'reorg') THEN
    PERFORM pg_notify('${revertedChannel(schema)}', '[]');
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE TRIGGER venue_reverted AFTER DELETE ON "${schema}"."_reorg__indexed_head"
  FOR EACH STATEMENT EXECUTE PROCEDURE "${schema}".venue_reverted()`,
];

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

/**
 * The feed straight from Postgres: LISTEN on a dedicated connection, a small pool for the state
 * reads (a prepared statement, reads overlapping: `revalidate`, a no-cache read's, is one round trip).
 */
export function pgBlockFeed(o: { databaseUrl: string; schema: string; safetyPollMs?: number; onError?: (e: unknown) => void }): BlockFeed {
  const h = feedHub();
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: 4 });
  let listener: pg.Client | undefined;
  let closed = false;
  const stateQuery = { name: "venue_indexed_state", text: indexedStateSql(o.schema) };
  const reverts = revertTracker(async () => stateFromRow((await pool.query<StateRow>(stateQuery)).rows[0]));
  const refresh = overlappingReader(reverts.read, h.push);
  // the revert signal's trigger, once Ponder's tables exist (retried by the poll until then)
  let installed = false;
  const install = async () => {
    if (installed) return;
    try {
      for (const q of revertSignalSql(o.schema)) await pool.query(q);
      installed = true;
    } catch {
      // Ponder's tables do not exist yet: the poll tries again
    }
  };
  const connect = async (): Promise<void> => {
    while (!closed) {
      try {
        const c = new pg.Client({ connectionString: o.databaseUrl });
        c.on("notification", (n) => {
          if (n.channel === revertedChannel(o.schema)) reverts.reverted();
          void refresh().catch((e) => o.onError?.(e));
        });
        c.on("error", (e) => {
          o.onError?.(e);
          c.end().catch(() => {});
          if (listener === c) listener = undefined;
          h.setLive(false);
          if (!closed) setTimeout(() => void connect(), 250);
        });
        await c.connect();
        await c.query(`LISTEN "${liveQueryChannel(o.schema)}"`);
        await c.query(`LISTEN "${revertedChannel(o.schema)}"`);
        listener = c;
        installed = false;
        await install();
        await refresh(); // what was indexed before we listened
        h.setLive(true);
        return;
      } catch (e) {
        o.onError?.(e);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  void connect();
  const poll = setInterval(() => {
    void install();
    void refresh().catch((e) => o.onError?.(e));
  }, o.safetyPollMs ?? 1_000);
  poll.unref();
  return {
    current: h.current,
    subscribe: h.subscribe,
    ready: h.ready,
    live: h.live,
    revalidate: () => refresh(),
    async close() {
      closed = true;
      clearInterval(poll);
      await listener?.end().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}

/**
 * The header of Ponder's `/blocks/current` and `/blocks/stream` that names a server answering
 * `GET /blocks/current` from a thread that indexing does not block (PGlite: src/api/lib/stateServer.ts).
 */
export const STATE_URL_HEADER = "X-Indexed-State-Url";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const isLoopback = (url: string) => {
  try {
    return LOOPBACK.has(new URL(url).hostname);
  } catch {
    return false;
  }
};

/**
 * The feed through the integration API: `GET {url}/blocks/stream` sends the state at once and
 * then on every new indexed block; reconnects after a drop. `revalidate` asks the state server
 * the API advertises (`STATE_URL_HEADER`, used only when both are on this host), else, or when it
 * does not answer 200, `GET {url}/blocks/current` (one state read in Ponder's process).
 */
export function sseBlockFeed(o: { url: string; headers?: Record<string, string>; onError?: (e: unknown) => void }): BlockFeed {
  const h = feedHub();
  const ctrl = new AbortController();
  let closed = false;
  // the advertised state server; one that could not be reached is skipped for a while
  const local = isLoopback(o.url);
  let direct: URL | undefined;
  let unreachable = { url: "", until: 0 };
  const learn = (res: Response) => {
    const u = res.headers.get(STATE_URL_HEADER) ?? undefined;
    if (u === direct?.href) return;
    direct = local && u && isLoopback(u) ? new URL(u) : undefined;
  };
  const run = async () => {
    while (!closed) {
      try {
        const res = await fetch(`${o.url}/blocks/stream`, { headers: { accept: "text/event-stream", ...o.headers }, signal: ctrl.signal });
        if (!res.ok || !res.body) throw new Error(`GET /blocks/stream answered ${res.status}`);
        learn(res);
        h.setLive(true);
        await readSseData(res.body, (data) => h.push(stateFromJson(data)));
      } catch (e) {
        if (closed) return;
        o.onError?.(e);
      }
      h.setLive(false);
      if (!closed) await new Promise((r) => setTimeout(r, 250));
    }
  };
  void run();
  const revalidate = serialReader(async () => {
    const d = direct;
    if (d && !(unreachable.url === d.href && Date.now() < unreachable.until)) {
      try {
        // node:http, kept alive: cheaper than fetch, on the path of every no-cache read
        const res = await rawRequest(d, "GET", {}, undefined, 1_000);
        // not 200: no state there yet, or a revert not read yet; Ponder's route answers
        if (res.status === 200) return stateFromJson(res.text);
      } catch (e) {
        unreachable = { url: d.href, until: Date.now() + 5_000 };
        o.onError?.(e);
      }
    }
    const res = await fetch(`${o.url}/blocks/current`, { headers: o.headers });
    if (!res.ok) throw new Error(`GET /blocks/current answered ${res.status}`);
    learn(res);
    return stateFromJson(await res.text());
  }, h.push);
  return {
    current: h.current,
    subscribe: h.subscribe,
    ready: h.ready,
    live: h.live,
    revalidate,
    async close() {
      closed = true;
      ctrl.abort();
    },
  };
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

/** The feed for a service's environment: Postgres when it has the indexer's database, else the API's stream. */
export function openBlockFeed(o: { databaseUrl?: string; schema?: string; integrationUrl: string; headers?: Record<string, string>; onError?: (e: unknown) => void }): BlockFeed {
  if (o.databaseUrl && o.schema) return pgBlockFeed({ databaseUrl: o.databaseUrl, schema: o.schema, onError: o.onError });
  return sseBlockFeed({ url: o.integrationUrl, headers: o.headers, onError: o.onError });
}
