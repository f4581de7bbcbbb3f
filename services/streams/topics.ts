/**
 * Topics: one per channel and parameters (a market's book at a depth, an account...), shared by
 * every subscriber. On each indexed block a topic with subscribers is built once (its REST reads
 * at that block), diffed against its previous state, and the one resulting message is rendered
 * once per casing and sent to all of them. So the database sees a few reads per topic per block,
 * never one per subscriber.
 *
 * A topic's `seq` numbers its messages: every subscriber gets every message of its topic, so the
 * numbers it sees are consecutive from its snapshot on; a gap means a lost message. The last
 * `replay` messages are kept for `resume` (same `epoch`: the topic's identity).
 */
import { randomBytes } from "node:crypto";
import { snakeKeys } from "../../core/case.js";
import type { ChannelDef } from "./channels.js";

/** GETs of the integration API at `minBlock` or later: each answer's `data` and the block it describes (`reread`: a build's second try). */
export type AtBlock = (minBlock: bigint, reread?: boolean) => (path: string) => Promise<{ data: unknown; block: bigint }>;

export type Casing = "camel" | "snake";
export type FrameType = "snapshot" | "update" | "reorg";

/** One message of a topic, rendered lazily per casing (without the subscription id). */
export class Frame {
  private readonly rendered: Partial<Record<Casing, string>> = {};
  constructor(
    readonly type: FrameType,
    readonly seq: number,
    readonly blockNumber: bigint,
    private readonly body: Record<string, unknown>,
  ) {}
  /** The JSON text after `{"subscriptionId":"…",` (so a send costs a concatenation). */
  tail(casing: Casing): string {
    let t = this.rendered[casing];
    if (t === undefined) {
      const o = { type: this.type, ...this.body, seq: this.seq, blockNumber: this.blockNumber.toString() };
      t = JSON.stringify(casing === "snake" ? snakeKeys(o) : o).slice(1);
      this.rendered[casing] = t;
    }
    return t;
  }
}

export interface Subscriber {
  deliver(topic: Topic, frame: Frame): void;
  /** The topic failed for good (e.g. the market does not exist): the subscription ends with this error. */
  fail(topic: Topic, code: string, message: string): void;
}

export class UpstreamError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class Topic {
  readonly epoch = randomBytes(6).toString("hex");
  seq = 0;
  block = -1n;
  state: unknown = undefined;
  readonly subscribers = new Set<Subscriber>();
  idleSince = Date.now();
  private buffer: Frame[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly key: string,
    readonly channel: string,
    readonly params: Record<string, unknown>,
    private readonly def: ChannelDef<unknown>,
    private readonly replay: number,
  ) {}

  /** Runs `task` after every earlier one: a topic's messages leave in block order. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const p = this.queue.then(task);
    this.queue = p.then(
      () => undefined,
      () => undefined,
    );
    return p;
  }

  private emit(type: FrameType, block: bigint, body: Record<string, unknown>) {
    const f = new Frame(type, ++this.seq, block, { channel: this.channel, ...this.params, ...body });
    this.buffer.push(f);
    if (this.buffer.length > this.replay) this.buffer.shift();
    for (const s of this.subscribers) s.deliver(this, f);
  }

  /** The snapshot of the current state, numbered as the last message (the next update is seq + 1). */
  private snapshotFrame(): Frame {
    return new Frame("snapshot", this.seq, this.block, { channel: this.channel, ...this.params, epoch: this.epoch, data: this.def.snapshot(this.state) });
  }

