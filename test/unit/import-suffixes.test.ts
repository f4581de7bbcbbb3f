/**
 * Every relative import names its file as Node's ESM loader resolves it (`./x.js`, `./dir/index.js`),
 * so the same specifiers work under tsx, vitest, Ponder's build and a plain `node` after `tsc`.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../core/deployment.js";

describe("relative imports", () => {
  it("carry their file's extension", () => {
    // declaration files are generated (ponder-env.d.ts is Ponder's)
    const files = execFileSync("git", ["ls-files", "*.ts"], { cwd: PROJECT_ROOT, encoding: "utf8" }).split("\n").filter((f) => f && !f.endsWith(".d.ts"));
    const spec = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']*)["']/g;
    const bare: string[] = [];
    for (const f of files) {
      for (const m of readFileSync(`${PROJECT_ROOT}/${f}`, "utf8").matchAll(spec)) {
        if (!/\.(js|mjs|cjs|json|css|html)$/.test(m[1]!)) bare.push(`${f}: ${m[1]}`);
      }
    }
    expect(bare).toEqual([]);
  });
});
