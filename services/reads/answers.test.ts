import { describe, expect, it } from "vitest";
import { EMPTY_STATE, feedHub, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { AnswerStore } from "./answers.js";

const state = (n: number): IndexedState => ({ number: BigInt(n), timestamp: BigInt(n), hash: `0x${n}`, state: `s${n}` });

function world(o: { eagerMax?: number; eagerBytes?: number; maxAnswers?: number; concurrency?: number } = {}) {
  const hub = feedHub();
  const feed: BlockFeed = { ...hub, revalidate: async () => hub.current(), close: async () => {} };
  hub.setLive(true);
  hub.push(state(1));
  const builds: { path: string; minBlock: bigint }[] = [];
  const releases: { path: string; go: () => void }[] = [];
  let hold = false;
  const store = new AnswerStore(
    feed,
    async (path, minBlock) => {
      builds.push({ path, minBlock });
      if (hold) await new Promise<void>((go) => releases.push({ path, go }));
      return { status: path.includes("missing") ? 404 : 200, body: `${path}@${hub.current().number}`, block: String(hub.current().number) };
    },
    { hotMs: 60_000, maxAnswers: 10, eagerMax: 100, concurrency: 8, ...o },
  );
  /** Lets the oldest held build finish (of `path` if given). */
  const release = (path?: string) => {
    const i = path === undefined ? 0 : releases.findIndex((r) => r.path === path);
    if (i >= 0) releases.splice(i, 1)[0]!.go();
  };
  return { hub, store, builds, holdBuilds: (v: boolean) => (hold = v), release };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("AnswerStore", () => {
  it("builds once, serves from memory, rebuilds once per pushed block (not per request)", async () => {
    const w = world();
    const [a, b] = await Promise.all([w.store.get("/m", "/m"), w.store.get("/m", "/m")]);
    expect([a.body, b.body, w.builds.length]).toEqual(["/m@1", "/m@1", 1]);
    expect(w.store.peek("/m")?.body).toBe("/m@1");
    w.hub.push(state(2)); // the store rebuilds by itself, with minBlock = the pushed block
    expect(w.builds.length).toBe(2); // before anyone asks
    expect(w.store.peek("/m", 2n)).toBeUndefined(); // never below a ?minBlock
    const c = await w.store.get("/m", "/m");
    expect([c.body, w.builds.length, w.builds[1]!.minBlock]).toEqual(["/m@2", 2, 2n]);
    expect(w.store.peek("/m")?.body).toBe("/m@2");
  });

  it("while a forward block's rebuild runs, the previous block's answer is served (first read as fast as the rest)", async () => {
    const w = world();
    await w.store.get("/b", "/b");
    w.holdBuilds(true);
    w.hub.push(state(2));
    expect(w.store.peek("/b")?.body).toBe("/b@1"); // block 1's exact answer, labelled block 1
    expect(w.store.peek("/b", 2n)).toBeUndefined(); // but not to a reader that needs block 2
    const strict = w.store.get("/b", "/b"); // no-cache, ?minBlock: wait for the rebuild
    w.release();
    expect((await strict).body).toBe("/b@2");
    expect(w.store.peek("/b")?.body).toBe("/b@2");
    expect(w.builds.length).toBe(2);
  });

  it("all answers switch to a new block together, once every rebuild has landed", async () => {
    const w = world();
    await w.store.get("/a", "/a");
    await w.store.get("/b", "/b");
    w.holdBuilds(true);
    w.hub.push(state(2));
    let settled = false;
    void w.store.whenSettled(60_000).then(() => (settled = true));
    w.release(); // /a's rebuild lands: still block 1 for both, so no client sees 2 then 1
    await new Promise((r) => setTimeout(r, 5));
    expect([w.store.peek("/a")?.body, w.store.peek("/b")?.body, settled]).toEqual(["/a@1", "/b@1", false]);
    w.release();
    await new Promise((r) => setTimeout(r, 5));
    expect([w.store.peek("/a")?.body, w.store.peek("/b")?.body, settled, w.store.settledBlock]).toEqual(["/a@2", "/b@2", true, 2n]);
  });

  it("after a revert (reorg) nothing is carried over: a request waits for its rebuild", async () => {
    const w = world();
    await w.store.get("/b", "/b");
    w.holdBuilds(true);
    w.hub.push({ ...state(3), reverted: true });
    expect(w.store.peek("/b")).toBeUndefined();
    const pending = w.store.get("/b", "/b");
    await new Promise((r) => setTimeout(r, 10));
    w.release();
    expect((await pending).body).toBe("/b@3");
    // nor when the block does not move forward (a revert seen by a later read of the state)
    await w.store.get("/b", "/b");
    w.hub.push({ ...state(3), state: "s3-other-branch" });
    expect(w.store.peek("/b")).toBeUndefined();
    w.release();
  });

  it("a revalidating request (no-cache, ?minBlock) during a rebuild waits for it instead of getting the older answer", async () => {
    const w = world();
    await w.store.get("/b", "/b");
    w.holdBuilds(true);
    w.hub.push(state(2));
    const pending = w.store.get("/b", "/b");
    await new Promise((r) => setTimeout(r, 10));
    w.release();
    expect((await pending).body).toBe("/b@2");
    expect(w.builds.length).toBe(2); // the push's rebuild, shared
  });

  it("errors are returned, never held", async () => {
    const w = world();
    expect((await w.store.get("/missing", "/missing")).status).toBe(404);
    expect(w.store.peek("/missing")).toBeUndefined();
    expect(w.store.size).toBe(0);
    expect(EMPTY_STATE.state).toBe("");
  });
  it("a push rebuilds at most eagerMax answers, the most read; the others are built when next read", async () => {
    const w = world({ eagerMax: 2 });
    const reads = { "/a": 5, "/b": 3, "/c": 1, "/d": 1 };
    for (const [k, n] of Object.entries(reads)) {
      await w.store.get(k, k);
      for (let i = 1; i < n; i++) w.store.peek(k);
    }
    const before = w.builds.length;
    w.holdBuilds(true);
    w.hub.push(state(2));
    expect(w.builds.slice(before).map((b) => b.path).sort()).toEqual(["/a", "/b"]);
    expect(w.store.peek("/c")?.body).toBe("/c@1"); // carried over with the rest of block 1 while block 2's rebuilds run
    w.release("/a");
    w.release("/b");
    await tick();
    expect([w.store.settledBlock, w.store.peek("/a")?.body, w.store.peek("/c")]).toEqual([2n, "/a@2", undefined]);
    w.holdBuilds(false);
    expect((await w.store.get("/c", "/c")).body).toBe("/c@2"); // built when read, at the current block
    expect(w.builds.length).toBe(before + 3);
  });

  it("however many distinct keys are read, a push costs at most eagerMax builds", async () => {
    const w = world({ eagerMax: 3, maxAnswers: 1_000 });
    await w.store.get("/markets", "/markets");
    for (let i = 0; i < 5; i++) w.store.peek("/markets"); // the popular answer
    for (let i = 0; i < 200; i++) await w.store.get(`/markets?junk=${i}`, `/markets?junk=${i}`);
    for (let block = 2; block <= 5; block++) {
      const before = w.builds.length;
      w.hub.push(state(block));
      await tick();
      expect(w.builds.length - before).toBeLessThanOrEqual(3);
      expect(w.store.peek("/markets")?.body).toBe(`/markets@${block}`); // still rebuilt eagerly, the most read
    }
  });

  it("builds of keys read meanwhile never hold back the switch to a block (a stream of new keys cannot starve it)", async () => {
    const w = world({ eagerMax: 1 });
    await w.store.get("/a", "/a");
    for (let i = 0; i < 3; i++) w.store.peek("/a");
    w.holdBuilds(true);
    const slow = w.store.get("/new", "/new"); // an on-demand build, still running at the push
    w.hub.push(state(2)); // /a ranks first: the only eager rebuild
    let settled = false;
    void w.store.whenSettled(60_000).then(() => (settled = true));
    w.release("/a");
    await tick();
    expect([settled, w.store.settledBlock, w.store.peek("/a")?.body]).toEqual([true, 2n, "/a@2"]);
    w.holdBuilds(false);
    w.release("/new");
    expect((await slow).body).toBe("/new@2");
  });

  it("a full store makes room for a new key by dropping the answer read longest ago", async () => {
    const w = world({ maxAnswers: 3 });
    for (const k of ["/a", "/b", "/c"]) await w.store.get(k, k);
    await tick();
    w.store.peek("/a");
    await w.store.get("/d", "/d");
    expect(w.store.size).toBe(3);
    expect([w.store.peek("/a")?.body, w.store.peek("/b"), w.store.peek("/d")?.body]).toEqual(["/a@1", undefined, "/d@1"]);
  });
  it("a push's eager rebuilds go before builds of reads waiting for their turn", async () => {
    const w = world({ eagerMax: 1, concurrency: 1 });
    await w.store.get("/a", "/a");
    for (let i = 0; i < 3; i++) w.store.peek("/a");
    w.holdBuilds(true);
    const x1 = w.store.get("/x1", "/x1"); // runs
    const x2 = w.store.get("/x2", "/x2"); // waits for a turn
    w.hub.push(state(2)); // /a's rebuild waits too, but before /x2
    const before = w.builds.length;
    w.release("/x1");
    await tick();
    expect(w.builds.slice(before).map((b) => b.path)).toEqual(["/a"]);
    w.holdBuilds(false);
    w.release("/a");
    await Promise.all([x1, x2]);
    expect(w.store.peek("/a")?.body).toBe("/a@2");
  });
  it("a push's eager rebuilds are bounded in bytes too: a huge answer is built when next read", async () => {
    const big = `/big${"x".repeat(40)}`;
    const w = world({ eagerBytes: 20 });
    for (const k of [big, "/a", "/b"]) await w.store.get(k, k);
    for (let i = 0; i < 5; i++) w.store.peek(big); // the most read, but 46 bytes
    const before = w.builds.length;
    w.hub.push(state(2));
    await tick();
    expect(w.builds.slice(before).map((b) => b.path).sort()).toEqual(["/a", "/b"]);
    expect(w.store.peek(big)).toBeUndefined();
    expect((await w.store.get(big, big)).body).toBe(`${big}@2`);
  });
});
