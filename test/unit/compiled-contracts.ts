/**
 * The contracts as forge built them (contracts/out: the run's one compilation, which
 * `npm run test:forge` already made), for the unit tests that need them (size, ABI freshness).
 * The first test to ask runs `forge build` over contracts/src (a no-op when contracts/out is
 * current) under a lock file, so two test workers do not build at once; then each reads the
 * artifacts.
 */
import { closeSync, mkdirSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile, forgeBuild } from "../../scripts/build-contracts.js";

export type Compiled = ReturnType<typeof compile>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let built = false;

export async function compiledContracts(timeoutMs = 600_000): Promise<Compiled> {
  if (!built) await buildOnce(timeoutMs);
  built = true;
  return compile({ build: false });
}

async function buildOnce(timeoutMs: number) {
  const dir = join(tmpdir(), "venue-contracts-cache");
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, "forge-build.lock");
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, "wx");
    } catch {
      // another worker builds; a lock older than the timeout is from a dead process
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > timeoutMs) rmSync(lock, { force: true });
      await sleep(500);
      continue;
    }
    try {
      // after another worker's build this is forge's quick "No files changed"
      forgeBuild();
      return;
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
  throw new Error("timed out waiting for forge build of the contracts");
}
