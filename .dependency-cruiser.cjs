/**
 * The layering rules (docs/ARCHITECTURE.md), checked by `npm run test:deps` (dependency-cruiser):
 *
 *   core  <  src, services  <  scripts, bench, test
 *
 * An arrow may only point down: `core/` imports nothing of the venue's own above it; `src/`
 * (the Ponder indexer and its API) and `services/` never import each other; `scripts/` (the
 * start and deploy tools) import neither the benchmarks nor the tests. No import circles anywhere.
 * The generated `abis/` and the root `ponder.schema.ts` sit beside `core/` (anyone may import them).
 * A test file (`*.test.ts`) is the test layer wherever it sits, beside the code it tests or in test/.
 */
const test = "\\.test\\.ts$";
const own = "^(core|src|services|scripts|bench|test|abis|packages)/|^ponder\\.(schema|config)\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle: one of the modules must not know the other (move the shared part down).",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-imports-only-core",
      severity: "error",
      comment: "core/ is the bottom layer: it imports no src/, services/, scripts/, bench/ or test/ code.",
      from: { path: "^core/", pathNot: test },
      to: { path: "^(src|services|scripts|bench|test)/|^ponder\\.config\\.ts$" },
    },
    {
      name: "src-not-services",
      severity: "error",
      comment: "src/ (Ponder's indexer and API) and services/ never import each other: share through core/.",
      from: { path: "^src/", pathNot: test },
      to: { path: "^(services|scripts|bench|test)/" },
    },
    {
      name: "services-not-src",
      severity: "error",
      comment: "services/ and src/ never import each other: share through core/.",
      from: { path: "^services/", pathNot: test },
      to: { path: "^(src|scripts|bench|test)/|^ponder\\.config\\.ts$" },
    },
    {
      name: "one-service-not-another",
      severity: "error",
      comment: "A service imports no other service's code: what two services share lives in core/.",
      from: { path: "^services/([^/]+)/", pathNot: test },
      to: { path: "^services/", pathNot: "^services/$1/" },
    },
    {
      name: "scripts-not-bench-or-tests",
      severity: "error",
      comment: "scripts/ are the venue's tools: they import no benchmark or test code.",
      from: { path: "^scripts/", pathNot: test },
      to: { path: "^(bench|test)/" },
    },
    {
      name: "core-not-packages",
      severity: "error",
      comment: "core/ and the indexer never import a client package (packages/*): the package takes from core/, not the reverse.",
      from: { path: "^(core|src)/", pathNot: test },
      to: { path: "^packages/" },
    },
    {
      name: "services-use-client-entry",
      severity: "error",
      comment: "A service may be a client of the venue (the keeper's market maker, issue 30) through the client package's entry (packages/client/src/index.ts) only, as an integrator would: no other package, no module inside it.",
      from: { path: "^services/", pathNot: test },
      to: { path: "^packages/", pathNot: "^packages/client/src/index\\.ts$" },
    },
    {
      name: "client-package-only-core",
      severity: "error",
      comment: "packages/*/src (the published client) takes only from core/ (types, and pure helpers bundled at build time): never src/, services/, scripts/, bench/ or test/ code.",
      from: { path: "^packages/[^/]+/src/", pathNot: test },
      to: { path: "^(src|services|scripts|bench|test|abis)/|^ponder\\.(schema|config)\\.ts$" },
    },
    {
      name: "no-unresolvable",
      severity: "error",
      comment: "An import that resolves to nothing.",
      from: { path: own },
      // `ponder:*` are Ponder's virtual modules; `/live/...` the reference page's browser imports
      to: { couldNotResolve: true, pathNot: "^(ponder:|/live/)" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|contracts|generated|\\.ponder)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".d.ts"],
    },
    // imports written `./x.js` resolve to `./x.ts` (TypeScript's ESM convention)
    extraExtensionsToScan: [],
  },
};
