/** viem clients for scripts and tests: any chain by id + RPC URL, local ones polled fast. */
import { createPublicClient, createWalletClient, defineChain, http, type Chain, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { LOCAL_CHAIN_ID } from "../../core/config.js";

export function chainFor(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: chainId === LOCAL_CHAIN_ID ? "anvil" : `chain-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

const isLocal = (rpcUrl: string) => /\/\/(127\.0\.0\.1|localhost)[:/]/.test(rpcUrl);

export function publicClientFor(rpcUrl: string, chainId: number) {
  return createPublicClient({
    chain: chainFor(chainId, rpcUrl),
    transport: http(rpcUrl, { retryCount: 2 }),
    pollingInterval: isLocal(rpcUrl) ? 50 : 2_000,
  });
}

export function walletClientFor(rpcUrl: string, chainId: number, privateKey: Hex) {
  return createWalletClient({
    account: privateKeyToAccount(privateKey),
    chain: chainFor(chainId, rpcUrl),
    transport: http(rpcUrl, { retryCount: 2 }),
    pollingInterval: isLocal(rpcUrl) ? 50 : 2_000,
  });
}

export type PublicClientT = ReturnType<typeof publicClientFor>;
export type WalletClientT = ReturnType<typeof walletClientFor>;
