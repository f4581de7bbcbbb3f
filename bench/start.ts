/**
 * `npm run bench -- start`: time to ready of `npm start`, per stage. One `--fresh` start, then
 * BENCH_START_RUNS (3) second starts of the same state, each on ports of its own (VENUE_BASE_PORT)
 * and a temporary VENUE_DIR; prints the seconds at which each stage line appeared (start.ts
 * prints one per stage as it goes) and the median of the second starts. Goal (issue 27, item 11):
 * median second start ≤ 30 s on an idle machine.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../core/deployment.js";
import { freeBasePort } from "../scripts/lib/ports.js";
import { nodeTs } from "../scripts/lib/services.js";

type Stages = { stage: string; seconds: number }[];

/** Runs one `npm start` until "The venue is running.", Ctrl-C, and returns its stage lines. */
function startOnce(dir: string, basePort: number, fresh: boolean): Promise<{ stages: Stages; totalSeconds: number }> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [...nodeTs(join(PROJECT_ROOT, "scripts/start.ts")), ...(fresh ? ["--fresh"] : [])], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, VENUE_BASE_PORT: String(basePort), VENUE_DIR: dir, PONDER_TELEMETRY_DISABLED: "true", SCHEDULE_ENABLED: "false" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const stages: Stages = [];
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      for (const line of d.toString().split("\n")) {
        const m = /^\[(\d+\.\d) s\]\s+(\S+)/.exec(line);
        if (m) stages.push({ stage: m[2]!, seconds: Number(m[1]) });
      }
      if (out.includes("The venue is running.")) {
        const totalSeconds = (Date.now() - t0) / 1000;
        child.stdout!.off("data", onData);
        child.once("exit", () => resolve({ stages, totalSeconds }));
        child.kill("SIGINT");
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (d) => (out += d));
    child.once("exit", (code) => {
      if (!out.includes("The venue is running.")) reject(new Error(`npm start exited with ${code} before ready:\n${out.slice(-3000)}`));
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run() {
  const runs = Number(process.env.BENCH_START_RUNS ?? 3);
  const dir = mkdtempSync(join(tmpdir(), "venue-bench-start-"));
  try {
    const results: { label: string; stages: Stages; totalSeconds: number }[] = [];
    for (let i = 0; i <= runs; i++) {
      const base = await freeBasePort();
      if (!base) throw new Error("no free VENUE_BASE_PORT below 32768");
      const r = await startOnce(dir, base, i === 0);
      results.push({ label: i === 0 ? "fresh" : `second #${i}`, ...r });
      console.log(`${results.at(-1)!.label.padEnd(10)} ready in ${r.totalSeconds.toFixed(1)} s: ${r.stages.map((s) => `${s.stage} ${s.seconds}`).join(", ")}`);
    }
    const seconds = results.slice(1).map((r) => r.totalSeconds);
    console.log(`second starts: median ${median(seconds).toFixed(1)} s (goal ≤ 30 s on an idle machine); runs ${seconds.map((s) => s.toFixed(1)).join(", ")} s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
