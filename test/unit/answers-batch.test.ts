/** services/reads/batch.ts: a turn's builds in one request, each build its own answer, minBlock the highest asked. */
import { describe, expect, it } from "vitest";
import type { RawReply } from "../../core/http/raw-request.js";
import { feedHub, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";
import { AnswerStore, type Built } from "../../services/reads/answers.js";
import { batchBuilds, MAX_BATCHED_KEY } from "../../services/reads/batch.js";

type Sent = { minBlock: string; paths: string[] };

/** A stand-in for Ponder's POST /internal/answers: records each request, answers with `reply`. */
function indexer(reply: (req: Sent) => RawReply | Promise<RawReply> = (req) => ok(req.paths.map((p) => answer(p, 7)))) {
  const sent: Sent[] = [];
  const singles: string[] = [];
  const b = batchBuilds({
    indexerUrl: "http://127.0.0.1:1",
    token: "t",
    timeoutMs: 1_000,
    single: async (key) => {
      singles.push(key);
      return answer(key, 7);
    },
    post: async (body) => {
      const req = JSON.parse(body) as Sent;
      sent.push(req);
      return reply(req);
    },
  });
  return { ...b, sent, singles };
}
const answer = (path: string, block: number, status = 200): Built => ({ status, body: `{"success":true,"data":"${path}"}`, block: String(block) });
const ok = (answers: Built[], block = 7): RawReply => ({ status: 200, headers: { "x-indexed-block": String(block) }, text: JSON.stringify({ success: true, data: { block: String(block), answers } }) });

describe("batch builds (services/reads/batch.ts)", () => {
  it("the builds of one event-loop turn leave as one request; a key asked twice is one path; the next turn is another request", async () => {
    const ix = indexer();
    const [a, b, c, a2] = await Promise.all([ix.build("/markets", 5n), ix.build("/accounts/1", 5n), ix.build("/markets/0xab/orderbook?depth=3", 5n), ix.build("/markets", 5n)]);
    expect(ix.sent).toEqual([{ minBlock: "5", paths: ["/markets", "/accounts/1", "/markets/0xab/orderbook?depth=3"] }]);
    expect([a.body, b.body, c.body, a2]).toEqual([answer("/markets", 7).body, answer("/accounts/1", 7).body, answer("/markets/0xab/orderbook?depth=3", 7).body, a]);
    await ix.build("/accounts/2", 6n);
    expect(ix.sent.length).toBe(2);
    expect(ix.stats).toEqual({ requests: 2, answers: 4 });
  });

  it("asks the highest minBlock of the turn (an answer may be newer than asked, never older)", async () => {
    const ix = indexer();
    await Promise.all([ix.build("/markets", 5n), ix.build("/accounts/1", 9n), ix.build("/accounts/2", 3n)]);
    expect(ix.sent.map((s) => s.minBlock)).toEqual(["9"]);
  });

  it("each path keeps its own answer: a 404 or 400 is that path's, the others' are 200", async () => {
    const ix = indexer((req) => ok(req.paths.map((p) => (p.includes("999") ? answer(p, 7, 404) : p.includes("abc") ? answer(p, 7, 400) : answer(p, 7)))));
    const got = await Promise.all(["/accounts/1", "/accounts/999", "/accounts/abc", "/markets"].map((k) => ix.build(k, 1n)));
    expect(got.map((g) => g.status)).toEqual([200, 404, 400, 200]);
    expect(ix.sent.length).toBe(1);
  });

  it("a failed request rejects only its own builds; the next turn's are answered", async () => {
    let fail = true;
    const ix = indexer((req) => (fail ? { status: 500, headers: {}, text: '{"success":false}' } : ok(req.paths.map((p) => answer(p, 8)))));
    const first = Promise.allSettled([ix.build("/markets", 1n), ix.build("/accounts/1", 1n)]);
    expect((await first).map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect((await ix.build("/markets", 1n)).block).toBe("8");
    // a reply that does not match the paths (too few answers) is a failure too, not a wrong answer
    const short = indexer(() => ok([answer("/markets", 7)]));
    const r = await Promise.allSettled([short.build("/markets", 1n), short.build("/accounts/1", 1n)]);
    expect(r.map((x) => x.status)).toEqual(["rejected", "rejected"]);
    const thrown = indexer(() => Promise.reject(new Error("ECONNREFUSED")));
    await expect(thrown.build("/markets", 1n)).rejects.toThrow("ECONNREFUSED");
  });

  it("minBlock not indexed in time: every path of the request answers Ponder's 503 with its block", async () => {
    const body = '{"success":false,"error":{"code":"SERVICE_UNAVAILABLE","message":"block 9 is not indexed yet (indexed: 7); retry"}}';
    const ix = indexer(() => ({ status: 503, headers: { "x-indexed-block": "7" }, text: body }));
    const got = await Promise.all([ix.build("/markets", 9n), ix.build("/accounts/1", 9n)]);
    expect(got).toEqual([{ status: 503, body, block: "7" }, { status: 503, body, block: "7" }]);
  });

  it("splits a turn into requests of ≤ 50 paths and ≤ the body budget; a key too long for a batch is built alone", async () => {
    const ix = indexer();
    await Promise.all(Array.from({ length: 120 }, (_, i) => ix.build(`/accounts/${i + 1}`, 1n)));
    expect(ix.sent.map((s) => s.paths.length)).toEqual([50, 50, 20]);
    const long = `/accounts/1/orders?cursor=${"x".repeat(MAX_BATCHED_KEY)}`;
    const big = indexer();
    const cursors = Array.from({ length: 30 }, (_, i) => `/accounts/${i + 1}/orders?cursor=${"c".repeat(900)}`);
    await Promise.all([big.build(long, 1n), ...cursors.map((k) => big.build(k, 1n))]);
    expect(big.singles).toEqual([long]);
    expect(big.sent.every((s) => JSON.stringify(s).length <= 12 * 1024)).toBe(true);
    expect(big.sent.flatMap((s) => s.paths).sort()).toEqual([...cursors].sort());
  });

  it("with AnswerStore: a pushed block's rebuilds are one request, asked at the pushed block", async () => {
    const hub = feedHub();
    const feed: BlockFeed = { ...hub, revalidate: async () => hub.current(), close: async () => {} };
    const state = (n: number): IndexedState => ({ number: BigInt(n), timestamp: BigInt(n), hash: `0x${n}`, state: `s${n}` });
    hub.setLive(true);
    hub.push(state(1));
    const ix = indexer((req) => ok(req.paths.map((p) => answer(p, Number(req.minBlock))), Number(req.minBlock)));
    const store = new AnswerStore(feed, ix.build, { hotMs: 60_000, maxAnswers: 100, concurrency: 50 });
    const keys = Array.from({ length: 11 }, (_, i) => `/accounts/${i + 1}`);
    await Promise.all(keys.map((k) => store.get(k, k)));
    expect(ix.sent.length).toBe(1);
    hub.push(state(2));
    await store.whenSettled(1_000);
    expect(ix.sent.length).toBe(2);
    // one request with every path (in the store's rank order: most read first, a tie by the newest read)
    expect(ix.sent[1]!.minBlock).toBe("2");
    expect([...ix.sent[1]!.paths].sort()).toEqual([...keys].sort());
    expect(keys.map((k) => store.peek(k)?.block)).toEqual(keys.map(() => "2"));
  });
});
