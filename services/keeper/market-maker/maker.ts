/**
 * The local demo market maker: its own account (created, funded and approved by itself at start;
 * the deployer mints its deposit tokens), a few LIMIT levels on both sides of every book around
 * the index, re-quoted when the index moves. Sends through Engine with its own key, never through
 * the relayer (the relayer must stay the only owner of its nonces). Local profile only.
 */
import { maxUint256, type Address, type Hex, type PublicClient } from "viem";
import type { Logger } from "pino";
import { depositTokenAbi, engineAbi, marketAbi, oracleAbi } from "../../../abis/index.js";
import { AMOUNT6_TO_WAD } from "../../../core/units.js";
import { errorName, type Signer } from "../chain/clients.js";
import type { ChainMarket, MarketDirectory } from "../chain/markets.js";
import { desiredQuotes, planRequote, quoteClientKey, SLOTS, type Quote, type QuoteParams, type RestingOrder, type Slot } from "./quotes.js";

const ORDER_STATUS_ACTIVE = 1;
const ORDER_TYPE_LIMIT = 1;
const E18 = 10n ** 18n;

export type MakerOptions = {
  levels: number;
  spreadBps: bigint;
  levelStepBps: bigint;
  /** Whole base units per level. */
  levelQty: bigint;
  leverage: bigint;
  requoteBps: bigint;
  /** Whole USD the maker keeps deposited. */
  depositUsd: bigint;
};

export type VenueAddresses = { engine: Address; oracle: Address; depositToken: Address };

export class MarketMaker {
  private accountId = 0n;
  /** The chain head of the last round that sent nothing: until a new block, the next would find the same. */
  private quietAt: bigint | null = null;

  constructor(
    private readonly client: PublicClient,
    private readonly maker: Signer,
    private readonly deployer: Signer,
    private readonly venue: VenueAddresses,
    private readonly markets: MarketDirectory,
    private readonly opts: MakerOptions,
    private readonly log: Logger,
  ) {}

  get account(): bigint {
    return this.accountId;
  }

