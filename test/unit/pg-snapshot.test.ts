/** src/api/lib/pgSnapshot.ts: a read's statements on one pinned connection in one snapshot; everything else on the pool. */
import { describe, expect, it } from "vitest";
import { snapshotOn } from "../../src/api/lib/pgSnapshot.js";

/** A stand-in for pg's Pool: records each statement with the connection it ran on. */
function fakePool(opts: { failOn?: RegExp } = {}) {
  const log: string[] = [];
  const released: { id: string; err?: unknown }[] = [];
  let n = 0;
  const run = (who: string, text: string) => {
    log.push(`${who}: ${text}`);
    if (opts.failOn?.test(text)) return Promise.reject(new Error(`failed: ${text}`));
    // a multi-statement text (BEGIN …; SELECT …) answers one result per statement, as pg does
    if (text.startsWith("BEGIN")) return Promise.resolve([{ rows: [] }, { rows: [{ state: `${who}'s` }] }]);
    return Promise.resolve({ rows: [{ who }] });
  };
  const pool = {
    async connect() {
      const id = `c${++n}`;
      return { query: (q: unknown) => run(id, String(q)), release: (err?: unknown) => void released.push({ id, err }) };
    },
    query: (q: unknown) => run("pool", String(q)),
  };
  return { pool, log, released };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("Postgres read snapshot (src/api/lib/pgSnapshot.ts)", () => {
  it("opens REPEATABLE READ READ ONLY with the first statement, runs the read's statements on that connection, then COMMIT and release", async () => {
    const { pool, log, released } = fakePool();
    const { snapshot, client } = snapshotOn(pool);
    const out = await snapshot("SELECT state", async (rows) => {
      const a = await client.query("SELECT a");
      // concurrent statements of one read (Promise.all in a route's load) stay on it too
      const [b, c] = await Promise.all([client.query("SELECT b"), client.query("SELECT c")]);
      return [rows, a, b, c];
    });
    expect(out).toEqual([[{ state: "c1's" }], { rows: [{ who: "c1" }] }, { rows: [{ who: "c1" }] }, { rows: [{ who: "c1" }] }]);
    await tick();
    expect(log).toEqual(["c1: BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT state", "c1: SELECT a", "c1: SELECT b", "c1: SELECT c", "c1: COMMIT"]);
    expect(released).toEqual([{ id: "c1", err: undefined }]);
  });

  it("outside a read, and from work a read started that outlives it, statements go to the pool; two reads, two connections", async () => {
    const { pool, log } = fakePool();
    const { snapshot, client } = snapshotOn(pool);
    let later!: Promise<unknown>;
    await client.query("SELECT outside");
    await Promise.all([
      snapshot("SELECT s1", async () => {
        later = new Promise((r) => setTimeout(r, 30)).then(() => client.query("SELECT after the read"));
        await tick();
        return client.query("SELECT one");
      }),
      snapshot("SELECT s2", () => client.query("SELECT two")),
    ]);
    await later;
    await tick();
    expect(log.filter((l) => !l.includes("BEGIN") && !l.includes("COMMIT")).sort()).toEqual(["c1: SELECT one", "c2: SELECT two", "pool: SELECT after the read", "pool: SELECT outside"]);
  });

  it("a failed read rolls back and returns the connection; a failed ROLLBACK destroys it", async () => {
    const { pool, log, released } = fakePool({ failOn: /SELECT bad/ });
    const { snapshot, client } = snapshotOn(pool);
    await expect(snapshot("SELECT state", () => client.query("SELECT bad"))).rejects.toThrow("failed: SELECT bad");
    await tick();
    expect(log.at(-1)).toBe("c1: ROLLBACK");
    expect(released).toEqual([{ id: "c1", err: undefined }]);
    const broken = fakePool({ failOn: /SELECT bad|ROLLBACK/ });
    const s2 = snapshotOn(broken.pool);
    await expect(s2.snapshot("SELECT state", () => s2.client.query("SELECT bad"))).rejects.toThrow();
    await tick();
    expect(broken.released.map((r) => [r.id, String(r.err)])).toEqual([["c1", "Error: failed: ROLLBACK"]]);
  });

  it("the proxy is the pool for everything but query (drizzle's `instanceof Pool`, connect, properties)", async () => {
    class Pool {
      idle = 3;
      connect() {
        return Promise.resolve({ query: async () => ({ rows: [] }), release: () => {} });
      }
      query() {
        return Promise.resolve({ rows: [{ who: "pool" }] });
      }
    }
    const pool = new Pool();
    const { client } = snapshotOn(pool);
    expect(client instanceof Pool).toBe(true);
    expect((client as unknown as Pool).idle).toBe(3);
    await expect(client.connect()).resolves.toHaveProperty("release");
  });
});
