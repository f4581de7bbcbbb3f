/**
 * Configuration shared by every process: chain, deployment file, and the
 * local key scheme (anvil's well-known mnemonic; indices per docs/SERVICES.md).
 */
import { pbkdf2Sync } from "node:crypto";
import { z } from "zod";
import { toHex, type Hex } from "viem";
import { HDKey, mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";

/** anvil's default mnemonic: public, for local chains only. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";
/** anvil runs with this many funded accounts so that every service key has ether. */
export const ANVIL_ACCOUNTS = 20;
export const LOCAL_CHAIN_ID = 31337;

/** Mnemonic indices of the local roles. 0–9 are the demo wallets. */
export const KEY_INDEX = {
  deployer: 10,
  relayer: 11,
  keeper: 12,
  priceFeed: 13,
  marketMaker: 14,
} as const;
export const DEMO_WALLET_INDICES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] as const;

/** Local default of the admin token; non-local profiles must override it (core/profiles.ts has the others). */
export const DEFAULT_ADMIN_TOKEN = "local-admin-token";

export type DevAccount = PrivateKeyAccount & { privateKey: Hex; index: number };

const cache = new Map<number, DevAccount>();
/** The account at `index` of anvil's mnemonic (address + private key). */
export function devAccount(index: number): DevAccount {
  let acct = cache.get(index);
  if (!acct) {
    const pk = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
    if (!pk) throw new Error(`cannot derive key ${index}`);
    const privateKey = toHex(pk);
    acct = Object.assign(privateKeyToAccount(privateKey), { privateKey, index });
    cache.set(index, acct);
  }
  return acct;
}

/** How many indices of the public mnemonic are refused as keys off the local chain. */
export const PUBLIC_MNEMONIC_INDICES = 100;
let publicKeys: Set<string> | undefined;
/** true when `key` is one of the first PUBLIC_MNEMONIC_INDICES keys of anvil's public mnemonic. */
export function isPublicTestKey(key: Hex): boolean {
  if (!publicKeys) {
    // BIP-39 seed (one PBKDF2 instead of one per index), then BIP-44 paths m/44'/60'/0'/0/i
    const root = HDKey.fromMasterSeed(pbkdf2Sync(ANVIL_MNEMONIC, "mnemonic", 2048, 64, "sha512"));
    publicKeys = new Set();
    for (let i = 0; i < PUBLIC_MNEMONIC_INDICES; i++) publicKeys.add(toHex(root.derive(`m/44'/60'/0'/0/${i}`).privateKey!));
  }
  return publicKeys.has(key.toLowerCase());
}

/**
 * Private key of a role: the env variable if set, else (local profile on the local chain only) the
 * local mnemonic index. Anywhere else the key must be given, and must not come from the public
 * mnemonic: users approve the relayer's address as their operator, so a public key there would
 * let anyone trade their accounts.
 */
export function roleKey(envName: string, index: number, env: NodeJS.ProcessEnv = process.env): Hex {
  const v = env[envName];
  const profile = env.PROFILE || "local";
  const chainId = Number(env.CHAIN_ID || LOCAL_CHAIN_ID);
  const strict = profile !== "local" || chainId !== LOCAL_CHAIN_ID;
  const where = `PROFILE=${profile}, CHAIN_ID=${chainId}`;
  if (!v) {
    if (strict) throw new Error(`${envName} is required with ${where} (the local default is a public test key)`);
    return devAccount(index).privateKey;
  }
  const key = z.string().regex(/^0x[0-9a-fA-F]{64}$/, `${envName} must be a 32-byte hex key`).parse(v) as Hex;
  if (strict && isPublicTestKey(key)) throw new Error(`${envName} is derived from the public test mnemonic: refused with ${where}`);
  return key;
}

const chainEnv = z.object({
  RPC_URL: z.string().url().default("http://127.0.0.1:8545"),
  CHAIN_ID: z.coerce.number().int().positive().default(LOCAL_CHAIN_ID),
  DEPLOYMENT_FILE: z.string().optional(),
  PROFILE: z.enum(["local", "development", "production"]).default("local"),
});
export type ChainConfig = z.infer<typeof chainEnv>;

/** The chain part of every service's configuration (env names per docs/SERVICES.md). */
export function chainConfig(env: NodeJS.ProcessEnv = process.env): ChainConfig {
  const parsed = chainEnv.safeParse(env);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid configuration: ${msg}`);
  }
  return parsed.data;
}
