/**
 * The relayer's view of the chain: one public client, its signer, the venue's addresses and
 * ABIs, a cache of markets (address and parameters), and the latest block (kept fresh by the
 * tracker: fees and "now" for operator expiry come from it).
 */
import { createPublicClient, defineChain, http, type Abi, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { depositTokenAbi, engineAbi, marketAbi } from "../../abis/index.js";
import type { Deployment } from "../../core/deployment.js";
import { ApiError } from "../../core/errors.js";

/** Every error and event the relayer decodes (engine, markets, the deposit token). */
export const VENUE_ABI = [...engineAbi, ...marketAbi, ...depositTokenAbi] as unknown as Abi;

export type MarketInfo = { marketId: Hex; address: Address; maxLeverage: bigint; symbol: string };

export class Chain {
  readonly client: PublicClient;
  readonly account: PrivateKeyAccount;
  readonly engine: Address;
  readonly depositToken: Address;
  readonly chainId: number;
  /** Latest block seen by the tracker. */
  head: { number: bigint; timestamp: bigint; baseFeePerGas: bigint } | null = null;
  private markets = new Map<string, MarketInfo>();
  private marketsByAddress = new Map<string, MarketInfo>();

  constructor(opts: { rpcUrl: string; chainId: number; privateKey: Hex; deployment: Deployment }) {
    const chain = defineChain({
      id: opts.chainId,
      name: `chain-${opts.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [opts.rpcUrl] } },
    });
    this.client = createPublicClient({ chain, transport: http(opts.rpcUrl, { retryCount: 2, timeout: 10_000 }) }) as PublicClient;
    this.account = privateKeyToAccount(opts.privateKey);
    this.engine = opts.deployment.contracts.engine;
    this.depositToken = opts.deployment.contracts.depositToken;
    this.chainId = opts.chainId;
  }

  /** Chain time in seconds (latest block; wall clock until the tracker has seen one). */
  nowSeconds(): bigint {
    return this.head?.timestamp ?? BigInt(Math.floor(Date.now() / 1000));
  }

  async refreshHead() {
    const b = await this.client.getBlock({ blockTag: "latest" });
    this.head = { number: b.number, timestamp: b.timestamp, baseFeePerGas: b.baseFeePerGas ?? 0n };
    return this.head;
  }

  /** The market of `marketId` (MARKET_NOT_FOUND when the engine knows none). */
  async market(marketId: Hex): Promise<MarketInfo> {
    const key = marketId.toLowerCase();
    const hit = this.markets.get(key);
    if (hit) return hit;
    const address = await this.client.readContract({ address: this.engine, abi: engineAbi, functionName: "marketOf", args: [marketId] });
    if (/^0x0{40}$/i.test(address)) throw new ApiError("MARKET_NOT_FOUND", `market ${marketId} does not exist`);
    const params = await this.client.readContract({ address, abi: marketAbi, functionName: "params" });
    const info: MarketInfo = { marketId: key as Hex, address, maxLeverage: BigInt(params.maxLeverage), symbol: params.symbol };
    this.markets.set(key, info);
    this.marketsByAddress.set(address.toLowerCase(), info);
    return info;
  }

  /** The market emitting at `address` (for decoding logs), or undefined. */
  async marketAt(address: Address): Promise<MarketInfo | undefined> {
    const hit = this.marketsByAddress.get(address.toLowerCase());
    if (hit) return hit;
    try {
      const marketId = await this.client.readContract({ address, abi: marketAbi, functionName: "marketId" });
      return await this.market(marketId);
    } catch {
      return undefined;
    }
  }
}
