/**
 * Access to the stack started by test/e2e/global-setup.ts: one per run, on the run's main
 * database (`mainKind()`: Postgres unless `E2E_DB=pglite`). Typical use:
 *
 *   describe.each([sharedStack()])("orders ($kind)", (s) => { … s.integrationUrl … });
 *
 * The stack is shared by every e2e file of the run, one file at a time (`sharedStack()` holds it
 * for the calling file: test/e2e/helpers/stack-lock.ts; files on venues of their own run beside
 * it): use wallets that no other file relies on, or create fresh state. See test/e2e/stack.ts
 * for the demo wallets.
 * Files where the database matters (reads, history, consistency, reorg, rebuild, SQL) run on
 * each kind of `dbKinds()` with venues of their own (test/e2e/reads-env.ts).
 */
import { inject } from "vitest";
import type { DbKind, StackInfo } from "../stack.js";
import { holdSharedStack } from "./stack-lock.js";

export type { StackInfo, DbKind };

/**
 * The run's shared stack, held by the calling file from its first hook to its last (call it while
 * the file is collected, as `describe.each([sharedStack()])` does). Throws (the file fails) when
 * global-setup provided none.
 */
export function sharedStack(): StackInfo {
  const s = inject("stack");
  if (!s) throw new Error("no shared stack: test/e2e/global-setup.ts did not start one (see its error above)");
  holdSharedStack();
  return s;
}

/** The shared stack when it runs on Postgres (what a test of two replicas on one database needs); fails otherwise. */
export function postgresStack(): StackInfo {
  const s = sharedStack();
  if (!s.databaseUrl) throw new Error(`this file needs the Postgres stack; the run's stack is on ${s.kind} (E2E_DB=postgres or both)`);
  return s;
}
