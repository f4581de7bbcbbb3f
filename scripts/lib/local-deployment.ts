/**
 * Which deployment `npm start` uses on its chain: the one in `.venue/deployment.json` when its
 * contracts are on the chain and are this checkout's (its code hash), none (deploy anew) when the
 * file is missing, unreadable, not on this chain (a fresh anvil) or from an older checkout
 * (another ABI: a new deployment on the same chain, new addresses and indexer schema, replaces it).
 */
import { existsSync } from "node:fs";
import type { PublicClient } from "viem";
import { loadDeployment, type Deployment } from "../../core/deployment.js";
import { CODE_HASH, isDeployed } from "../deploy.js";

export async function reusableDeployment(client: PublicClient, file: string): Promise<{ deployment?: Deployment; note?: string }> {
  if (!existsSync(file)) return {};
  let deployment: Deployment;
  try {
    deployment = loadDeployment({ file });
  } catch (e) {
    return { note: `ignoring ${file}: ${(e as Error).message}` };
  }
  if (!(await isDeployed(client, deployment))) return {};
  if (deployment.codeHash !== CODE_HASH)
    return { note: `the contracts in ${file} are older than this checkout's: redeploying on the same chain (\`npm start -- --fresh\` starts a clean one)` };
  return { deployment, note: `reusing ${file}` };
}
