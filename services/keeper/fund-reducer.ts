/**
 * The insurance fund's own position (account 0 of each market; docs/CONTRACTS.md "Backstop"):
 * wherever the fund holds one and its 300 s interval has passed, the keeper calls the market's
 * permissionless `reduceFundPosition`, which closes it against the book within the price band.
 * Runs in the funding loop, signed with the keeper's key.
 */
import type { Address, PublicClient } from "viem";
import type { Logger } from "pino";
import { marketAbi } from "../../abis/index.js";
import { errorName, type Signer } from "./chain/clients.js";

/** What the reducer needs of the chain (the keeper's public client and signer provide it). */
export type FundReducerChain = {
  /** The insurance fund's position size in a market (`getPosition(0).sizeQty`). */
  fundSize(market: Address): Promise<bigint>;
  /** Sends `reduceFundPosition` (simulated first: a refusal costs nothing). */
  reduce(market: Address): Promise<unknown>;
};

/** Calls `reduceFundPosition` on every market where the fund holds a position; returns how many went through. */
export async function reduceFundPositions(
  chain: FundReducerChain, markets: readonly { address: Address; symbol: string }[], log: Logger,
): Promise<number> {
  let sent = 0;
  for (const m of markets) {
    try {
      const size = await chain.fundSize(m.address);
      if (size === 0n) continue;
      await chain.reduce(m.address);
      sent++;
      log.info({ market: m.symbol, fundSizeQty: size.toString() }, "insurance fund position reduced");
    } catch (e) {
      const err = errorName(e);
      // within its 300 s interval: expected between two rounds
      if (err === "FundReductionNotDue") continue;
      // no depth within the band, a stale index, a close: the next round tries again
      log.warn({ market: m.symbol, err }, "reduceFundPosition failed");
    }
  }
  return sent;
}

/** The chain side over viem: reads with the public client, writes with the keeper's signer. */
export const viemFundReducerChain = (client: PublicClient, signer: Signer): FundReducerChain => ({
  fundSize: async (market) =>
    (await client.readContract({ address: market, abi: marketAbi, functionName: "getPosition", args: [0n] })).sizeQty,
  reduce: (market) => signer.write({ address: market, abi: marketAbi, functionName: "reduceFundPosition", args: [] }),
});
