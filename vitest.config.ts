import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import E2eSequencer from "./test/e2e/sequencer.js";

/**
 * e2e files side by side: E2E_WORKERS (default 2). Most of an e2e file's time is waiting (on a
 * chain, an indexer, a restarted process), so two at a time on this 2-core machine; the files on
 * the shared stack still take it one at a time (test/e2e/helpers/stack-lock.ts).
 */
const e2eWorkers = Number(process.env.E2E_WORKERS ?? 2);

// Two projects: `unit` (fast, parallel) and `e2e` (real anvil, Ponder, services; one stack
// started once by test/e2e/global-setup.ts and shared by one file at a time, the other files on
// venues of their own).
export default defineConfig({
  test: {
    // the default output, then every file's duration, slowest first (where CI's minutes go)
    reporters: ["default", "./test/reporters/file-durations.ts"],
    // e2e: the files on the shared stack spread among the others (test/e2e/sequencer.ts)
    sequence: { sequencer: E2eSequencer },
    // the e2e project's workers (unit sets its own): here, so that `--maxWorkers=1` on the
    // command line still runs e2e files one at a time (a project's own setting would win over it)
    maxWorkers: e2eWorkers,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "core/**/*.test.ts", "services/**/*.test.ts", "packages/*/test/**/*.test.ts"],
          testTimeout: 60_000,
          // a worker per core (vitest's default, cores − 1, is one worker on a 2-core machine): the
          // unit phase runs alone in CI (forge before it, e2e after)
          maxWorkers: availableParallelism(),
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
          fileParallelism: true,
          // after the unit files when one command runs both (never in one pool with them)
          sequence: { groupOrder: 1 },
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
