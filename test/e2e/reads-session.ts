/**
 * A scripted trading session driven directly against the contracts with viem (no relayer):
 * resting limit orders on several levels, market orders with partial fills, a cancel,
 * deposits and withdrawals, index price moves, time jumps so funding accrues, a close and a
 * liquidation, on two markets and six accounts.
 */
import { parseUnits, type Hex } from "viem";
import { engineAbi, oracleAbi } from "../../abis/index.js";
import { KEY_INDEX, devAccount } from "../../core/config.js";
import { walletClientFor } from "../../scripts/lib/clients.js";
import type { Venue } from "./reads-env.js";

export const px = (v: string) => parseUnits(v, 18);
export const usd6 = (v: string) => parseUnits(v, 6);
const SIDE = { LONG: 0, SHORT: 1 } as const;
const TYPE = { MARKET: 0, LIMIT: 1 } as const;

export type Session = { accounts: bigint[]; markets: Hex[]; cancelled: number };

export function sessionActions(v: Venue) {
  const { engine, oracle } = v.deployment.contracts;
  const send = async (walletIndex: number, functionName: string, args: readonly unknown[], address: Hex = engine, abi: readonly unknown[] = engineAbi) => {
    const w = walletIndex < 0 ? walletClientFor(v.rpcUrl, v.chainId, devAccount(KEY_INDEX.deployer).privateKey) : v.wallet(walletIndex);
    const { request } = await v.client.simulateContract({ address, abi, functionName, args, account: w.account } as never);
    // headroom over the estimate: the 63/64 rule on the engine → market call undercuts it
    const hash = await w.writeContract({ ...(request as object), gas: 8_000_000n } as never);
    const r = await v.client.waitForTransactionReceipt({ hash });
    if (r.status !== "success") throw new Error(`${functionName} reverted`);
    return r;
  };
  const place = (w: number, marketId: Hex, side: keyof typeof SIDE, type: keyof typeof TYPE, collateral: string, leverage: number, price = "0", clientKey: Hex = `0x${"0".repeat(64)}`) =>
    send(w, "placeOrder", [
      {
        accountId: v.accountIds[w]!,
        marketId,
        side: SIDE[side],
        orderType: TYPE[type],
        collateral6: usd6(collateral),
        leverage: BigInt(leverage),
        limitPriceX18: px(price),
        clientKey,
        timeInForce: 0,
        reduceOnly: false,
        expiresAt: 0n,
      },
    ]);
  const rpc = (method: string, params: unknown[] = []) => v.client.request({ method: method as never, params: params as never });
  /** Mines a block `seconds` after the latest (evm_increaseTime would be ignored on a venue with a fixed clock: reads-env.ts `clock`). */
  const advance = async (seconds: number) => {
    const { timestamp } = await v.client.getBlock({ blockTag: "latest" });
    await rpc("evm_setNextBlockTimestamp", [Number(timestamp) + seconds]);
    await rpc("evm_mine");
  };
  /** Sets the index; a move beyond the oracle's per-update bound (1 % on the devnet) walks
   *  there in bounded updates a second apart. Returns the last update's receipt. */
  const setPrice = async (marketId: Hex, price: string) => {
    const target = px(price);
    for (let i = 0; i < 50; i++) {
      const r = await send(-1, "setPrice", [marketId, target], oracle, oracleAbi);
      const [now] = (await v.client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId] })) as readonly [bigint, bigint];
      if (now === target) return r;
      await advance(1);
    }
    throw new Error(`setPrice: the oracle never reached ${price}`);
  };
  return { send, place, setPrice, rpc, advance };
}

export async function runSession(v: Venue): Promise<Session> {
  const { send, place, setPrice, advance } = sessionActions(v);
  const [EUR, GBP] = v.deployment.markets.map((m) => m.marketId) as [Hex, Hex];
  const [A, B, C, D, E, L] = [0, 1, 2, 3, 4, 5];

  // a fresh index first: the indexer may take longer to start than the oracle's staleness bound
  await setPrice(EUR, "1.0800");
  await setPrice(GBP, "1.2700");

  // resting book: asks by A (two orders at the best level), bids by B and E
  for (const p of ["1.0810", "1.0810", "1.0820", "1.0830", "1.0840", "1.0850"]) await place(A, EUR, "SHORT", "LIMIT", "1000", 10, p);
  for (const p of ["1.0790", "1.0780", "1.0770", "1.0760"]) await place(B, EUR, "LONG", "LIMIT", "1000", 10, p);
  await place(E, EUR, "LONG", "LIMIT", "500", 10, "1.0790");
  const key = `0x${"e1".repeat(32)}` as Hex;
  await place(E, EUR, "LONG", "LIMIT", "300", 5, "1.0750", key);
  await send(E, "cancelOrder", [v.accountIds[E]!, EUR, key]);

  // takers: partial fills of the best ask level, then the rest of it
  await place(C, EUR, "LONG", "MARKET", "300", 20);
  await place(D, EUR, "LONG", "MARKET", "200", 40); // 50x at the ask would be below initial margin
  // a limit order that crosses two bids and rests its remainder
  await place(L, EUR, "SHORT", "LIMIT", "1500", 10, "1.0785");

  // second market
  await place(A, GBP, "LONG", "LIMIT", "800", 5, "1.2650");
  await place(A, GBP, "LONG", "LIMIT", "800", 5, "1.2640");
  await place(B, GBP, "SHORT", "MARKET", "300", 10);

  // money in and out
  await send(C, "deposit", [v.accountIds[C]!, usd6("500")]);
  await send(E, "withdraw", [v.accountIds[E]!, usd6("1000")]);

  // funding accrues for two hours; a fresh index, then the rate is recomputed
  await advance(7200);
  await setPrice(EUR, "1.0800");
  await setPrice(GBP, "1.2700");
  await send(L, "pokeFunding", [EUR]);
  await send(L, "pokeFunding", [GBP]);

  // C closes through the book
  await send(C, "closePosition", [v.accountIds[C]!, EUR, TYPE.MARKET, 0n, `0x${"0".repeat(64)}`]);

  // the index falls (in 1 % steps, the oracle's bound): D's 40x long becomes liquidatable; anyone may liquidate
  await setPrice(EUR, "1.0500");
  await send(L, "liquidatePosition", [v.accountIds[D]!, EUR]);

  // more time: pending funding is non-zero at the final block
  await advance(1800);
  await setPrice(EUR, "1.0550");
  await advance(600);
  return { accounts: [A, B, C, D, E, L].map((i) => v.accountIds[i]!), markets: [EUR, GBP], cancelled: 1 };
}
