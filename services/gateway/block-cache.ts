/**
 * The gateway's own copy of the per-block read answers, and read-your-writes.
 *
 * `cachedReads` wraps the integration upstream: a GET of a hot read route is answered from the
 * copy held for the current indexed block (the block feed of the read service, pushed), its
 * snake_case body rendered once per block (`send` keeps it on the reply); the copy is dropped
 * on every new block. Only 200 answers are held; `Cache-Control: no-cache`, a `min_block` ahead
 * of the feed, or a feed that is down go to the upstream.
 *
 * Read-your-writes: `recordWrites` wraps the relayer upstream and notes, per caller wallet (an
 * API key's wallet), the block its last write was mined in; a read by the same wallet first waits
 * (at most `waitMs`, 2 s) on the feed for that block. The notes live in this process, and with
 * Postgres also in the gateway's table `last_write`, whose NOTIFY brings other replicas' writes
 * (last-writes.ts).
 */
import { waitForIndexedBlock, type BlockFeed } from "../../core/indexer/blocks";
import type { Upstream, UpstreamReply, UpstreamRequest } from "./upstream";

const ID = "0x[0-9a-fA-F]{64}";
const HOT = new RegExp(`^/(markets(/${ID}(/(funding|orderbook|price))?)?|accounts/[0-9]{1,30}(/(orders|positions/${ID}(/funding)?))?)$`);
const MAX_HELD = 5_000;

export interface LastWrites {
  /** the block of `wallet`'s last mined write, if any is known */
  get(wallet: string): bigint | undefined;
  record(wallet: string, block: bigint): Promise<void>;
}

/** Notes in this process only (PGlite: one gateway process). */
export function memoryLastWrites(): LastWrites & { apply(wallet: string, block: bigint): void } {
  const blocks = new Map<string, bigint>();
  const apply = (wallet: string, block: bigint) => {
    const w = wallet.toLowerCase();
    if ((blocks.get(w) ?? -1n) < block) blocks.set(w, block);
  };
  return { get: (w) => blocks.get(w.toLowerCase()), apply, record: async (w, b) => apply(w, b) };
}

const keyOf = (req: UpstreamRequest) => {
  const q = Object.entries(req.query ?? {})
    .filter(([k, v]) => k !== "minBlock" && v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  return q ? `${req.path}?${q}` : req.path;
};

export function cachedReads(upstream: Upstream, feed: BlockFeed, lastWrites: LastWrites, waitMs = 2_000): Upstream {
  let gen = 0;
  let held = new Map<string, UpstreamReply>();
  const inflight = new Map<string, Promise<UpstreamReply>>();
  feed.subscribe(() => {
    gen++;
    held = new Map();
  });
  async function call(req: UpstreamRequest): Promise<UpstreamReply> {
    if ((req.method ?? "GET") !== "GET" || !HOT.test(req.path)) return upstream.call(req);
    const caller = req.headers?.["X-Caller-Address"];
    const lastWrite = caller ? lastWrites.get(caller) : undefined;
    if (lastWrite !== undefined && feed.current().number < lastWrite) await waitForIndexedBlock(feed, lastWrite, waitMs);
    const minBlock = req.query?.minBlock;
    if (
      !feed.live() ||
      /no-cache|no-store/i.test(req.headers?.["Cache-Control"] ?? "") ||
      (minBlock !== undefined && BigInt(minBlock) > feed.current().number)
    ) {
      return upstream.call(req);
    }
    const key = keyOf(req);
    const hit = held.get(key);
    if (hit) return hit; // the same object each time: `send` renders its body once
    const pending = inflight.get(key);
    if (pending) return pending;
    const at = gen;
    const p = upstream.call(req).then((reply) => {
      if (reply.status === 200 && at === gen && held.size < MAX_HELD) held.set(key, { ...reply, ms: 0 });
      return reply;
    });
    inflight.set(key, p);
    try {
      return await p;
    } finally {
      inflight.delete(key);
    }
  }
  return { ...upstream, call };
}

/** Notes the block of every write the relayer answers as mined, for the caller's later reads. */
export function recordWrites(upstream: Upstream, lastWrites: LastWrites): Upstream {
  async function call(req: UpstreamRequest): Promise<UpstreamReply> {
    const reply = await upstream.call(req);
    const caller = req.headers?.["X-Caller-Address"];
    const data = reply.body.data as { blockNumber?: unknown } | undefined;
    if ((req.method ?? "GET") !== "GET" && caller && reply.body.success && data && (typeof data.blockNumber === "number" || typeof data.blockNumber === "string")) {
      await lastWrites.record(caller, BigInt(data.blockNumber));
    }
    return reply;
  }
  return { ...upstream, call };
}
