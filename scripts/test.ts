/**
 * The test command, in phases, each timed; a summary at the end (CI's log shows where the minutes go).
 *   npm test              deps, forge, unit, e2e: everything (what CI runs)
 *   npm run test:fast     the pre-commit check (≤ 5 min): deps, forge without its fuzz and
 *                         invariant suites, unit, and a few e2e files on one PGlite stack
 * The phases run side by side where nothing orders them: e2e from the start (it uses the
 * committed abis/, not forge's build); the contracts compiled once (`build`), then forge's tests
 * and the unit tests (which read that build) beside each other. On this 2-core machine forge's
 * longest suite (the venue invariant) holds one core for minutes and e2e waits on chains and
 * processes half the time, so the run takes about as long as e2e alone. e2e's output is shown as
 * it comes; each other phase's when it ends (one readable block per phase). Every phase runs
 * even when another failed (one run shows every failure); the exit code is 1 when any failed.
 * `TEST_PHASES=unit,e2e` runs only those (a phase waits only for the phases selected).
 */
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const fast = process.argv.includes("--fast");

/** The e2e files of the fast tier: the shared stack's start-up and its main paths (reads, writes, the gateway). */
export const FAST_E2E_FILES = ["test/e2e/start-harness.test.ts", "test/e2e/oracle.test.ts", "test/e2e/writes.test.ts", "test/e2e/gateway.test.ts"];

type Phase = { name: string; cmd: string; args: string[]; env?: Record<string, string>; after?: string[]; live?: boolean };

const npx = (bin: string, ...args: string[]): Pick<Phase, "cmd" | "args"> => ({ cmd: "npx", args: ["--no-install", bin, ...args] });

const phases: Phase[] = [
  { name: "deps", ...npx("depcruise", "--config", ".dependency-cruiser.cjs", "core", "src", "services", "scripts", "bench", "test", "abis", "ponder.schema.ts", "ponder.config.ts") },
  // the one compilation of the contracts and of forge's tests (both profiles of contracts/foundry.toml)
  { name: "build", ...npx("tsx", "scripts/forge.ts", "build") },
  fast
    ? // forge's fuzz/ and invariant/ suites skipped; the other property tests on a few runs each
      { name: "forge", ...npx("tsx", "scripts/forge.ts", "test", "--no-match-path", "test/{fuzz,invariant}/**"), env: { FOUNDRY_FUZZ_RUNS: "16" }, after: ["build"] }
    : { name: "forge", ...npx("tsx", "scripts/forge.ts", "test"), after: ["build"] },
  { name: "unit", ...npx("vitest", "run", "--project", "unit"), after: ["build"] },
  fast
    ? { name: "e2e", ...npx("vitest", "run", "--project", "e2e", ...FAST_E2E_FILES), env: { E2E_DB: "pglite" }, live: true }
    : { name: "e2e", ...npx("vitest", "run", "--project", "e2e"), live: true },
];

const only = process.env.TEST_PHASES?.split(",").map((s) => s.trim()).filter(Boolean);
const selected = phases.filter((p) => !only || only.includes(p.name));
const label = fast ? "test:fast" : "test";

/** Runs a phase: its output live (`live`) or kept and printed whole when it ends. */
const run = (p: Phase) =>
  new Promise<number>((done) => {
    const child = spawn(p.cmd, p.args, {
      cwd: root,
      stdio: p.live ? "inherit" : ["ignore", "pipe", "pipe"],
      env: { ...process.env, PONDER_TELEMETRY_DISABLED: "true", ...p.env },
    });
    const out: Buffer[] = [];
    child.stdout?.on("data", (d: Buffer) => out.push(d));
    child.stderr?.on("data", (d: Buffer) => out.push(d));
    child.on("close", (code, signal) => {
      if (!p.live) process.stdout.write(`\n== ${label}: ${p.name}'s output (${[p.cmd, ...p.args].join(" ")})\n${Buffer.concat(out).toString()}`);
      done(code ?? (signal ? 1 : 0));
    });
  });

const results: { name: string; seconds: number; code: number }[] = [];
const t0 = Date.now();
const running = new Map<string, Promise<number>>();
const start = (p: Phase): Promise<number> => {
  let r = running.get(p.name);
  if (r) return r;
  r = (async () => {
    // a phase whose prerequisite failed still runs: its own failures are worth seeing too
    await Promise.all(selected.filter((q) => p.after?.includes(q.name)).map(start));
    console.log(`\n== ${label}: ${p.name} started at ${Math.round((Date.now() - t0) / 1000)} s (${[p.cmd, ...p.args].join(" ")})`);
    const begin = Date.now();
    const code = await run(p);
    results.push({ name: p.name, seconds: Math.round((Date.now() - begin) / 1000), code });
    console.log(`== ${p.name}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${results.at(-1)!.seconds} s`);
    return code;
  })();
  running.set(p.name, r);
  return r;
};
await Promise.all(selected.map(start));
console.log(`\n== phases (${label}, side by side), ${Math.round((Date.now() - t0) / 1000)} s in all`);
for (const r of results) console.log(`${r.name.padEnd(6)} ${String(r.seconds).padStart(5)} s  ${r.code === 0 ? "passed" : "FAILED"}`);
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
console.log(failed.length ? `failed phases: ${failed.join(", ")}` : "every phase passed");
process.exit(failed.length ? 1 : 0);
