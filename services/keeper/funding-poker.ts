/**
 * Funding pokes: Engine.pokeFunding(marketId) for every market, so the cumulative index accrues
 * and the rate follows the book even when nobody trades. Signed with the keeper's own key.
 */
import type { Address } from "viem";
import type { Logger } from "pino";
import { engineAbi } from "../../abis/index.js";
import { errorName, type Signer } from "./chain/clients.js";
import type { MarketDirectory } from "./chain/markets.js";

export async function pokeAllMarkets(signer: Signer, engine: Address, markets: MarketDirectory, log: Logger): Promise<number> {
  let poked = 0;
  for (const m of await markets.list()) {
    try {
      await signer.write({ address: engine, abi: engineAbi, functionName: "pokeFunding", args: [m.marketId] });
      poked++;
    } catch (e) {
      // A stale index or a paused market is not the keeper's problem to fix: log and go on.
      log.warn({ market: m.symbol, err: errorName(e) }, "pokeFunding failed");
    }
  }
  log.debug({ poked }, "funding poked");
  return poked;
}
