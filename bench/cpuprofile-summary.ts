/**
 * Summary of a V8 .cpuprofile (node --cpu-prof): self time by package/area and by function, and
 * the total (inclusive) time under chosen functions.
 *   npx tsx bench/cpuprofile-summary.ts <file.cpuprofile> [top=25] [--from=ms] [--to=ms] [--incl=name1,name2]
 */
import { readFileSync } from "node:fs";

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** A coarse area for a script URL: ponder's directory, a package, node's internals, or V8's pseudo-frames. */
export function area(url: string, fn: string): string {
  if (!url) return fn.startsWith("(") ? fn : "(native)";
  const m = url.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(?:dist\/(?:esm|cjs)\/)?([^/]+)?/);
  if (m) return m[1] === "ponder" ? `ponder/${m[2]}` : m[1]!;
  if (url.startsWith("node:")) return url.replace(/^node:internal\/([^/]+).*/, "node:$1");
  return url.replace(/^file:\/\/.*?\/(src|core|services|abis)\//, "app/$1/");
}

/** A few coarse groups of areas, for a table (approximate: V8 charges native frames to no package). */
export function group(a: string): string {
  if (a === "(idle)" || a === "(garbage collector)" || a === "(program)") return a;
  if (/^(node:deps|node:webstreams|node:worker|node:abort_controller|node:event_target|node:url|ponder\/node_modules)/.test(a)) return "JSON-RPC over fetch (undici, web streams)";
  if (/^(node:http|node:_http|node:net|node:stream_base_commons|node:streams|node:buffer|node:encoding)/.test(a)) return "sockets, buffers (node)";
  if (/^(drizzle-orm|pg|pg-protocol|pg-pool|pg-types|postgres-|ponder\/database|ponder\/drizzle|ponder\/sync-store)/.test(a)) return "SQL: drizzle, pg, sync store";
  if (/^(ponder\/indexing|ponder\/indexing-store|app\/|ponder\/utils|viem|@noble|abitype)/.test(a)) return "handlers, indexing store, decoding";
  if (/^(ponder\/rpc|ponder\/sync-historical|ponder\/sync-realtime|ponder\/runtime|ponder\/sync)/.test(a)) return "Ponder sync and runtime";
  if (/^(vite|rollup|esbuild|node:modules|node:vm|vite-node|node:fs)/.test(a)) return "startup: build, module loading";
  return a === "(native)" ? "(native, unattributed)" : "other";
}

function main() {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a))!;
  const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
  const from = Number(args.find((a) => a.startsWith("--from="))?.slice(7) ?? 0);
  const to = Number(args.find((a) => a.startsWith("--to="))?.slice(5) ?? Infinity);
  const incl = args.find((a) => a.startsWith("--incl="))?.slice(7).split(",") ?? [];
  // --by=ponder: each sample also charged to its nearest ancestor frame in ponder's own code
  // (skipping drizzle, pg, viem...): which of Ponder's functions the time is spent under
  const by = args.find((a) => a.startsWith("--by="))?.slice(5);
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let t = 0;
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i]! / 1000;
    if (t < from || t > to) continue;
    const d = (p.timeDeltas[i + 1] ?? 0) / 1000;
    self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + d);
    total += d;
  }
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const under = new Map<string, number>();
  for (const [id, ms] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const a = area(url, functionName);
    areas.set(a, (areas.get(a) ?? 0) + ms);
    const key = `${functionName || "(anonymous)"} ${a}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + ms);
    if (by) {
      let key = "(none)";
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const f = byId.get(cur)!.callFrame;
        const fa = area(f.url, f.functionName);
        if (fa.startsWith(by) || (by === "ponder" && fa.startsWith("app/"))) {
          key = `${f.functionName || "(anonymous)"} ${fa}:${f.lineNumber + 1}`;
          break;
        }
      }
      if (a === "(idle)") key = "(idle)";
      under.set(key, (under.get(key) ?? 0) + ms);
    }
    // inclusive time: once per named ancestor
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const name = byId.get(cur)!.callFrame.functionName;
      if (incl.includes(name) && !seen.has(name)) {
        seen.add(name);
        inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
      }
    }
  }
  const busy = total - (areas.get("(idle)") ?? 0);
  const groups = new Map<string, number>();
  for (const [a, ms] of areas) groups.set(group(a), (groups.get(group(a)) ?? 0) + ms);
  const pct = (ms: number) => `${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %`;
  console.log(`${file}: ${(total / 1000).toFixed(1)} s sampled, busy (not idle) ${(busy / 1000).toFixed(1)} s = ${((100 * busy) / total).toFixed(0)} %`);
  console.log("self time by group:");
  for (const [g, ms] of [...groups].sort((x, y) => y[1] - x[1])) console.log(`  ${pct(ms)}  ${g}`);
  console.log("self time by area:");
  for (const [a, ms] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`  ${pct(ms)}  ${a}`);
  console.log("self time by function:");
  for (const [f, ms] of [...fns].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`  ${pct(ms)}  ${f}`);
  if (by) {
    console.log(`by nearest ${by} frame:`);
    for (const [f, ms] of [...under].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`  ${pct(ms)}  ${f}`);
  }
  if (incl.length) {
    console.log("inclusive:");
    for (const name of incl) console.log(`  ${pct(inclusive.get(name) ?? 0)}  ${name}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
