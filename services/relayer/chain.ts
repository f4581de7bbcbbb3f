/**
 * The relayer's view of the chain: one public client, its signer, the venue's addresses and
 * ABIs, a cache of markets (address and parameters), and the latest block (kept fresh by the
 * tracker: fees and "now" for operator expiry come from it).
 */
import { createPublicClient, http, type Abi, type Address, type Hex, type PublicClient } from "viem";
import { chainFor } from "../../core/chain/viem-chain.js";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { depositTokenAbi, engineAbi, marketAbi, triggerBookAbi } from "../../abis/index.js";
import type { Deployment } from "../../core/deployment.js";
import { ApiError } from "../../core/errors.js";
import { reopensAt } from "../../core/calendar.js";
import type { IndexedOrders } from "./indexed.js";

/** Every error and event the relayer decodes (engine, markets, the deposit token, the trigger book). */
export const VENUE_ABI = [...engineAbi, ...marketAbi, ...depositTokenAbi, ...triggerBookAbi.filter((i) => i.type === "event")] as unknown as Abi;

export type MarketInfo = { marketId: Hex; address: Address; maxLeverage: bigint; symbol: string };

export class Chain {
  readonly client: PublicClient;
  readonly account: PrivateKeyAccount;
  readonly engine: Address;
  /** TriggerBook: the relayer's one target besides the engine (take-profit and stop-loss writes). */
  readonly triggerBook: Address;
  readonly depositToken: Address;
  readonly chainId: number;
  /** Latest block seen by the tracker. */
  head: { number: bigint; hash: Hex; timestamp: bigint; baseFeePerGas: bigint } | null = null;
  private markets = new Map<string, MarketInfo>();
  /** accountId → owner: an account's owner never changes on chain. */
  private owners = new Map<string, Address>();
  /** owner → operator expiry of the relayer, positive answers only, re-read after approvalCacheMs. */
  private approvals = new Map<string, { expiry: bigint; at: number }>();
  private readonly approvalCacheMs: number;
  private marketsByAddress = new Map<string, MarketInfo>();
  /** The index's open orders (cancel-all); null: none configured. */
  indexed: IndexedOrders | null = null;

  constructor(opts: { rpcUrl: string; chainId: number; privateKey: Hex; deployment: Deployment; approvalCacheMs?: number }) {
    this.approvalCacheMs = opts.approvalCacheMs ?? 5_000;
    const chain = chainFor(opts.chainId, opts.rpcUrl);
    this.client = createPublicClient({ chain, transport: http(opts.rpcUrl, { retryCount: 2, timeout: 10_000 }) }) as PublicClient;
    this.account = privateKeyToAccount(opts.privateKey);
    this.engine = opts.deployment.contracts.engine;
    this.triggerBook = opts.deployment.contracts.triggerBook;
    this.depositToken = opts.deployment.contracts.depositToken;
    this.chainId = opts.chainId;
  }

  /** Chain time in seconds (latest block; wall clock until the tracker has seen one). */
  nowSeconds(): bigint {
    return this.head?.timestamp ?? BigInt(Math.floor(Date.now() / 1000));
  }

  async refreshHead() {
    const b = await this.client.getBlock({ blockTag: "latest" });
    this.head = { number: b.number, hash: b.hash, timestamp: b.timestamp, baseFeePerGas: b.baseFeePerGas ?? 0n };
    return this.head;
  }

  /** The owner of an account (ACCOUNT_NOT_FOUND when none); cached for good. */
  async ownerOf(accountId: string): Promise<Address> {
    const hit = this.owners.get(accountId);
    if (hit) return hit;
    let owner: Address;
    try {
      const a = await this.client.readContract({ address: this.engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(accountId)] });
      owner = a.owner;
      if (a.accountId === 0n) owner = "0x0000000000000000000000000000000000000000";
    } catch (e) {
      // getAccount reverts AccountNotFound for unknown ids; anything else (an RPC failure) is not an answer
      if (!/AccountNotFound|revert/i.test(String((e as Error)?.message ?? e))) throw e;
      owner = "0x0000000000000000000000000000000000000000";
    }
    if (/^0x0{40}$/i.test(owner)) throw new ApiError("ACCOUNT_NOT_FOUND", `account ${accountId} does not exist`);
    this.owners.set(accountId, owner);
    return owner;
  }

  /**
   * Until when `owner` approved the relayer (seconds; 0: never or revoked). A live approval is
   * cached for approvalCacheMs (a revocation is seen within it); a missing one is always re-read.
   */
  async operatorExpiry(owner: Address): Promise<bigint> {
    const key = owner.toLowerCase();
    const hit = this.approvals.get(key);
    if (hit && Date.now() - hit.at < this.approvalCacheMs && hit.expiry > this.nowSeconds()) return hit.expiry;
    const expiry = BigInt(await this.client.readContract({ address: this.engine, abi: engineAbi, functionName: "operatorExpiry", args: [owner, this.account.address] }));
    if (expiry > this.nowSeconds()) this.approvals.set(key, { expiry, at: Date.now() });
    else this.approvals.delete(key);
    return expiry;
  }

  /** Forgets a cached approval (after the relayer itself changed it). */
  forgetApproval(owner: Address) {
    this.approvals.delete(owner.toLowerCase());
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

  /** When `marketId`, not OPEN now (the chain's latest block), opens again: from its on-chain calendar (null: OPEN, or never). */
  async reopensAt(marketId: Hex): Promise<number | null> {
    const { address } = await this.market(marketId);
    const [[current, next, startsAt], block] = await Promise.all([
      this.client.readContract({ address, abi: marketAbi, functionName: "calendar" }),
      this.client.getBlock({ blockTag: "latest" }),
    ]);
    return reopensAt({ current, next, startsAt: Number(startsAt) }, Number(block.timestamp));
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
