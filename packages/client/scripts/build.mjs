// Builds the package: dist/index.js (Node) and dist/browser.js (browser) with esbuild (viem and
// isows external; the pure helpers it takes from core/ bundled in), and dist/index.d.ts: tsc's
// declarations with the zod-derived shapes (src/types.ts) flattened into plain types
// (./flatten-types.mjs), bundled by rollup-plugin-dts so that nothing in them points into core/,
// zod or Hono. Fails when the declarations still name any of them.
import { build } from "esbuild";
import { rollup } from "rollup";
import { dts } from "rollup-plugin-dts";
import ts from "typescript";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { flattenTypes } from "./flatten-types.mjs";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(pkg, "../..");
const dist = join(pkg, "dist");
const tmp = join(pkg, "build");
rmSync(dist, { recursive: true, force: true });
rmSync(tmp, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const external = ["viem", "viem/*", "isows"];
const common = { bundle: true, format: "esm", target: "es2022", external, logLevel: "warning", legalComments: "none" };
await build({ ...common, entryPoints: [join(pkg, "src/index.ts")], outfile: join(dist, "index.js"), platform: "neutral", mainFields: ["module", "main"] });
await build({ ...common, entryPoints: [join(pkg, "src/browser.ts")], outfile: join(dist, "browser.js"), platform: "browser" });

// declarations
const cfg = ts.getParsedCommandLineOfConfigFile(join(repo, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n")); } });
const options = { ...cfg.options, noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: join(tmp, "dts"), rootDir: repo, types: [], lib: ["lib.es2022.d.ts", "lib.dom.d.ts"] };
const program = ts.createProgram([join(pkg, "src/index.ts"), join(pkg, "src/browser.ts")], options);
const diags = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName.includes("/packages/client/"));
if (diags.length) {
  console.error(ts.formatDiagnosticsWithColorAndContext(diags, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => repo, getNewLine: () => "\n" }));
  process.exit(1);
}
const emitted = program.emit();
if (emitted.emitSkipped) throw new Error("tsc emitted no declarations");
const dtsDir = join(tmp, "dts/packages/client/src");
writeFileSync(join(dtsDir, "types.d.ts"), flattenTypes(program, join(pkg, "src/types.ts")));

const bundle = await rollup({ input: join(dtsDir, "index.d.ts"), plugins: [dts({ respectExternal: false })], external: (id) => /^(viem|isows)(\/|$)/.test(id) });
const { output } = await bundle.generate({ format: "es" });
let text = output[0].code;
writeFileSync(join(dist, "index.d.ts"), text);
writeFileSync(join(dist, "browser.d.ts"), 'export * from "./index.js";\n');
rmSync(tmp, { recursive: true, force: true });

// an import or export from core/, zod or Hono (comments may name core/ files)
const bad = [/(?:from|import\()\s*["'][^"']*(?:core\/|\.\.\/)/, /(?:from|import\()\s*["'](?:zod|@hono\/|hono)/];
for (const f of ["index.d.ts", "index.js", "browser.js"]) {
  const t = readFileSync(join(dist, f), "utf8");
  for (const re of bad) if (re.test(t)) throw new Error(`dist/${f} still names ${re}: ${t.match(re)?.[0]}`);
}
console.log(`built ${["index.js", "browser.js", "index.d.ts"].map((f) => `${f} ${readFileSync(join(dist, f)).length} B`).join(", ")}`);
