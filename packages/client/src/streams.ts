/**
 * The stream client (docs/STREAMS.md): one WebSocket, many subscriptions, each with a handle to
 * unsubscribe. It keeps the protocol's promises on the client's side:
 *  - `seq` is consecutive per subscription: on a gap (a lost message) the subscription goes
 *    `stale`, is resubscribed with `resume: {epoch, seq}` (the service replays what was missed, or
 *    sends a fresh snapshot when it cannot), and is fresh again at the first message that follows on;
 *  - a dropped connection reconnects with backoff (1 s, 2 s, 4 s … 30 s, with jitter), signs in
 *    again and resumes every subscription;
 *  - heartbeats: `{"op":"ping"}` every `heartbeat.intervalMs`; no message within `timeoutMs` after
 *    it closes the connection (and so reconnects);
 *  - messages sent while disconnected are buffered (sent on reconnect) or refused, as chosen.
 * Works with /ws (camelCase, SIWE token) and the gateway's /v1/ws (snake_case, API key): messages
 * reach handlers in camelCase either way. WebSocket: isows (the platform's, or `ws` on Node 20).
 */
import { WebSocket as IsoWebSocket } from "isows";
import { camelKeys } from "../../../core/case.js";
import { applyBookUpdate } from "../../../core/streams/book.js";
import { Emitter } from "./emitter.js";
import { VenueError } from "./errors.js";
import type { BookLevel, ChannelName } from "./types.js";

/** The part of the WebSocket API the client uses (the platform's, isows', or a test's transport). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}
export type WebSocketFactory = (url: string) => WebSocketLike;

export type SubscribeParams =
  | { channel: "orderbook"; marketId: string; depth?: number }
  | { channel: "trades"; marketId: string }
  | { channel: "market"; marketId: string }
  | { channel: "candles"; marketId: string; resolution: "1m" | "5m" | "15m" | "1h" | "4h" | "1d" }
  | { channel: "account"; accountId: number }
  | { channel: "transactions" };

/** A message of a subscription (camelCase). `blockNumber` is the block it describes. */
export type StreamMessage<D = unknown> = {
  type: "snapshot" | "update" | "reorg";
  subscriptionId: string;
  channel?: ChannelName;
  epoch?: string;
  seq: number;
  blockNumber: number;
  commonAncestor?: string;
  data: D;
};
export type BookData = { bids: BookLevel[]; asks: BookLevel[] };

export type SubscriptionHandlers<D = unknown> = {
  snapshot?: (m: StreamMessage<D>) => void;
  update?: (m: StreamMessage<D>) => void;
  reorg?: (m: StreamMessage<D>) => void;
  /** a gap in seq was seen: the subscription is stale until resynced (resume or snapshot) */
  stale?: (info: { expected: number; got: number }) => void;
  error?: (e: VenueError) => void;
};

export type StreamOptions = {
  /** ws://host:24073/ws (integration) or ws://host:8080/v1/ws (gateway) */
  url: string;
  /** gateway: the API key (sent as the first message, as browsers cannot set headers) */
  apiKey?: string;
  /** integration: the sign-in token, asked for at each (re)connect (account and transactions channels) */
  token?: () => string | undefined | Promise<string | undefined>;
  /** a WebSocket factory (default isows); tests wrap it */
  webSocket?: WebSocketFactory;
  reconnect?: { initialMs?: number; maxMs?: number; jitter?: number; maxAttempts?: number } | false;
  heartbeat?: { intervalMs?: number; timeoutMs?: number } | false;
  /** what `send` does while not connected: "buffer" (default, sent on connect) or "refuse" (throws NOT_CONNECTED) */
  whileDisconnected?: "buffer" | "refuse";
  /** most messages buffered while disconnected (default 100); more throws */
  maxBuffered?: number;
};

export type StreamEvents = {
  open: void;
  close: { code: number; reason: string };
  reconnecting: { attempt: number; delayMs: number };
  error: VenueError;
  /** every message as received (camelCase) */
  message: Record<string, unknown>;
};

export class Subscription<D = unknown> {
  /** the service's id of the current subscription (changes on every resubscribe) */
  serverId: string | undefined;
  epoch: string | undefined;
  /** the last seq applied */
  seq: number | undefined;
  /** block of the last message applied */
  blockNumber: number | undefined;
  /** true after a gap (or a reorg) until resynced */
  stale = false;
  closed = false;
  /** this client's tag of the current subscribe request */
  tag = "";

  constructor(
    private readonly client: StreamClient,
    readonly params: SubscribeParams,
    readonly handlers: SubscriptionHandlers<D>,
  ) {}

  /** Ends the subscription (on the service too). */
  unsubscribe(): void {
    if (this.closed) return;
    this.closed = true;
    this.client.drop(this as Subscription<unknown>);
  }
}

