/**
 * The package as published: the build (dist/index.js, browser.js, index.d.ts with nothing of
 * core/, zod or Hono in it) and the browser bundle's size (minified, gzipped, viem excluded).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain .mjs script without declarations
import { browserBundleSize, BUDGET_GZIP_BYTES } from "../scripts/size.mjs";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("package", () => {
  it("the browser bundle is at most 40 kB gzipped (viem excluded) and imports no Node module", async () => {
    const s = await browserBundleSize();
    expect(s.gzip).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
    expect(s.nodeImports).toEqual([]);
    expect(new Set(s.imports)).toEqual(new Set(["viem", "viem/siwe"]));
    // neither zod nor hono nor the servers' code is in it
    expect(s.inputs.filter((f: string) => /zod|hono|core\/(schemas|errors)|services\//.test(f))).toEqual([]);
  });

  it("builds; its declarations are self-contained and carry the servers' shapes", () => {
    execFileSync(process.execPath, [join(pkg, "scripts/build.mjs")], { stdio: "pipe" });
    const d = readFileSync(join(pkg, "dist/index.d.ts"), "utf8");
    expect(d).not.toMatch(/(?:from|import\()\s*["'][^"']*(?:core\/|\.\.\/|zod|hono)/);
    // a field of core's OrderBook schema and a code of core's ERROR_CODES, flattened
    expect(d).toMatch(/type OrderBook = \{ marketId: string; timestamp: number; blockNumber: number;/);
    expect(d).toMatch(/"OPERATOR_LIMIT_EXCEEDED"/);
    const js = readFileSync(join(pkg, "dist/index.js"), "utf8");
    expect(js).not.toMatch(/from\s*["'](?!viem|isows)/);
  }, 180_000); // a TypeScript program over the package and the core/ it uses: 10 s alone, a minute on a loaded machine
});
