/**
 * vitest globalSetup of the e2e project: once per run, one stack per database kind
 * (`E2E_DB=pglite|postgres|both`, default both), started in parallel, each on its own anvil
 * (see test/e2e/stack.ts). Tests read them with `inject("stacks")` (helpers: test/e2e/helpers).
 * Teardown stops every process group and drops the run's Postgres database.
 * Logs: the temp dir printed at start (`E2E_VERBOSE=1` prints progress).
 */
import type { TestProject } from "vitest/node";
import { checkPostgres, dbKinds, startStack, type DbKind, type RunningStack, type StackInfo } from "./stack.js";

declare module "vitest" {
  export interface ProvidedContext {
    stacks: Partial<Record<DbKind, StackInfo>>;
  }
}

export default async function setup(project: TestProject) {
  process.env.PONDER_TELEMETRY_DISABLED = "true";
  const kinds = dbKinds();
  const runId = `${Date.now().toString(36).slice(-5)}${Math.random().toString(36).slice(2, 5)}`;
  const log = (m: string) => {
    if (process.env.E2E_VERBOSE) console.log(`[e2e] ${m}`);
  };
  if (kinds.includes("postgres")) await checkPostgres();

  const t0 = Date.now();
  const results = await Promise.allSettled(kinds.map((k) => startStack(k, runId, { log })));
  const running = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const teardown = async () => {
    await Promise.all(running.map((s) => s.stop()));
  };
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) {
    await teardown();
    throw failed.reason;
  }
  const stacks: Partial<Record<DbKind, StackInfo>> = {};
  for (const s of running as RunningStack[]) stacks[s.info.kind] = s.info;
  console.log(`[e2e] ${kinds.join(" + ")} stack(s) up in ${Date.now() - t0} ms; logs: ${running.map((s) => s.info.logDir).join(", ")}`);
  project.provide("stacks", stacks);
  return teardown;
}
