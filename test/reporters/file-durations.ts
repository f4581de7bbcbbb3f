/**
 * A vitest reporter that prints, after the run, every test file's wall time (collect + tests and
 * hooks), slowest first, per project, with the project's total: where CI's minutes go.
 * Used beside the default reporter (vitest.config.ts). `DURATIONS_JSON=<file>` also writes them.
 */
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

export default class FileDurations implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const rows = modules.map((m) => {
      const d = m.diagnostic();
      return {
        project: m.project.name,
        file: relative(process.cwd(), m.moduleId),
        ms: Math.round(d.collectDuration + d.duration),
        state: m.state(),
      };
    });
    if (!rows.length) return;
    const lines = ["", "== per-file durations (collect + tests and hooks), slowest first"];
    for (const project of [...new Set(rows.map((r) => r.project))].sort()) {
      const mine = rows.filter((r) => r.project === project).sort((a, b) => b.ms - a.ms);
      const total = mine.reduce((s, r) => s + r.ms, 0);
      lines.push(`-- ${project}: ${mine.length} files, ${(total / 1000).toFixed(1)} s summed`);
      for (const r of mine) lines.push(`${(r.ms / 1000).toFixed(1).padStart(8)} s  ${r.file}${r.state === "passed" ? "" : `  (${r.state})`}`);
    }
    console.log(lines.join("\n"));
    if (process.env.DURATIONS_JSON) writeFileSync(process.env.DURATIONS_JSON, JSON.stringify(rows, null, 2));
  }
}
