/**
 * The test command, in phases, each timed; a summary at the end (CI's log shows where the minutes go).
 *   npm test              deps, forge, unit, e2e: everything (what CI runs)
 *   npm run test:fast     the pre-commit check (≤ 5 min): deps, forge without its fuzz and
 *                         invariant suites, unit, a few e2e files on one PGlite stack and the
 *                         golden answers
 * Every phase runs even when an earlier one failed (one run shows every failure); the exit code
 * is 1 when any failed. `TEST_PHASES=unit,e2e` runs only those.
 *
 * The venue's invariant campaign (contracts/test/invariant, about a minute and a half on one core) runs
 * beside unit and e2e, once forge has compiled: it is single-threaded, and unit and e2e leave
 * most of a second core idle (e2e waits on chains and indexers). Its output is printed after the
 * last phase, above the summary.
 */
import { spawn, type StdioOptions } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const fast = process.argv.includes("--fast");

/**
 * The e2e files of the fast tier: the shared stack's start-up and its main paths (reads, writes,
 * the gateway), and the golden answers (a venue of their own): a contract change moves the
 * markets' addresses and the transactions' hashes in them, which only the goldens show.
 */
export const FAST_E2E_FILES = [
  "test/e2e/start-harness.test.ts", "test/e2e/oracle.test.ts", "test/e2e/writes.test.ts", "test/e2e/gateway.test.ts", "test/e2e/reads-golden.test.ts",
];

const INVARIANT_SUITES = "test/invariant/**";

/** `beside`: started once the phases before it ended, run while the ones after it run, awaited at the end. */
type Phase = { name: string; cmd: string; args: string[]; env?: Record<string, string>; beside?: boolean };

const npx = (bin: string, ...args: string[]): Pick<Phase, "cmd" | "args"> => ({ cmd: "npx", args: ["--no-install", bin, ...args] });
const forge = (...args: string[]) => npx("tsx", "scripts/forge.ts", "test", ...args);

const phases: Phase[] = [
  // the dependency rules over the folders package.json's `test:deps` names (one list)
  { name: "deps", cmd: "npm", args: ["run", "--silent", "test:deps"] },
  ...(fast
    ? // forge's fuzz/ and invariant/ suites skipped; the other property tests on a few runs each
      [{ name: "forge", ...forge("--no-match-path", "test/{fuzz,invariant}/**"), env: { FOUNDRY_FUZZ_RUNS: "16" } }]
    : [
        { name: "forge", ...forge("--no-match-path", INVARIANT_SUITES) },
        // compiled by the phase before: this one only runs the campaign
        { name: "invariant", ...forge("--match-path", INVARIANT_SUITES), beside: true },
      ]),
  { name: "unit", ...npx("vitest", "run", "--project", "unit") },
  fast
    ? { name: "e2e", ...npx("vitest", "run", "--project", "e2e", ...FAST_E2E_FILES), env: { E2E_DB: "pglite" } }
    : { name: "e2e", ...npx("vitest", "run", "--project", "e2e") },
];

const only = process.env.TEST_PHASES?.split(",").map((s) => s.trim()).filter(Boolean);
/** Runs `p`; a phase beside the others keeps its output (printed when it ends) off the terminal. */
const run = (p: Phase) =>
  new Promise<number>((done) => {
    const stdio: StdioOptions = p.beside ? ["ignore", "pipe", "pipe"] : "inherit";
    const child = spawn(p.cmd, p.args, { cwd: root, stdio, env: { ...process.env, PONDER_TELEMETRY_DISABLED: "true", ...p.env } });
    if (p.beside) {
      const chunks: Buffer[] = [];
      child.stdout!.on("data", (b: Buffer) => chunks.push(b));
      child.stderr!.on("data", (b: Buffer) => chunks.push(b));
      // printed once every phase has ended, just above the summary: a failure's details (forge's
      // failing sequence and seed) are then in the log's last lines, not amid another phase's output
      child.on("close", () => besideOutputs.push(`\n== ${p.name} (it ran beside the phases after forge): its output\n${Buffer.concat(chunks).toString()}`));
    }
    child.on("close", (code, signal) => done(code ?? (signal ? 1 : 0)));
  });

const besideOutputs: string[] = [];
const results: { name: string; seconds: number; code: number; beside?: boolean }[] = [];
const pending: Promise<void>[] = [];
const t0 = Date.now();
for (const p of phases.filter((p) => !only || only.includes(p.name))) {
  console.log(`\n== ${fast ? "test:fast" : "test"}: ${p.name} (${[p.cmd, ...p.args].join(" ")})${p.beside ? ", beside the next phases" : ""}`);
  const start = Date.now();
  const finished = run(p).then((code) => {
    results.push({ name: p.name, seconds: Math.round((Date.now() - start) / 1000), code, beside: p.beside });
    console.log(`== ${p.name}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${results.at(-1)!.seconds} s`);
  });
  if (p.beside) pending.push(finished);
  else await finished;
}
await Promise.all(pending);
for (const out of besideOutputs) console.log(out);
console.log(`\n== phases (${fast ? "test:fast" : "test"}), ${Math.round((Date.now() - t0) / 1000)} s in all`);
for (const r of results) console.log(`${r.name.padEnd(9)} ${String(r.seconds).padStart(5)} s  ${r.code === 0 ? "passed" : "FAILED"}${r.beside ? "  (beside the phases after it)" : ""}`);
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
console.log(failed.length ? `failed phases: ${failed.join(", ")}` : "every phase passed");
process.exit(failed.length ? 1 : 0);
