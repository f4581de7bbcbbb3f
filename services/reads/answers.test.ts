import { describe, expect, it } from "vitest";
import { EMPTY_STATE, feedHub, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { AnswerStore } from "./answers.js";

const state = (n: number): IndexedState => ({ number: BigInt(n), timestamp: BigInt(n), hash: `0x${n}`, state: `s${n}` });

function world() {
  const hub = feedHub();
  const feed: BlockFeed = { ...hub, revalidate: async () => hub.current(), close: async () => {} };
  hub.setLive(true);
  hub.push(state(1));
  const builds: { path: string; minBlock: bigint }[] = [];
  const releases: (() => void)[] = [];
  let hold = false;
  const store = new AnswerStore(
    feed,
    async (path, minBlock) => {
      builds.push({ path, minBlock });
      if (hold) await new Promise<void>((r) => releases.push(r));
      return { status: path.includes("missing") ? 404 : 200, body: `${path}@${hub.current().number}`, block: String(hub.current().number) };
    },
    { hotMs: 60_000, maxAnswers: 10, concurrency: 4 },
  );
  return { hub, store, builds, holdBuilds: (v: boolean) => (hold = v), release: () => releases.shift()?.() };
}

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
});
