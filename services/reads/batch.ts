/**
 * The hot answers built by Ponder's process, a block's at once (on PGlite, whose database no
 * other process may open; core/reads/plans.ts's plans run there). The builds asked in one turn of
 * the event loop (a pushed block's rebuilds: AnswerStore starts them together) leave as ONE
 * request, `POST /internal/answers` (src/api/routes/answers.ts), which reads the indexed state
 * once and every answer in one transaction of Ponder's database: one request and about one
 * statement per answer in the indexer's one thread, instead of one request per answer, each
 * reading the state twice around its rows (main.ts `buildThroughIndexer`, now only `single`).
 *
 * Each build keeps its own answer: a path's 404 or 400 is that path's (the route's exact bytes
 * for its URL), a 503 (`minBlock` not indexed within the bound) is every path's of the request,
 * and a request that fails (transport, 401, 500) rejects only its own builds. A request carries
 * the highest `minBlock` asked in the turn (a build may describe a newer state than it asked,
 * never an older one). Keys the route would refuse as a batch (longer than `MAX_BATCHED_KEY`)
 * are built one by one by `single`; a turn's keys are split into requests of at most
 * MAX_ANSWER_PATHS paths and `maxBodyBytes` (the API's body limit is 16 KiB by default).
 */
import { rawRequest, type RawReply } from "../../core/http/raw-request.js";
import { MAX_ANSWER_PATHS, type Built } from "../../core/reads/plans.js";

/** Longest key sent in a batch (the route accepts 2,048); a longer one is built alone. */
export const MAX_BATCHED_KEY = 1_024;

export type BatchOptions = {
  indexerUrl: string;
  /** the integration token (`X-Internal-Token`): the route answers only it */
  token: string;
  timeoutMs: number;
  /** A build outside a batch (a key too long for one): Ponder's route itself. */
  single: (key: string, minBlock: bigint) => Promise<Built>;
  maxPaths?: number;
  maxBodyBytes?: number;
  /** The request (tests give a stand-in): the body's JSON → the reply. */
  post?: (body: string) => Promise<RawReply>;
};

type Waiter = { key: string; resolve: (b: Built) => void; reject: (e: unknown) => void };

export type BatchBuilds = {
  /** AnswerStore's build: the answer of `key` (path and sorted query), at block `minBlock` or later. */
  build(key: string, minBlock: bigint): Promise<Built>;
  /** Requests sent and answers asked so far (the service logs them at debug). */
  stats: { requests: number; answers: number };
};

export function batchBuilds(o: BatchOptions): BatchBuilds {
  const maxPaths = Math.min(o.maxPaths ?? MAX_ANSWER_PATHS, MAX_ANSWER_PATHS);
  const maxBodyBytes = o.maxBodyBytes ?? 12 * 1024;
  const url = new URL(`${o.indexerUrl}/internal/answers`);
  const headers = () => ({ "content-type": "application/json", accept: "application/json", "x-internal-token": o.token });
  const post =
    o.post ??
    (async (body: string) => {
      try {
        return await rawRequest(url, "POST", headers(), body, o.timeoutMs);
      } catch (err) {
        // a kept-alive socket the server closed while idle: the request never reached it (a read: safe to send again)
        const e = err as { code?: string; reusedSocket?: boolean };
        if (e.reusedSocket && (e.code === "ECONNRESET" || e.code === "EPIPE")) return rawRequest(url, "POST", headers(), body, o.timeoutMs);
        throw err;
      }
    });
  const stats = { requests: 0, answers: 0 };

  // the turn's builds by key (a key asked twice in a turn is one path), and the highest minBlock asked
  let turn: Map<string, Waiter[]> | undefined;
  let turnMin = 0n;

  function build(key: string, minBlock: bigint): Promise<Built> {
    if (key.length > MAX_BATCHED_KEY) return o.single(key, minBlock);
    return new Promise<Built>((resolve, reject) => {
      if (!turn) {
        turn = new Map();
        turnMin = 0n;
        setImmediate(flush);
      }
      if (minBlock > turnMin) turnMin = minBlock;
      const w = { key, resolve, reject };
      const same = turn.get(key);
      if (same) same.push(w);
      else turn.set(key, [w]);
    });
  }

  function flush() {
    const keys = turn!;
    const minBlock = turnMin;
    turn = undefined;
    // requests of ≤ maxPaths keys and ≤ maxBodyBytes of JSON
    let chunk: string[] = [];
    let bytes = 0;
    const overhead = 64;
    for (const key of keys.keys()) {
      const size = Buffer.byteLength(JSON.stringify(key)) + 1;
      if (chunk.length && (chunk.length >= maxPaths || overhead + bytes + size > maxBodyBytes)) {
        void send(chunk, minBlock, keys);
        chunk = [];
        bytes = 0;
      }
      chunk.push(key);
      bytes += size;
    }
    if (chunk.length) void send(chunk, minBlock, keys);
  }

  async function send(paths: string[], minBlock: bigint, waiters: Map<string, Waiter[]>) {
    const each = (f: (w: Waiter, i: number) => void) => paths.forEach((p, i) => waiters.get(p)!.forEach((w) => f(w, i)));
    stats.requests++;
    stats.answers += paths.length;
    try {
      const res = await post(JSON.stringify({ minBlock: minBlock.toString(), paths }));
      const block = typeof res.headers["x-indexed-block"] === "string" ? res.headers["x-indexed-block"] : null;
      if (res.status === 503) {
        // minBlock not indexed within the bound: Ponder's 503 for each of these URLs
        const b: Built = { status: 503, body: res.text, block };
        return each((w) => w.resolve(b));
      }
      if (res.status !== 200) throw new Error(`POST /internal/answers: ${res.status} ${res.text.slice(0, 200)}`);
      const answers = (JSON.parse(res.text) as { data?: { answers?: Built[] } }).data?.answers;
      if (!Array.isArray(answers) || answers.length !== paths.length) throw new Error(`POST /internal/answers: ${answers?.length ?? "no"} answers for ${paths.length} paths`);
      each((w, i) => w.resolve(answers[i]!));
    } catch (e) {
      each((w) => w.reject(e));
    }
  }

  return { build, stats };
}
