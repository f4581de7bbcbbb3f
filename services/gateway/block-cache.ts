/**
 * The gateway's own copy of the per-block read answers, and read-your-writes.
 *
 * `cachedReads` wraps the integration upstream: a GET of a hot read route is answered from the
 * copy held for the current indexed block (the block feed of the read service, pushed), its
 * snake_case body rendered once per block (`send` keeps it on the reply); the copy is dropped
 * on every new block, but still served while the new block's copy is fetched (once, at the
 * push's block), if the feed moved forward (no revert) and for at most `carryMs`, so the first
 * read after a block is a hit too (on the hot path as well: `carried`). Only 200 answers are held; `Cache-Control: no-cache`, a
 * `min_block` ahead of the feed, or a feed that is down go to the upstream.
 *
 * Read-your-writes: `recordWrites` wraps the relayer upstream and notes, per caller wallet (an
 * API key's wallet), the block its last write was mined in; a read by the same wallet first waits
 * (at most `waitMs`, 2 s) on the feed for that block. The notes live in this process, and with
 * Postgres also in the gateway's table `last_write`, whose NOTIFY brings other replicas' writes
 * (last-writes.ts).
 */
import { advancedFrom, waitForIndexedBlock, type BlockFeed } from "../../core/indexer/blocks.js";
import { minedBlock, type LastWrites } from "../../core/indexer/last-writes.js";
import { answerKey, isHeldPath } from "../../core/reads/routes.js";
import type { Upstream, UpstreamReply, UpstreamRequest } from "./upstream.js";

const MAX_HELD = 5_000;

const keyOf = (req: UpstreamRequest) => answerKey(req.path, req.query ?? {});

export function cachedReads(upstream: Upstream, feed: BlockFeed, lastWrites: LastWrites, waitMs = 2_000, carryMs = 2_000): Upstream {
  let gen = 0;
  let held = new Map<string, UpstreamReply>();
  // the previous block's copy, served while the new block's answer is fetched (forward pushes only)
  let prev = new Map<string, UpstreamReply>();
  let prevUntil = 0;
  let last = feed.current();
  const inflight = new Map<string, Promise<UpstreamReply>>();
  // the request of each key held (without the caller's headers: a copy is everyone's), so the hot
  // path can start the next block's fetch itself (`carried`)
  const requests = new Map<string, UpstreamRequest>();
  feed.subscribe((s) => {
    gen++;
    const forward = advancedFrom(last, s);
    last = s;
    prev = forward ? held : new Map();
    prevUntil = forward ? Date.now() + carryMs : 0;
    held = new Map();
  });
  /** The answer of the current block, fetched once however many callers ask meanwhile. */
  function fill(key: string, req: UpstreamRequest): Promise<UpstreamReply> {
    const pending = inflight.get(key);
    if (pending) return pending;
    const at = gen;
    const n = feed.current().number;
    // the read service may still carry the previous block's answer: ask for this block's
    const p = upstream.call({ ...req, query: { ...req.query, minBlock: n.toString() } }).then((reply) => {
      if (reply.status === 200 && at === gen && held.size < MAX_HELD && reply.indexedBlock !== null && BigInt(reply.indexedBlock) >= n) {
        held.set(key, { ...reply, ms: 0, heldGen: at, heldKey: key });
        if (requests.size >= MAX_HELD) requests.clear();
        requests.set(key, { method: "GET", path: req.path, query: req.query });
      }
      return reply;
    });
    inflight.set(key, p);
    void p.finally(() => inflight.delete(key)).catch(() => {});
    return p;
  }
  async function call(req: UpstreamRequest): Promise<UpstreamReply> {
    if ((req.method ?? "GET") !== "GET" || !isHeldPath(req.path)) return upstream.call(req);
    const caller = req.headers?.["X-Caller-Address"];
    const lastWrite = caller ? lastWrites.get(caller) : undefined;
    let min: bigint | undefined = req.query?.minBlock === undefined ? undefined : BigInt(req.query.minBlock);
    if (lastWrite !== undefined && (min === undefined || lastWrite > min)) {
      if (feed.current().number < lastWrite) await waitForIndexedBlock(feed, lastWrite, waitMs);
      if (feed.current().number >= lastWrite) min = lastWrite;
    }
    if (!feed.live() || /no-cache|no-store/i.test(req.headers?.["Cache-Control"] ?? "") || (min !== undefined && min > feed.current().number)) {
      return upstream.call(req);
    }
    const key = keyOf(req);
    const hit = held.get(key);
    if (hit) return hit; // the same object each time: `send` renders its body once
    const pending = fill(key, req);
    // the first read after a block: the previous block's copy while this one's is fetched
    const old = prev.get(key);
    if (old && Date.now() < prevUntil && (min === undefined || (old.indexedBlock !== null && BigInt(old.indexedBlock) >= min))) {
      void pending.catch(() => {});
      return old;
    }
    return pending;
  }
  /** The hot path's side of the carry-over (Upstream.carried). */
  function carried(key: string, at: number): boolean {
    if (at !== gen - 1 || Date.now() >= prevUntil || held.has(key) || !prev.has(key)) return false;
    const req = requests.get(key);
    if (!req) return false;
    if (!inflight.has(key)) void fill(key, req).catch(() => {});
    return true;
  }
  return { ...upstream, call, generation: () => gen, carried };
}

/** Notes the block of every write the relayer answers as mined, for the caller's later reads. */
export function recordWrites(upstream: Upstream, lastWrites: LastWrites): Upstream {
  async function call(req: UpstreamRequest): Promise<UpstreamReply> {
    const reply = await upstream.call(req);
    const caller = req.headers?.["X-Caller-Address"];
    const block = reply.body.success ? minedBlock(reply.body.data) : undefined;
    if ((req.method ?? "GET") !== "GET" && caller && block !== undefined) await lastWrites.record(caller, block);
    return reply;
  }
  return { ...upstream, call };
}
