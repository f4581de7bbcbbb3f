/**
 * `sseBlockFeed.revalidate` asks the state server the integration API advertises
 * (STATE_URL_HEADER), and Ponder's own `/blocks/current` when there is none, when it is
 * unreachable, or when it does not answer 200. Ponder here is a stand-in node:http server; the
 * state server is the real worker (src/api/lib/stateServer.ts).
 */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startStateServer, type StateServer } from "../../src/api/lib/stateServer.js";
import { sseBlockFeed, STATE_URL_HEADER } from "../../core/indexer/sse-feed.js";
import type { BlockFeed } from "../../core/indexer/feed.js";
import { stateToJson, type IndexedState } from "../../core/indexer/indexed-state.js";

const st = (n: number): IndexedState => ({ number: BigInt(n), timestamp: 1_764_000_000n + BigInt(n), hash: `0x${n.toString(16).padStart(64, "0")}`, state: `cp${n}:0x${n.toString(16).padStart(64, "0")}:0` });

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A stand-in for Ponder's `/blocks/*`: its state, advertising `advertised` (if any); counts its `/blocks/current` reads. */
async function ponder(state: IndexedState, advertised?: string) {
  const hits = { current: 0 };
  const headers = advertised ? { [STATE_URL_HEADER]: advertised } : {};
  const server: Server = createServer((req, res) => {
    if (req.url === "/blocks/current") {
      hits.current++;
      res.writeHead(200, { "Content-Type": "application/json", ...headers }).end(stateToJson(state));
    } else if (req.url === "/blocks/stream") {
      res.writeHead(200, { "Content-Type": "text/event-stream", ...headers });
      res.write(`event: block\ndata: ${stateToJson(state)}\n\n`);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanup.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits };
}

async function feedOf(url: string, onError?: (e: unknown) => void): Promise<BlockFeed> {
  const feed = sseBlockFeed({ url, onError });
  cleanup.push(() => feed.close());
  await feed.ready;
  return feed;
}

async function stateServer(): Promise<{ s: StateServer; url: string }> {
  const s = startStateServer();
  cleanup.push(() => s.close());
  return { s, url: (await s.ready)! };
}

describe("sseBlockFeed revalidate", () => {
  it("asks the advertised state server, not Ponder's route", async () => {
    const { s, url } = await stateServer();
    s.publish(st(8));
    const p = await ponder(st(7), url);
    const feed = await feedOf(p.url);
    expect(feed.current().number).toBe(7n);
    expect((await feed.revalidate()).number).toBe(8n);
    expect(feed.current().number).toBe(8n);
    expect(p.hits.current).toBe(0);
  });

  it("falls back to Ponder's /blocks/current when the advertised server is unreachable, and skips it for a while", async () => {
    const { url } = await stateServer();
    const dead = url;
    // the worker gone: its port refuses connections
    await cleanup.pop()!();
    const p = await ponder(st(9), dead);
    const errors: unknown[] = [];
    const feed = await feedOf(p.url, (e) => errors.push(e));
    expect((await feed.revalidate()).number).toBe(9n);
    expect(p.hits.current).toBe(1);
    expect(errors.length).toBe(1);
    // not tried again at once (one failed connect per 5 s at most)
    expect((await feed.revalidate()).number).toBe(9n);
    expect(p.hits.current).toBe(2);
    expect(errors.length).toBe(1);
  });

  it("falls back while the state server has no state or holds it (a revert signalled); none advertised: Ponder's route", async () => {
    const { s, url } = await stateServer();
    const p = await ponder(st(5), url);
    const feed = await feedOf(p.url);
    expect((await feed.revalidate()).number).toBe(5n); // nothing written yet: 503
    s.publish(st(6));
    s.hold(true);
    expect((await feed.revalidate()).number).toBe(5n);
    expect(p.hits.current).toBe(2);
    s.hold(false);
    expect((await feed.revalidate()).number).toBe(6n);
    expect(p.hits.current).toBe(2);

    const plain = await ponder(st(3));
    const other = await feedOf(plain.url);
    expect((await other.revalidate()).number).toBe(3n);
    expect(plain.hits.current).toBe(1);
  });
});
