/**
 * Local demo wallets (anvil indices 0–9) and service wallets: deposit tokens from the deployer,
 * the engine's allowance, an account with a deposit, and the relayer approved as operator.
 * All direct transactions (no service needed), so `npm start`, devnet and the e2e harness share it.
 */
import { maxUint256, parseUnits, type Address, type Hex } from "viem";
import { depositTokenAbi, engineAbi } from "../../abis/index.js";
import type { Deployment } from "../../core/deployment.js";
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from "../../core/operator-policy.js";
import { brief } from "../deploy.js";
import { publicClientFor, retryingTakenNonce, walletClientFor } from "./clients.js";

export const usd = (v: string) => parseUnits(v, 6);
export const DEMO_MINT_6 = usd("1000000"); // per demo wallet
export const DEMO_DEPOSIT_6 = usd("100000"); // into its account
export const OPERATOR_EXPIRY_SECONDS = 365n * 24n * 3600n;

type Ctx = { rpcUrl: string; chainId: number; deployment: Deployment };

async function send(ctx: Ctx, key: Hex, what: string, req: { address: Address; abi: readonly unknown[]; functionName: string; args: readonly unknown[] }) {
  const client = publicClientFor(ctx.rpcUrl, ctx.chainId);
  const wallet = walletClientFor(ctx.rpcUrl, ctx.chainId, key);
  const { request } = await client.simulateContract({ ...req, account: wallet.account } as never).catch((e) => {
    throw brief(what, e);
  });
  const hash = await retryingTakenNonce(() => wallet.writeContract(request as never));
  const r = await client.waitForTransactionReceipt({ hash });
  if (r.status !== "success") throw new Error(`${what} reverted (tx ${hash})`);
  return r;
}

/**
 * The deployer mints deposit tokens to each recipient (one sender: sequential). With
 * `topUp`, only wallets holding less than half the amount get it (re-runs of `npm start`).
 */
export async function mintTo(ctx: Ctx, deployerKey: Hex, recipients: { address: Address; amount6: bigint }[], topUp = false) {
  const token = ctx.deployment.contracts.depositToken;
  const client = publicClientFor(ctx.rpcUrl, ctx.chainId);
  for (const { address, amount6 } of recipients) {
    if (topUp) {
      const bal = (await client.readContract({ address: token, abi: depositTokenAbi, functionName: "balanceOf", args: [address] })) as bigint;
      if (bal >= amount6 / 2n) continue;
    }
    await send(ctx, deployerKey, `mint to ${address}`, { address: token, abi: depositTokenAbi, functionName: "mint", args: [address, amount6] });
  }
}

export type PrepareOptions = {
  /** approve the engine for the deposit token (max) */
  approve?: boolean;
  /** create the account if the wallet has none */
  createAccount?: boolean;
  /** deposit this much (6 decimals) into the account while it holds no margin (re-runs add nothing) */
  deposit6?: bigint;
  /** approve this operator (the relayer) by a direct setOperator transaction */
  operator?: Address;
  /** the policy the approval sets (default: DEFAULT_OPERATOR_POLICY, the one the approval routes state) */
  operatorPolicy?: OperatorPolicy;
};

/**
 * Creates accounts one wallet after the other, so that wallet order gives account ids
 * (wallet 0 → account 1 on a fresh chain); returns each accountId.
 */
export async function createAccountsInOrder(ctx: Ctx, keys: Hex[]): Promise<number[]> {
  const ids: number[] = [];
  for (const key of keys) ids.push(await prepareWallet(ctx, key, { createAccount: true }));
  return ids;
}

/** Prepares one wallet from its own key; returns its accountId (0 if it has none). */
export async function prepareWallet(ctx: Ctx, key: Hex, o: PrepareOptions): Promise<number> {
  const client = publicClientFor(ctx.rpcUrl, ctx.chainId);
  const me = walletClientFor(ctx.rpcUrl, ctx.chainId, key).account.address;
  const { engine, depositToken } = ctx.deployment.contracts;
  if (o.approve) {
    const allowance = (await client.readContract({ address: depositToken, abi: depositTokenAbi, functionName: "allowance", args: [me, engine] })) as bigint;
    if (allowance < maxUint256 / 2n) {
      await send(ctx, key, "approve", { address: depositToken, abi: depositTokenAbi, functionName: "approve", args: [engine, maxUint256] });
    }
  }
  let accountId = (await client.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [me] })) as bigint;
  if (o.createAccount && accountId === 0n) {
    await send(ctx, key, "createAccount", { address: engine, abi: engineAbi, functionName: "createAccount", args: [me] });
    accountId = (await client.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [me] })) as bigint;
  }
  const empty = async () =>
    ((await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [accountId] })) as { totalWad: bigint }).totalWad === 0n;
  if (accountId !== 0n && o.deposit6 && (await empty())) {
    await send(ctx, key, "deposit", { address: engine, abi: engineAbi, functionName: "deposit", args: [accountId, o.deposit6] });
  }
  if (o.operator) {
    const policy = o.operatorPolicy ?? DEFAULT_OPERATOR_POLICY;
    const state = (await client.readContract({ address: engine, abi: engineAbi, functionName: "operatorState", args: [me, o.operator] })) as {
      expiry: bigint; maxLeverage: number; bandBps: number; budgetBps: number;
    };
    const now = BigInt(Math.floor(Date.now() / 1000));
    const samePolicy = state.maxLeverage === policy.maxLeverage && state.bandBps === policy.bandBps && state.budgetBps === policy.budgetBps;
    if (state.expiry < now + OPERATOR_EXPIRY_SECONDS / 2n || !samePolicy) {
      await send(ctx, key, "setOperator", {
        address: engine, abi: engineAbi, functionName: "setOperator",
        args: [o.operator, now + OPERATOR_EXPIRY_SECONDS, { maxLeverage: policy.maxLeverage, bandBps: policy.bandBps, budgetBps: policy.budgetBps }],
      });
    }
  }
  return Number(accountId);
}
