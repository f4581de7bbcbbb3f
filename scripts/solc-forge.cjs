#!/usr/bin/env node
// A `solc` binary for forge, backed by the npm `solc` package (forge runs offline here and
// cannot download a compiler). forge calls it with `--version` and with `--standard-json`
// (input on stdin, output on stdout), passing `--base-path`, `--include-path` and
// `--allow-paths`; imports that forge did not inline are resolved from those, then from
// contracts/src and node_modules (e.g. `@openzeppelin/contracts/...`).
"use strict";
const { readFileSync, existsSync } = require("node:fs");
const { join, resolve, isAbsolute } = require("node:path");

const root = resolve(__dirname, "..");
const solc = require(join(root, "node_modules/solc"));
const args = process.argv.slice(2);

if (args.includes("--version")) {
  // Same wording as the native binary, which forge parses.
  const v = solc.version().replace(/\.Emscripten\.clang$/, ".Linux.g++");
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${v}\n`);
  process.exit(0);
}

if (!args.includes("--standard-json")) {
  process.stderr.write("solc-forge: only --version and --standard-json are supported\n");
  process.exit(2);
}

// Every directory given by forge, in order, then the project's own roots.
const bases = [];
for (let i = 0; i < args.length; i++) {
  if (["--base-path", "--include-path", "--allow-paths"].includes(args[i]) && args[i + 1]) {
    for (const p of args[i + 1].split(",")) if (p) bases.push(resolve(p));
    i++;
  }
}
bases.push(join(root, "contracts/src"), join(root, "contracts"), join(root, "node_modules"), root);

function findImport(path) {
  const candidates = isAbsolute(path) ? [path] : bases.map((b) => join(b, path));
  for (const p of candidates) if (existsSync(p)) return { contents: readFileSync(p, "utf8") };
  return { error: `solc-forge: import not found: ${path}` };
}

const input = readFileSync(0, "utf8");
process.stdout.write(solc.compile(input, { import: findImport }));