export class StreamClient extends Emitter<StreamEvents> {
  private ws: WebSocketLike | undefined;
  private open = false;
  private authed = false;
  private closedByUser = false;
  private attempts = 0;
  private readonly subs = new Set<Subscription<unknown>>();
  private readonly byServerId = new Map<string, Subscription<unknown>>();
  private readonly byTag = new Map<string, Subscription<unknown>>();
  private buffer: string[] = [];
  private nextTag = 1;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private deadTimer: ReturnType<typeof setTimeout> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private connecting: Promise<void> | undefined;

  constructor(readonly o: StreamOptions) {
    super();
  }

  get connected(): boolean {
    return this.open && this.authed;
  }

  /** Opens the connection (subscribe does it too); resolves once open and signed in. */
  connect(): Promise<void> {
    this.closedByUser = false;
    if (this.connected) return Promise.resolve();
    return (this.connecting ??= new Promise<void>((resolve, reject) => {
      const offOpen = this.once("open", () => {
        offErr();
        resolve();
      });
      const offErr = this.once("close", (c) => {
        if (this.o.reconnect === false || this.closedByUser) {
          offOpen();
          reject(new VenueError("STREAM_CLOSED", `closed before open: ${c.code} ${c.reason}`));
        }
      });
      if (!this.ws) this.dial();
    }).finally(() => (this.connecting = undefined)));
  }

  private dial() {
    const make = this.o.webSocket ?? ((url: string) => new IsoWebSocket(url) as unknown as WebSocketLike);
    const ws = make(this.o.url);
    this.ws = ws;
    this.open = false;
    this.authed = false;
    ws.onopen = () => void this.onOpen(ws);
    ws.onmessage = (ev) => this.onMessage(ws, ev.data);
    ws.onerror = () => undefined; // a close follows
    ws.onclose = (ev) => this.onClose(ws, ev.code, ev.reason);
  }

  private async onOpen(ws: WebSocketLike) {
    if (ws !== this.ws) return;
    this.open = true;
    this.armHeartbeat();
    if (this.o.apiKey) return ws.send(JSON.stringify({ op: "auth", api_key: this.o.apiKey }));
    if (!this.o.token) return this.onAuthed();
    let token: string | undefined;
    try {
      token = await this.o.token();
    } catch (e) {
      this.emit("error", e instanceof VenueError ? e : new VenueError("UNAUTHENTICATED", `no sign-in token: ${(e as Error).message}`));
    }
    if (ws !== this.ws) return;
    if (token) ws.send(JSON.stringify({ op: "auth", token }));
    else this.onAuthed();
  }

  private onAuthed() {
    this.authed = true;
    this.attempts = 0;
    for (const s of this.subs) this.sendSubscribe(s);
    const pending = this.buffer;
    this.buffer = [];
    for (const m of pending) this.ws!.send(m);
    this.emit("open", undefined);
  }

  /** Sends the current sign-in token on the open connection (a newer token moves its expiry). */
  async reauth(): Promise<void> {
    const token = await this.o.token?.();
    if (token && this.connected) this.ws!.send(JSON.stringify({ op: "auth", token }));
  }

  private armHeartbeat() {
    this.stopHeartbeat();
    if (this.o.heartbeat === false) return;
    const every = this.o.heartbeat?.intervalMs ?? 15_000;
    const timeout = this.o.heartbeat?.timeoutMs ?? 10_000;
    this.pingTimer = setInterval(() => {
      if (!this.open || !this.ws) return;
      try {
        this.ws.send('{"op":"ping"}');
      } catch {
        return;
      }
      if (!this.deadTimer) {
        this.deadTimer = setTimeout(() => this.ws?.close(4000, "no answer to ping"), timeout);
        (this.deadTimer as { unref?: () => void }).unref?.();
      }
    }, every);
    (this.pingTimer as { unref?: () => void }).unref?.();
  }

