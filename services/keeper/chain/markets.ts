/** The venue's markets as the chain lists them (new factory markets show up without a restart). */
import type { Address, Hex, PublicClient } from "viem";
import { engineAbi, marketAbi } from "../../../abis/index.js";

export type ChainMarket = {
  marketId: Hex;
  address: Address;
  symbol: string;
  tickX18: bigint;
  minOrderQty: bigint;
};

export class MarketDirectory {
  private cache = new Map<Hex, ChainMarket>();
  private loadedAt = 0;

  constructor(
    private readonly client: PublicClient,
    private readonly engine: Address,
    private readonly refreshMs = 30_000,
  ) {}

  async list(): Promise<ChainMarket[]> {
    if (Date.now() - this.loadedAt < this.refreshMs && this.cache.size > 0) return [...this.cache.values()];
    const ids = (await this.client.readContract({ address: this.engine, abi: engineAbi, functionName: "marketIds" })) as readonly Hex[];
    for (const id of ids) {
      const key = id.toLowerCase() as Hex;
      if (this.cache.has(key)) continue;
      const address = (await this.client.readContract({
        address: this.engine, abi: engineAbi, functionName: "marketOf", args: [id],
      })) as Address;
      const p = await this.client.readContract({ address, abi: marketAbi, functionName: "params" });
      this.cache.set(key, {
        marketId: key,
        address,
        symbol: p.symbol,
        tickX18: p.tickSizeX18,
        minOrderQty: p.minOrderQty,
      });
    }
    this.loadedAt = Date.now();
    return [...this.cache.values()];
  }
}
