/**
 * The order vitest hands e2e files to its workers (vitest.config.ts: two at a time). A file on the
 * shared stack (`sharedStack()` / `postgresStack()`) waits while another one holds it
 * (test/e2e/helpers/stack-lock.ts), so those files are spread among the files on venues of their
 * own: while one worker runs a file on the shared stack, the other mostly runs one of its own.
 * Within each kind vitest's own order is kept (slowest first by the last run's durations; larger
 * files first on a clean clone), so the long files start early and the run ends on short ones.
 * Files of other projects keep vitest's order.
 */
import { readFileSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const SHARED = /\b(sharedStack|postgresStack)\(\)/;

export default class E2eSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const e2e = sorted.filter((f) => f.project.name === "e2e");
    if (e2e.length === 0) return sorted;
    const shared = e2e.filter((f) => SHARED.test(readFileSync(f.moduleId, "utf8")));
    const own = e2e.filter((f) => !shared.includes(f));
    const spread: TestSpecification[] = [];
    let s = 0;
    own.forEach((f, i) => {
      spread.push(f);
      // after own file i, the shared files up to the same fraction of their list
      for (const end = Math.round(((i + 1) * shared.length) / own.length); s < end; s++) spread.push(shared[s]!);
    });
    spread.push(...shared.slice(s));
    return [...sorted.filter((f) => f.project.name !== "e2e"), ...spread];
  }
}