  private stopHeartbeat() {
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.deadTimer) clearTimeout(this.deadTimer);
    this.pingTimer = this.deadTimer = undefined;
  }

  private onClose(ws: WebSocketLike, code: number, reason: string) {
    if (ws !== this.ws) return;
    this.ws = undefined;
    this.open = this.authed = false;
    this.stopHeartbeat();
    this.byServerId.clear();
    for (const s of this.subs) {
      s.serverId = undefined;
      // what it holds may miss what happens until it has resumed
      if (s.seq !== undefined && !s.stale) {
        s.stale = true;
        s.handlers.stale?.({ expected: s.seq + 1, got: -1 });
      }
    }
    this.emit("close", { code, reason });
    if (this.closedByUser || this.o.reconnect === false) return;
    // an API key revoked: reconnecting cannot help (a sign-in token: the provider may have a newer one)
    if (code === 4401 && this.o.apiKey) {
      this.emit("error", new VenueError("UNAUTHENTICATED", `stream closed: ${reason}`));
      return;
    }
    const r = this.o.reconnect ?? {};
    if (r.maxAttempts !== undefined && this.attempts >= r.maxAttempts) return;
    const base = Math.min(r.maxMs ?? 30_000, (r.initialMs ?? 1_000) * 2 ** this.attempts);
    const jitter = r.jitter ?? 0.2;
    const delayMs = Math.round(base * (1 - jitter + Math.random() * 2 * jitter));
    this.attempts++;
    this.emit("reconnecting", { attempt: this.attempts, delayMs });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closedByUser) this.dial();
    }, delayMs);
  }

  private onMessage(ws: WebSocketLike, raw: unknown) {
    if (ws !== this.ws) return;
    if (this.deadTimer) clearTimeout(this.deadTimer);
    this.deadTimer = undefined;
    let m: Record<string, unknown>;
    try {
      m = camelKeys(JSON.parse(typeof raw === "string" ? raw : String(raw)));
    } catch {
      return;
    }
    this.emit("message", m);
    const type = m.type as string;
    if (type === "authenticated") {
      if (!this.authed) this.onAuthed();
      return;
    }
    if (type === "pong" || type === "unsubscribed") return;
    if (type === "subscribed") {
      const s = this.byTag.get(m.id as string);
      if (s && !s.closed) {
        s.serverId = m.subscriptionId as string;
        this.byServerId.set(s.serverId, s);
      } else if (m.subscriptionId) this.raw({ op: "unsubscribe", subscriptionId: m.subscriptionId });
      return;
    }
    if (type === "error") {
      const e = new VenueError(String(m.code), String(m.message));
      const s: Subscription<unknown> | undefined =
        (m.subscriptionId ? this.byServerId.get(m.subscriptionId as string) : undefined) ?? (m.id ? this.byTag.get(m.id as string) : undefined);
      if (!this.authed && (m.code === "UNAUTHENTICATED" || m.code === "VALIDATION_ERROR")) {
        this.emit("error", e);
        return;
      }
      if (s) {
        // the subscription is over on the service (a bad market, an account not the signer's...)
        if (m.subscriptionId) this.byServerId.delete(m.subscriptionId as string);
        s.serverId = undefined;
        s.handlers.error?.(e);
      } else this.emit("error", e);
      return;
    }
    const s = this.byServerId.get(m.subscriptionId as string);
    if (!s || s.closed) return;
    const msg = { ...m, seq: Number(m.seq), blockNumber: Number(m.blockNumber) } as StreamMessage;
    if (msg.type === "snapshot") {
      s.epoch = msg.epoch ?? s.epoch;
      s.seq = msg.seq;
      s.blockNumber = msg.blockNumber;
      s.stale = false;
      s.handlers.snapshot?.(msg);
      return;
    }
    if (s.seq === undefined) return; // nothing to apply an update to (waits for its snapshot)
    if (msg.seq <= s.seq) return; // already applied (a replay overlapping what we have)
    if (msg.seq !== s.seq + 1) {
      if (!s.stale) {
        s.stale = true;
        s.handlers.stale?.({ expected: s.seq + 1, got: msg.seq });
        this.resubscribe(s);
      }
      return;
    }
    s.seq = msg.seq;
    s.blockNumber = msg.blockNumber;
    if (msg.type === "reorg") {
      // the chain replaced blocks: hold nothing until the snapshot that follows
      s.stale = true;
      s.handlers.reorg?.(msg);
      return;
    }
    s.stale = false;
    s.handlers.update?.(msg);
  }

  /** Drops the service's subscription and asks again with resume (replay, or a fresh snapshot). */
  private resubscribe(s: Subscription<unknown>) {
    if (s.serverId) {
      this.byServerId.delete(s.serverId);
      this.raw({ op: "unsubscribe", subscriptionId: s.serverId });
      s.serverId = undefined;
    }
    this.sendSubscribe(s);
  }

  private sendSubscribe(s: Subscription<unknown>) {
    this.byTag.delete(s.tag);
    s.tag = `c${this.nextTag++}`;
    this.byTag.set(s.tag, s);
    const resume = s.epoch !== undefined && s.seq !== undefined ? { resume: { epoch: s.epoch, seq: s.seq } } : {};
    this.raw({ op: "subscribe", ...s.params, id: s.tag, ...resume });
  }

  private raw(m: Record<string, unknown>) {
    if (this.connected) this.ws!.send(JSON.stringify(m));
  }

  /**
   * Sends a message of the protocol (camelCase); while disconnected it is buffered until the
   * connection is back, or refused (`whileDisconnected: "refuse"`).
   */
  send(m: Record<string, unknown>): void {
    const text = JSON.stringify(m);
    if (this.connected) return this.ws!.send(text);
    if (this.o.whileDisconnected === "refuse") throw new VenueError("NOT_CONNECTED", "the stream is not connected");
    if (this.buffer.length >= (this.o.maxBuffered ?? 100)) throw new VenueError("NOT_CONNECTED", "the stream is not connected and its send buffer is full");
    this.buffer.push(text);
    if (!this.ws && !this.reconnectTimer && !this.closedByUser) this.dial();
  }

  /**
   * Subscribes to a channel: the handle's `unsubscribe()` ends it. While disconnected the
   * subscription is made on connect (or refused, `whileDisconnected: "refuse"`).
   */
  subscribe<D = unknown>(params: SubscribeParams, handlers: SubscriptionHandlers<D> = {}): Subscription<D> {
    if (!this.connected && this.o.whileDisconnected === "refuse") throw new VenueError("NOT_CONNECTED", "the stream is not connected");
    const s = new Subscription<D>(this, params, handlers);
    this.subs.add(s as Subscription<unknown>);
    if (this.connected) this.sendSubscribe(s as Subscription<unknown>);
    else if (!this.ws && !this.reconnectTimer) {
      this.closedByUser = false;
      this.dial();
    }
    return s;
  }

  /** @internal */
  drop(s: Subscription<unknown>) {
    this.subs.delete(s);
    this.byTag.delete(s.tag);
    if (s.serverId) {
      this.byServerId.delete(s.serverId);
      this.raw({ op: "unsubscribe", subscriptionId: s.serverId });
    }
  }

  /** A live order book of a market (snapshot + deltas; see OrderBookView). */
  orderBook(marketId: string, depth = 10): OrderBookView {
    return new OrderBookView(this, marketId, depth);
  }

  /** Closes the connection for good (no reconnect). */
  close(): void {
    this.closedByUser = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.stopHeartbeat();
    const ws = this.ws;
    this.ws = undefined;
    this.open = this.authed = false;
    ws?.close(1000, "client closed");
  }
}

