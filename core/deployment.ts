/**
 * The deployment file `deployments/<chainId>.json` (docs/SERVICES.md): every contract address,
 * the markets and the deploy block. Written by `scripts/deploy.ts`, read by every service.
 */
import { readFileSync, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { getAddress, type Address, type Hex } from "viem";

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "expected a 20-byte hex address")
  .transform((a) => getAddress(a) as Address);
const bytes32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "expected a 32-byte hex value")
  .transform((h) => h.toLowerCase() as Hex);

export const deploymentMarketSchema = z.object({
  marketId: bytes32,
  symbol: z.string().min(1),
  marketAddress: address,
  marketIndex: z.number().int().positive(),
  baseFxToken: address,
  quoteFxToken: address,
});

export const deploymentSchema = z.object({
  chainId: z.number().int().positive(),
  deployBlock: z.number().int().nonnegative(),
  /** keccak256 of the deployed contracts' creation code (scripts/deploy.ts CODE_HASH); absent
   *  in files written before it existed. `npm start` redeploys when it differs. */
  codeHash: bytes32.optional(),
  contracts: z.object({
    engine: address,
    depositToken: address,
    oracle: address,
    marketFactory: address,
    marketImplementation: address,
    venueLens: address,
    /** TriggerBook: positions' take-profit and stop-loss (the engine's one caller of closePositionFor). */
    triggerBook: address,
    /** VenueTimelock: admin and PARAMS_ROLE of the oracle and the factory. */
    timelock: address,
  }),
  markets: z.array(deploymentMarketSchema),
});

export type Deployment = z.infer<typeof deploymentSchema>;
export type DeploymentMarket = z.infer<typeof deploymentMarketSchema>;

/** `DEPLOYMENT_FILE`, else `deployments/<chainId>.json` under the project root. */
export function deploymentPath(opts: { chainId?: number; file?: string } = {}): string {
  const file = opts.file ?? process.env.DEPLOYMENT_FILE;
  if (file) return resolve(file);
  const chainId = opts.chainId ?? Number(process.env.CHAIN_ID ?? 31337);
  return resolve(PROJECT_ROOT, "deployments", `${chainId}.json`);
}

/** Parses and validates a deployment object (addresses checksummed, ids lower-case). */
export function parseDeployment(value: unknown, source = "deployment"): Deployment {
  const r = deploymentSchema.safeParse(value);
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new Error(`invalid ${source}: ${msg}`);
  }
  return r.data;
}

/** Loads and validates the deployment file. Throws a clear error when missing or malformed. */
export function loadDeployment(opts: { chainId?: number; file?: string } = {}): Deployment {
  const path = deploymentPath(opts);
  if (!existsSync(path)) {
    throw new Error(`deployment file not found: ${path} (run \`npm run deploy\` or \`npm start\`)`);
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`deployment file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  const d = parseDeployment(json, `deployment file ${path}`);
  if (opts.chainId !== undefined && d.chainId !== opts.chainId) {
    throw new Error(`deployment file ${path} is for chain ${d.chainId}, expected ${opts.chainId}`);
  }
  return d;
}

/** The JSON written to disk (stable key order, trailing newline). */
export function serializeDeployment(d: Deployment): string {
  return `${JSON.stringify(d, null, 2)}\n`;
}
