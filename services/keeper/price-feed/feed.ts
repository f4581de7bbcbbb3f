/**
 * The local price feed: pushes a random-walk index price per market (Oracle.setPrices, one
 * transaction per round) with the oracle updater's key. Local profile only.
 */
import { zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import type { Logger } from "pino";
import { oracleAbi } from "../../../abis/index.js";
import { errorName, type Signer } from "../chain/clients.js";
import type { MarketDirectory } from "../chain/markets.js";
import { RandomWalk, walkSeed, type WalkParams } from "./random-walk.js";

export type FeedOptions = { feedSeed: string; maxStepBps: bigint; bandBps: bigint };

export class PriceFeed {
  private readonly walks = new Map<Hex, RandomWalk>();
  /** What this feed pushed last per market: anything else on chain means someone moved it. */
  private readonly pushed = new Map<Hex, bigint>();

  constructor(
    private readonly client: PublicClient,
    private readonly signer: Signer,
    private readonly oracle: Address,
    private readonly markets: MarketDirectory,
    private readonly opts: FeedOptions,
    private readonly log: Logger,
  ) {}

  /** One round: read each price, step its walk, push all in one transaction. */
  async round(): Promise<Map<Hex, bigint>> {
    const ids: Hex[] = [];
    const prices: bigint[] = [];
    for (const m of await this.markets.list()) {
      // A market routed to an external feed (Oracle.setFeed) refuses pushed prices.
      const feed = await this.client.readContract({ address: this.oracle, abi: oracleAbi, functionName: "feedOf", args: [m.marketId] });
      if (feed !== zeroAddress) continue;
      const [onChain] = await this.client.readContract({
        address: this.oracle, abi: oracleAbi, functionName: "getPrice", args: [m.marketId],
      });
      if (onChain === 0n) continue; // never set: the deploy sets the first price, not the feed
      const params: WalkParams = { tickX18: m.tickX18, maxStepBps: this.opts.maxStepBps, bandBps: this.opts.bandBps };
      let walk = this.walks.get(m.marketId);
      if (!walk) {
        walk = new RandomWalk(walkSeed(this.opts.feedSeed, m.marketId), onChain, params);
        this.walks.set(m.marketId, walk);
      } else if (this.pushed.get(m.marketId) !== onChain) {
        this.log.info({ market: m.symbol, price: onChain.toString() }, "index moved by someone else: walk re-anchored");
        walk.reanchor(onChain);
      }
      ids.push(m.marketId);
      prices.push(walk.next());
    }
    if (ids.length === 0) return new Map();
    try {
      await this.signer.write({ address: this.oracle, abi: oracleAbi, functionName: "setPrices", args: [ids, prices] });
      ids.forEach((id, i) => this.pushed.set(id, prices[i]!));
    } catch (e) {
      this.log.warn({ err: errorName(e) }, "setPrices failed");
      // Re-read next round: what is on chain decides where the walk continues.
      ids.forEach((id) => this.pushed.delete(id));
    }
    return new Map(ids.map((id, i) => [id, prices[i]!]));
  }
}
