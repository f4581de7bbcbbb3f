/**
 * viem clients of the keeper. Each role (keeper, price feed, market maker, deployer) signs with
 * its own key through a `Signer` that sends one transaction at a time, so a role never races on
 * its own nonces and never touches the relayer's.
 */
import {
  BaseError, ContractFunctionRevertedError, createPublicClient, createWalletClient, http,
  type Abi, type Address, type ContractFunctionArgs, type ContractFunctionName, type Hex, type PublicClient,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Logger } from "pino";
import { chainFor, pollingIntervalFor } from "../../../core/chain/viem-chain.js";

/**
 * Receipts polled as core/chain/viem-chain.ts says (viem's default of 4 s made a market maker's
 * re-quote of a dozen transactions take tens of seconds on the local chain).
 */
export function makePublicClient(rpcUrl: string, chainId: number): PublicClient {
  return createPublicClient({ chain: chainFor(chainId, rpcUrl), transport: http(rpcUrl, { retryCount: 1 }), pollingInterval: pollingIntervalFor(rpcUrl) });
}

export type WriteRequest<abi extends Abi, fn extends ContractFunctionName<abi, "nonpayable" | "payable">> = {
  address: Address;
  abi: abi;
  functionName: fn;
  args: ContractFunctionArgs<abi, "nonpayable" | "payable", fn>;
  /** a gas limit of the caller's own (e.g. a non-atomic Engine.batch's budget) instead of the estimate's */
  gas?: bigint;
};

/** One signing role: simulate, send, await the receipt; strictly one transaction at a time. */
export class Signer {
  readonly account: PrivateKeyAccount;
  private readonly wallet;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly role: string,
    privateKey: Hex,
    private readonly client: PublicClient,
    rpcUrl: string,
    chainId: number,
    private readonly log: Logger,
  ) {
    this.account = privateKeyToAccount(privateKey);
    this.wallet = createWalletClient({ account: this.account, chain: chainFor(chainId, rpcUrl), transport: http(rpcUrl) });
  }

  get address(): Address {
    return this.account.address;
  }

  write<const abi extends Abi, fn extends ContractFunctionName<abi, "nonpayable" | "payable">>(
    req: WriteRequest<abi, fn>,
  ): Promise<TransactionReceipt> {
    const run = async () => {
      // Simulation first: a revert costs nothing and comes back decoded.
      const { request } = await this.client.simulateContract({ ...(req as any), account: this.account });
      // anvil's estimate has proven a few % short for some calls (a cancel ran out of gas):
      // send with headroom, unused gas is not charged.
      const gas = req.gas ?? ((await this.client.estimateContractGas({ ...(req as any), account: this.account })) * 13n) / 10n + 20_000n;
      const hash = await this.wallet.writeContract({ ...(request as any), gas });
      const receipt = await this.client.waitForTransactionReceipt({ hash, timeout: 60_000 });
      if (receipt.status !== "success") throw new Error(`${req.functionName} reverted in ${hash}`);
      this.log.debug({ role: this.role, fn: req.functionName, hash, block: receipt.blockNumber }, "tx mined");
      return receipt;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }
}

/** The contract's custom error name when the failure is a revert, else a short message. */
export function errorName(e: unknown): string {
  if (e instanceof BaseError) {
    const revert = e.walk((x) => x instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) return revert.data?.errorName ?? revert.reason ?? "reverted";
    return e.shortMessage;
  }
  return e instanceof Error ? e.message : String(e);
}
