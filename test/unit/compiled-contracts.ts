/**
 * One compilation of contracts/src per source state, shared by the unit tests that need it
 * (size, ABI freshness): solc over wasm takes about a minute, so the first test compiles and
 * stores the output under the OS temp dir keyed by a hash of the sources and of the build
 * script; the others wait for that file instead of compiling again.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "../../scripts/build-contracts.js";

export type Compiled = ReturnType<typeof compile>;

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** Hash of everything that decides the compiler output. */
export function sourcesHash(): string {
  const h = createHash("sha256");
  const files = [...walk(join(root, "contracts/src")), join(root, "scripts/build-contracts.ts")].sort();
  for (const f of files) h.update(relative(root, f)).update("\0").update(readFileSync(f)).update("\0");
  return h.digest("hex").slice(0, 16);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function compiledContracts(timeoutMs = 300_000): Promise<Compiled> {
  const dir = join(tmpdir(), "venue-contracts-cache");
  mkdirSync(dir, { recursive: true });
  const hash = sourcesHash();
  const out = join(dir, `${hash}.json`);
  const lock = join(dir, `${hash}.lock`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(out)) return JSON.parse(readFileSync(out, "utf8")) as Compiled;
    let fd: number | undefined;
    try {
      fd = openSync(lock, "wx");
    } catch {
      // another worker compiles; a lock older than the timeout is from a dead process
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > timeoutMs) rmSync(lock, { force: true });
      await sleep(500);
      continue;
    }
    try {
      const contracts = compile();
      writeFileSync(`${out}.tmp`, JSON.stringify(contracts));
      // rename is atomic: readers never see a half-written file
      (await import("node:fs")).renameSync(`${out}.tmp`, out);
      return contracts;
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
  throw new Error("timed out waiting for the contracts' compilation");
}
