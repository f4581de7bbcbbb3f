/**
 * The TypeScript client's stream client (packages/client, issue 30 "Tested") through disruptions,
 * on a venue of its own (own anvil, Ponder, read service and stream service; nothing else writes
 * to the chain, so every block is one of the test's steps, and the chain may be reverted):
 *   - the stream service killed and started again on the same port: the client's order book is
 *     `stale` from the drop until it has resynced (no change shown in between, not even for the
 *     blocks mined while the service was down); it reconnects by itself, resumes (a new epoch: a
 *     fresh snapshot), and then equals REST at each of the next 20 blocks;
 *   - an anvil reorg (evm_snapshot → a branch that changes the book → evm_revert → another branch
 *     past the old head): the book goes `stale` at the service's `reorg` message and is resynced by
 *     the snapshot that follows; it then equals REST on the new branch at each of the next 20 blocks.
 * "Equals REST": `/markets/{id}/orderbook?depth=10&minBlock=N` answered at block N (x-indexed-block)
 * and the book the client holds at block N, level for level.
 * Last, `npm run watch:book` (scripts/watch-book.ts, on the same client) on this venue draws REST's book.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { freePort } from "../../core/chain/anvil.js";
import { PROJECT_ROOT } from "../../core/deployment.js";
import { serviceMain, nodeTs } from "../../scripts/lib/services.js";
import { startProcess, waitForHttp, type Proc } from "../../scripts/lib/processes.js";
import { OrderBookView, StreamClient, formatX18, type BookLevel } from "../../packages/client/src/index.js";
import { startVenue, type Venue } from "./reads-env.js";
import { sessionActions } from "./reads-session.js";
import { mainKind } from "./stack.js";
import { until } from "./helpers/wait.js";

const DEPTH = 10;
const [A, B] = [0, 1]; // the venue's own demo wallets (its own anvil): A asks, B bids

describe.each([mainKind()])("the client's stream client through a stream-service restart and a reorg (%s)", (kind) => {
  let v: Venue;
  let reads = "";
  let port = 0;
  let proc: Proc | undefined;
  let client: StreamClient;
  let book: OrderBookView;
  let EUR: Hex;
  /** the book's events in order: "stale", "resynced", "change@<block>" */
  const events: string[] = [];
  /** the stream messages' types as received */
  const messages: string[] = [];

  const startStreamService = async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env, PROFILE: "local", PORT: String(port), HOST: "127.0.0.1", INTEGRATION_URL: reads, RPC_URL: v.rpcUrl, LOG_LEVEL: "warn",
      // no relayer here: the transactions channel's feed retries quietly
      RELAYER_URL: `http://127.0.0.1:${await freePort()}`,
    };
    delete env.DATABASE_URL;
    delete env.DATABASE_SCHEMA;
    proc = startProcess("streams", process.execPath, nodeTs(serviceMain("streams")), env, join(v.base, `streams-${Date.now()}.log`), PROJECT_ROOT);
    await waitForHttp(`http://127.0.0.1:${port}/health`, { proc, timeoutMs: 120_000, intervalMs: 100 });
  };

  beforeAll(async () => {
    v = await startVenue(kind);
    const { rd } = await v.startIndexerAndReads("clientstreams");
    reads = rd.url;
    port = await freePort();
    // (on Postgres too the stream service follows the read service's block feed: this file is about the client)
    await startStreamService();
    EUR = v.deployment.markets[0]!.marketId.toLowerCase() as Hex;
    client = new StreamClient({ url: `ws://127.0.0.1:${port}/ws`, reconnect: { initialMs: 200, maxMs: 1_000, jitter: 0 } });
    client.on("message", (m) => messages.push(String(m.type)));
    book = client.orderBook(EUR, DEPTH);
    book.on("stale", () => events.push("stale"));
    book.on("resynced", () => events.push("resynced"));
    book.on("change", () => events.push(`change@${book.blockNumber}`));
  }, 400_000);
  afterAll(async () => {
    client?.close();
    await proc?.stop();
    await v?.stop();
  });

  // ─── steps: one block each, every one changes the book ─────────────────────────────────
  let n = 0;
  const resting: { w: number; key: Hex }[] = [];
  /**
   * A new ask (A) or bid (B) at a level of its own, or every third step a cancel of the oldest;
   * every eighth a fresh index instead (the oracle's staleness bound; the book is unchanged then). Its block.
   */
  const step = async (): Promise<number> => {
    const { send, place, setPrice } = sessionActions(v);
    n++;
    if (n % 8 === 0) return Number((await setPrice(EUR, "1.0800")).blockNumber);
    if (n % 3 === 0 && resting.length) {
      const o = resting.shift()!;
      return Number((await send(o.w, "cancelOrder", [v.accountIds[o.w]!, EUR, o.key])).blockNumber);
    }
    const key = `0x${"c5".repeat(16)}${n.toString(16).padStart(32, "0")}` as Hex;
    const ask = n % 2 === 0;
    const price = ask ? (1.081 + n * 0.0001).toFixed(4) : (1.079 - n * 0.0001).toFixed(4);
    const r = await place(ask ? A : B, EUR, ask ? "SHORT" : "LONG", "LIMIT", "20", 5, price, key);
    resting.push({ w: ask ? A : B, key });
    return Number(r.blockNumber);
  };

  /** Once the client's book describes `block` (and is not stale), it equals REST's answer at that block. */
  async function equalsRestAt(block: number, label: string) {
    await until(`${label}: the book at block ${block} (at ${book.blockNumber}, stale ${book.stale})`, async () => book.blockNumber >= block && !book.stale, 30_000);
    expect(book.blockNumber, `${label}: nothing else mines`).toBe(block);
    const res = await fetch(`${reads}/markets/${EUR}/orderbook?depth=${DEPTH}&minBlock=${block}`);
    expect(Number(res.headers.get("x-indexed-block")), `${label}: REST at ${block}`).toBe(block);
    const rest = ((await res.json()) as { data: { bids: BookLevel[]; asks: BookLevel[] } }).data;
    expect({ bids: book.bids, asks: book.asks }, `${label}: book at ${block}`).toEqual({ bids: rest.bids, asks: rest.asks });
    expect(book.bestBid).toBe(rest.bids[0] ? BigInt(rest.bids[0].price) : null);
    expect(book.bestAsk).toBe(rest.asks[0] ? BigInt(rest.asks[0].price) : null);
  }

  /** The next `count` steps: the book equals REST at each block (a new block each time). */
  async function nextBlocks(count: number, label: string) {
    const blocks: number[] = [];
    for (let i = 0; i < count; i++) {
      const b = await step();
      await equalsRestAt(b, `${label}, step ${i + 1}`);
      blocks.push(b);
    }
    expect(new Set(blocks).size).toBe(count);
    expect(blocks.every((b, i) => i === 0 || b > blocks[i - 1]!)).toBe(true);
  }

  /** From the book's first "stale" after `from`: no change until "resynced" (the held book is not shown as current). */
  const staleUntilResynced = (from: number) => {
    const after = events.slice(from);
    const s = after.indexOf("stale");
    expect(s, JSON.stringify(after)).toBeGreaterThanOrEqual(0);
    const r = after.indexOf("resynced", s);
    expect(r, JSON.stringify(after)).toBeGreaterThan(s);
    expect(after.slice(s + 1, r).filter((e) => e.startsWith("change")), JSON.stringify(after)).toEqual([]);
    return after.slice(r);
  };

  it("a fresh book: snapshot, then REST's book at each block", async () => {
    const { setPrice } = sessionActions(v);
    await setPrice(EUR, "1.0800"); // a fresh index (the oracle's staleness bound)
    await until("the book's snapshot", async () => !book.stale, 30_000);
    expect(events[0]).toBe("resynced");
    await nextBlocks(6, "fresh");
  });

  it("a killed and restarted stream service: stale from the drop until resynced, then REST's book at each of the next 20 blocks", async () => {
    const from = events.length;
    const heldBlock = book.blockNumber;
    const closed = new Promise<void>((r) => client.once("close", () => r()));
    await proc!.stop();
    await closed;
    expect(book.stale).toBe(true);
    expect(client.connected).toBe(false);

    // blocks mined while the service is down: the held book stays as it was, and stale
    const missed = [await step(), await step()];
    expect(book.stale).toBe(true);
    expect(book.blockNumber).toBe(heldBlock);

    const snapshotsBefore = messages.filter((t) => t === "snapshot").length;
    await startStreamService();
    await until("the book resynced after the restart", async () => events.slice(from).includes("resynced"), 60_000);
    // the restarted service has a new epoch: the resume is answered with a fresh snapshot, at (or past) what was missed
    expect(messages.filter((t) => t === "snapshot").length).toBeGreaterThan(snapshotsBefore);
    expect(book.blockNumber).toBeGreaterThanOrEqual(missed[1]!);
    const afterResync = staleUntilResynced(from);
    expect(afterResync[1]).toMatch(/^change@/);
    await equalsRestAt(book.blockNumber, "right after the resync");
    await nextBlocks(20, "after the restart");
    expect(book.stale).toBe(false);
  });

  it("an anvil reorg: stale from the reorg message until the snapshot, then REST's book on the new branch at each of the next 20 blocks", async () => {
    const { rpc, setPrice } = sessionActions(v);
    await setPrice(EUR, "1.0800"); // a fresh index before the branches
    const snapshot = (await rpc("evm_snapshot")) as string;
    const restingAtSnapshot = [...resting];
    // the branch that will disappear: three book changes, each seen by the client
    await nextBlocks(3, "orphaned branch");
    const oldHead = book.blockNumber;
    const orphanBook = JSON.stringify({ bids: book.bids, asks: book.asks });
    const from = events.length;
    const reorgsBefore = messages.filter((t) => t === "reorg").length;
    // the resting orders as they were at the snapshot (keys and levels go on from n: new ones on the new branch)
    resting.splice(0, resting.length, ...restingAtSnapshot);

    await rpc("evm_revert", [snapshot]);
    // the new branch, past the old head
    let head = 0;
    while (head <= oldHead) head = await step();
    await until("the reorg seen and the book resynced", async () => messages.filter((t) => t === "reorg").length > reorgsBefore && events.slice(from).includes("resynced") && !book.stale && book.blockNumber >= head, 60_000);
    staleUntilResynced(from);
    await equalsRestAt(head, "past the old head");
    expect(JSON.stringify({ bids: book.bids, asks: book.asks })).not.toBe(orphanBook);
    await nextBlocks(20, "after the reorg");
    expect(book.stale).toBe(false);
  });

  it("npm run watch:book draws REST's book at the head, from the same client", async () => {
    const head = await step();
    await equalsRestAt(head, "before watch:book");
    const dir = join(v.base, "watch-book");
    mkdirSync(dir, { recursive: true });
    // what the script reads of .venue/local.json
    writeFileSync(join(dir, "local.json"), JSON.stringify({ streamsUrl: `http://127.0.0.1:${port}`, markets: v.deployment.markets.map((m) => ({ marketId: m.marketId, symbol: m.symbol })) }));
    const child = spawn(process.execPath, nodeTs(join(PROJECT_ROOT, "scripts/watch-book.ts")).concat([v.deployment.markets[0]!.symbol, "5"]), { cwd: PROJECT_ROOT, env: { ...process.env, VENUE_DIR: dir }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += String(d)));
    child.stderr.on("data", (d) => (out += String(d)));
    try {
      const frame = () => out.split("\x1b[2J\x1b[H").at(-1) ?? "";
      // a whole frame (the screen is redrawn at each change) that describes the head
      await until(`watch:book at block ${head}`, async () => frame().includes(` block ${head} `) && frame().endsWith("\n"), 60_000);
      const rest = ((await (await fetch(`${reads}/markets/${EUR}/orderbook?depth=5&minBlock=${head}`)).json()) as { data: { bids: BookLevel[]; asks: BookLevel[] } }).data;
      const lines = frame().trimEnd().split("\n");
      expect(lines[0]).toMatch(new RegExp(`^${v.deployment.markets[0]!.symbol} block ${head} seq \\d+$`));
      const cell = (l?: BookLevel) => (l ? `${formatX18(BigInt(l.quantity))} @ ${formatX18(BigInt(l.price))}` : "");
      const rows = lines.slice(2).map((line) => line.split("|").map((x) => x.trim().replace(/\s+/g, " ")));
      expect(rows.length).toBe(Math.max(rest.bids.length, rest.asks.length));
      expect(rows).toEqual(rows.map((_, i) => [cell(rest.bids[i]), cell(rest.asks[i])]));
      expect(rest.bids.length + rest.asks.length).toBeGreaterThan(2);
    } finally {
      child.kill("SIGINT");
    }
  });
});
