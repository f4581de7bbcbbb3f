/**
 * The indexed state served from a thread of its own (PGlite): indexing runs the database in this
 * process's one thread (27-40 ms per block, more for the rebuilds it serves), and a no-cache read
 * of the read service asks for the indexed state on every read; answered by that thread, the ask
 * waited behind each block (docs/PERFORMANCE.md). Here the main thread writes each state the feed
 * pushes into shared memory (a seqlock: a sequence odd while writing), and a worker thread
 * (stateServer.worker.mjs) answers `GET /blocks/current` with those bytes from its own node:http
 * server on 127.0.0.1, port chosen by the OS. Ponder's `/blocks/*` routes advertise its URL
 * (`STATE_URL_HEADER`); `sseBlockFeed` asks it, and Ponder's own route when it is absent or down.
 * The worker holds no state of its own and is unref'd: it ends with the process.
 */
import { Worker } from "node:worker_threads";
import { stateToJson, type IndexedState } from "../../../core/indexer/indexed-state.js";

const HEADER_BYTES = 16;

/** The shared memory of one state: header (sequence, length, hold) and the state's JSON bytes. */
export function stateSlot(capacity = 4096) {
  const sab = new SharedArrayBuffer(HEADER_BYTES + capacity);
  const head = new Int32Array(sab, 0, 4);
  const bytes = new Uint8Array(sab, HEADER_BYTES);
  const encoder = new TextEncoder();
  return {
    sab,
    /** Writes the state's wire form (`stateToJson`); one too large for the slot clears it (the worker then answers 503). */
    write(s: IndexedState | null) {
      const b = s ? encoder.encode(stateToJson(s)) : undefined;
      Atomics.add(head, 0, 1); // odd: a reader retries
      if (b && b.length <= bytes.length) {
        bytes.set(b);
        Atomics.store(head, 1, b.length);
      } else Atomics.store(head, 1, 0);
      Atomics.add(head, 0, 1);
    },
    /** While held (a revert signalled, its state not read yet) the worker answers 503: the state it has may be the orphaned branch's. */
    hold(on: boolean) {
      Atomics.store(head, 2, on ? 1 : 0);
    },
  };
}

export type StateServer = {
  /** Called on every state the feed pushes, before its subscribers hear of it. */
  publish(s: IndexedState): void;
  hold(on: boolean): void;
  /** `http://127.0.0.1:<port>/blocks/current` once the worker listens; undefined before, and after it died. */
  url(): string | undefined;
  /** Resolves with `url()` once the worker listens (undefined if it could not start). */
  ready: Promise<string | undefined>;
  close(): Promise<void>;
};

export function startStateServer(o: { onError?: (e: unknown) => void } = {}): StateServer {
  const slot = stateSlot();
  let url: string | undefined;
  // plain JS: none of this process's flags (a loader's, --input-type) applies to it
  const worker = new Worker(new URL("./stateServer.worker.mjs", import.meta.url), { workerData: { sab: slot.sab }, execArgv: [] });
  worker.unref();
  const ready = new Promise<string | undefined>((resolve) => {
    worker.once("message", (m: { port: number }) => {
      url = m.port ? `http://127.0.0.1:${m.port}/blocks/current` : undefined;
      resolve(url);
    });
    worker.once("error", (e) => {
      url = undefined;
      o.onError?.(e);
      resolve(undefined);
    });
    worker.once("exit", () => {
      url = undefined;
      resolve(undefined);
    });
  });
  return {
    publish: (s) => slot.write(s),
    hold: (on) => slot.hold(on),
    url: () => url,
    ready,
    async close() {
      url = undefined;
      await worker.terminate();
    },
  };
}