  /** Account, tokens, allowance, deposit: whatever is missing. Idempotent. */
  async setup(): Promise<bigint> {
    const { engine } = this.venue;
    const me = this.maker.address;
    let id = await this.client.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [me] });
    if (id === 0n) {
      await this.maker.write({ address: engine, abi: engineAbi, functionName: "createAccount", args: [me] });
      id = await this.client.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [me] });
      this.log.info({ accountId: id.toString(), address: me }, "market maker account created");
    }
    this.accountId = id;
    await this.topUp();
    return id;
  }

  /** Brings available margin back to the target (mints with the deployer's key when short). */
  async topUp(): Promise<void> {
    const { engine, depositToken } = this.venue;
    const me = this.maker.address;
    const target6 = this.opts.depositUsd * 1_000_000n;
    const acct = await this.client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [this.accountId] });
    const available6 = acct.availableWad / AMOUNT6_TO_WAD;
    if (available6 * 2n >= target6) return;
    const need6 = target6 - available6;
    const balance6 = await this.client.readContract({ address: depositToken, abi: depositTokenAbi, functionName: "balanceOf", args: [me] });
    if (balance6 < need6) {
      await this.deployer.write({ address: depositToken, abi: depositTokenAbi, functionName: "mint", args: [me, need6 - balance6] });
    }
    const allowance = await this.client.readContract({
      address: depositToken, abi: depositTokenAbi, functionName: "allowance", args: [me, engine],
    });
    if (allowance < need6) {
      await this.maker.write({ address: depositToken, abi: depositTokenAbi, functionName: "approve", args: [engine, maxUint256] });
    }
    await this.maker.write({ address: engine, abi: engineAbi, functionName: "deposit", args: [this.accountId, need6] });
    this.log.info({ deposited: need6.toString() }, "market maker deposit topped up");
  }

  /** One round over every market: keep, place, cancel (see `planRequote` for the order). Returns the number of transactions sent. */
  async round(): Promise<number> {
    if (this.accountId === 0n) await this.setup();
    // index, book and margin change only in a block: at the head of a round that changed nothing,
    // there is nothing to re-quote (about 25 calls a market saved every round on an idle chain)
    const head = await this.client.getBlockNumber({ cacheTime: 0 });
    if (head === this.quietAt) return 0;
    let sent = 0;
    let short = false;
    let unfinished = false;
    for (const m of await this.markets.list()) {
      try {
        const r = await this.quoteMarket(m);
        sent += r.sent;
        short ||= r.short;
        unfinished ||= r.skipped;
      } catch (e) {
        unfinished = true;
        this.log.warn({ market: m.symbol, err: errorName(e) }, "quoting failed");
      }
    }
    if (short) await this.topUp().catch((e) => this.log.warn({ err: errorName(e) }, "top-up failed"));
    this.quietAt = sent === 0 && !short && !unfinished ? head : null;
    return sent;
  }

  private quoteParams(m: ChainMarket): QuoteParams {
    const lev = BigInt(Math.min(Number(this.opts.leverage), m.maxLeverage));
    return {
      levels: this.opts.levels,
      spreadBps: this.opts.spreadBps,
      levelStepBps: this.opts.levelStepBps,
      levelQty: this.opts.levelQty * E18,
      leverage: lev,
      requoteBps: this.opts.requoteBps,
      tickX18: m.tickX18,
      lotQty: m.lotQty,
    };
  }

  /**
   * `short`: a place failed for want of margin (the round tops up at its end; the next one places
   * again); `skipped`: a level the book refused now (the next round tries again).
   */
  private async quoteMarket(m: ChainMarket): Promise<{ sent: number; short: boolean; skipped: boolean }> {
    const [index, updatedAt] = await this.client.readContract({
      address: this.venue.oracle, abi: oracleAbi, functionName: "getPrice", args: [m.marketId],
    });
    if (index === 0n || updatedAt === 0n) return { sent: 0, short: false, skipped: false };
    const p = this.quoteParams(m);
    const wanted = desiredQuotes(index, p);
    const resting = new Map<string, RestingOrder[]>();
    await Promise.all(
      wanted.map(async (q) => {
        const orders = await Promise.all(SLOTS.map((slot) => this.restingOrder(m, q, slot)));
        resting.set(`${q.side}:${q.level}`, orders.filter((r) => r !== undefined));
      }),
    );
    const plan = planRequote(wanted, (q) => resting.get(`${q.side}:${q.level}`) ?? [], p);
    let sent = 0;
    let short = false;
    let skipped = false;
    for (const step of plan.steps) {
      const q = step.quote;
      const clientKey = quoteClientKey(m.marketId, q.side, q.level, step.slot);
      if (step.kind === "cancel") {
        try {
          await this.maker.write({
            address: this.venue.engine, abi: engineAbi, functionName: "cancelOrder", args: [this.accountId, m.marketId, clientKey],
          });
          sent++;
        } catch (e) {
          // Filled in between: nothing to cancel.
          if (errorName(e) !== "OrderNotFound") throw e;
        }
        continue;
      }
      try {
        await this.maker.write({
          address: this.venue.engine, abi: engineAbi, functionName: "placeOrder",
          args: [{
            accountId: this.accountId, marketId: m.marketId, side: q.side, orderType: ORDER_TYPE_LIMIT,
            collateral6: q.collateral6, leverage: p.leverage, limitPriceX18: q.priceX18, clientKey,
          }],
        });
        sent++;
      } catch (e) {
        const name = errorName(e);
        // A level the book cannot take now (band, a crossing order not yet cancelled): the next
        // round tries again.
        if (name === "InvalidPrice" || name === "SelfTrade" || name === "ClientKeyInUse") {
          this.log.debug({ market: m.symbol, err: name, price: q.priceX18.toString() }, "quote skipped");
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
      this.log.debug({ market: m.symbol, index: index.toString(), kept: plan.keep.length, sent }, "re-quoted");
    }
    return { sent, short, skipped };
  }

  private async restingOrder(m: ChainMarket, q: Quote, slot: Slot): Promise<RestingOrder | undefined> {
    const key: Hex = quoteClientKey(m.marketId, q.side, q.level, slot);
    const orderId = await this.client.readContract({
      address: m.address, abi: marketAbi, functionName: "orderIdOf", args: [this.accountId, key],
    });
    if (orderId === 0n) return undefined;
    const o = await this.client.readContract({ address: m.address, abi: marketAbi, functionName: "getOrder", args: [orderId] });
    if (Number(o.status) !== ORDER_STATUS_ACTIVE) return undefined;
    return { slot, priceX18: o.priceX18, remainingQty: o.remainingQty };
  }
}