  /**
   * Adds a subscriber: a snapshot (building the state first if the topic is new), or with
   * `resume` the messages after `resume.seq` when the buffer still holds them.
   */
  join(sub: Subscriber, read: AtBlock, minBlock: bigint, resume?: { epoch: string; seq: number }): Promise<"snapshot" | "resumed"> {
    return this.serial(async () => {
      // an event-driven topic reads its source again: events missed while its feed was down are not carried over
      if (this.state === undefined || this.def.events) {
        const { state, block } = await this.read(read, minBlock);
        this.state = state;
        if (block > this.block) this.block = block;
      }
      this.subscribers.add(sub);
      if (resume && resume.epoch === this.epoch && resume.seq <= this.seq) {
        const missed = this.buffer.filter((f) => f.seq > resume.seq);
        if (resume.seq === this.seq || (missed.length && missed[0]!.seq === resume.seq + 1)) {
          for (const f of missed) sub.deliver(this, f);
          return "resumed";
        }
      }
      sub.deliver(this, this.snapshotFrame());
      return "snapshot";
    });
  }

  leave(sub: Subscriber) {
    this.subscribers.delete(sub);
    if (this.subscribers.size === 0) this.idleSince = Date.now();
  }

  /** An event of an event-driven topic (transactions): one update to every subscriber, in order. */
  push(block: bigint, data: unknown): Promise<void> {
    return this.serial(async () => {
      if (this.state === undefined) return; // its build failed: nothing to update, nobody to tell
      if (this.block < block) this.block = block;
      if (this.def.apply) this.state = this.def.apply(this.state, data);
      this.emit("update", block, { data });
    });
  }

  /** A new indexed block (and, after a reorg, the common ancestor): rebuild once, send the difference. */
  onBlock(read: AtBlock, block: bigint, common: bigint | null | Promise<bigint | null>): Promise<void> {
    return this.serial(async () => {
      if (this.state === undefined || this.def.events) return;
      let next: { state: unknown; block: bigint };
      try {
        next = await this.read(read, block);
      } catch (e) {
        if (e instanceof UpstreamError && e.status === 404) for (const s of [...this.subscribers]) s.fail(this, e.code, e.message);
        return; // transient: the next block retries from the same previous state
      }
      const ancestor = await common; // awaited after the reads: both run at once
      if (next.block <= this.block && ancestor === null) return;
      const dropped = ancestor !== null && ancestor < this.block ? ancestor : this.def.orphaned?.(this.state, next.state) ?? null;
      if (dropped !== null) {
        // the chain dropped blocks this topic described: name the common ancestor, then a new snapshot
        this.emit("reorg", next.block, { commonAncestor: dropped.toString() });
        this.state = next.state;
        this.block = next.block;
        this.emit("snapshot", next.block, { epoch: this.epoch, data: this.def.snapshot(next.state) });
        return;
      }
      const data = this.def.diff(this.state, next.state);
      this.state = next.state;
      this.block = next.block;
      this.emit("update", next.block, { data });
    });
  }

  /** All of a build's reads at one block: retried at the highest block seen until they agree. */
  private async read(read: AtBlock, minBlock: bigint) {
    let at = minBlock;
    for (let attempt = 0; ; attempt++) {
      const blocks: bigint[] = [];
      const r = read(at, attempt > 0);
      const state = await this.def.build(async (path) => {
        const { data, block } = await r(path);
        blocks.push(block);
        return data;
      });
      const hi = blocks.reduce((a, b) => (a > b ? a : b), at);
      if (blocks.every((b) => b === hi) || attempt === 4) return { state, block: hi };
      at = hi;
    }
  }
}

export class Topics {
  readonly map = new Map<string, Topic>();
  constructor(
    private readonly replay: number,
    private readonly idleMs = 30_000,
  ) {}

  get(key: string, channel: string, params: Record<string, unknown>, def: ChannelDef<unknown>): Topic {
    let t = this.map.get(key);
    if (!t) {
      t = new Topic(key, channel, params, def, this.replay);
      this.map.set(key, t);
    }
    return t;
  }

  /** Topics nobody followed for `idleMs` stop being built (kept that long for `resume`). */
  sweep(now = Date.now()) {
    for (const [k, t] of this.map) if (t.subscribers.size === 0 && now - t.idleSince > this.idleMs) this.map.delete(k);
  }

  subscriberCount() {
    let n = 0;
    for (const t of this.map.values()) n += t.subscribers.size;
    return n;
  }
}
