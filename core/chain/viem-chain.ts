/**
 * The venue's chain as viem sees it, for every process that talks to it (scripts, tests,
 * keeper, relayer): one `Chain` definition per id and RPC URL, and how often to poll (a local
 * anvil mines at once: 50 ms; elsewhere 2 s, against viem's default of 4 s).
 */
import { defineChain, type Chain } from "viem";
import { LOCAL_CHAIN_ID } from "../config.js";

export function chainFor(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: chainId === LOCAL_CHAIN_ID ? "anvil" : `chain-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export const isLocalRpc = (rpcUrl: string) => /\/\/(127\.0\.0\.1|localhost)[:/]/.test(rpcUrl);

/** Block and receipt polling of a viem client on `rpcUrl`. */
export const pollingIntervalFor = (rpcUrl: string) => (isLocalRpc(rpcUrl) ? 50 : 2_000);
