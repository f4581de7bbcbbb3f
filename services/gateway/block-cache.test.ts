import { describe, expect, it } from "vitest";
import { feedHub, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { memoryLastWrites } from "../../core/indexer/last-writes.js";
import { cachedReads } from "./block-cache.js";
import type { Upstream, UpstreamReply, UpstreamRequest } from "./upstream.js";

const state = (n: number, extra: Partial<IndexedState> = {}): IndexedState => ({ number: BigInt(n), timestamp: BigInt(n), hash: `0x${n}`, state: `s${n}`, ...extra });

function world() {
  const hub = feedHub();
  const feed: BlockFeed = { ...hub, revalidate: async () => hub.current(), close: async () => {} };
  hub.setLive(true);
  hub.push(state(1));
  const calls: UpstreamRequest[] = [];
  const releases: (() => void)[] = [];
  let hold = false;
  const upstream: Upstream = {
    name: "integration",
    baseUrl: "http://x",
    async call(req): Promise<UpstreamReply> {
      calls.push(req);
      const n = hub.current().number.toString();
      if (hold) await new Promise<void>((r) => releases.push(r));
      return { upstream: "integration", status: 200, body: { success: true, data: { at: n } }, indexedBlock: n, ms: 1 };
    },
  };
  const reads = cachedReads(upstream, feed, memoryLastWrites());
  return { hub, reads, calls, hold: (v: boolean) => (hold = v), release: () => releases.shift()?.() };
}

const get = (path = "/markets") => ({ method: "GET" as const, path });

describe("gateway per-block copy", () => {
  it("one upstream call per block; after a forward block the previous copy answers while the new one is fetched once (at that block)", async () => {
    const w = world();
    await w.reads.call(get());
    await w.reads.call(get());
    expect(w.calls.length).toBe(1);
    w.hold(true);
    w.hub.push(state(2));
    const first = await w.reads.call(get()); // no wait for the upstream
    expect(first.indexedBlock).toBe("1");
    await w.reads.call(get());
    expect(w.calls.length).toBe(2); // one fetch, shared
    expect(w.calls[1]!.query?.minBlock).toBe("2");
    w.release();
    await new Promise((r) => setTimeout(r, 5));
    expect((await w.reads.call(get())).indexedBlock).toBe("2");
    expect(w.calls.length).toBe(2);
  });

  it("after a revert nothing is carried over: the read waits for the new block's answer", async () => {
    const w = world();
    await w.reads.call(get());
    w.hold(true);
    w.hub.push(state(3, { reverted: true }));
    let done = false;
    const p = w.reads.call(get()).then((r) => ((done = true), r));
    await new Promise((r) => setTimeout(r, 5));
    expect(done).toBe(false);
    w.release();
    expect((await p).indexedBlock).toBe("3");
  });
});
