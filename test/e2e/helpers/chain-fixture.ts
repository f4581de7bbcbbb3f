/**
 * Deployed-chain fixtures: a chain's setup (deploy the venue, fund and prepare wallets) runs once
 * per run for each kind of setup, and its anvil state is dumped (`anvil_dumpState`: accounts,
 * code, storage and the blocks with their logs, so a Ponder indexes the loaded chain from block 0
 * as it would the original); every later chain of that setup loads it (`anvil_loadState`) instead
 * of deploying again.
 *
 * Kept in the OS temp dir, keyed by the contracts' bytecode (abis/bytecode.ts, what deployVenue
 * deploys) and the setup's name, under the run's directory (`E2E_FIXTURE_DIR`, set by
 * test/e2e/global-setup.ts): a fixture never outlives its run (a chain loaded later would start
 * with index prices older than the oracle's staleness bound). Without `E2E_FIXTURE_DIR` (a bench,
 * a script) every chain is deployed anew. Never committed.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** sha256 of the bytecode deployVenue deploys (abis/bytecode.ts), first 16 hex digits. */
export function bytecodeHash(): string {
  return createHash("sha256").update(readFileSync(join(root, "abis/bytecode.ts"))).digest("hex").slice(0, 16);
}

type Rpc = (method: string, params?: unknown[]) => Promise<unknown>;

const toJson = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? { $bigint: x.toString() } : x));
const fromJson = <T>(s: string): T =>
  JSON.parse(s, (_k, x) => (x && typeof x === "object" && typeof x.$bigint === "string" && Object.keys(x).length === 1 ? BigInt(x.$bigint) : x));

/**
 * On a fresh anvil (`rpc`): loads the fixture `name` when this run has one and returns what its
 * setup returned; else runs `setup` on it, stores the state and the result, and returns that.
 * `setup`'s result must be JSON (bigints allowed).
 */
export async function withChainFixture<T>(name: string, rpc: Rpc, setup: () => Promise<T>): Promise<T> {
  const dir = process.env.E2E_FIXTURE_DIR;
  if (!dir) return setup();
  const file = join(dir, `${name}-${bytecodeHash()}.json`);
  if (existsSync(file)) {
    const { state, result } = fromJson<{ state: string; result: T }>(readFileSync(file, "utf8"));
    await rpc("anvil_loadState", [state]);
    return result;
  }
  const result = await setup();
  const state = (await rpc("anvil_dumpState")) as string;
  mkdirSync(dir, { recursive: true });
  // rename is atomic: a reader never sees half a file
  writeFileSync(`${file}.tmp`, toJson({ state, result }));
  renameSync(`${file}.tmp`, file);
  return result;
}

/** A JSON-RPC call to `rpcUrl`. */
export function rpcOf(rpcUrl: string): Rpc {
  return async (method, params = []) => {
    const res = await fetch(rpcUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
    const j = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (j.error) throw new Error(`${method}: ${j.error.message}`);
    return j.result;
  };
}
