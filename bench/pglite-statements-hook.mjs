/**
 * `node --import ./bench/pglite-statements-hook.mjs` in Ponder's process (BENCH_PONDER_NODE_ARGS):
 * counts the statements PGlite runs (protocol messages Parse and Query) and the time spent inside
 * its `execProtocolRaw` (the WASM Postgres and its file sync), written every 250 ms as JSON to
 * BENCH_PGLITE_STATEMENTS_FILE, so bench/reads.ts can report statements per block.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

const file = process.env.BENCH_PGLITE_STATEMENTS_FILE;
if (file) {
  // the copy Ponder imports (its own dependency), so the patch reaches its instance
  const { PGlite } = await import(pathToFileURL(join(process.cwd(), "node_modules/ponder/node_modules/@electric-sql/pglite/dist/index.js")).href);
  const counts = { statements: 0, ms: 0 };
  const raw = PGlite.prototype.execProtocolRaw;
  PGlite.prototype.execProtocolRaw = async function (message, opts) {
    const t = performance.now();
    if (message[0] === 0x50 || message[0] === 0x51) counts.statements++;
    try {
      return await raw.call(this, message, opts);
    } finally {
      counts.ms += performance.now() - t;
    }
  };
  setInterval(() => writeFileSync(file, JSON.stringify(counts)), 250).unref();
}
