/**
 * The relayer's engine: a request goes QUEUED → (checks, simulation) → SIGNED (nonce taken and
 * the signed transaction stored, one DB transaction) → SENT → CONFIRMED | REVERTED, or FAILED when
 * a check or the simulation says it cannot succeed (nothing sent). Writes on one account run one
 * at a time (a "lane"), so a deposit followed at once by an order is simulated after the deposit
 * is mined. The tracker loop finishes every row not in a final state, whichever process (or
 * crash) left it: receipts, re-sends of dropped transactions, fee bumps of stuck ones. It also
 * watches the chain: a mined write whose receipt leaves the canonical chain goes REORGED and its
 * same signed transaction is sent again (SENT, then mined again), and a nonce gap below our
 * transactions is filled with no-ops.
 */
import { EventEmitter } from "node:events";
import { keccak256, RawContractError, type Address, type Hex, type TransactionReceipt } from "viem";
import type { Logger } from "pino";
import { ApiError } from "../../core/errors.js";
import { fail, ok } from "../../core/envelope.js";
import { secondsToISO } from "../../core/units.js";
import { classifySendError, decodeRevert, revertToApiError } from "../../core/chain/revert.js";
import type { RelayerConfig, CrashStep } from "./config.js";
import { VENUE_ABI, type Chain } from "./chain.js";
import { gasLimitOf, OPS, SUCCESS_STATUS, type Kind } from "./ops.js";
import type { Store, RequestRow, SignedTx, AttemptRow, NewRequest } from "./db/store.js";
import { FINAL_STATUSES, IN_FLIGHT_STATUSES, type RequestStatus } from "./db/schema.js";
import { Batcher } from "./batcher.js";

type CallWithGas = { to: Address; data: Hex; gas: bigint };
type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
/** What a waiting HTTP request needs of a finished row. */
export type Outcome = Pick<RequestRow, "id" | "status" | "httpStatus" | "response" | "txHash">;

/** A lane waits at most this long for a write's transaction before the next write runs. */
const LANE_HOLD_MAX_MS = 60_000;

/** Gas of the no-op (a self-transfer of 0) that takes the nonce of an expired or cancelled write. */
const NOOP_GAS = 21_000n;

export const isFinal = (row: Pick<RequestRow, "status">) => (FINAL_STATUSES as string[]).includes(row.status);

/**
 * Failures kept under their Idempotency-Key (replayed on a retry): the request itself is wrong
 * and stays wrong. Any other failure before sending (an RPC blip, a missing allowance, a paused
 * market, out of funds) frees the key: a retry with it runs again.
 */
const VALIDATION_FAILURES = new Set<string>([
  "VALIDATION_ERROR", "INVALID_AMOUNT", "EXCEEDS_MAX_LEVERAGE", "UNAUTHORIZED", "INVALID_SIGNATURE", "ORDER_TOO_SMALL",
  "INVALID_PRICE", "MARKET_NOT_FOUND", "ACCOUNT_EXISTS", "ACCOUNT_NOT_FOUND",
  "DEADMAN_TOO_SOON", "BATCH_TOO_LARGE",
]);

export class Relayer {
  private lanes = new Map<string, Promise<void>>();
  private active = new Set<string>();
  private finals = new EventEmitter();
  private missingSince = new Map<string, number>();
  private lastDropCheck = new Map<string, number>();
  /** Last time each hash was handed to the node (a failing send is retried at most this often). */
  private lastSend = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private stopped = false;
  private tickCount = 0;
  /** postgres | pglite, for /health. */
  dbKind = "unknown";
  /** The signer's balance as last read (wei), when, and the circuit breaker: open while below MIN_SIGNER_BALANCE_WEI. */
  balance: bigint | null = null;
  private balanceAt = 0;
  private balanceRead: Promise<void> | null = null;
  fundsLow = false;
  /** Counters since start (for metrics). */
  readonly counters = { feeBumps: 0, feeCapReached: 0, noops: 0, expired: 0, cancelled: 0, refusedOutOfFunds: 0, reorged: 0, finalityViolations: 0, nonceGapFills: 0 };
  /** The head the reorg watch last checked, and the highest block number seen (was a reorged write final?). */
  private watchedHead: { number: bigint; hash: Hex } | null = null;
  private highestBlock = 0n;
  /** The signer's mined nonce as last read, and since when it has not moved (the degraded rule). */
  private minedNonce: bigint | null = null;
  /** The head whose mined nonce and mined rows the tracker last went through (`tick`). */
  private trackedHead: Hex | null = null;
  private minedNonceSince = Date.now();
  private capLogged = new Set<string>();
  private signer$ = new Batcher<{ id: string; call: CallWithGas }, { nonce: bigint; tx: SignedTx } | null>(async (items) => {
    const signed = await this.store.signBatch(this.signer, items, (call, nonce) => this.sign(call, call.gas, nonce));
    return items.map((i) => signed.get(i.id) ?? null);
  });
  private finished$ = new Batcher<{ from: "QUEUED" | "SIGNED"; outcome: Outcome; blockNumber?: bigint; blockHash?: string; releaseKey?: boolean }, boolean>(async (items) => {
    const done = new Set<string>();
    for (const from of ["QUEUED", "SIGNED"] as const) {
      const batch = items.filter((i) => i.from === from);
      const states: RequestStatus[] = from === "QUEUED" ? ["QUEUED"] : [...IN_FLIGHT_STATUSES];
      for (const id of await this.store.finishMany(states, batch.map((i) => ({ ...i.outcome, httpStatus: i.outcome.httpStatus!, blockNumber: i.blockNumber, blockHash: i.blockHash, releaseKey: i.releaseKey }))))
        done.add(id);
    }
    return items.map((i) => done.has(i.outcome.id));
  });
  /** Inserts of requests without children, group-committed. */
  readonly inserts$ = new Batcher<NewRequest, { row: RequestRow; created: boolean }>((reqs) => this.store.insertMany(reqs));
  private sent$ = new Batcher<{ id: string; hash: string }, void>(async (items) => {
    await this.store.markSentBatch(items);
    return items.map(() => undefined);
  });

