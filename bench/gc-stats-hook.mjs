// `node --import ./bench/gc-stats-hook.mjs` in Ponder's process (PONDER_NODE_ARGS or
// BENCH_PONDER_NODE_ARGS): V8's garbage collections by kind (count, pause ms, the longest pause,
// pauses over 50 ms) and the heap's peak,
// written every second to $BENCH_GC_STATS_DIR/gc-<pid>.json (one file per process, in start order).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PerformanceObserver, constants } from "node:perf_hooks";

const dir = process.env.BENCH_GC_STATS_DIR;
if (dir) {
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
    [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
  };
  const stats = { pid: process.pid, start: Date.now(), args: process.execArgv, gc: {}, peakHeapMB: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const k = kinds[e.detail?.kind ?? e.kind] ?? "other";
      const s = (stats.gc[k] ??= { count: 0, ms: 0, maxMs: 0, over50: 0 });
      s.count++;
      s.ms += e.duration;
      s.maxMs = Math.max(s.maxMs, e.duration);
      if (e.duration > 50) s.over50++;
    }
  }).observe({ entryTypes: ["gc"] });
  const file = join(dir, `gc-${process.pid}.json`);
  setInterval(() => {
    stats.peakHeapMB = Math.max(stats.peakHeapMB, process.memoryUsage().heapUsed / 2 ** 20);
    stats.now = Date.now();
    try {
      writeFileSync(file, JSON.stringify(stats));
    } catch {}
  }, 1000).unref();
}
