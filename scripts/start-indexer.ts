/**
 * `npm run start:indexer`: Ponder (indexer + integration API) alone, against RPC_URL and the
 * deployment file (DEPLOYMENT_FILE or deployments/<CHAIN_ID>.json). Postgres when DATABASE_URL
 * is set, else PGlite in .ponder/ (INDEXER_PGLITE_DIR moves it).
 *   PORT (24072, core/ports.ts), HOST (127.0.0.1), DATABASE_SCHEMA (default: derived from the code and the
 *   deployment, see scripts/lib/indexer-schema.ts).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { loadDeployment, PROJECT_ROOT, serializeDeployment } from "../core/deployment.js";
import { indexerSchemaName } from "./lib/indexer-schema.js";
import { ponderBin, ponderNodeArgs, seedIndexerPgliteDir } from "./lib/services.js";
import { publicClientFor } from "./lib/clients.js";
import { assertProfileSecrets, INDEXER_SECRETS, profileFromEnv } from "../core/profiles.js";
import { siweConfig } from "../core/auth/siwe.js";
import { DEFAULT_PORTS, defaultUrl } from "../core/ports.js";
import { assertPonderVersion } from "../src/ponder/internals.js";

async function main() {
  // before anything else (ponder.config.ts checks again for a bare `ponder start`): the installed
  // Ponder is the one src/ponder/internals.ts and patches/ were written against
  assertPonderVersion();
  assertProfileSecrets(profileFromEnv(), process.env, INDEXER_SECRETS);
  siweConfig(process.env);
  const chainId = Number(process.env.CHAIN_ID ?? 31337);
  const deployment = loadDeployment({ chainId }); // fails early with a clear message
  let schema = process.env.DATABASE_SCHEMA;
  if (!schema) {
    const rpcUrl = process.env.RPC_URL ?? defaultUrl("anvil");
    const block = await publicClientFor(rpcUrl, chainId).getBlock({ blockNumber: BigInt(deployment.deployBlock) });
    schema = indexerSchemaName(serializeDeployment(deployment) + block.hash + rpcUrl);
  }
  const port = process.env.PORT ?? String(DEFAULT_PORTS.indexer);
  const host = process.env.HOST ?? "127.0.0.1";
  // a new PGlite directory from the template (scripts/lib/services.ts seedIndexerPgliteDir)
  if (!process.env.DATABASE_URL) await seedIndexerPgliteDir(process.env.INDEXER_PGLITE_DIR ?? join(PROJECT_ROOT, ".ponder", "pglite"));
  // Node's flags for Ponder (PONDER_NODE_ARGS; scripts/lib/services.ts)
  const args = [...ponderNodeArgs(), ponderBin(), "start", "--schema", schema, "-p", port, "-H", host, ...process.argv.slice(2)];
  console.log(`ponder start --schema ${schema} on http://${host}:${port}`);
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    stdio: "inherit",
    env: { ...process.env, PONDER_TELEMETRY_DISABLED: "true", DATABASE_SCHEMA: schema },
  });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

main().catch((e) => {
  console.error(`indexer: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
});
