/**
 * The hot answers: each read route's answer (status 200, the exact body the integration API
 * gives) held in memory, pre-serialized, for the indexed state it was built at. On every new
 * indexed block (the block feed's push) the answers read within `hotMs` are rebuilt at once, by
 * this store, before any client asks: the most read, at most `eagerMax` of them and `eagerBytes`
 * of answers; the others are built when next read, and answers nobody read within `hotMs` are
 * dropped. So a block costs a bounded amount of builds however many distinct URLs clients read
 * (every book depth, every page size of an account's orders): reading many keys once cannot
 * multiply into a rebuild of each at every block. The switch to a block waits only for its eager
 * rebuilds, which go before any build of a read waiting for its turn, never for builds of keys
 * read meanwhile (a steady stream of new keys cannot hold every answer back). A build is asked
 * for the pushed block (`minBlock`: on Postgres one statement of tables.ts, on PGlite the block's
 * builds in one request to Ponder's process, batch.ts), so it cannot describe an older state
 * than the push.
 *
 * While the rebuilds run, the previous block's answers are still served (each is that block's
 * exact answer, `X-Indexed-Block` says which) and all routes switch to the new block together
 * once every eager rebuild has landed, so the first read after a block costs what every other read
 * costs: only if the new state follows the old one forward (a higher block, no revert seen:
 * `advancedFrom`), for at most `carryMs`, and never to a `?minBlock=` above its block. After a
 * revert (a reorg) nothing is carried over: a request waits for its answer's rebuild and never
 * gets the orphaned branch's answer.
 */
