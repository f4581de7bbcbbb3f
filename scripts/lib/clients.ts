/** viem clients for scripts and tests: any chain by id + RPC URL, local ones polled fast. */
import { createPublicClient, createWalletClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { classifySendError } from "../../core/chain/revert.js";
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

/**
 * Runs `write` again while the node refuses it for a nonce that another process's transaction
 * from the same key took first (on a local chain several processes send from the deployer key:
 * the e2e files of one stack, a start script); each attempt reads the nonce afresh. Any other
 * error is thrown at once, and the last refusal after `tries`.
 */
export async function retryingTakenNonce<T>(write: () => Promise<T>, tries = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (e) {
      if (attempt >= tries || classifySendError(e) !== "nonce_too_low") throw e;
    }
  }
}