  constructor(
    readonly cfg: RelayerConfig,
    readonly chain: Chain,
    readonly store: Store,
    readonly log: Logger,
  ) {
    this.finals.setMaxListeners(0);
  }

  get signer(): Address {
    return this.chain.account.address;
  }

  crashPoint(step: CrashStep) {
    if (this.cfg.RELAYER_CRASH_AT === step) {
      this.log.warn({ step }, "RELAYER_CRASH_AT: killing the process");
      process.kill(process.pid, "SIGKILL");
    }
  }

  /**
   * What an operator watches (GET /health, metrics): writes not final by state, the oldest one's
   * age, the signer's balance and next nonce, and counters since start (fee bumps, caps, no-ops).
   */
  async stats() {
    const [q, nextNonce] = await Promise.all([this.store.queueStats(), this.store.nextNonce(this.signer)]);
    const oldestPendingAgeMs = q.oldestPendingAt ? Math.max(0, Date.now() - q.oldestPendingAt.getTime()) : 0;
    const nonceStillMs = Date.now() - this.minedNonceSince;
    return {
      queue: q.byStatus,
      oldestPendingAgeMs,
      // degraded: the oldest write not final is older than STUCK_AFTER_MS and the signer's mined nonce has not moved as long
      stuck: oldestPendingAgeMs > this.cfg.STUCK_AFTER_MS && nonceStillMs > this.cfg.STUCK_AFTER_MS,
      minedNonce: this.minedNonce,
      minedNonceStillMs: nonceStillMs,
      balanceWei: this.balance,
      balanceReadAt: this.balanceAt ? new Date(this.balanceAt) : null,
      fundsLow: this.fundsLow,
      nextNonce,
      counters: { ...this.counters },
    };
  }

  /** Default lifetime of a write (seconds) when its request sets no validUntil. */
  validForSeconds(kind: Kind, params: unknown): number {
    return OPS[kind].urgent?.(params as never) ? this.cfg.VALID_FOR_MARKET_S : this.cfg.VALID_FOR_OTHER_S;
  }

  // ─── start / stop ────────────────────────────────────────────────────────────────────────

