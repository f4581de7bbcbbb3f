import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Two projects: `unit` (fast, parallel) and `e2e` (real anvil, Ponder, services; one stack
// per database kind started once by test/e2e/global-setup.ts; files run one at a time).
export default defineConfig({
  test: {
    // the default output, then every file's duration, slowest first (where CI's minutes go)
    reporters: ["default", "./test/reporters/file-durations.ts"],
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
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
