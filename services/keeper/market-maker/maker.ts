/**
 * The local demo market maker: its own account (created, funded and approved by itself at start;
 * the deployer mints its deposit tokens), a few POST_ONLY LIMIT levels on both sides of every book
 * around the index, re-quoted when the index moves: one non-atomic Engine.batch per market (its
 * cancels and places in the plan's order, and the dead-man refresh). With `deadmanSeconds`, the
 * account's dead-man deadline (Engine.setDeadman, the chain's time + the period) moves with every
 * batch and, on a quiet round, alone when less than half the period is left: when the maker stops,
 * the keeper's dead-man executor cancels its quotes from the deadline. Local profile only.
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
import { maxUint256, parseEventLogs, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import type { Logger } from "pino";
import { depositTokenAbi, engineAbi, marketAbi } from "../../../abis/index.js";
import { counter } from "../../../core/metrics.js";
import { MIN_DEADMAN_DELAY_S } from "../../../core/schemas/writes.js";
import { batchOutcome } from "../../../core/chain/batch-outcome.js";
import {
  AMOUNT6_TO_WAD, big, formatX18, meta, VenueApiError, VenueError, VenueInputError, VenueNetworkError,
  type Market, type Order, type VenueClient,
} from "../../../packages/client/src/index.js";
import { errorName, type Signer } from "../chain/clients.js";
import { batchGas, cancelCall, deadmanCall, itemError, placeCall, quoteOrder, quoteParams, revertArgs, type MakerOptions } from "./orders.js";
import {
  batchDeadline, chunkSteps, classifyItem, desiredQuotes, planRequote, quietDeadline, quoteClientKey, SLOTS,
  type BatchItemKind, type RestingOrder,
} from "./quotes.js";

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

  private get deadmanSeconds(): number {
    return this.opts.deadmanSeconds ?? 0;
  }

  /** The chain's time (the latest block's timestamp) and the account's dead-man deadline. */
  private async deadmanState(): Promise<{ now: bigint; current: bigint }> {
    const [block, current] = await Promise.all([
      this.d.chain.getBlock({ blockTag: "latest" }),
      this.d.chain.readContract({ address: this.d.addresses.engine, abi: engineAbi, functionName: "deadmanOf", args: [this.accountId] }),
    ]);
    return { now: block.timestamp, current };
  }

  private async quoteAll(): Promise<number> {
    if (!this.ready) await this.setup();
    const list = await this.api.markets();
    const dm = await this.deadmanState();
    // index, book and margin change only in a block: at the indexed block of a round that changed
    // nothing, there is nothing to re-quote
    const at = meta(list)?.indexedBlock ?? null;
    if (at !== null && at === this.quietAt) {
      await this.keepAlive(dm);
      return 0;
    }
    const only = this.opts.marketIds && new Set(this.opts.marketIds.map((id) => id.toLowerCase()));
    const markets = list.markets.filter((m) => !only || only.has(m.marketId.toLowerCase()));
    this.quoted = markets.map((m) => m.marketId as Hex);
    const mine = await this.openOrders();
    let sent = 0;
    let short = false;
    let unfinished = false;
    for (const m of markets) {
      try {
        const r = await this.quoteMarket(m, mine, dm);
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
    if (sent === 0) await this.keepAlive(dm);
    this.quietAt = sent === 0 && !short && !unfinished ? at : null;
    return sent;
  }

  /**
   * A round that sent no batch: the dead-man deadline alone, when less than half the period is
   * left (or none is armed; with the switch off, an armed one cleared). Failures are logged, the
   * next round tries again.
   */
  private async keepAlive(dm: { now: bigint; current: bigint }): Promise<void> {
    const deadline = quietDeadline(dm.now, dm.current, this.deadmanSeconds);
    if (deadline === null) return;
    const set = (d: bigint) => this.d.maker.write({ address: this.d.addresses.engine, abi: engineAbi, functionName: "setDeadman", args: [this.accountId, d] });
    try {
      let set_ = deadline;
      let r;
      try {
        r = await set(set_);
      } catch (e) {
        // the next block is later than the latest one's time + 5 s (an idle chain): from its time
        const min = revertArgs(e)[1];
        if (errorName(e) !== "DeadmanTooSoon" || typeof min !== "bigint" || this.deadmanSeconds <= 0) throw e;
        set_ = min - MIN_DEADMAN_DELAY + BigInt(this.deadmanSeconds);
        r = await set(set_);
      }
      this.mined(r);
      dm.current = set_;
      deadmanRefreshes().inc({ via: "alone" });
      this.log.debug({ deadline: set_.toString(), chainTime: dm.now.toString() }, set_ === 0n ? "dead-man switch cleared" : "dead-man deadline refreshed");
    } catch (e) {
      if (unavailable(e)) throw e;
      this.log.warn({ err: errorName(e) }, "dead-man refresh failed");
    }
  }

  /** The maker's active orders, by client key (lower case), as the integration API has them. */
  private async openOrders(): Promise<Map<string, Order>> {
    const out = new Map<string, Order>();
    for await (const o of this.api.orders(this.accountId, { status: "active", limit: 1_000 })) out.set(o.clientKey.toLowerCase(), o);
    return out;
  }

  /**
   * A market's re-quote as one Engine.batch (non-atomic; more only past MAX_BATCH_ITEMS items): the
   * plan's steps in order, cancels by client key and POST_ONLY places, and the dead-man refresh.
   * `short`: a place failed for want of margin (the round tops up at its end; the next one places
   * again); `skipped`: a level the book (or the builder) refused now (the next round tries again).
   */
  private async quoteMarket(m: Market, mine: Map<string, Order>, dm: { now: bigint; current: bigint }): Promise<{ sent: number; short: boolean; skipped: boolean }> {
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
    let skipped = false;
    const items: Item[] = [];
    for (const step of plan.steps) {
      const q = step.quote;
      const clientKey = quoteClientKey(marketId, q.side, q.level, step.slot);
      if (step.kind === "cancel") {
        items.push({ kind: "cancel", data: cancelCall(this.accountId, marketId, clientKey), clientKey, priceX18: step.priceX18 });
        continue;
      }
      try {
        items.push({
          kind: "place", data: placeCall(quoteOrder(this.accountId, m, q, p.leverage, clientKey)), clientKey, priceX18: q.priceX18,
          crossing: placeCall(quoteOrder(this.accountId, m, q, p.leverage, clientKey, "GTC")),
        });
      } catch (e) {
        // refused by the client's builder before sending (a bad quote never reaches the chain)
        if (!(e instanceof VenueInputError)) throw e;
        this.log.warn({ market: m.symbol, code: e.code, err: e.message, price: formatX18(q.priceX18) }, "quote refused by the builder");
        skipped = true;
      }
    }
    if (items.length === 0) return { ...none, skipped };
    let sent = 0;
    let short = false;
    let done = 0;
    const withDeadman = batchDeadline(dm.now, dm.current, this.deadmanSeconds) !== null;
    for (const chunk of chunkSteps(items, withDeadman)) {
      const r = await this.sendBatch(m, chunk, dm);
      sent += r.sent ? 1 : 0;
      short ||= r.short;
      skipped ||= r.skipped;
      done += r.done;
    }
    if (sent > 0) {
      this.log.debug({ market: m.symbol, index: formatX18(index), kept: plan.keep.length, items: items.length, done, batches: sent }, "re-quoted");
    }
    return { sent, short, skipped };
  }

  /**
   * One non-atomic Engine.batch of `items` (and the dead-man refresh): simulated first with the gas
   * it is sent with (each item's result, decoded), sent only when an item would succeed, with a
   * fixed per-item gas budget (a non-atomic batch's estimate may starve an item); the mined receipt
   * is checked against the simulation (an item that succeeded there and left no event here is
   * logged loudly: out of gas, or a race with another transaction).
   */
  private async sendBatch(m: Market, chunk: Item[], dm: { now: bigint; current: bigint }): Promise<{ sent: boolean; short: boolean; skipped: boolean; done: number }> {
    const { engine } = this.d.addresses;
    const items = [...chunk];
    let deadline = batchDeadline(dm.now, dm.current, this.deadmanSeconds);
    if (deadline !== null) items.push({ kind: "deadman", data: deadmanCall(this.accountId, deadline), clientKey: null, priceX18: 0n });
    const gas = batchGas(items.map((i) => i.kind));
    const simulate = async () =>
      (await this.d.chain.simulateContract({ address: engine, abi: engineAbi, functionName: "batch", args: [items.map((i) => i.data), false], account: this.d.maker.address, gas })).result;
    let [ok, results] = await simulate();
    const last = items.length - 1;
    if (deadline !== null && !ok[last]) {
      // DeadmanTooSoon: the next block is later than the latest one's time + 5 s (an idle chain)
      const e = itemError(results[last]!);
      if (e.name === "DeadmanTooSoon" && typeof e.args[1] === "bigint" && this.deadmanSeconds > 0) {
        deadline = e.args[1] - MIN_DEADMAN_DELAY + BigInt(this.deadmanSeconds);
        items[last] = { ...items[last]!, data: deadmanCall(this.accountId, deadline) };
        [ok, results] = await simulate();
      }
    }
    // a level someone else's stale order crosses (beyond the index): quoted as a plain limit, which
    // takes that order first (the maker keeps the local book uncrossed); post-only everywhere else
    let crossed = false;
    items.forEach((it, i) => {
      if (it.kind === "place" && it.crossing && !ok[i] && itemError(results[i]!).name === "PostOnlyWouldCross") {
        items[i] = { ...it, data: it.crossing, crossing: undefined };
        crossed = true;
      }
    });
    if (crossed) [ok, results] = await simulate();
    const outcomes = items.map((it, i) => {
      const err = ok[i] ? { name: "", args: [] } : itemError(results[i]!);
      return { i, it, err, outcome: classifyItem(it.kind, ok[i]!, err.name) };
    });
    let short = false;
    let skipped = false;
    for (const { it, err, outcome } of outcomes) {
      if (outcome === "ok") continue;
      itemsFailed().inc({ kind: it.kind, reason: outcome === "empty" ? "empty" : KNOWN_ERRORS.has(err.name) ? err.name : "other" });
      const at = { market: m.symbol, kind: it.kind, price: it.priceX18 ? formatX18(it.priceX18) : undefined, err: err.name || undefined };
      if (outcome === "short") short = true;
      else if (outcome === "skipped") {
        skipped = true;
        this.log.debug(at, "quote skipped");
      } else if (outcome === "empty") {
        this.log.error({ ...at, gas: gas.toString() }, "BUG: a batch item failed with empty revert data (out of gas?)");
      } else if (outcome === "error") {
        skipped = true;
        this.log.warn(at, "batch item failed");
      }
    }
    const good = outcomes.filter((o) => o.outcome === "ok");
    if (!good.some((o) => o.it.kind !== "deadman")) {
      // nothing of the re-quote would take effect: no transaction (the round's keep-alive refreshes the dead-man)
      return { sent: false, short, skipped, done: 0 };
    }
    let receipt: TransactionReceipt;
    try {
      receipt = this.mined(await this.d.maker.write({ address: engine, abi: engineAbi, functionName: "batch", args: [items.map((i) => i.data), false], gas }));
    } catch (e) {
      batches().inc({ result: "failed" });
      throw e;
    }
    batches().inc({ result: "ok" });
    // the mined transaction against the simulation: each place's OrderPlaced, each cancel's OrderCancelled, the DeadmanSet
    const placed = new Set(parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrderPlaced" })
      .filter((e) => e.args.accountId === this.accountId).map((e) => e.args.clientKey.toLowerCase()));
    const closed = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrderCancelled" })
      .filter((e) => e.args.accountId === this.accountId).length;
    const deadmanSet = parseEventLogs({ abi: engineAbi, logs: receipt.logs, eventName: "DeadmanSet" }).some((e) => e.args.accountId === this.accountId);
    const cancels = good.filter((o) => o.it.kind === "cancel");
    const missing = [
      ...good.filter((o) => o.it.kind === "place" && !placed.has(o.it.clientKey!.toLowerCase())),
      ...(cancels.length > closed ? cancels : []),
      ...good.filter((o) => o.it.kind === "deadman" && !deadmanSet),
    ];
    // what those items did in the mined transaction (the node's tracer): one that failed there for a
    // reason the simulation could not see (another transaction came first: a crossing order, a fill)
    // is that reason; one that succeeded there yet left no event is lost (a cancel that succeeded
    // left its OrderCancelled: another one is the missing); empty revert data is out of gas. Without
    // the tracer every missing one counts as lost.
    const mined = missing.length ? await batchOutcome(this.d.chain, receipt.transactionHash) : null;
    const lost: string[] = [];
    if (!mined) {
      for (const o of missing) if (o.it.kind !== "cancel") lost.push(o.it.kind);
      for (let k = closed; k < cancels.length; k++) lost.push("cancel");
    }
    for (const o of mined ? missing : []) {
      const r = mined![o.i];
      if (!r || r.ok) {
        if (o.it.kind !== "cancel") lost.push(o.it.kind);
        continue;
      }
      const name = itemError(r.data).name;
      const outcome = classifyItem(o.it.kind, false, name);
      itemsFailed().inc({ kind: o.it.kind, reason: outcome === "empty" ? "empty" : KNOWN_ERRORS.has(name) ? name : "other" });
      if (outcome === "empty") this.log.error({ market: m.symbol, kind: o.it.kind, gas: gas.toString() }, "BUG: a batch item ran out of gas in the mined transaction");
      else this.log.debug({ market: m.symbol, kind: o.it.kind, err: name }, "a batch item failed at mining (another transaction came first)");
      skipped = true;
    }
    if (lost.length) {
      for (const kind of lost) itemsFailed().inc({ kind, reason: "lost" });
      this.log.error({ market: m.symbol, lost, gas: gas.toString(), gasUsed: receipt.gasUsed.toString(), hash: receipt.transactionHash },
        "batch items that succeeded in the simulation left no trace in the mined transaction (out of gas, or a race)");
      skipped = true;
    }
    if (deadline !== null && deadmanSet) {
      dm.current = deadline;
      deadmanRefreshes().inc({ via: "batch" });
    }
    return { sent: true, short, skipped, done: good.length };
  }
}

/** One item of a market's batch (`clientKey`, `priceX18`: of the quote it places or cancels). */
/** `crossing`: a place's calldata as a plain GTC limit, sent instead when the book crosses its post-only price. */
type Item = { kind: BatchItemKind; data: Hex; clientKey: Hex | null; priceX18: bigint; crossing?: Hex };

/** Engine.MIN_DEADMAN_DELAY (seconds) */
const MIN_DEADMAN_DELAY = BigInt(MIN_DEADMAN_DELAY_S);
/** Item errors counted by name (anything else: "other"; empty revert data: "empty"; simulated ok but not mined: "lost"). */
const KNOWN_ERRORS = new Set(["OrderNotFound", "PostOnlyWouldCross", "InvalidPrice", "SelfTrade", "ClientKeyInUse", "InsufficientMargin", "DeadmanTooSoon"]);

const batches = () =>
  counter({ name: "venue_keeper_maker_batches_total", help: "Re-quote batches (Engine.batch) the market maker sent, by result (ok, failed)", labelNames: ["result"] });
const itemsFailed = () =>
  counter({
    name: "venue_keeper_maker_batch_items_failed_total",
    help: "Items of the market maker's batches that failed, by kind (place, cancel, deadman) and reason (the error's name, other, empty: no revert data, lost: simulated ok, not in the mined transaction)",
    labelNames: ["kind", "reason"],
  });
const deadmanRefreshes = () =>
  counter({ name: "venue_keeper_maker_deadman_refreshes_total", help: "Dead-man deadlines the market maker set, by how (batch: with a re-quote, alone: a quiet round's)", labelNames: ["via"] });
