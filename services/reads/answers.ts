/**
 * The hot answers: each read route's answer (status 200, the exact body the integration API
 * gives) held in memory, pre-serialized, for the indexed state it was built at. On every new
 * indexed block (the block feed's push) every answer read within `hotMs` is rebuilt once, by
 * this store, not by the clients that arrive first; the others are dropped. Until its rebuild
 * lands, a request for an answer of an older state waits for that rebuild (it never gets the
 * old state's answer, which a reorg may have orphaned). Builds go to the integration API with
 * `?minBlock=<the pushed block>`, so they cannot describe an older state than the push.
 */
import type { BlockFeed, IndexedState } from "../../core/indexer/blocks.js";

export type Built = { status: number; body: string; block: string | null };
/** `gen`: the feed generation the build started at (a build of gen g describes state g or newer). */
export type Answer = Built & { gen: number };

type Slot = { path: string; answer?: Answer; building?: Promise<Answer>; dirty: boolean; readAt: number };

export type AnswerStoreOptions = { hotMs: number; maxAnswers: number; concurrency: number };

export class AnswerStore {
  private readonly slots = new Map<string, Slot>();
  /** Incremented on every pushed state. */
  gen = 0;
  private state: IndexedState;
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly feed: BlockFeed,
    private readonly build: (path: string, minBlock: bigint) => Promise<Built>,
    private readonly o: AnswerStoreOptions,
  ) {
    this.state = feed.current();
    feed.subscribe((s) => this.onBlock(s));
  }

  get size() {
    return this.slots.size;
  }

  /** The answer of `key` at the current state, if held: the hot path, synchronous. */
  peek(key: string): Answer | undefined {
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
      const held = this.peek(key);
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
