/**
 * The TypeScript client's stream client (packages/client, issue 30 "Tested") through disruptions,
 * on a venue of its own (own anvil, Ponder, read service and stream service; nothing else writes
 * to the chain, so every block is one of the test's steps, and the chain may be reverted):
 *   - the stream service killed and started again on the same port: the client's order book is
 *     `stale` from the drop until it has resynced (no change shown in between, not even for the
 *     blocks mined while the service was down); it reconnects by itself, resumes (a new epoch: a
 *     fresh snapshot), and then equals REST at each of the next 20 blocks;
 *   - a message lost on the client's side: the client runs over a transport of the test's (a
 *     WebSocket factory wrapping `ws`, `StreamOptions.webSocket`) told to lose one `update` of the
 *     orderbook subscription once the book has been fresh for a while; the next update shows the
 *     gap in `seq`: the book goes `stale`, the client resubscribes with `resume`, the service
 *     replays the lost update (no test switch in the server), and the book then equals REST at
 *     each of the next 20 blocks;
 *   - an anvil reorg (evm_snapshot → a branch that changes the book → evm_revert → another branch
 *     past the old head): the book goes `stale` at the service's `reorg` message and is resynced by
 *     the snapshot that follows; it then equals REST on the new branch at each of the next 20 blocks.
 * "Equals REST": `/markets/{id}/orderbook?depth=10&minBlock=N` answered at block N (x-indexed-block)
 * and the book the client holds at block N, level for level.
 * Then `npm run watch:book` (scripts/watch-book.ts, on the same client) on this venue draws REST's book.
 * Last, the package as published (issue 30): `npm pack` of packages/client, installed into a
 * project outside the repository, typechecks (the repository's tsc, strict, node16; the package's
 * declarations checked whole, with nothing in them pointing into core/) and its compiled script
 * reads this venue's markets and book (REST and stream) with node: what it prints equals REST.
 */
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import WebSocket from "ws";
import { e2ePort } from "./helpers/ports.js";
import { PROJECT_ROOT } from "../../core/deployment.js";
import { serviceMain, nodeTs } from "../../scripts/lib/services.js";
import { startProcess, waitForHttp, type Proc } from "../../scripts/lib/processes.js";
import { OrderBookView, StreamClient, formatX18, type BookLevel, type WebSocketFactory, type WebSocketLike } from "../../packages/client/src/index.js";
import { startVenue, type Venue } from "./reads-env.js";
import { sessionActions } from "./reads-session.js";
import { mainKind } from "./stack.js";
import { until } from "./helpers/wait.js";

const DEPTH = 10;
const [A, B] = [0, 1]; // the venue's own demo wallets (its own anvil): A asks, B bids

type Received = Record<string, unknown>;
/**
 * The client's transport: a `ws` WebSocket that passes every message through, except the first
 * one `lose` matches once it is set (that one is kept in `lost` and never reaches the client).
 */
function lossyTransport() {
  const t = {
    lose: undefined as ((m: Received) => boolean) | undefined,
    lost: [] as Received[],
    factory: ((url: string) => {
      const ws = new WebSocket(url);
      const like: WebSocketLike = {
        get readyState() {
          return ws.readyState;
        },
        send: (d) => ws.send(d),
        close: (code, reason) => ws.close(code, reason),
        onopen: null,
        onmessage: null,
        onclose: null,
        onerror: null,
      };
      ws.onopen = (ev) => like.onopen?.(ev);
      ws.onerror = (ev) => like.onerror?.(ev);
      ws.onclose = (ev) => like.onclose?.({ code: ev.code, reason: ev.reason });
      ws.onmessage = (ev) => {
        const text = String(ev.data);
        if (t.lose) {
          const m = JSON.parse(text) as Received;
          if (t.lose(m)) {
            t.lose = undefined;
            t.lost.push(m);
            return;
          }
        }
        like.onmessage?.({ data: text });
      };
      return like;
    }) satisfies WebSocketFactory,
  };
  return t;
}

const run = promisify(execFile);
/** npm run from here (e.g. under `npm test`) would take the repository's npm_config_* settings along */
const npmEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