  /**
   * The reorg watch (mined writes whose receipts left the chain go REORGED), nonce
   * reconciliation (which may move the stored nonce down), recovery of every row not final,
   * then the tracker loop.
   */
  async start() {
    await this.chain.refreshHead();
    await this.watchReorgs(true);
    const pending = BigInt(await this.chain.client.getTransactionCount({ address: this.signer, blockTag: "pending" }));
    const { before, after } = await this.store.reconcileNonce(this.signer, pending);
    if (before !== null && before !== after) this.log.warn({ before: before.toString(), after: after.toString(), chainPending: pending.toString() }, "stored nonce reconciled with the chain");
    await this.refreshBalance();
    const queued = await this.store.queued(null);
    if (queued.length) this.log.info({ count: queued.length }, "recovering queued requests");
    for (const row of queued) this.submit(row);
    await this.tick();
    this.schedule();
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule() {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      await this.tick();
      this.schedule();
    }, this.cfg.TRACK_INTERVAL_MS);
  }

  // ─── the pipeline of one request ─────────────────────────────────────────────────────────

  /** Runs a QUEUED row in its lane (once per process). */
  submit(row: RequestRow) {
    if (this.active.has(row.id) || row.status !== "QUEUED") return;
    this.active.add(row.id);
    const prev = this.lanes.get(row.lane);
    // A free lane starts at once (no extra read); a busy one re-reads the row when its turn comes.
    const next = (prev ? prev.then(() => this.store.get(row.id)) : Promise.resolve(row))
      .then((r) => (r ? this.process(r) : undefined))
      .catch((e) => this.log.error({ err: e, requestId: row.id }, "pipeline failed"))
      .finally(() => this.active.delete(row.id));
    this.lanes.set(row.lane, next);
    void next.finally(() => {
      if (this.lanes.get(row.lane) === next) this.lanes.delete(row.lane);
    });
  }

  private async process(row: RequestRow) {
    const id = row.id;
    if (row.status !== "QUEUED") return;
    if (this.expired(row)) {
      const outcome = { id, status: "EXPIRED" as const, httpStatus: 409, response: fail("EXPIRED", `not sent: validUntil ${row.validUntil!.toISOString()} passed while it waited in its lane`), txHash: null };
      if (await this.finished$.push({ from: "QUEUED", outcome, releaseKey: true })) {
        this.counters.expired++;
        this.emitFinal(outcome);
      }
      return;
    }
    const op = OPS[row.kind as Kind];
    const params = row.params as never;
    let call: { to: Address; data: Hex };
    let gas: bigint;
    const t0 = performance.now();
    let t1 = t0;
    try {
      await op.precheck(this.chain, row.caller as Address, params);
      call = await op.call(this.chain, params);
      t1 = performance.now();
      gas = gasLimitOf(await this.simulate(call));
      if (op.gas) gas = await op.gas(this.chain, params, call, gas);
    } catch (e) {
      const err = toApiError(e);
      if (err.status >= 500) this.log.warn({ err: e, requestId: id }, "check failed");
      const outcome = { id, status: "FAILED" as const, httpStatus: err.status, response: fail(err.code, err.message), txHash: null };
      if (await this.finished$.push({ from: "QUEUED", outcome, releaseKey: !VALIDATION_FAILURES.has(err.code) })) this.emitFinal(outcome);
      return;
    }
    // No nonce while the signer is low on funds: the row waits (QUEUED) until it is funded or expires.
    while (this.fundsLow && !this.stopped && !this.expired(row)) await sleep(Math.min(this.cfg.BALANCE_CHECK_MS, 1_000));
    if (this.expired(row)) {
      const outcome = { id, status: "EXPIRED" as const, httpStatus: 409, response: fail("EXPIRED", `not sent: validUntil ${row.validUntil!.toISOString()} passed before it could be signed`), txHash: null };
      if (await this.finished$.push({ from: "QUEUED", outcome, releaseKey: true })) {
        this.counters.expired++;
        this.log.info({ requestId: id, kind: row.kind }, "expired before signing: nothing sent");
        this.emitFinal(outcome);
      }
      return;
    }
    const t2 = performance.now();
    const signed = await this.signer$.push({ id, call: { ...call, gas } });
    if (!signed) return; // another process took it
    const t3 = performance.now();
    this.log.info({ requestId: id, kind: row.kind, nonce: signed.nonce.toString(), hash: signed.tx.hash }, "signed");
    this.crashPoint("signed");
    await this.broadcast(id, signed.tx);
    const ms = (a: number, b: number) => Math.round(b - a);
    this.log.debug({ requestId: id, checkMs: ms(t0, t1), simulateMs: ms(t1, t2), signMs: ms(t2, t3), sendMs: ms(t3, performance.now()) }, "pipeline timings");
    // The lane is held until mined; a write sent back to the queue meanwhile (its nonce used by
    // someone else) runs again here, in its lane (submit() skips rows this process holds).
    const out = await this.waitFinal(id, LANE_HOLD_MAX_MS, true, true);
    if (out?.status === "QUEUED" && !this.stopped) {
      const again = await this.store.get(id);
      if (again?.status === "QUEUED") await this.process(again);
    }
  }

  /** eth_estimateGas from the relayer: the simulation. A revert becomes the spec's error. */
  private async simulate(call: { to: Address; data: Hex }): Promise<bigint> {
    try {
      return await this.chain.client.estimateGas({ account: this.signer, to: call.to, data: call.data });
    } catch (e) {
      const err = revertToApiError(e, VENUE_ABI) ?? new ApiError("UPSTREAM_ERROR", `simulation failed: ${shortMessage(e)}`);
      if (err.code !== "MARKET_CLOSED" && err.code !== "MARKET_REDUCE_ONLY") throw err;
      // name the reopening: the market's on-chain calendar at the chain's time
      const marketId = decodeRevert(e, VENUE_ABI)?.args[0] as Hex | undefined;
      const at = marketId ? await this.chain.reopensAt(marketId).catch(() => null) : null;
      throw at === null ? err : new ApiError(err.code, `${err.message}; it reopens for all orders at ${secondsToISO(at)}`);
    }
  }

  /** Fees of a new transaction: 2 × base fee + tip, within MAX_FEE_PER_GAS_WEI and MAX_PRIORITY_FEE_WEI. */
  private fees(): Fees {
    const base = this.chain.head?.baseFeePerGas ?? 1_000_000_000n;
    const maxFee = min(base * 2n + this.cfg.PRIORITY_FEE_WEI, this.cfg.MAX_FEE_PER_GAS_WEI);
    return { maxFeePerGas: maxFee, maxPriorityFeePerGas: min(this.cfg.PRIORITY_FEE_WEI, this.cfg.MAX_PRIORITY_FEE_WEI, maxFee) };
  }

  /**
   * Fees of a replacement: × FEE_BUMP_BPS / 10,000 (at least today's price), or null when that
   * would pass a cap (the node refuses a replacement below × 1.1, so a partial bump is useless).
   */
  private bumpedFees(prev: Fees): Fees | null {
    const mul = (v: bigint) => (v * BigInt(this.cfg.FEE_BUMP_BPS) + 9_999n) / 10_000n;
    const tip = mul(prev.maxPriorityFeePerGas);
    const maxFee = max(mul(prev.maxFeePerGas), this.fees().maxFeePerGas);
    if (tip > this.cfg.MAX_PRIORITY_FEE_WEI || maxFee > this.cfg.MAX_FEE_PER_GAS_WEI) return null;
    return { maxFeePerGas: maxFee, maxPriorityFeePerGas: tip };
  }

  private expired(row: Pick<RequestRow, "validUntil">): boolean {
    return !!row.validUntil && row.validUntil.getTime() <= Date.now();
  }

  // ─── the signer's funds ──────────────────────────────────────────────────────────────────

  /** Reads the signer's balance and sets the circuit breaker (one read at a time). */
  async refreshBalance(): Promise<void> {
    this.balanceRead ??= (async () => {
      try {
        this.balance = await this.chain.client.getBalance({ address: this.signer });
        this.balanceAt = Date.now();
        const low = this.balance < this.cfg.MIN_SIGNER_BALANCE_WEI;
        if (low !== this.fundsLow)
          this.log[low ? "error" : "info"]({ balance: this.balance.toString(), min: this.cfg.MIN_SIGNER_BALANCE_WEI.toString() }, low ? "signer low on funds: refusing writes" : "signer funded again: taking writes");
        this.fundsLow = low;
      } catch (e) {
        this.log.warn({ err: shortMessage(e) }, "could not read the signer's balance");
      } finally {
        this.balanceRead = null;
      }
    })();
    return this.balanceRead;
  }

  /** Before a write is queued: 503 RELAYER_OUT_OF_FUNDS while the breaker is open (nothing queued, no nonce). */
  async assertFunded() {
    if (Date.now() - this.balanceAt > this.cfg.BALANCE_CHECK_MS) await this.refreshBalance();
    if (this.fundsLow) {
      this.counters.refusedOutOfFunds++;
      throw new ApiError("RELAYER_OUT_OF_FUNDS", `the relayer's signer holds ${this.balance} wei, below its minimum of ${this.cfg.MIN_SIGNER_BALANCE_WEI}; retry later`);
    }
  }

  private async sign(
    call: { to: Address; data: Hex },
    gas: bigint,
    nonce: bigint,
    fees: Fees = this.fees(),
  ): Promise<SignedTx> {
    const raw = await this.chain.account.signTransaction({
      type: "eip1559",
      chainId: this.chain.chainId,
      nonce: Number(nonce),
      to: call.to,
      data: call.data,
      gas,
      value: 0n,
      ...fees,
    });
    return { raw, hash: keccak256(raw), ...fees };
  }

  /** Hands a signed transaction to the node. Errors that mean "the node has it / the nonce is used" are fine: the tracker reconciles. */
  private async broadcast(id: string, tx: Pick<SignedTx, "hash" | "raw">): Promise<boolean> {
    this.lastSend.set(tx.hash, Date.now());
    try {
      await this.chain.client.sendRawTransaction({ serializedTransaction: tx.raw });
    } catch (e) {
      const kind = classifySendError(e);
      if (kind !== "already_known" && kind !== "nonce_too_low") {
        this.log.warn({ requestId: id, hash: tx.hash, kind, err: shortMessage(e) }, "broadcast failed; the tracker retries");
        if (/insufficient funds/i.test(shortMessage(e))) void this.refreshBalance();
        return false;
      }
    }
    this.crashPoint("broadcast");
    await this.sent$.push({ id, hash: tx.hash });
    return true;
  }

  // ─── waiting for a final state ───────────────────────────────────────────────────────────

  emitFinal(o: Outcome) {
    this.finals.emit(o.id, o);
  }

  /**
   * The outcome once final, or the row as it is after `timeoutMs`. This process's finals arrive
   * by event (no query); rows another process finishes are polled (status only). `fresh`: the
   * caller knows the row is not final yet (skips the first read). `untilRequeued`: also returns
   * when the row is seen QUEUED again (sent back to the queue for a new nonce).
   */
  async waitFinal(id: string, timeoutMs: number, fresh = false, untilRequeued = false): Promise<Outcome | undefined> {
    const deadline = Date.now() + timeoutMs;
    let outcome: Outcome | undefined;
    let wake = () => {};
    const onFinal = (o: Outcome) => {
      outcome = o;
      wake();
    };
    this.finals.on(id, onFinal);
    try {
      let status: string | undefined = fresh ? "QUEUED" : await this.store.status(id);
      let read = !fresh;
      while (!outcome && status && !(FINAL_STATUSES as string[]).includes(status) && !(untilRequeued && read && status === "QUEUED") && Date.now() < deadline) {
        const wait = Math.min(this.active.has(id) ? 2_000 : 1_000, deadline - Date.now());
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, wait);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        if (!outcome) {
          status = await this.store.status(id);
          read = true;
        }
      }
    } finally {
      this.finals.off(id, onFinal);
    }
    return outcome ?? (await this.store.get(id));
  }

  // ─── the tracker ─────────────────────────────────────────────────────────────────────────

  async tick() {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const head = await this.chain.refreshHead();
      if (Date.now() - this.balanceAt > this.cfg.BALANCE_CHECK_MS) await this.refreshBalance();
      await this.watchReorgs(false);
      // Mined nonces when the head moved (they change with it, nowhere else); pending ones (bumps,
      // re-sends, nonce gaps) about twice a second: an idle tick costs one RPC call.
      const moved = head.hash !== this.trackedHead; // none tracked yet at start (minedNonce is set with it)
      const checkPending = this.tickCount % Math.max(1, Math.round(500 / this.cfg.TRACK_INTERVAL_MS)) === 0;
      if (moved || checkPending) {
        const latest = moved ? BigInt(await this.chain.client.getTransactionCount({ address: this.signer, blockTag: "latest" })) : this.minedNonce!;
        if (latest !== this.minedNonce) {
          this.minedNonce = latest;
          this.minedNonceSince = Date.now();
        }
        const inFlight = await this.store.inFlightNonces(this.signer);
        await this.fillNonceGap(latest, inFlight);
        const ids = inFlight.filter((r) => r.nonce < latest || checkPending).map((r) => r.id);
        const rows = await this.store.withAttempts(ids);
        await Promise.all(rows.map((row) => this.track(row, latest).catch((e) => this.log.warn({ err: shortMessage(e), requestId: row.id }, "track failed"))));
        // the head tracked: its mined rows were looked at (a failed tick tries the same head again)
        this.trackedHead = head.hash;
      }
      if (++this.tickCount % 25 === 0) {
        await this.adoptOrphans();
        await this.store.expireKeys(this.cfg.IDEMPOTENCY_TTL_MS);
      }
    } catch (e) {
      this.log.warn({ err: shortMessage(e) }, "tracker tick failed");
    } finally {
      this.ticking = false;
    }
  }

  /** Keeps this process's queued rows fresh, and runs QUEUED rows nobody touched for a while (their process died). */
  private async adoptOrphans() {
    await this.store.touch([...this.active]);
    const rows = (await this.store.queued(new Date(Date.now() - this.cfg.ORPHAN_AFTER_MS))).filter((r) => !this.active.has(r.id));
    await this.store.touch(rows.map((r) => r.id));
    for (const row of rows) this.submit(row);
  }

  private async track(row: RequestRow & { attempts: AttemptRow[] }, latestNonce: bigint) {
    const nonce = row.nonce!;
    const newest = row.attempts[0];
    if (!newest) return;
    if (nonce < latestNonce) {
      // The nonce is used on chain: by one of our attempts (find its receipt) or by someone else.
      for (const a of row.attempts) {
        const receipt = await this.chain.client.getTransactionReceipt({ hash: a.hash as Hex }).catch(() => null);
        if (receipt) {
          this.missingSince.delete(row.id);
          this.crashPoint("receipt");
          await this.record(row, receipt);
          return;
        }
      }
      const since = this.missingSince.get(row.id) ?? Date.now();
      this.missingSince.set(row.id, since);
      if (Date.now() - since > this.cfg.FOREIGN_NONCE_AFTER_MS) {
        this.log.warn({ requestId: row.id, nonce: nonce.toString() }, "nonce used by a transaction that is not ours: signing again");
        this.missingSince.delete(row.id);
        await this.store.requeue(row.id, nonce);
        const again = await this.store.get(row.id);
        if (again) this.submit(again);
      }
      return;
    }
    if (row.status === "REORGED") {
      // Its receipt left the chain: the SAME signed transaction again (same nonce, cannot run
      // twice), or, past its validUntil or cancelled, the no-op at that nonce instead.
      const mined = row.attempts.find((a) => a.hash === row.txHash) ?? newest;
      if ((row.cancelledAt || this.expired(row)) && !mined.noop) {
        await this.replaceWithNoop(row, mined);
        return;
      }
      const last = this.lastSend.get(mined.hash);
      if (last === undefined || Date.now() - last > this.cfg.REBROADCAST_AFTER_MS) {
        this.log.info({ requestId: row.id, nonce: nonce.toString(), hash: mined.hash }, "reorged: sending the same signed transaction again");
        await this.broadcast(row.id, { hash: mined.hash as Hex, raw: mined.raw as Hex });
      }
      return;
    }
    // Pending. Past its validUntil (or cancelled): its nonce goes to a no-op.
    if ((row.cancelledAt || this.expired(row)) && !newest.noop) {
      await this.replaceWithNoop(row, newest);
      return;
    }
    // Send what was never sent, bump what is stuck, re-send what the node dropped.
    if (row.status === "SIGNED" || !newest.sentAt) {
      const last = this.lastSend.get(newest.hash);
      if (last === undefined || Date.now() - last > this.cfg.REBROADCAST_AFTER_MS)
        await this.broadcast(row.id, { hash: newest.hash as Hex, raw: newest.raw as Hex });
      return;
    }
    const now = Date.now();
    if (now - newest.createdAt.getTime() > this.cfg.BUMP_AFTER_MS) {
      await this.bump(row, newest);
      return;
    }
    const checked = this.lastDropCheck.get(newest.hash) ?? newest.sentAt.getTime();
    if (now - checked > this.cfg.REBROADCAST_AFTER_MS) {
      this.lastDropCheck.set(newest.hash, now);
      const known = await this.chain.client.getTransaction({ hash: newest.hash as Hex }).catch(() => null);
      if (!known) {
        this.log.warn({ requestId: row.id, hash: newest.hash }, "transaction dropped by the node: sending it again");
        await this.broadcast(row.id, { hash: newest.hash as Hex, raw: newest.raw as Hex });
      }
    }
  }

  /** The call an attempt carries: the write's, or the no-op (a self-transfer of 0). */
  private callOf(row: RequestRow, noop: boolean): { call: { to: Address; data: Hex }; gas: bigint } {
    return noop ? { call: { to: this.signer, data: "0x" }, gas: NOOP_GAS } : { call: { to: row.toAddress as Address, data: row.data as Hex }, gas: row.gas! };
  }

  /** Replacement with the same nonce and bumped fees, unless that would pass a fee cap. */
  private async bump(row: RequestRow, newest: AttemptRow) {
    const fees = this.bumpedFees(newest);
    if (!fees) {
      if (!this.capLogged.has(newest.hash)) {
        this.capLogged.add(newest.hash);
        this.counters.feeCapReached++;
        this.log.warn({ requestId: row.id, nonce: row.nonce!.toString(), hash: newest.hash, maxFeePerGas: newest.maxFeePerGas.toString(), maxPriorityFeePerGas: newest.maxPriorityFeePerGas.toString() }, "fee cap reached: no further bump");
      }
      return;
    }
    const { call, gas } = this.callOf(row, newest.noop);
    const signed = await this.sign(call, gas, row.nonce!, fees);
    if (!(await this.store.addReplacement(row.id, newest.hash, signed, row.nonce!, newest.noop))) return;
    this.counters.feeBumps++;
    this.log.info({ requestId: row.id, nonce: row.nonce!.toString(), old: newest.hash, hash: signed.hash, maxFeePerGas: fees.maxFeePerGas.toString(), noop: newest.noop }, "fee bump");
    await this.broadcast(row.id, signed);
  }

  /**
   * An expired or cancelled write not mined yet: a self-transfer of 0 with the same nonce and
   * bumped fees replaces it (same fees if the node never accepted the original). Whichever of the
   * two is mined is reported. At the fee cap no replacement is possible: the write stays pending.
   */
  private async replaceWithNoop(row: RequestRow, newest: AttemptRow) {
    const fees = this.bumpedFees(newest) ?? (newest.sentAt ? null : { maxFeePerGas: newest.maxFeePerGas, maxPriorityFeePerGas: newest.maxPriorityFeePerGas });
    if (!fees) {
      if (!this.capLogged.has(`noop:${newest.hash}`)) {
        this.capLogged.add(`noop:${newest.hash}`);
        this.log.warn({ requestId: row.id, hash: newest.hash }, "expired, but a no-op would pass the fee cap: the write stays pending");
      }
      return;
    }
    const { call, gas } = this.callOf(row, true);
    const signed = await this.sign(call, gas, row.nonce!, fees);
    if (!(await this.store.addReplacement(row.id, newest.hash, signed, row.nonce!, true))) return;
    this.counters.noops++;
    this.log.info({ requestId: row.id, nonce: row.nonce!.toString(), old: newest.hash, hash: signed.hash, cancelled: !!row.cancelledAt }, "nonce replaced by a no-op");
    await this.broadcast(row.id, signed);
  }

  /** Blocks on top of `blockNumber` counting its own (≥ 1), and whether that makes it final (≥ CONFIRMATIONS). */
  confirmationsOf(blockNumber: bigint): { confirmations: number; final: boolean } {
    const head = this.chain.head?.number ?? blockNumber;
    const confirmations = head >= blockNumber ? Number(head - blockNumber) + 1 : 1;
    return { confirmations, final: confirmations >= this.cfg.CONFIRMATIONS };
  }

  // ─── the reorg watch and nonce gaps ──────────────────────────────────────────────────────

  /**
   * Checks that our mined writes of the last REORG_WATCH_BLOCKS blocks (and any above the head)
   * are still on the canonical chain: each new head, one read of the block last checked (still
   * there with the same hash: nothing below changed); otherwise, or at start, every watched
   * write's block hash, then its receipt. A write whose receipt is gone (or moved to another
   * block) goes REORGED; the tracker sends it again. One deeper than CONFIRMATIONS is counted
   * as a finality violation.
   */
  async watchReorgs(force: boolean) {
    const head = this.chain.head;
    if (!head) return;
    const last = this.watchedHead;
    if (!force && last) {
      if (head.hash === last.hash) return;
      if (head.number > last.number) {
        const b = await this.chain.client.getBlock({ blockNumber: last.number }).catch(() => null);
        if (b && b.hash === last.hash) {
          this.watchedHead = { number: head.number, hash: head.hash };
          if (head.number > this.highestBlock) this.highestBlock = head.number;
          return;
        }
      }
    }
    const from = head.number > BigInt(this.cfg.REORG_WATCH_BLOCKS) ? head.number - BigInt(this.cfg.REORG_WATCH_BLOCKS) : 0n;
    const rows = await this.store.minedSince(this.signer, from);
    for (const r of rows) if (r.blockNumber! > this.highestBlock) this.highestBlock = r.blockNumber!;
    const canonical = new Map<bigint, Hex | null>();
    const hashAt = async (n: bigint) => {
      if (!canonical.has(n)) canonical.set(n, n > head.number ? null : ((await this.chain.client.getBlock({ blockNumber: n }).catch(() => null))?.hash ?? null));
      return canonical.get(n)!;
    };
    for (const r of rows) {
      const at = await hashAt(r.blockNumber!);
      if (at && r.blockHash && at.toLowerCase() === r.blockHash.toLowerCase()) continue;
      const receipt = r.txHash ? await this.chain.client.getTransactionReceipt({ hash: r.txHash as Hex }).catch(() => null) : null;
      // rows recorded before block hashes were kept: a receipt in the block at that height is enough
      if (receipt && receipt.blockNumber === r.blockNumber && (!r.blockHash || receipt.blockHash.toLowerCase() === r.blockHash.toLowerCase())) continue;
      const wasFinal = this.highestBlock - r.blockNumber! + 1n >= BigInt(this.cfg.CONFIRMATIONS);
      const changed = await this.store.markReorged(r.id, r.status);
      if (!changed) continue;
      this.counters.reorged++;
      if (wasFinal) this.counters.finalityViolations++;
      this.log[wasFinal ? "error" : "warn"](
        { requestId: r.id, hash: r.txHash, block: Number(r.blockNumber), movedTo: receipt ? Number(receipt.blockNumber) : null, wasFinal, confirmations: this.cfg.CONFIRMATIONS },
        wasFinal ? "finality violation: a final write left the canonical chain" : "reorged: the write's receipt left the canonical chain",
      );
    }
    this.watchedHead = { number: head.number, hash: head.hash };
    if (head.number > this.highestBlock) this.highestBlock = head.number;
  }

  /**
   * A nonce gap: the chain's mined nonce below our lowest transaction not mined, with nothing of
   * ours at the nonces between (e.g. the chain rewound past writes the watch no longer holds):
   * each is filled with a no-op (a self-transfer of 0), else our transactions wait forever in
   * the node's future queue. Not stored: a no-op lost is signed again (the same bytes) next time.
   */
  private async fillNonceGap(latest: bigint, inFlight: Array<{ nonce: bigint }>) {
    if (!inFlight.length) return;
    const lowest = inFlight.reduce((m, r) => (r.nonce < m ? r.nonce : m), inFlight[0]!.nonce);
    for (let n = latest; n < lowest; n++) {
      const key = `gap:${n}`;
      const last = this.lastSend.get(key);
      if (last !== undefined && Date.now() - last < this.cfg.REBROADCAST_AFTER_MS) continue;
      this.lastSend.set(key, Date.now());
      const { call, gas } = { call: { to: this.signer, data: "0x" as Hex }, gas: NOOP_GAS };
      const tx = await this.sign(call, gas, n);
      try {
        await this.chain.client.sendRawTransaction({ serializedTransaction: tx.raw });
        this.counters.nonceGapFills++;
        this.log.warn({ nonce: n.toString(), lowestInFlight: lowest.toString(), hash: tx.hash }, "nonce gap: filled with a no-op");
      } catch (e) {
        this.log.warn({ nonce: n.toString(), err: shortMessage(e) }, "nonce gap: the no-op was not accepted");
      }
    }
  }

  /** The receipt → the response: data from the logs, or the revert mapped to the spec's code. */
  private async record(row: RequestRow & { attempts: AttemptRow[] }, receipt: TransactionReceipt) {
    const kind = row.kind as Kind;
    const common = {
      requestId: row.id,
      transactionHash: receipt.transactionHash,
      blockNumber: Number(receipt.blockNumber),
      ...this.confirmationsOf(receipt.blockNumber),
    };
    let outcome: Outcome;
    const mined = row.attempts.find((a) => a.hash.toLowerCase() === receipt.transactionHash.toLowerCase());
    if (mined?.noop) {
      const code = row.cancelledAt ? "CANCELLED" : "EXPIRED";
      const why = row.cancelledAt ? "cancelled by its caller" : `validUntil ${row.validUntil?.toISOString()} passed`;
      const response = fail(code, `${why}: nonce ${row.nonce} went to the no-op ${receipt.transactionHash}; the write was not executed`);
      outcome = { id: row.id, status: code, httpStatus: 409, response, txHash: receipt.transactionHash };
      this.counters[code === "CANCELLED" ? "cancelled" : "expired"]++;
    } else if (receipt.status === "success") {
      if (kind === "approveOperator") this.chain.forgetApproval((row.params as { owner: Address }).owner);
      let data: Record<string, unknown> = {};
      try {
        data = await OPS[kind].result(this.chain, row.params as never, receipt.logs, receipt);
      } catch (e) {
        this.log.error({ err: shortMessage(e), requestId: row.id }, "could not read the result from the receipt");
      }
      const response = ok({ ...data, ...common, transactionStatus: "CONFIRMED" });
      outcome = { id: row.id, status: "CONFIRMED", httpStatus: SUCCESS_STATUS[kind], response, txHash: receipt.transactionHash };
    } else {
      const err = await this.revertReason(row, receipt);
      const response = fail(err.code, `${err.message} (transaction ${receipt.transactionHash} reverted)`);
      outcome = { id: row.id, status: "REVERTED", httpStatus: err.status, response, txHash: receipt.transactionHash };
    }
    const done = await this.finished$.push({ from: "SIGNED", outcome, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash });
    for (const a of row.attempts) {
      this.lastSend.delete(a.hash);
      this.lastDropCheck.delete(a.hash);
    }
    if (done) this.log.info({ requestId: row.id, kind, status: receipt.status, hash: receipt.transactionHash, block: Number(receipt.blockNumber) }, "mined");
    // Also when a replica recorded it first: the outcome comes from the same receipt.
    this.emitFinal(outcome);
  }

  /**
   * The custom error of a mined, reverted transaction: its revert data from the node's call
   * tracer (exact: the state inside its block), else a replay on the state before its block.
   */
  private async revertReason(row: RequestRow, receipt: TransactionReceipt): Promise<ApiError> {
    try {
      const trace = (await this.chain.client.request({
        method: "debug_traceTransaction" as never,
        params: [receipt.transactionHash, { tracer: "callTracer" }] as never,
      })) as { output?: Hex } | null;
      if (trace?.output && trace.output !== "0x") {
        const err = revertToApiError(new RawContractError({ data: trace.output }), VENUE_ABI);
        if (err && err.code !== "TRANSACTION_REVERTED") return err;
      }
    } catch {
      // node without debug_traceTransaction: fall back to the replay
    }
    try {
      await this.chain.client.call({
        account: this.signer, to: row.toAddress as Address, data: row.data as Hex, gas: row.gas ?? undefined,
        blockNumber: receipt.blockNumber - 1n,
      });
    } catch (e) {
      const err = revertToApiError(e, VENUE_ABI);
      if (err) return err;
    }
    return new ApiError("TRANSACTION_REVERTED", "the transaction reverted on chain");
  }
}

export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  const reverted = revertToApiError(e, VENUE_ABI);
  if (reverted) return reverted;
  return new ApiError("UPSTREAM_ERROR", `chain request failed: ${shortMessage(e)}`);
}

export function shortMessage(e: unknown): string {
  if (e && typeof e === "object" && "shortMessage" in e && typeof (e as { shortMessage: unknown }).shortMessage === "string")
    return (e as { shortMessage: string }).shortMessage;
  return e instanceof Error ? e.message : String(e);
}

const min = (...v: bigint[]) => v.reduce((a, b) => (b < a ? b : a));
const max = (...v: bigint[]) => v.reduce((a, b) => (b > a ? b : a));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
