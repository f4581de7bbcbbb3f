/**
 * The hot answers: each read route's answer (status 200, the exact body the integration API
 * gives) held in memory, pre-serialized, for the indexed state it was built at. On every new
 * indexed block (the block feed's push) every answer read within `hotMs` is rebuilt at once, by
 * this store, before any client asks; the others are dropped. A build is asked for the pushed
 * block (`minBlock`: on Postgres one statement of tables.ts, on PGlite the block's builds in one
 * request to Ponder's process, batch.ts), so it cannot describe an older state than the push.
 *
 * While the rebuilds run, the previous block's answers are still served (each is that block's
 * exact answer, `X-Indexed-Block` says which) and all routes switch to the new block together
 * once every rebuild has landed, so the first read after a block costs what every other read
 * costs: only if the new state follows the old one forward (a higher block, no revert seen:
 * `advancedFrom`), for at most `carryMs`, and never to a `?minBlock=` above its block. After a
 * revert (a reorg) nothing is carried over: a request waits for its answer's rebuild and never
 * gets the orphaned branch's answer.
 */
import { advancedFrom, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";

export type Built = { status: number; body: string; block: string | null };
/** `gen`: the feed generation the build started at (a build of gen g describes state g or newer). */
export type Answer = Built & { gen: number };

/** `prev`: the answer `answer` replaced, kept while it may still be carried over. */
type Slot = { path: string; answer?: Answer; prev?: Answer; building?: Promise<Answer>; dirty: boolean; readAt: number };

export type AnswerStoreOptions = {
  hotMs: number;
  maxAnswers: number;
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
  private inFlight = 0;
  /** When the newest push arrived, and how long each of its rebuilds took (`onSettle`). */
  private pushedAtPerf = 0;
  private buildsMs: number[] = [];
  private settleWaiters: (() => void)[] = [];
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly feed: BlockFeed,
    private readonly build: (path: string, minBlock: bigint) => Promise<Built>,
    private readonly o: AnswerStoreOptions,
  ) {
    this.state = feed.current();
    this.settledBlock = this.state.number;
    this.carryMs = o.carryMs ?? 2_000;
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
    if (this.inFlight > 0 || this.settledGen === this.gen) return;
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
        const fresh: Slot = { path, dirty: false, readAt: Date.now() };
        if (this.slots.size < this.o.maxAnswers) this.slots.set(key, fresh);
        slot = fresh;
      }
      slot.readAt = Date.now();
      const a = await (slot.building ?? this.rebuild(key, slot));
      // a push during the build makes it one state old: wait for the next (bounded)
      if (a.gen === this.gen || a.status !== 200 || attempt === 2) return a;
    }
  }

  private rebuild(key: string, slot: Slot): Promise<Answer> {
    if (slot.building) {
      slot.dirty = true;
      return slot.building;
    }
    const gen = this.gen;
    const minBlock = this.state.number;
    this.inFlight++;
    const tb = performance.now();
    slot.building = this.limited(() => this.build(slot.path, minBlock))
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
        this.inFlight--;
        slot.building = undefined;
        if (slot.dirty && this.slots.get(key) === slot) {
          slot.dirty = false;
          void this.rebuild(key, slot).catch(() => {});
        }
        this.settle();
      });
    return slot.building;
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
    const cold = Date.now() - this.o.hotMs;
    for (const [key, slot] of this.slots) {
      if (slot.readAt < cold) {
        if (!slot.building) this.slots.delete(key);
        continue;
      }
      void this.rebuild(key, slot).catch(() => this.slots.delete(key));
    }
    this.settle();
  }

  private async limited<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.o.concurrency) await new Promise<void>((r) => this.queue.push(r));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.queue.shift()?.();
    }
  }
}
