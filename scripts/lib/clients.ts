/** viem clients for scripts and tests: any chain by id + RPC URL, local ones polled fast. */
import { createPublicClient, createWalletClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { chainFor, pollingIntervalFor } from "../../core/chain/viem-chain.js";

export { chainFor };

export function publicClientFor(rpcUrl: string, chainId: number) {
  return createPublicClient({
    chain: chainFor(chainId, rpcUrl),
    transport: http(rpcUrl, { retryCount: 2 }),
    pollingInterval: pollingIntervalFor(rpcUrl),
  });
}

export function walletClientFor(rpcUrl: string, chainId: number, privateKey: Hex) {
  return createWalletClient({
    account: privateKeyToAccount(privateKey),
    chain: chainFor(chainId, rpcUrl),
    transport: http(rpcUrl, { retryCount: 2 }),
    pollingInterval: pollingIntervalFor(rpcUrl),
  });
}

export type PublicClientT = ReturnType<typeof publicClientFor>;
export type WalletClientT = ReturnType<typeof walletClientFor>;
