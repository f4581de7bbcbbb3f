/**
 * Runs forge (npm `@foundry-rs/forge`) inside contracts/, where foundry.toml points it at the
 * offline compiler wrapper (scripts/solc-forge.cjs). Arguments pass through:
 *   npm run test:forge                       forge test
 *   npm run test:forge -- --match-test fuzz  forge test --match-test fuzz
 *   tsx scripts/forge.ts build               any forge command
 */
import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { foundryBinary } from "../core/chain/anvil.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// The platform binary itself: the package's bin.mjs wrapper exits 0 even when tests fail.
const forgeBin = foundryBinary("forge");
if (!forgeBin) throw new Error("forge binary not found: is @foundry-rs/forge installed for this platform?");

const args = process.argv.slice(2);
const child = spawn(forgeBin, args.length ? args : ["test"], {
  cwd: join(root, "contracts"),
  stdio: "inherit",
  // forge would otherwise try to reach the network for telemetry/compiler lists.
  env: { ...process.env, FOUNDRY_OFFLINE: "true", FOUNDRY_DISABLE_NIGHTLY_WARNING: "1" },
});
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
