/**
 * patches/ponder+0.16.10.patch: on PGlite Ponder's live-query table (the names of the tables a
 * block wrote, read by the checkpoint's NOTIFY for `/sql/*`'s cached results and live queries)
 * is created once and emptied only at the start of a block, and only when a client() middleware
 * holds something that references a name it still holds (ponder/dist/esm/database/live-query-tables.js).
 * So a payload is never missing a table written since the previous one (no truncate between a
 * write and its NOTIFY), and it is exactly upstream's whenever a consumer could tell.
 */
import { afterEach, describe, expect, it } from "vitest";

type Tx = { wrap: (f: (tx: { execute: (q: string) => Promise<void> }) => Promise<void>, context?: unknown) => Promise<void> };
type Module = {
  registerLiveQueryConsumer: (instance: object, inUse: (names: Set<string> | undefined) => boolean) => (tables: string[]) => void;
  prepareLiveQueryTable: (tx: Tx, instance: object, table: string, context?: unknown) => Promise<void>;
  finishLiveQueryTable: (tx: Tx, instance: object, table: string, context?: unknown) => Promise<void>;
  liveQueryTableStats: (instance: object) => { truncates: number; skips: number; consumers: number; held: string[] | null };
};
const ponderEsm = new URL("../../node_modules/ponder/dist/esm/database/", import.meta.url);
const m = (await import(new URL("live-query-tables.js", ponderEsm).href)) as Module;

/** A stand-in for Ponder's block "transaction": the statements it was given. */
function fakeTx() {
  const statements: string[] = [];
  const tx: Tx = { wrap: async (f) => f({ execute: async (q) => void statements.push(q.replace(/\s+/g, " ").trim()) }) };
  return { tx, statements };
}

/** A block as the runtime runs it on PGlite: prepare, (the writes), the NOTIFY's payload to the consumers, finish. */
async function block(instance: object, notify: ((t: string[]) => void)[], written: string[], payloadBefore: () => string[]) {
  const { tx, statements } = fakeTx();
  await m.prepareLiveQueryTable(tx, instance, "live_query_tables");
  // the table holds what it held (unless emptied just now) and this block's names
  const held = statements.some((s) => s.startsWith("TRUNCATE")) ? [] : payloadBefore();
  const payload = [...new Set([...held, ...written])].sort();
  for (const n of notify) n(payload);
  await m.finishLiveQueryTable(tx, instance, "live_query_tables");
  return { statements, payload };
}

describe("Ponder's live-query table on PGlite (patch)", () => {
  afterEach(() => {
    delete process.env.VENUE_LIVE_QUERY_TRUNCATE;
  });

  it("created once; never emptied while no consumer references what it holds (payloads are supersets)", async () => {
    const instance = {};
    const cached = new Set<Set<string>>();
    const noted = m.registerLiveQueryConsumer(instance, (names) => [...cached].some((refs) => names === undefined || [...refs].some((t) => names.has(t))));
    let last: string[] = [];
    const run = async (written: string[]) => {
      const r = await block(instance, [noted], written, () => last);
      last = r.payload;
      return r;
    };
    const b1 = await run(["orders", "account"]);
    expect(b1.statements).toEqual(["CREATE TEMP TABLE IF NOT EXISTS live_query_tables (table_name TEXT PRIMARY KEY)"]);
    const b2 = await run(["index_price"]);
    expect(b2.statements).toEqual([]);
    // nothing referenced: the payload names the earlier block's tables too (a superset: nothing to drop)
    expect(b2.payload).toEqual(["account", "index_price", "orders"]);
    // a cached /sql result on `orders` (still named by the table): emptied before the next block's writes
    cached.add(new Set(["orders"]));
    const b3 = await run(["index_price"]);
    expect(b3.statements).toEqual(["TRUNCATE TABLE live_query_tables"]);
    expect(b3.payload).toEqual(["index_price"]); // upstream's payload exactly
    // a reference to a table the table does not hold: no truncate
    cached.clear();
    cached.add(new Set(["position"]));
    const b4 = await run(["orders"]);
    expect(b4.statements).toEqual([]);
    expect(b4.payload).toEqual(["index_price", "orders"]);
    // every table written is in its block's payload, whatever was skipped
    for (const written of [["position"], ["market_state", "orders"], []]) {
      const r = await run(written);
      for (const t of written) expect(r.payload).toContain(t);
    }
    const stats = m.liveQueryTableStats(instance);
    expect(stats.truncates).toBe(2); // b3, and the block after `position` was written while referenced
    expect(stats.consumers).toBe(1);
  });

  it("an unknown content (no payload seen yet) is emptied when a consumer holds anything", async () => {
    const instance = {};
    m.registerLiveQueryConsumer(instance, (names) => names === undefined);
    const { tx, statements } = fakeTx();
    await m.prepareLiveQueryTable(tx, instance, "live_query_tables");
    expect(statements).toEqual(["CREATE TEMP TABLE IF NOT EXISTS live_query_tables (table_name TEXT PRIMARY KEY)", "TRUNCATE TABLE live_query_tables"]);
  });

  it("VENUE_LIVE_QUERY_TRUNCATE=always: upstream's statements every block (create, then truncate after it)", async () => {
    process.env.VENUE_LIVE_QUERY_TRUNCATE = "always";
    const instance = {};
    for (let i = 0; i < 2; i++) {
      const { tx, statements } = fakeTx();
      await m.prepareLiveQueryTable(tx, instance, "live_query_tables");
      await m.finishLiveQueryTable(tx, instance, "live_query_tables");
      expect(statements).toEqual(["CREATE TEMP TABLE IF NOT EXISTS live_query_tables (table_name TEXT PRIMARY KEY)", "TRUNCATE TABLE live_query_tables"]);
    }
  });
});
