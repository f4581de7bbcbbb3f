/**
 * Reorg, then rebuild, on one venue per database:
 * - Reorg: while Ponder indexes live, the chain drops its last blocks (evm_snapshot/evm_revert,
 *   shallower than the 30 blocks Ponder keeps unfinalized on 31337) and grows a different branch
 *   past the old head. The reads then match the contracts (none served from the read service's
 *   held old-branch answers), and the block feed shows the revert as such (flagged `reverted` or
 *   a step back), so nothing of the old branch is carried over while answers are rebuilt.
 * - Rebuild: after a whole scripted session and a calendar on top, a second indexer on a new
 *   schema re-indexes the chain from the deploy block and ends with exactly the rows of the one
 *   that indexed it all live, the reorg included: a row of the dropped branch left in the live
 *   tables would differ.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineAbi } from "../../abis/index.js";
import type { PublicClient } from "viem";
import { applyLocalCalendar } from "../../scripts/lib/local-calendar.js";
import { dumpTables, startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { dbKinds } from "./stack.js";
import { runSession, sessionActions } from "./reads-session.js";
import { advancedFrom, sseBlockFeed, type IndexedState } from "../../core/indexer/blocks.js";

describe.each(dbKinds())("reorg, then rebuild from events, on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let rd: { url: string };

  beforeAll(async () => {
    v = await startVenue(kind);
    ({ ix, rd } = await v.startIndexerAndReads("reorg"));
  }, 300_000);
  afterAll(async () => {
    await v?.stop();
  });

  it("reverted blocks leave no trace once the new branch passes the old head", async () => {
    const { place, send, rpc } = sessionActions(v);
    const [EUR] = v.deployment.markets.map((m) => m.marketId);
    await sessionActions(v).setPrice(EUR!, "1.0800"); // a fresh index: the oracle's staleness bound is 60 s on a devnet
    await place(0, EUR!, "SHORT", "LIMIT", "1000", 10, "1.0850");
    const snapshot = (await rpc("evm_snapshot")) as string;

    // the branch that will disappear: a resting bid, a fill, a deposit
    await place(1, EUR!, "LONG", "LIMIT", "700", 10, "1.0750");
    await place(2, EUR!, "LONG", "MARKET", "300", 10);
    await send(3, "deposit", [v.accountIds[3]!, 5_000_000n]);
    const oldHead = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(ix.url, oldHead);
    const orphan = (await (await fetch(`${ix.url}/accounts/${v.accountIds[1]}/orders`)).json()) as any;
    expect(orphan.data.totalCount).toBe(1);
    // answers of the old branch are held in the read service's memory (second read of each is a HIT)
    const cached = [`/markets/${EUR}/orderbook`, `/accounts/${v.accountIds[1]}`, `/accounts/${v.accountIds[5]}`];
    for (const path of cached) await fetch(`${rd.url}${path}?minBlock=${oldHead}`);
    for (const path of cached) expect((await fetch(`${rd.url}${path}`)).headers.get("x-cache"), path).toBe("HIT");

    // the block feed the read service passes on (streams, gateway): the revert is pushed, flagged
    const feed = sseBlockFeed({ url: rd.url });
    const pushed: IndexedState[] = [];
    feed.subscribe((st) => pushed.push(st));
    await feed.ready;

    await rpc("evm_revert", [snapshot]);
    // the new branch: other trades, then past the old head
    await place(4, EUR!, "LONG", "LIMIT", "400", 5, "1.0760");
    await send(5, "withdraw", [v.accountIds[5]!, 1_000_000n]);
    for (let i = 0; i < 6; i++) await rpc("evm_mine");
    const newHead = await v.client.getBlockNumber({ cacheTime: 0 });
    expect(newHead).toBeGreaterThan(oldHead);
    await waitForBlock(ix.url, newHead);
    // Ponder handles the reorg asynchronously: poll the orphaned order away
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = (await (await fetch(`${ix.url}/accounts/${v.accountIds[1]}/orders`)).json()) as any;
      if (r.data.totalCount === 0 || Date.now() > deadline) break;
      await new Promise((res) => setTimeout(res, 200));
    }

    // a consumer can tell the revert from a new block: a push flagged `reverted`, or one that does
    // not move forward (the revert's own state read before its signal arrived)
    const revertSeen = pushed.some((st, i) => st.reverted || (i > 0 && !advancedFrom(pushed[i - 1]!, st)));
    expect(revertSeen, JSON.stringify(pushed.map((st) => [st.number.toString(), st.reverted ?? false]))).toBe(true);
    await feed.close();

    await waitForBlock(ix.url, newHead);
    for (const i of [1, 2, 3, 4, 5]) {
      const id = v.accountIds[i]!;
      const res = (await (await fetch(`${ix.url}/accounts/${id}`)).json()) as any;
      const c = (await v.client.readContract({ address: v.deployment.contracts.engine, abi: engineAbi, functionName: "getAccount", args: [id] })) as any;
      expect(res.data.margin.available, `account ${id}`).toBe(c.availableWad.toString());
      expect(res.data.margin.committed, `account ${id}`).toBe(c.committedWad.toString());
    }
    // nothing of the old branch is served from the read service's memory: a held read equals Ponder's at the new head
    await waitForBlock(rd.url, newHead);
    for (const path of cached) {
      const direct = await (await fetch(`${ix.url}${path}`)).json();
      expect(await (await fetch(`${rd.url}${path}`)).json(), path).toEqual(direct);
    }
    const bids = (await (await fetch(`${ix.url}/markets/${EUR}/orderbook`)).json()) as any;
    expect(bids.data.bids.map((l: any) => l.priceFormatted)).toEqual(["1.076"]);
    // the read service holds no answer of the old branch either
    for (const path of cached) {
      const fresh = await (await fetch(`${ix.url}${path}`, { headers: { "Cache-Control": "no-cache" } })).json();
      expect(await (await fetch(`${rd.url}${path}`)).json(), `reads ${path}`).toEqual(fresh);
    }
  });

  it("a fresh schema re-indexed from block 0 has identical rows: the reorg, a whole session and a calendar on top", async () => {
    await runSession(v);
    // a calendar (the market state row carries it): sessions then follow it with time
    await applyLocalCalendar(v.client as PublicClient, v.rpcUrl, v.deployment, { closeAtMin: 0, windowMin: 15, closedMin: 30 });
    await sessionActions(v).advance(900);
    const head = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(ix.url, head);
    const rebuilt = await v.startIndexer("rebuilt");
    await waitForBlock(rebuilt.url, head);
    const [a, b] = await Promise.all([dumpTables(ix.url), dumpTables(rebuilt.url)]);
    expect(Object.values(a).reduce((n, rows) => n + rows.length, 0)).toBeGreaterThan(100);
    for (const table of Object.keys(a)) expect(b[table], table).toEqual(a[table]);
    expect(a.marketState!.some((r) => r.includes('"nextCalendarClosedMin":30'))).toBe(true);
  });
});
