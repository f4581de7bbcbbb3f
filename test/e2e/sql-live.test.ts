/**
 * Ponder's SQL over HTTP keeps up with the blocks: its cached `/sql/db` results and its live
 * queries (`/sql/live`, `@ponder/client`'s `live`) are dropped or woken by the names of the tables
 * each block wrote (the checkpoint's NOTIFY reads them from Ponder's live-query table, upstream's
 * on both databases): a cached result on a table that several blocks did not write must survive
 * them and still be dropped by the block that writes it, and a live query must see each update.
 * Would fail if a block's NOTIFY missed a table it wrote. Both databases.
 * The queries keep to the shape PGlite answers (one table, an indexed equality, a LIMIT); /sql/live
 * is judged like /sql/db (issue 27 item 6): a refused live query answers a 4xx envelope, opens no
 * stream and leaves live queries to others.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@ponder/client";
import { count, eq } from "drizzle-orm";
import superjson from "superjson";
import * as schema from "../../ponder.schema.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { dbKinds } from "./stack.js";
import { sessionActions } from "./reads-session.js";

const px = (price: string) => BigInt(Math.round(Number(price) * 1e4)) * 10n ** 14n;

describe.each(dbKinds())("SQL over HTTP follows the blocks on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let EUR: `0x${string}`;
  let actions: ReturnType<typeof sessionActions>;
  const indexed = async () => waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }));

  beforeAll(async () => {
    v = await startVenue(kind);
    ix = await v.startIndexer("sqllive");
    EUR = v.deployment.markets[0]!.marketId as `0x${string}`;
    actions = sessionActions(v);
    await actions.setPrice(EUR, "1.0800");
    await indexed();
  }, 300_000);
  afterAll(async () => {
    await v?.stop();
  });

  it("a cached /sql/db result is dropped by the block that writes its table, after blocks that did not", async () => {
    const client = createClient(`${ix.url}/sql`, { schema });
    const price = async () => (await client.db.select().from(schema.indexPrice).where(eq(schema.indexPrice.marketId, EUR)).limit(1))[0]?.priceX18;
    const orders = async () => (await client.db.select({ n: count() }).from(schema.order).where(eq(schema.order.marketId, EUR)).limit(1))[0]!.n;
    expect(await price()).toBe(px("1.0800"));
    const before = await orders();
    // blocks that write the orders and the accounts, not index_price: the cached price stays right
    for (let i = 0; i < 3; i++) {
      await actions.place(0, EUR, "SHORT", "LIMIT", "100", 10, "1.0900");
      await indexed();
      expect(await price()).toBe(px("1.0800"));
      expect(await orders()).toBe(before + i + 1);
    }
    // then a block that writes index_price: the cached result must not survive it
    await actions.setPrice(EUR, "1.0810");
    await indexed();
    expect(await price()).toBe(px("1.0810"));
    await actions.place(1, EUR, "LONG", "LIMIT", "100", 10, "1.0750");
    await indexed();
    expect(await orders()).toBe(before + 4);
    expect(await price()).toBe(px("1.0810"));
  });

  it("a live query gets each update of its table, whatever other blocks came between", async () => {
    const client = createClient(`${ix.url}/sql`, { schema });
    const seen: bigint[] = [];
    const errors: unknown[] = [];
    // Ponder's /sql/live sends a result when a block changed it (not the first one)
    const live = client.live(
      (db) => db.select().from(schema.indexPrice).where(eq(schema.indexPrice.marketId, EUR)).limit(1),
      (rows) => {
        const p = (rows as { priceX18: bigint }[])[0]?.priceX18;
        if (p !== undefined && seen.at(-1) !== p) seen.push(p);
      },
      (e) => errors.push(e),
    );
    const waitFor = async (p: bigint) => {
      const deadline = Date.now() + 20_000;
      while (!seen.includes(p)) {
        if (Date.now() > deadline) throw new Error(`live query never saw ${p}; saw ${seen.join(", ")}; errors ${errors.length}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      // The stream is open on the server once it delivers a change: move the index a tick at a
      // time until the query sees one (no sleep; a change made before it opened is just not seen).
      let opened: bigint | undefined;
      for (const warm of ["1.0811", "1.0812", "1.0813", "1.0814", "1.0815", "1.0816", "1.0817", "1.0818"]) {
        await actions.setPrice(EUR, warm);
        await indexed();
        const deadline = Date.now() + 5_000;
        while (!seen.includes(px(warm)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        if (seen.includes(px(warm))) {
          opened = px(warm);
          break;
        }
      }
      expect(opened, `the live query saw none of the warm-up prices; errors ${errors.length}`).toBeDefined();
      const from = seen.length;
      for (const [i, p] of ["1.0820", "1.0830", "1.0840"].entries()) {
        // a block of other tables first (kept, not emptied, while nothing references them)
        await actions.place(i % 2, EUR, i % 2 === 0 ? "SHORT" : "LONG", "LIMIT", "100", 10, i % 2 === 0 ? "1.0900" : "1.0750");
        await indexed();
        await actions.setPrice(EUR, p);
        await waitFor(px(p));
      }
      expect(seen.slice(from)).toEqual([px("1.0820"), px("1.0830"), px("1.0840")]);
    } finally {
      live.unsubscribe();
    }
  });

  it("/sql/live is judged before it streams: hostile queries answer a 4xx envelope, allowed ones still stream", async () => {
    const live = async (query: string) => {
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), 120_000);
      try {
        const res = await fetch(`${ix.url}/sql/live?sql=${encodeURIComponent(superjson.stringify({ sql: query, params: [] }))}`, { signal: ac.signal });
        const type = res.headers.get("content-type") ?? "";
        return { status: res.status, type, body: type.includes("json") ? await res.json() : type };
      } finally {
        clearTimeout(timer);
        ac.abort();
      }
    };
    const hostile: [string, RegExp][] = [
      ["SELEC 1", /VALIDATION_ERROR/],
      [`SELECT repeat('x', 900000000)`, /VALIDATION_ERROR/],
      [`SELECT * FROM index_price a, index_price b, index_price c, index_price d`, kind === "pglite" ? /SQL_NOT_SUPPORTED_ON_PGLITE/ : /VALIDATION_ERROR|SQL_TIMEOUT/],
      [`SELECT * FROM index_price WHERE price_x18 = 0 LIMIT 1`, kind === "pglite" ? /SQL_NOT_SUPPORTED_ON_PGLITE/ : /^$/],
    ];
    for (const [q, code] of hostile) {
      const r = await live(q);
      if (code.source === "^$") continue; // Postgres answers this one (a full read of a tiny table)
      expect(r.status, q).toBeGreaterThanOrEqual(400);
      expect(r.status, q).toBeLessThan(500);
      expect(r.body, q).toMatchObject({ success: false, error: { code: expect.stringMatching(code) } });
    }
    const ok = await live(`SELECT * FROM index_price WHERE market_id = '${EUR}' LIMIT 1`);
    expect(ok).toMatchObject({ status: 200, type: expect.stringContaining("text/event-stream") });
  });
});
