/**
 * An answer belongs to one indexed block (issue 12): while trades land (a block every few
 * hundred ms), many concurrent reads, straight to Ponder's server and through the read service,
 * with and without `Cache-Control: no-cache`. Every answer's rows must be exactly those of the
 * blocks up to its `X-Indexed-Block`: nothing of a later block, nothing of an earlier one missing,
 * checked against the blocks the chain mined each order in (one order per transaction, so per block).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { dbKinds } from "./stack.js";
import { px, sessionActions } from "./reads-session.js";

type Json = Record<string, any>;
type Placed = { block: bigint; priceX18: bigint };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ORDERS_PER_MAKER = 30;
const TAKER_ORDERS = 25;
const READERS = 6;
/** between one order and the next of a wallet: blocks a few hundred ms apart, as with the keeper trading */
const PAUSE_MS = 150;

describe.each(dbKinds())("an answer belongs to one indexed block on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let rd: { url: string };
  let EUR: Hex;
  let GBP: Hex;

  beforeAll(async () => {
    v = await startVenue(kind);
    ({ ix, rd } = await v.startIndexerAndReads("consist"));
    [EUR, GBP] = v.deployment.markets.map((m) => m.marketId) as [Hex, Hex];
  }, 300_000);
  afterAll(async () => {
    await v?.stop();
  });

  it("every answer's rows are those of the blocks up to its X-Indexed-Block, under concurrent reads while blocks land", async () => {
    const { place, setPrice } = sessionActions(v);
    const [a0, a1, , a3] = [0, 1, 2, 3].map((i) => v.accountIds[i]!);
    // fresh index prices (the oracle's staleness bound is 60 s on a devnet), then deep GBP asks
    // for the taker: its market orders never empty a level, so the EUR book only grows
    await setPrice(EUR, "1.0800");
    await setPrice(GBP, "1.2700");
    for (const p of ["1.2710", "1.2720"]) await place(2, GBP, "SHORT", "LIMIT", "5000", 10, p);
    await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }));

    // the blocks each account's orders were mined in (and the makers' prices): EUR asks by
    // account 0 at falling prices, EUR bids by account 1 at rising prices (every order a new
    // best level, never crossing), GBP market buys by account 3 (each fills against account 2)
    const asks: Placed[] = [];
    const bids: Placed[] = [];
    const takes: bigint[] = [];
    const maker = async (w: number, side: "SHORT" | "LONG", out: Placed[]) => {
      for (let i = 0; i < ORDERS_PER_MAKER; i++) {
        const price = side === "SHORT" ? 1.089 - i * 0.0001 : 1.071 + i * 0.0001;
        const r = await place(w, EUR, side, "LIMIT", "100", 10, price.toFixed(4));
        out.push({ block: r.blockNumber, priceX18: px(price.toFixed(4)) });
        await sleep(PAUSE_MS);
      }
    };
    const taker = async () => {
      for (let i = 0; i < TAKER_ORDERS; i++) {
        takes.push((await place(3, GBP, "LONG", "MARKET", "20", 5)).blockNumber);
        await sleep(PAUSE_MS);
      }
    };

    const paths = [
      `/accounts/${a0}/orders?limit=100`,
      `/accounts/${a1}/orders?limit=100`,
      `/accounts/${a3}/orders?limit=100`,
      `/markets/${EUR}/orderbook?depth=100`,
      `/markets/${EUR}/orderbook`,
      `/accounts/${a3}/positions/${GBP}`,
      `/markets/${GBP}`,
      `/accounts/${a3}/fills?limit=100`,
      `/markets/${GBP}/trades?limit=100`,
    ];
    const targets = { ponder: ix.url, reads: rd.url };
    const combos = Object.entries(targets).flatMap(([target, base]) =>
      paths.flatMap((path) => [false, true].map((noCache) => ({ target, base, path, noCache }))),
    );
    type Seen = { target: string; path: string; noCache: boolean; status: number; block: string | null; data: Json | undefined; error?: Json };
    const seen: Seen[] = [];
    let trading = true;
    let next = 0;
    const reader = async () => {
      while (trading) {
        const c = combos[next++ % combos.length]!;
        try {
          const res = await fetch(`${c.base}${c.path}`, { headers: c.noCache ? { "Cache-Control": "no-cache" } : {} });
          const body = (await res.json()) as Json;
          seen.push({ target: c.target, path: c.path, noCache: c.noCache, status: res.status, block: res.headers.get("x-indexed-block"), data: body.data, error: body.error });
        } catch (e) {
          seen.push({ target: c.target, path: c.path, noCache: c.noCache, status: 0, block: null, data: { error: String(e) } });
        }
      }
    };
    const readers = Array.from({ length: READERS }, reader);
    const first = await v.client.getBlockNumber({ cacheTime: 0 });
    await Promise.all([maker(0, "SHORT", asks), maker(1, "LONG", bids), taker()]);
    const last = await v.client.getBlockNumber({ cacheTime: 0 });
    // on until the indexer has caught up (readers slow indexing down on PGlite), bounded
    await waitForBlock(ix.url, last, 60_000)
      .catch((e) => console.log(`[consistency ${kind}] ${e}`))
      .finally(() => (trading = false));
    await Promise.all(readers);

    const upTo = <T extends { block: bigint }>(xs: T[], n: bigint) => xs.filter((x) => x.block <= n);
    const blocksUpTo = (xs: bigint[], n: bigint) => xs.filter((b) => b <= n).map(String).sort();
    const sorted = (xs: unknown[]) => xs.map(String).sort();
    const setOf = (xs: unknown[]) => [...new Set(xs.map(String))].sort();
    const placed = [...asks.map((a) => a.block), ...bids.map((b) => b.block)];
    const ordersOf: Record<string, bigint[]> = { [String(a0)]: asks.map((a) => a.block), [String(a1)]: bids.map((b) => b.block), [String(a3)]: takes };
    // what the answer at block n must say, per path (the first difference, or null)
    const check = (path: string, d: Json, n: bigint): string | null => {
      const same = (what: string, got: unknown, want: unknown) => (JSON.stringify(got) === JSON.stringify(want) ? null : `${what}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
      const orders = /^\/accounts\/(\d+)\/orders/.exec(path);
      if (orders) return same("createdBlock", sorted(d.orders.map((o: Json) => o.createdBlock)), blocksUpTo(ordersOf[orders[1]!]!, n));
      if (path.endsWith("depth=100")) {
        return (
          same("blockNumber", d.blockNumber, Number(n)) ??
          same("asks", d.asks.length, upTo(asks, n).length) ??
          same("bids", d.bids.length, upTo(bids, n).length)
        );
      }
      if (path.endsWith("/orderbook")) {
        const best = (xs: Placed[]) => upTo(xs, n).at(-1)?.priceX18.toString() ?? null;
        return same("best ask", d.asks[0]?.price ?? null, best(asks)) ?? same("best bid", d.bids[0]?.price ?? null, best(bids));
      }
      const took = takes.filter((b) => b <= n);
      if (path.includes("/positions/")) return same("position", [d.isOpen, d.openBlock], took.length ? [true, Number(took[0])] : [false, 0]);
      if (path === `/markets/${GBP}`) return same("long open interest > 0", d.openInterest.long !== "0", took.length > 0);
      if (path.includes("/fills") || path.includes("/trades")) {
        const items = (d.fills ?? d.trades) as Json[];
        return same("fill blocks", setOf(items.map((f) => f.blockNumber)), setOf(took));
      }
      throw new Error(`no check for ${path}`);
    };

    const violations: string[] = [];
    const tally = new Map<string, { answers: number; bad: number; blocks: Set<string> }>();
    let ok = 0;
    for (const s of seen) {
      const key = `${s.target} ${s.noCache ? "no-cache" : "cached"}`;
      const t = tally.get(key) ?? { answers: 0, bad: 0, blocks: new Set() };
      tally.set(key, t);
      t.answers++;
      if (s.status !== 200 || !s.data) continue;
      ok++;
      if (s.block === null) {
        t.bad++;
        violations.push(`${key} ${s.path}: no X-Indexed-Block`);
        continue;
      }
      t.blocks.add(s.block);
      const why = check(s.path, s.data, BigInt(s.block));
      if (why) {
        t.bad++;
        violations.push(`${key} ${s.path} @${s.block}: ${why}`);
      }
    }
    const summary = [...tally].map(([k, t]) => `${k}: ${t.bad}/${t.answers} inconsistent over ${t.blocks.size} blocks`);
    console.log(`[consistency ${kind}] blocks ${first}..${last} (${placed.length + takes.length} orders); ${seen.length} answers, ${ok} of them 200\n  ${summary.join("\n  ")}${violations.length ? `\n  first: ${violations.slice(0, 8).join("\n  ")}` : ""}`);
    // the reads spanned the trading (enough answers of enough blocks on each side) and were answered
    for (const [k, t] of tally) expect(t.blocks.size, k).toBeGreaterThanOrEqual(5);
    expect(ok).toBeGreaterThanOrEqual(seen.length * 0.95);
    expect(violations).toEqual([]);
    // and none refused because blocks landed during it: a read sees one snapshot (Postgres) or
    // holds indexing off (PGlite), it never retries nor answers 503 for that (no ?minBlock here)
    const unavailable = seen.filter((s) => s.status === 503).map((s) => `${s.target} ${s.noCache ? "no-cache" : "cached"} ${s.path}: ${JSON.stringify(s.error)}`);
    expect(unavailable).toEqual([]);
  });
});
