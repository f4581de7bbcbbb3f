/**
 * The local demo market maker: its own account (created, funded and approved by itself at start;
 * the deployer mints its deposit tokens), a few LIMIT levels on both sides of every book around
 * the index, re-quoted when the index moves. Local profile only.
 *
 * It is a client of the venue like any other (packages/client, `@venue-indexer/client`): it reads
 * the markets (index, tick, lot, leverage cap), its own open orders and its available margin from
 * the integration API through `VenueClient`, and builds every quote with the client's builder
 * (./orders.ts). Its writes stay direct on chain with its own key, never through the relayer (the
 * relayer must stay the only owner of its nonces); after each one the client's `minBlock` is
 * raised to the write's block, so every later read sees it (the maker never re-places or cancels
 * from a read older than its own writes). What a read cannot know yet (a fill between the read and
 * the write) is still the contract's answer: ClientKeyInUse, OrderNotFound, InsufficientMargin.
 * Setup and top-up (account, mint, approve, deposit) are chain calls.
 */
import { maxUint256, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import type { Logger } from "pino";
import { depositTokenAbi, engineAbi } from "../../../abis/index.js";
import {
  AMOUNT6_TO_WAD, big, formatX18, meta, VenueApiError, VenueError, VenueInputError, VenueNetworkError,
  type Market, type Order, type VenueClient,
} from "../../../packages/client/src/index.js";
import { errorName, type Signer } from "../chain/clients.js";
import { quoteOrder, quoteParams, type MakerOptions } from "./orders.js";
import { desiredQuotes, planRequote, quoteClientKey, SLOTS, type RestingOrder } from "./quotes.js";

export type { MakerOptions } from "./orders.js";
export type VenueAddresses = { engine: Address; depositToken: Address };

export type MakerDeps = {
  /** the integration API (reads) */
  api: VenueClient;
  /** the chain, for setup and top-up (account id, token balance and allowance) */
  chain: PublicClient;
  maker: Signer;
  /** mints the maker's deposit tokens (local chain) */
  deployer: Signer;
  addresses: VenueAddresses;
  log: Logger;
};

/** The integration API is not answering (not up yet, restarting, or not at `minBlock` in time): wait and retry. */
export function unavailable(e: unknown): boolean {
  if (e instanceof VenueNetworkError) return true;
  if (e instanceof VenueApiError) return e.status === 429 || e.status === 502 || e.status === 503 || e.status === 504;
  return e instanceof VenueError && e.code === "TIMEOUT";
}

const WAITING_LOG_MS = 60_000;

export class MarketMaker {
  private accountId = 0n;
  /** setup() has run to its end (account, deposit): until then each round starts with it */
  private ready = false;
  /** The indexed block of the last round that sent nothing: until a new block, the next would find the same. */
  private quietAt: number | null = null;
  /** Since when the integration API has not answered (null: it answers). */
  private waitingSince: number | null = null;
  private waitingLoggedAt = 0;
  /** The markets of the last round (the stream follower subscribes to them). */
  quoted: Hex[] = [];

  private readonly api: VenueClient;
  private readonly log: Logger;

  constructor(
    private readonly d: MakerDeps,
    private readonly opts: MakerOptions,
  ) {
    this.api = d.api;
    this.log = d.log;
  }

  get account(): bigint {
    return this.accountId;
  }

  /** A write of the maker mined: every later read of the client passes minBlock ≥ its block. */
  private mined(r: TransactionReceipt): TransactionReceipt {
    this.api.minBlock = Math.max(this.api.minBlock, Number(r.blockNumber));
    return r;
  }

  /** Account, tokens, allowance, deposit: whatever is missing. Idempotent. */
  async setup(): Promise<bigint> {
    const { engine } = this.d.addresses;
    const me = this.d.maker.address;
    const accountIdOf = () => this.d.chain.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [me] });
    let id = await accountIdOf();
    if (id === 0n) {
      this.mined(await this.d.maker.write({ address: engine, abi: engineAbi, functionName: "createAccount", args: [me] }));
      id = await accountIdOf();
      this.log.info({ accountId: id.toString(), address: me }, "market maker account created");
    }
    this.accountId = id;
    await this.topUp();
    this.ready = true;
    return id;
  }

  /** Brings available margin (read through the client) back to the target; mints with the deployer's key when short. */
  async topUp(): Promise<void> {
    const { engine, depositToken } = this.d.addresses;
    const me = this.d.maker.address;
    const target6 = this.opts.depositUsd * 1_000_000n;
    const acct = await this.api.account(this.accountId);
    const available6 = big(acct.margin.available) / AMOUNT6_TO_WAD;
    if (available6 * 2n >= target6) return;
    const need6 = target6 - available6;
    const balance6 = await this.d.chain.readContract({ address: depositToken, abi: depositTokenAbi, functionName: "balanceOf", args: [me] });
    if (balance6 < need6) {
      await this.d.deployer.write({ address: depositToken, abi: depositTokenAbi, functionName: "mint", args: [me, need6 - balance6] });
    }
    const allowance = await this.d.chain.readContract({
      address: depositToken, abi: depositTokenAbi, functionName: "allowance", args: [me, engine],
    });
    if (allowance < need6) {
      this.mined(await this.d.maker.write({ address: depositToken, abi: depositTokenAbi, functionName: "approve", args: [engine, maxUint256] }));
    }
    this.mined(await this.d.maker.write({ address: engine, abi: engineAbi, functionName: "deposit", args: [this.accountId, need6] }));
    this.log.info({ deposited: need6.toString() }, "market maker deposit topped up");
  }

  /**
   * One round over every market: keep, place, cancel (see `planRequote` for the order). Returns
   * the number of transactions sent. While the integration API does not answer, it logs that it
   * waits and returns 0 (the next round tries again): it never throws for that.
   */
  async round(): Promise<number> {
    try {
      const sent = await this.quoteAll();
      if (this.waitingSince !== null) {
        this.log.info({ url: this.api.http.baseUrl, waitedMs: Date.now() - this.waitingSince }, "market maker: the integration API answers, quoting");
        this.waitingSince = null;
      }
      return sent;
    } catch (e) {
      if (!unavailable(e)) throw e;
      const now = Date.now();
      if (this.waitingSince === null) this.waitingSince = now;
      if (now - this.waitingLoggedAt >= WAITING_LOG_MS || this.waitingLoggedAt < this.waitingSince) {
        this.waitingLoggedAt = now;
        this.log.info({ url: this.api.http.baseUrl, err: (e as Error).message }, "market maker waiting for the integration API");
      }
      return 0;
    }
  }

  private async quoteAll(): Promise<number> {
    if (!this.ready) await this.setup();
    const list = await this.api.markets();
    // index, book and margin change only in a block: at the indexed block of a round that changed
    // nothing, there is nothing to re-quote
    const at = meta(list)?.indexedBlock ?? null;
    if (at !== null && at === this.quietAt) return 0;
    const only = this.opts.marketIds && new Set(this.opts.marketIds.map((id) => id.toLowerCase()));
    const markets = list.markets.filter((m) => !only || only.has(m.marketId.toLowerCase()));
    this.quoted = markets.map((m) => m.marketId as Hex);
    const mine = await this.openOrders();
    let sent = 0;
    let short = false;
    let unfinished = false;
    for (const m of markets) {
      try {
        const r = await this.quoteMarket(m, mine);
        sent += r.sent;
        short ||= r.short;
        unfinished ||= r.skipped;
      } catch (e) {
        if (unavailable(e)) throw e;
        unfinished = true;
        this.log.warn({ market: m.symbol, err: errorName(e) }, "quoting failed");
      }
    }
    if (short) await this.topUp().catch((e) => this.log.warn({ err: errorName(e) }, "top-up failed"));
    this.quietAt = sent === 0 && !short && !unfinished ? at : null;
    return sent;
  }

  /** The maker's active orders, by client key (lower case), as the integration API has them. */
  private async openOrders(): Promise<Map<string, Order>> {
    const out = new Map<string, Order>();
    for await (const o of this.api.orders(this.accountId, { status: "active", limit: 1_000 })) out.set(o.clientKey.toLowerCase(), o);
    return out;
  }

  /**
   * `short`: a place failed for want of margin (the round tops up at its end; the next one places
   * again); `skipped`: a level the book (or the builder) refused now (the next round tries again).
   */
  private async quoteMarket(m: Market, mine: Map<string, Order>): Promise<{ sent: number; short: boolean; skipped: boolean }> {
    const none = { sent: 0, short: false, skipped: false };
    // paused or outside its trading hours: nothing to quote until it opens (a later block)
    if (!m.isActive || m.session.state !== "OPEN") return none;
    const marketId = m.marketId as Hex;
    const index = big((await this.api.price(marketId)).indexPrice);
    if (index === 0n) return none;
    const p = quoteParams(m, this.opts);
    const wanted = desiredQuotes(index, p);
    const resting = (q: (typeof wanted)[number]): RestingOrder[] =>
      SLOTS.flatMap((slot) => {
        const o = mine.get(quoteClientKey(marketId, q.side, q.level, slot).toLowerCase());
        return o && o.status === "active" ? [{ slot, priceX18: big(o.price), remainingQty: big(o.remainingQuantity) }] : [];
      });
    const plan = planRequote(wanted, resting, p);
    let sent = 0;
    let short = false;
    let skipped = false;
    for (const step of plan.steps) {
      const q = step.quote;
      const clientKey = quoteClientKey(marketId, q.side, q.level, step.slot);
      if (step.kind === "cancel") {
        try {
          this.mined(await this.d.maker.write({
            address: this.d.addresses.engine, abi: engineAbi, functionName: "cancelOrder", args: [this.accountId, marketId, clientKey],
          }));
          sent++;
        } catch (e) {
          // Filled in between: nothing to cancel.
          if (errorName(e) !== "OrderNotFound") throw e;
        }
        continue;
      }
      let args;
      try {
        args = quoteOrder(this.accountId, m, q, p.leverage, clientKey);
      } catch (e) {
        // refused by the client's builder before sending (a bad quote never reaches the chain)
        if (!(e instanceof VenueInputError)) throw e;
        this.log.warn({ market: m.symbol, code: e.code, err: e.message, price: formatX18(q.priceX18) }, "quote refused by the builder");
        skipped = true;
        continue;
      }
      try {
        this.mined(await this.d.maker.write({ address: this.d.addresses.engine, abi: engineAbi, functionName: "placeOrder", args: [args] }));
        sent++;
      } catch (e) {
        const name = errorName(e);
        // A level the book cannot take now (band, a crossing order not yet cancelled): the next
        // round tries again.
        if (name === "InvalidPrice" || name === "SelfTrade" || name === "ClientKeyInUse") {
          this.log.debug({ market: m.symbol, err: name, price: formatX18(q.priceX18) }, "quote skipped");
          skipped = true;
          continue;
        }
        // Out of margin: the plan's cancels still run (they free the margin of stale orders; a
        // throw here left them resting, and the next round short again).
        if (name === "InsufficientMargin") {
          short = true;
          continue;
        }
        throw e;
      }
    }
    if (sent > 0) {
      this.log.debug({ market: m.symbol, index: formatX18(index), kept: plan.keep.length, sent }, "re-quoted");
    }
    return { sent, short, skipped };
  }
}
