/**
 * Rebuild: a second indexer on a new schema re-indexes the chain from the deploy block and
 * ends with exactly the rows of the one that indexed the session live.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublicClient } from "viem";
import { applyLocalCalendar } from "../../scripts/lib/local-calendar.js";
import { dumpTables, startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { dbKinds } from "./stack.js";
import { runSession, sessionActions } from "./reads-session.js";

describe.each(dbKinds())("rebuild from events on %s", (kind) => {
  let v: Venue;
  let live: Indexer;

  beforeAll(async () => {
    v = await startVenue(kind);
    live = await v.startIndexer("live"); // indexes the session as it happens
    await runSession(v);
    // a calendar (the market state row carries it): sessions then follow it with time
    await applyLocalCalendar(v.client as PublicClient, v.rpcUrl, v.deployment, { closeAtMin: 0, windowMin: 15, closedMin: 30 });
    const { advance } = sessionActions(v);
    await advance(900);
  }, 300_000);
  afterAll(async () => {
    await v?.stop();
  });

  it("a fresh schema re-indexed from block 0 has identical rows", async () => {
    const head = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(live.url, head);
    const rebuilt = await v.startIndexer("rebuilt");
    await waitForBlock(rebuilt.url, head);
    const [a, b] = await Promise.all([dumpTables(live.url), dumpTables(rebuilt.url)]);
    expect(Object.values(a).reduce((n, rows) => n + rows.length, 0)).toBeGreaterThan(100);
    for (const table of Object.keys(a)) expect(b[table], table).toEqual(a[table]);
    expect(a.marketState!.some((r) => r.includes('"nextCalendarClosedMin":30'))).toBe(true);
  });
});
