/**
 * The hot answers: each read route's answer (status 200, the exact body the integration API
 * gives) held in memory, pre-serialized, for the indexed state it was built at. On every new
 * indexed block (the block feed's push) every answer read within `hotMs` is rebuilt at once, by
 * this store, before any client asks; the others are dropped. Builds go to the integration API
 * with `?minBlock=<the pushed block>`, so they cannot describe an older state than the push.
 *
 * While an answer's rebuild runs, the answer of the previous block is still served (it is the
 * previous block's exact answer, `X-Indexed-Block` says which), so the first read after a block
 * costs what every other read costs: only if the new state follows the old one forward (a
 * higher block, no revert seen: `advancedFrom`), for at most `carryMs`, and never to a
 * `?minBlock=` above its block. After a revert (a reorg) nothing is carried over: a request
 * waits for its answer's rebuild and never gets the orphaned branch's answer.
 */
import { advancedFrom, type BlockFeed, type IndexedState } from "../../core/indexer/blocks.js";

export type Built = { status: number; body: string; block: string | null };
/** `gen`: the feed generation the build started at (a build of gen g describes state g or newer). */
export type Answer = Built & { gen: number };

type Slot = { path: string; answer?: Answer; building?: Promise<Answer>; dirty: boolean; readAt: number };

export type AnswerStoreOptions = {
  hotMs: number;
  maxAnswers: number;
  concurrency: number;
  /** How long after a push the previous block's answer may still be served while its rebuild runs. */
  carryMs?: number;
};

export class AnswerStore {
  private readonly slots = new Map<string, Slot>();
  /** Incremented on every pushed state. */
  gen = 0;
  private state: IndexedState;
  /** The last push followed the previous state forward (see `advancedFrom`), at `pushedAt`. */
  private carryOver = false;
  private pushedAt = 0;
  private readonly carryMs: number;
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly feed: BlockFeed,
    private readonly build: (path: string, minBlock: bigint) => Promise<Built>,
    private readonly o: AnswerStoreOptions,
  ) {
    this.state = feed.current();
    this.carryMs = o.carryMs ?? 2_000;
    feed.subscribe((s) => this.onBlock(s));
  }

  get size() {
    return this.slots.size;
  }

  /**
   * The answer of `key`, if held: the hot path, synchronous. The current state's answer, or while
   * its rebuild runs after a forward push, the previous block's; with `min`, only an answer of
   * block `min` or later.
   */
  peek(key: string, min?: bigint): Answer | undefined {
    const slot = this.slots.get(key);
    const a = slot?.answer;
    if (!a) return undefined;
    if (a.gen !== this.gen && !(a.gen === this.gen - 1 && slot.building && this.carryOver && Date.now() - this.pushedAt < this.carryMs)) return undefined;
    if (min !== undefined && (a.block === null || BigInt(a.block) < min)) return undefined;
    slot.readAt = Date.now();
    return a;
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
    slot.building = this.limited(() => this.build(slot.path, minBlock))
      .then((b) => {
        const a: Answer = { ...b, gen };
        if (a.status === 200) slot.answer = a;
        else this.slots.delete(key);
        return a;
      })
      .finally(() => {
        slot.building = undefined;
        if (slot.dirty && this.slots.get(key) === slot) {
          slot.dirty = false;
          void this.rebuild(key, slot).catch(() => {});
        }
      });
    return slot.building;
  }

  private onBlock(s: IndexedState) {
    this.carryOver = advancedFrom(this.state, s);
    this.pushedAt = Date.now();
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