type LockEntry = {
  version: string;
  integrity?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/**
 * The outside project's package-lock.json: the packed tarball, and the tree of its dependencies
 * (and @types/node) as the repository's lockfile pins it (versions and integrity, no registry URL),
 * so that `npm ci --offline` installs them from npm's cache by integrity: the cache after the
 * repository's `npm ci` holds their tarballs, not the registry documents a plain install asks for.
 */
function outsideLock(tgz: string, devDependencies: Record<string, string>) {
  const lock = (JSON.parse(readFileSync(join(PROJECT_ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> }).packages;
  const client = lock["packages/client"]!;
  // node's resolution in the repository's tree: the package's own node_modules, then its parents'
  const where = (from: string, dep: string): string | undefined => {
    for (let at = from; ; at = at.includes("/node_modules/") ? at.slice(0, at.lastIndexOf("/node_modules/")) : "") {
      const key = `${at ? `${at}/` : ""}node_modules/${dep}`;
      if (lock[key]) return key;
      if (!at) return undefined;
    }
  };
  const packages: Record<string, unknown> = {
    "": { name: "outside", dependencies: { "@venue-indexer/client": `file:${tgz}` }, devDependencies },
    "node_modules/@venue-indexer/client": {
      version: client.version,
      resolved: `file:${tgz}`,
      integrity: `sha512-${createHash("sha512").update(readFileSync(tgz)).digest("base64")}`,
      dependencies: client.dependencies,
    },
  };
  const visit = (from: string, deps: string[], optional = false) => {
    for (const dep of deps) {
      const key = where(from, dep);
      if (!key) {
        if (optional) continue;
        throw new Error(`the repository's lockfile has no ${dep} for ${from || "the root"}`);
      }
      if (packages[key]) continue;
      const e = lock[key]!;
      const { dev: _dev, ...entry } = e;
      packages[key] = entry;
      visit(key, [...Object.keys(e.dependencies ?? {}), ...Object.keys(e.peerDependencies ?? {}).filter((p) => !e.peerDependenciesMeta?.[p]?.optional)]);
      visit(key, Object.keys(e.optionalDependencies ?? {}), true);
    }
  };
  visit("", [...Object.keys(client.dependencies ?? {}), ...Object.keys(devDependencies)]);
  return { name: "outside", lockfileVersion: 3, requires: true, packages };
}

/** The outside project's script: the client's reads and its stream's book, printed as JSON. */
const OUTSIDE_MAIN = `import { VenueClient, StreamClient, meta, formatX18, type Hex, type MarketList, type OrderBook } from "@venue-indexer/client";

const [baseUrl, wsUrl, block, symbol] = process.argv.slice(2) as [string, string, string, string];
const venue = new VenueClient({ baseUrl });
const markets: MarketList = await venue.markets({ minBlock: Number(block) });
const marketId = markets.markets.find((m) => m.symbol === symbol)!.marketId as Hex;
const book: OrderBook = await venue.orderBook(marketId, { depth: 10, minBlock: Number(block) });
// @ts-expect-error -- the declarations carry the servers' shapes (not any): blockNumber is a number
const notAString: string = book.blockNumber;

const streams = new StreamClient({ url: wsUrl, reconnect: false });
const view = streams.orderBook(marketId, 10);
await new Promise<void>((resolve, reject) => {
  view.once("resynced", () => resolve());
  view.once("error", reject);
});
streams.close();
const bestBid: string | null = view.bestBid === null ? null : formatX18(view.bestBid);
console.log(JSON.stringify({ markets, book, indexedBlock: meta(book)?.indexedBlock, stream: { blockNumber: view.blockNumber, bids: view.bids, asks: view.asks, bestBid }, notAString }));
`;

/**
 * The package as a user gets it, in a project outside the repository (under `dir`): `npm pack` of
 * packages/client (its prepack builds dist/), installed with `npm ci --offline` (npm's cache: no
 * network needed), src/main.ts (OUTSIDE_MAIN) typechecked and compiled to out/main.js by the
 * repository's tsc (strict, node16 resolution: the package's `exports` and their types), and the
 * package's declarations checked whole.
 */
async function packOutsideProject(dir: string) {
  const proj = join(dir, "project");
  mkdirSync(join(proj, "src"), { recursive: true });
  await run("npm", ["pack", "--pack-destination", dir], { cwd: join(PROJECT_ROOT, "packages/client"), env: npmEnv() });
  const tgz = join(dir, readdirSync(dir).find((f) => f.endsWith(".tgz"))!);
  const tgzFiles = (await run("tar", ["tzf", tgz])).stdout.trim().split("\n").sort();

  const devDependencies = { "@types/node": (JSON.parse(readFileSync(join(PROJECT_ROOT, "node_modules/@types/node/package.json"), "utf8")) as { version: string }).version };
  writeFileSync(join(proj, "package.json"), JSON.stringify({ name: "outside", private: true, type: "module", dependencies: { "@venue-indexer/client": `file:${tgz}` }, devDependencies }, null, 2));
  writeFileSync(join(proj, "package-lock.json"), JSON.stringify(outsideLock(tgz, devDependencies), null, 2));
  let install = "npm ci --offline";
  try {
    await run("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: proj, env: npmEnv() });
  } catch (e) {
    // npm's cache lacks a tarball (cleared since the repository's install): the package unpacked,
    // its dependencies linked from the repository's node_modules (the case says so)
    install = `linked from the repository's node_modules (npm ci --offline: ${String((e as { stderr?: string }).stderr ?? e).split("\n")[0]})`;
    const at = join(proj, "node_modules/@venue-indexer/client");
    rmSync(join(proj, "node_modules"), { recursive: true, force: true });
    mkdirSync(at, { recursive: true });
    await run("tar", ["xzf", tgz, "-C", at, "--strip-components=1"]);
    for (const dep of ["viem", "isows", "@types"]) symlinkSync(join(PROJECT_ROOT, "node_modules", dep), join(proj, "node_modules", dep));
  }
  const installed = readdirSync(join(proj, "node_modules")).sort();

  writeFileSync(join(proj, "src/main.ts"), OUTSIDE_MAIN);
  const compilerOptions = { target: "ES2022", module: "node16", moduleResolution: "node16", lib: ["ES2022"], types: ["node"], strict: true, noUncheckedIndexedAccess: true, skipLibCheck: true, outDir: "out", rootDir: "src" };
  writeFileSync(join(proj, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["src"] }, null, 2));
  await run(process.execPath, [join(PROJECT_ROOT, "node_modules/typescript/bin/tsc"), "-p", proj]).catch((e: { stdout?: string }) => {
    throw new Error(`tsc in the outside project:\n${e.stdout}`);
  });
  const dts = join(proj, "node_modules/@venue-indexer/client/dist/index.d.ts");
  // skipLibCheck (what projects use: checking viem's own declarations takes 20 s) leaves the
  // package's declarations unchecked: the repository's TypeScript checks them (and main.ts) whole,
  // here with bundler resolution; in a process of its own (the test's event loop stays free)
  writeFileSync(join(dir, "check.mjs"), `import ts from ${JSON.stringify(join(PROJECT_ROOT, "node_modules/typescript/lib/typescript.js"))};
const [main, dts] = ${JSON.stringify([join(proj, "src/main.ts"), dts])};
const program = ts.createProgram([main], {
  target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, lib: ["lib.es2022.d.ts"], types: ["node"],
  typeRoots: [${JSON.stringify(join(proj, "node_modules/@types"))}], strict: true, noUncheckedIndexedAccess: true, noEmit: true,
});
const out = [main, dts].flatMap((f) => {
  const sf = program.getSourceFile(f);
  if (!sf) return [f + ": not in the program"];
  return [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].map((d) => f + ": " + ts.flattenDiagnosticMessageText(d.messageText, "\\n"));
});
console.log(JSON.stringify(out));
`);
  const diagnostics = JSON.parse((await run(process.execPath, [join(dir, "check.mjs")])).stdout) as string[];
  return { proj, tgzFiles, install, installed, dts, diagnostics };
}

describe.each([mainKind()])("the client's stream client through a stream-service restart, a lost message and a reorg (%s)", (kind) => {
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
  /** the orderbook subscription's messages as received (after the transport) */
  const bookMessages: { type: string; seq: number; blockNumber: number }[] = [];
  const transport = lossyTransport();

  const startStreamService = async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env, PROFILE: "local", PORT: String(port), HOST: "127.0.0.1", INTEGRATION_URL: reads, RPC_URL: v.rpcUrl, LOG_LEVEL: "warn",
      // no relayer here: the transactions channel's feed retries quietly
      RELAYER_URL: `http://127.0.0.1:${await e2ePort()}`,
    };
    delete env.DATABASE_URL;
    delete env.DATABASE_SCHEMA;
    proc = startProcess("streams", process.execPath, nodeTs(serviceMain("streams")), env, join(v.base, `streams-${Date.now()}.log`), PROJECT_ROOT);
    await waitForHttp(`http://127.0.0.1:${port}/health`, { proc, timeoutMs: 120_000, intervalMs: 100 });
  };

  let outside = "";
  /** the outside project, made while the venue starts and the other cases run (the last case uses it) */
  let packed: ReturnType<typeof packOutsideProject> | undefined;
  beforeAll(async () => {
    outside = mkdtempSync(join(tmpdir(), "client-pack-"));
    packed = packOutsideProject(outside);
    packed.catch(() => {}); // awaited (and reported) by its case
    v = await startVenue(kind);
    const { rd } = await v.startIndexerAndReads("clientstreams");
    reads = rd.url;
    port = await e2ePort();
    // (on Postgres too the stream service follows the read service's block feed: this file is about the client)
    await startStreamService();
    EUR = v.deployment.markets[0]!.marketId.toLowerCase() as Hex;
    client = new StreamClient({ url: `ws://127.0.0.1:${port}/ws`, webSocket: transport.factory, reconnect: { initialMs: 200, maxMs: 1_000, jitter: 0 } });
    client.on("message", (m) => {
      messages.push(String(m.type));
      if (m.channel === "orderbook" && m.seq !== undefined) bookMessages.push({ type: String(m.type), seq: Number(m.seq), blockNumber: Number(m.blockNumber) });
    });
    book = client.orderBook(EUR, DEPTH);
    book.on("stale", () => events.push("stale"));
    book.on("resynced", () => events.push("resynced"));
    book.on("change", () => events.push(`change@${book.blockNumber}`));
  }, 400_000);
  afterAll(async () => {
    await packed?.catch(() => {});
    if (outside) rmSync(outside, { recursive: true, force: true });
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

  it("a message lost by the client's transport: stale at the gap, resumed (the service replays it), then REST's book at each of the next 20 blocks", async () => {
    // the book has been fresh for a while (the case before's blocks, and these); the lost update
    // must change the book: not one of a step that only refreshes the index (every eighth: its update is empty)
    await nextBlocks((n + 3) % 8 === 0 ? 3 : 2, "before the loss");
    expect((n + 1) % 8).not.toBe(0);
    expect(book.stale).toBe(false);
    const from = events.length;
    const held = { block: book.blockNumber, seq: book.subscription.seq!, bids: book.bids, asks: book.asks };
    const snapshotsBefore = bookMessages.filter((m) => m.type === "snapshot").length;
    transport.lose = (m) => m.type === "update" && m.channel === "orderbook" && m.subscriptionId === book.subscription.serverId;

    const lostBlock = await step();
    await until("the transport lost the update", async () => transport.lost.length === 1, 30_000);
    const lost = transport.lost[0]!;
    expect(Number(lost.seq)).toBe(held.seq + 1);
    expect(Number(lost.blockNumber)).toBe(lostBlock);
    const lostData = lost.data as { bids?: unknown[]; asks?: unknown[] };
    expect((lostData.bids?.length ?? 0) + (lostData.asks?.length ?? 0), "the lost update changes the book").toBeGreaterThan(0);
    // nothing tells the client yet: it holds the book before the lost block (not stale)
    expect({ block: book.blockNumber, stale: book.stale, bids: book.bids, asks: book.asks }).toEqual({ block: held.block, stale: false, bids: held.bids, asks: held.asks });

    // the next update shows the gap (seq + 2): stale, resubscribed with resume, the lost one replayed
    const next = await step();
    await equalsRestAt(next, "the block after the lost one");
    const afterResync = staleUntilResynced(from);
    expect(afterResync.slice(1, 3), "the replay shows the lost block, then the next").toEqual([`change@${lostBlock}`, `change@${next}`]);
    expect(bookMessages.filter((m) => m.type === "snapshot").length, "a replay, not a fresh snapshot").toBe(snapshotsBefore);
    // received: the update after the gap (seq + 2), then the replay of seq + 1 and seq + 2
    expect(bookMessages.filter((m) => m.seq > held.seq).map((m) => `${m.type}#${m.seq - held.seq}@${m.blockNumber}`)).toEqual([
      `update#2@${next}`,
      `update#1@${lostBlock}`,
      `update#2@${next}`,
    ]);
    await nextBlocks(20, "after the lost message");
    expect(book.stale).toBe(false);
    expect(transport.lost.length).toBe(1);
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

  it("npm pack, installed into a project outside the repository: typechecks, nothing in its declarations points into core/, and runs against this venue (REST's markets and book)", async () => {
    const { proj, tgzFiles, install, installed, dts, diagnostics } = await packed!;
    if (install !== "npm ci --offline") console.warn(`the outside project's dependencies: ${install}`);
    expect(tgzFiles).toEqual(["package/dist/browser.d.ts", "package/dist/browser.js", "package/dist/index.d.ts", "package/dist/index.js", "package/package.json"]);
    expect(installed).toEqual(expect.arrayContaining(["@venue-indexer", "isows", "viem"]));
    expect(installed.filter((d) => /^(zod|hono|@hono)$/.test(d))).toEqual([]);

    // its declarations: imports of viem and isows only, nothing of core/ (or any path outside the package)
    const pre = ts.preProcessFile(readFileSync(dts, "utf8"), true, true);
    expect(pre.importedFiles.map((f) => f.fileName).filter((f) => !/^(viem|isows)(\/|$)/.test(f))).toEqual([]);
    expect([...pre.referencedFiles, ...pre.typeReferenceDirectives, ...pre.libReferenceDirectives].map((f) => f.fileName)).toEqual([]);

    // the package's declarations (and main.ts) checked whole, with bundler resolution
    expect(diagnostics).toEqual([]);

    // run with node against this venue; nothing mines meanwhile: REST's answers at the head
    const head = book.blockNumber;
    const { stdout } = await run(process.execPath, [join(proj, "out/main.js"), reads, `ws://127.0.0.1:${port}/ws`, String(head), v.deployment.markets[0]!.symbol], { cwd: proj, timeout: 60_000 });
    const out = JSON.parse(stdout) as { markets: unknown; book: { bids: BookLevel[]; asks: BookLevel[] }; indexedBlock: number; stream: { blockNumber: number; bids: BookLevel[]; asks: BookLevel[]; bestBid: string | null }; notAString: number };
    const rest = async (path: string) => {
      const res = await fetch(`${reads}${path}${path.includes("?") ? "&" : "?"}minBlock=${head}`);
      expect(Number(res.headers.get("x-indexed-block")), `${path} at ${head}`).toBe(head);
      return ((await res.json()) as { data: unknown }).data;
    };
    expect(out.markets).toEqual(await rest("/markets"));
    expect(out.indexedBlock).toBe(head);
    const restBook = (await rest(`/markets/${EUR}/orderbook?depth=${DEPTH}`)) as { bids: BookLevel[]; asks: BookLevel[] };
    expect(out.book).toEqual(restBook);
    expect(out.stream).toEqual({ blockNumber: head, bids: restBook.bids, asks: restBook.asks, bestBid: restBook.bids[0] ? formatX18(BigInt(restBook.bids[0].price)) : null });
    expect(restBook.bids.length + restBook.asks.length).toBeGreaterThan(2);
    expect(out.notAString).toBe(head);
  });
});
