// The indexed-state server's thread (stateServer.ts starts it): answers `GET /blocks/current`
// from the shared memory the main thread writes at each push, so a read never waits for the main
// thread (on PGlite it runs the database, 27-40 ms per indexed block). Plain JS: a worker thread
// loads it as is, whatever loader (Ponder's, tsx, vitest) ran the main thread.
//
// Memory layout (stateServer.ts writes it): Int32 [0] sequence (odd while a write runs),
// [1] length of the state's bytes (0: none yet), [2] hold (1: a revert was signalled and its state
// not read yet); bytes from offset 16: `stateToJson` of the state, UTF-8.
import { createServer } from "node:http";
import { parentPort, workerData } from "node:worker_threads";

const sab = workerData.sab;
const head = new Int32Array(sab, 0, 4);
const bytes = new Uint8Array(sab, 16);

let seen = -1;
/** @type {Buffer | null} */
let body = null;

/** The state's bytes as last written (a seqlock read: retried if a write ran meanwhile), null if none. */
function current() {
  for (let tries = 0; tries < 1000; tries++) {
    const seq = Atomics.load(head, 0);
    if (seq & 1) continue;
    if (seq === seen) return body;
    const len = Atomics.load(head, 1);
    const copy = len > 0 ? Buffer.from(bytes.subarray(0, len)) : null;
    if (Atomics.load(head, 0) !== seq) continue;
    seen = seq;
    body = copy;
    return body;
  }
  return null;
}

const UNAVAILABLE = JSON.stringify({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: "no indexed state to serve here; ask the indexer's /blocks/current" } });

const server = createServer((req, res) => {
  const path = req.url?.split("?")[0];
  if (path !== "/blocks/current" || (req.method !== "GET" && req.method !== "HEAD")) {
    res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ success: false, error: { code: "NOT_FOUND", message: "only GET /blocks/current" } }));
    return;
  }
  const b = Atomics.load(head, 2) === 0 ? current() : null;
  if (!b) {
    res.writeHead(503, { "Content-Type": "application/json", "Cache-Control": "no-store", "Retry-After": "0" }).end(UNAVAILABLE);
    return;
  }
  res.writeHead(200, ["Content-Type", "application/json", "Cache-Control", "no-store", "Content-Length", String(b.length)]);
  res.end(req.method === "HEAD" ? undefined : b);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  parentPort?.postMessage({ port: typeof address === "object" && address ? address.port : 0 });
});
