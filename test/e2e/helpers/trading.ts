/**
 * Trading on a stack's chain directly with a wallet (no relayer), as the liquidation files do:
 * simulate + send + receipt, the oracle's 1 %-a-second index walk, and an ether-only wallet made
 * a trader. Bound to one stack by `chainTrading(s)`.
 */
import { encodeAbiParameters, keccak256, maxUint256, parseUnits, type Hex } from "viem";
import { depositTokenAbi, engineAbi, oracleAbi } from "../../../abis/index.js";
import type { StackInfo } from "../stack.js";
import { retryingTakenNonce } from "../../../scripts/lib/clients.js";
import { publicClient, walletClient } from "./chain.js";
import { until } from "./wait.js";

type Wallet = ReturnType<typeof walletClient>;

/** The contracts' position id (keccak256(accountId, marketId)). */
export const positionIdOf = (accountId: bigint, marketId: Hex) =>
  keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "bytes32" }], [accountId, marketId]));

export function chainTrading(s: StackInfo) {
  const client = publicClient(s);
  const deployer = walletClient(s, s.keys.deployer);
  const { engine, depositToken, oracle } = s.deployment.contracts;

  /** Simulated, sent with 50 % gas headroom (the book may move between estimate and mining), mined: the receipt, whatever its status. */
  const send = async (w: Wallet, req: any) => {
    const { request } = await client.simulateContract({ ...req, account: w.account });
    const gas = await client.estimateContractGas({ ...req, account: w.account });
    const hash = await retryingTakenNonce(() => w.writeContract({ ...(request as any), gas: (gas * 3n) / 2n }));
    return client.waitForTransactionReceipt({ hash });
  };
  /** `send`, failing unless it succeeded. */
  const write = async (w: Wallet, req: any) => {
    const r = await send(w, req);
    if (r.status !== "success") throw new Error(`${req.functionName} reverted in ${r.transactionHash}`);
    return r;
  };
  /** A trade against a book that moves under it (a re-quote, the price feed): sent again until it succeeds (up to `timeoutMs`). */
  const trade = (w: Wallet, req: any, timeoutMs = 15_000) =>
    until(`${req.functionName} mined`, async () => {
      const r = await send(w, req);
      return r.status === "success" ? r : undefined;
    }, timeoutMs);
  /**
   * Moves a market's index to `target` in updates the oracle bounds (1 % on the devnet, all
   * updates of one second together): one update per second of chain time (evm_increaseTime)
   * until the applied price is the target. Returns the last update's receipt.
   */
  const walkIndex = async (marketId: Hex, target: bigint) => {
    for (let i = 0; i < 20; i++) {
      const last = await write(deployer, { address: oracle, abi: oracleAbi, functionName: "setPrice", args: [marketId, target] });
      const [now] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId], blockNumber: last.blockNumber });
      if (now === target) return last;
      await client.request({ method: "evm_increaseTime" as never, params: [1] as never });
    }
    throw new Error(`the index never reached ${target}`);
  };
  /** An ether-only wallet made a trader: `usd` USDV minted by the deployer, the engine approved, an account, a deposit. Returns the account id. */
  const fund = async (w: Wallet, usd: string) => {
    const amount = parseUnits(usd, 6);
    await write(deployer, { address: depositToken, abi: depositTokenAbi, functionName: "mint", args: [w.account.address, amount] });
    await write(w, { address: depositToken, abi: depositTokenAbi, functionName: "approve", args: [engine, maxUint256] });
    let id = await client.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [w.account.address] });
    if (id === 0n) {
      await write(w, { address: engine, abi: engineAbi, functionName: "createAccount", args: [w.account.address] });
      id = await client.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [w.account.address] });
    }
    await write(w, { address: engine, abi: engineAbi, functionName: "deposit", args: [id, amount] });
    return id;
  };
  return { client, deployer, send, write, trade, walkIndex, fund };
}
