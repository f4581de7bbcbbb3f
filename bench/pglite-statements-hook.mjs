/**
 * `node --import ./bench/pglite-statements-hook.mjs` in Ponder's process (BENCH_PONDER_NODE_ARGS):
 * counts the statements PGlite runs (protocol messages Parse and Query) and the time spent inside
 * its `execProtocolRaw` (the WASM Postgres and its file sync; wall time, and the process's CPU time
 * over the same calls, `cpuMs`, less sensitive to the machine's load), written every 250 ms as JSON to
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
  // byKind: statement count and ms (its own messages until the next statement) by the text's first words
  const counts = { statements: 0, ms: 0, cpuMs: 0, byKind: {} };
  let kind = "other";
  const text = (m) => {
    // Parse: 'P', int32 length, name\0, query\0; Query: 'Q', int32 length, query\0
    let start = 5;
    if (m[0] === 0x50) {
      while (start < m.length && m[start] !== 0) start++;
      start++;
    }
    return Buffer.from(m.subarray(start, Math.min(m.length, start + 400))).toString("utf8").split("\0")[0];
  };
  // the verb and the first schema-qualified table named: enough to tell Ponder's sync, its block, ours apart
  const kindOf = (q) => {
    const t = q.replace(/\s+/g, " ").trim();
    const verb = /^(WITH \w+ AS \(\w+|\w+( INTO| FROM)?)/i.exec(t)?.[1] ?? "?";
    const table = /"(\w+)"\."(\w+)"/.exec(t);
    return `${verb.toUpperCase()} ${table ? `${table[1]}.${table[2]}` : ""}`.trim();
  };

  const raw = PGlite.prototype.execProtocolRaw;
  PGlite.prototype.execProtocolRaw = async function (message, opts) {
    const t = performance.now();
    const c0 = process.cpuUsage();
    if (message[0] === 0x50 || message[0] === 0x51) {
      counts.statements++;
      kind = kindOf(text(message));
      (counts.byKind[kind] ??= [0, 0, 0])[0]++;
    }
    try {
      return await raw.call(this, message, opts);
    } finally {
      const d = performance.now() - t;
      const c = process.cpuUsage(c0);
      const cpu = (c.user + c.system) / 1000;
      counts.ms += d;
      counts.cpuMs += cpu;
      const k = (counts.byKind[kind] ??= [0, 0, 0]);
      k[1] += d;
      k[2] = (k[2] ?? 0) + cpu;
    }
  };
  setInterval(() => writeFileSync(file, JSON.stringify(counts)), 250).unref();
}
