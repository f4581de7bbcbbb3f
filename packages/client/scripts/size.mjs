// The browser bundle's size: src/browser.ts bundled for the browser by esbuild, minified, viem
// excluded (isows included), gzipped (level 9). Prints it; exits 1 above the budget (40 kB).
// Also used by test/size.test.ts.
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const BUDGET_GZIP_BYTES = 40 * 1024;
const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export async function browserBundleSize() {
  const r = await build({
    entryPoints: [join(pkg, "src/browser.ts")], bundle: true, minify: true, format: "esm", platform: "browser", target: "es2022",
    external: ["viem", "viem/*"], write: false, logLevel: "silent", metafile: true, legalComments: "none",
  });
  const code = r.outputFiles[0].contents;
  const nodeImports = Object.keys(r.metafile.inputs).filter((f) => /^node:|(^|\/)node_modules\/ws\//.test(f));
  const imports = r.metafile.outputs[Object.keys(r.metafile.outputs)[0]].imports.map((i) => i.path);
  return { minified: code.length, gzip: gzipSync(code, { level: 9 }).length, inputs: Object.keys(r.metafile.inputs), nodeImports, imports };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const s = await browserBundleSize();
  console.log(`browser bundle (minified, viem excluded): ${s.minified} B, gzipped ${s.gzip} B (${(s.gzip / 1024).toFixed(1)} kB of ${BUDGET_GZIP_BYTES / 1024} kB); external imports: ${[...new Set(s.imports)].join(", ")}`);
  if (s.nodeImports.length) console.log(`node-only inputs: ${s.nodeImports.join(", ")}`);
  if (s.gzip > BUDGET_GZIP_BYTES || s.nodeImports.length) process.exit(1);
}