import { advancedFrom, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";

import type { Built } from "../../core/reads/plans.js";
export type { Built };
/** `gen`: the feed generation the build started at (a build of gen g describes state g or newer). */
export type Answer = Built & { gen: number };

/**
 * `prev`: the answer `answer` replaced, kept while it may still be carried over. `hits`: reads
 * since the last push, plus half of the count before it (the eager rebuilds' rank).
 */
type Slot = { path: string; answer?: Answer; prev?: Answer; building?: Promise<Answer>; dirty: boolean; readAt: number; hits: number };

/** The benchmark has 6–11 hot answers per block; a venue with many markets and active accounts a few hundred. */
export const DEFAULT_EAGER_MAX = 256;
export const DEFAULT_EAGER_BYTES = 256 * 1024;

export type AnswerStoreOptions = {
  hotMs: number;
  maxAnswers: number;
  /** Most answers rebuilt at a push, before any client asks (the most read); the others are built when next read. */
  eagerMax?: number;
  /**
   * Most bytes of answers (their last bodies' length: the rows read and formatted) rebuilt at a
   * push: a block's eager work is bounded by cost, not only by count, so a few huge answers (a
   * 1,000-order page) cannot hold the switch to a block back.
   */
  eagerBytes?: number;
  concurrency: number;
  /** How long after a push the previous block's answer may still be served while its rebuild runs. */
  carryMs?: number;
  /** Told when a pushed block's rebuilds have all landed: how long after the push, and each rebuild's time (the service logs it at debug). */
  onSettle?: (o: { block: bigint; ms: number; buildsMs: number[] }) => void;
};

export class AnswerStore {
  private readonly slots = new Map<string, Slot>();
  /** Incremented on every pushed state. */
  gen = 0;
  private state: IndexedState;
  /**
   * The generation whose answers are all built (every rebuild the pushes asked for has landed),
   * and its block. Until the newest generation settles, the settled one's answers are served
   * (carried over) if every push since followed forward (`carryOver`), for `carryMs` from the
   * first of them: all routes switch to a block together, so a client that saw block N in one
   * answer never gets an older block in the next.
   */
  private settledGen = 0;
  settledBlock = 0n;
  private carryOver = false;
  private pushedAt = 0;
  private readonly carryMs: number;
  private readonly eagerMax: number;
  private readonly eagerBytes: number;
  /** The newest push's eager rebuilds not landed yet: the switch to its block waits for these only. */
  private readonly awaited = new Set<Slot>();
  /** When the newest push arrived, and how long each of its rebuilds took (`onSettle`). */
  private pushedAtPerf = 0;
  private buildsMs: number[] = [];
  private settleWaiters: (() => void)[] = [];
  private running = 0;
  /** Builds waiting for a turn: a push's eager rebuilds go before builds of reads (`urgent`). */
  private readonly queue: (() => void)[] = [];
  private readonly urgentQueue: (() => void)[] = [];

  constructor(
    private readonly feed: BlockFeed,
    private readonly build: (path: string, minBlock: bigint) => Promise<Built>,
    private readonly o: AnswerStoreOptions,
  ) {
    this.state = feed.current();
    this.settledBlock = this.state.number;
    this.carryMs = o.carryMs ?? 2_000;
    this.eagerMax = o.eagerMax ?? DEFAULT_EAGER_MAX;
    this.eagerBytes = o.eagerBytes ?? DEFAULT_EAGER_BYTES;
    feed.subscribe((s) => this.onBlock(s));
  }

  get size() {
    return this.slots.size;
  }

  /**
   * The answer of `key`, if held: the hot path, synchronous. The current generation's once it has
   * settled; before, the settled generation's (see `settledGen`). With `min`, only an answer of
   * block `min` or later.
   */
  peek(key: string, min?: bigint): Answer | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    let a: Answer | undefined;
    if (this.settledGen === this.gen) a = slot.answer?.gen === this.gen ? slot.answer : undefined;
    else if (this.carryOver && Date.now() - this.pushedAt < this.carryMs) {
      a = slot.answer?.gen === this.settledGen ? slot.answer : slot.prev?.gen === this.settledGen ? slot.prev : undefined;
    }
    if (!a) return undefined;
    if (min !== undefined && (a.block === null || BigInt(a.block) < min)) return undefined;
    slot.readAt = Date.now();
    slot.hits++;
    return a;
  }

  /** Resolves once every rebuild the pushes asked for has landed (the newest generation is served), or after `timeoutMs`. */
  whenSettled(timeoutMs: number): Promise<void> {
    if (this.settledGen === this.gen) return Promise.resolve();
    return new Promise((r) => {
      const t = setTimeout(r, timeoutMs);
      this.settleWaiters.push(() => {
        clearTimeout(t);
        r();
      });
    });
  }

  private settle() {
    if (this.awaited.size > 0 || this.settledGen === this.gen) return;
    this.settledGen = this.gen;
    this.settledBlock = this.state.number;
    this.o.onSettle?.({ block: this.state.number, ms: performance.now() - this.pushedAtPerf, buildsMs: this.buildsMs });
    const waiters = this.settleWaiters;
    this.settleWaiters = [];
    for (const w of waiters) w();
  }

  /** The answer of `key` at the current state only (no carry-over). */
  private current(key: string): Answer | undefined {
    const slot = this.slots.get(key);
    const a = slot?.answer;
    if (!a || a.gen !== this.gen) return undefined;
    slot.readAt = Date.now();
    slot.hits++;
    return a;
  }

  /**
   * The answer of `key` at the current state: held, or built (once, shared by concurrent
   * callers). An answer other than 200 is returned but not held.
   */
  async get(key: string, path: string): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const held = this.current(key);
      if (held) return held;
      let slot = this.slots.get(key);
      if (!slot) {
        const fresh: Slot = { path, dirty: false, readAt: Date.now(), hits: 0 };
        if (this.slots.size < this.o.maxAnswers || this.evictOne()) this.slots.set(key, fresh);
        slot = fresh;
      }
      slot.readAt = Date.now();
      if (attempt === 0) slot.hits++;
      const a = await (slot.building ?? this.rebuild(key, slot));
      // a push during the build makes it one state old: wait for the next (bounded)
      if (a.gen === this.gen || a.status !== 200 || attempt === 2) return a;
    }
  }

  private rebuild(key: string, slot: Slot, urgent = false): Promise<Answer> {
    if (slot.building) {
      slot.dirty = true;
      return slot.building;
    }
    const gen = this.gen;
    const minBlock = this.state.number;
    const tb = performance.now();
    slot.building = this.limited(() => this.build(slot.path, minBlock), urgent)
      .then((b) => {
        if (gen === this.gen) this.buildsMs.push(performance.now() - tb);
        const a: Answer = { ...b, gen };
        if (a.status === 200) {
          if (slot.answer && slot.answer.gen < gen) slot.prev = slot.answer;
          slot.answer = a;
        } else this.slots.delete(key);
        return a;
      })
      .finally(() => {
        slot.building = undefined;
        // dirty: a push came during the build (its answer is a block old); the next one is awaited instead
        if (slot.dirty && this.slots.get(key) === slot) {
          slot.dirty = false;
          void this.rebuild(key, slot, true).catch(() => {});
          return;
        }
        this.awaited.delete(slot);
        this.settle();
      });
    return slot.building;
  }

  /** Makes room for a new key: drops the answer read longest ago (not one being built). */
  private evictOne(): boolean {
    let oldest: [string, Slot] | undefined;
    for (const e of this.slots) if (!e[1].building && (!oldest || e[1].readAt < oldest[1].readAt)) oldest = e;
    if (!oldest) return false;
    this.slots.delete(oldest[0]);
    return true;
  }

  private onBlock(s: IndexedState) {
    this.pushedAtPerf = performance.now();
    this.buildsMs = [];
    const forward = advancedFrom(this.state, s);
    if (this.settledGen === this.gen) {
      this.carryOver = forward;
      this.pushedAt = Date.now();
    } else this.carryOver &&= forward;
    this.state = s;
    this.gen++;
    // the previous push's rebuilds not landed yet are superseded: those ranked eager again are
    // marked dirty below and awaited through their next build
    this.awaited.clear();
    const cold = Date.now() - this.o.hotMs;
    const hot: [string, Slot][] = [];
    for (const [key, slot] of this.slots) {
      if (slot.readAt >= cold) hot.push([key, slot]);
      else if (!slot.building) this.slots.delete(key);
    }
    hot.sort(([, a], [, b]) => b.hits - a.hits || b.readAt - a.readAt);
    let eager = 0;
    let bytes = 0;
    for (const [key, slot] of hot) {
      const size = slot.answer?.body.length ?? 0;
      if (eager < this.eagerMax && bytes + size <= this.eagerBytes) {
        eager++;
        bytes += size;
        this.awaited.add(slot);
        void this.rebuild(key, slot, true).catch(() => this.slots.delete(key));
      }
      slot.hits >>= 1;
    }
    this.settle();
  }

  private async limited<T>(task: () => Promise<T>, urgent: boolean): Promise<T> {
    if (this.running >= this.o.concurrency) await new Promise<void>((r) => (urgent ? this.urgentQueue : this.queue).push(r));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      (this.urgentQueue.shift() ?? this.queue.shift())?.();
    }
  }
}
