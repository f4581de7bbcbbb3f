/**
 * Runs forge (npm `@foundry-rs/forge`) inside contracts/, where foundry.toml points it at the
 * offline compiler wrapper (scripts/solc-forge.cjs). Arguments pass through:
 *   npm run test:forge                       forge test
 *   npm run test:forge -- --match-test fuzz  forge test --match-test fuzz
 *   tsx scripts/forge.ts build               any forge command
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const forgeBin = require.resolve("@foundry-rs/forge/bin.mjs");

const args = process.argv.slice(2);
const child = spawn(process.execPath, [forgeBin, ...(args.length ? args : ["test"])], {
  cwd: join(root, "contracts"),
  stdio: "inherit",
  // forge would otherwise try to reach the network for telemetry/compiler lists.
  env: { ...process.env, FOUNDRY_OFFLINE: "true", FOUNDRY_DISABLE_NIGHTLY_WARNING: "1" },
});
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