/** A price level with its values as bigint (18 decimals). */
export type Level = { price: bigint; quantity: bigint; orderCount: number };

export type OrderBookEvents = {
  change: OrderBookView;
  stale: OrderBookView;
  resynced: OrderBookView;
  /** the service ended the subscription (an unknown market, a depth out of range...) */
  error: VenueError;
};

/**
 * An order book kept from the `orderbook` channel: the snapshot, then each update's changed levels
 * (quantity 0 removes one). It never applies an update at or below its snapshot's block, and after
 * a gap or a reorg it is `stale: true` until it has resynced (a replay or a fresh snapshot).
 */
export class OrderBookView extends Emitter<OrderBookEvents> {
  bids: BookLevel[] = [];
  asks: BookLevel[] = [];
  /** the block the book describes (-1 before the snapshot) */
  blockNumber = -1;
  /** the block of the snapshot it was built from */
  snapshotBlock = -1;
  stale = true;
  readonly subscription: Subscription<BookData>;

  constructor(client: StreamClient, readonly marketId: string, readonly depth: number) {
    super();
    this.subscription = client.subscribe<BookData>({ channel: "orderbook", marketId, depth }, {
      snapshot: (m) => {
        ({ bids: this.bids, asks: this.asks } = applyBookUpdate({ bids: [], asks: [] }, m.data)); // sorted
        this.blockNumber = this.snapshotBlock = m.blockNumber;
        const was = this.stale;
        this.stale = false;
        if (was) this.emit("resynced", this);
        this.emit("change", this);
      },
      update: (m) => {
        if (m.blockNumber <= this.snapshotBlock) return; // older than (or in) the snapshot: already in it
        ({ bids: this.bids, asks: this.asks } = applyBookUpdate(this, { bids: m.data.bids ?? [], asks: m.data.asks ?? [] }));
        this.blockNumber = m.blockNumber;
        if (this.stale) {
          this.stale = false;
          this.emit("resynced", this);
        }
        this.emit("change", this);
      },
      stale: () => this.markStale(),
      reorg: () => this.markStale(),
      error: (e) => this.emit("error", e),
    });
  }

  private markStale() {
    if (this.stale) return;
    this.stale = true;
    this.emit("stale", this);
  }

  /** The levels as bigint. */
  levels(side: "bids" | "asks"): Level[] {
    return this[side].map((l) => ({ price: BigInt(l.price), quantity: BigInt(l.quantity), orderCount: l.orderCount }));
  }
  get bestBid(): bigint | null {
    return this.bids[0] ? BigInt(this.bids[0].price) : null;
  }
  get bestAsk(): bigint | null {
    return this.asks[0] ? BigInt(this.asks[0].price) : null;
  }
  close() {
    this.subscription.unsubscribe();
  }
}
