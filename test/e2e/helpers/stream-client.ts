/**
 * A reference stream client for the tests: applies snapshot + updates per subscription, checks
 * that sequence numbers are consecutive, and on a gap resumes (`resume: {epoch, seq}`), which
 * replays the missed messages or sends a fresh snapshot.
 */
import WebSocket from "ws";
import { camelKeys } from "../../../core/case.js";
import { applyBookUpdate } from "../../../core/streams/book.js";

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export type SubState = {
  id: string;
  request: Msg;
  channel: string;
  epoch: string;
  seq: number;
  block: bigint;
  data: Msg | undefined;
  trades: Msg[];
  /** transactions: every event received, oldest first */
  events: Msg[];
  gaps: number;
  reorgs: string[];
  snapshots: number;
};

export class StreamClient {
  readonly messages: Msg[] = [];
  readonly errors: Msg[] = [];
  readonly subs = new Map<string, SubState>();
  private waiters: { pred: () => boolean; resolve: () => void }[] = [];
  private pendingAcks: { resolve: (m: Msg) => void; inherit?: SubState }[] = [];
  /** Called after each snapshot or update is applied (tests that keep every state, e.g. to compare replicas). */
  onApplied?: (s: SubState, m: Msg) => void;

  private constructor(readonly ws: WebSocket) {
    // `messages` as sent (snake_case on /v1/ws); the state is kept from their camelCase form
    ws.on("message", (raw) => {
      const m = JSON.parse(raw.toString());
      this.messages.push(m);
      this.onMessage(camelKeys(m));
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<StreamClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once("open", () => resolve(new StreamClient(ws)));
      ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
      });
      ws.once("error", reject);
    });
  }

  send(m: Msg) {
    this.ws.send(JSON.stringify(m));
  }

  /** Subscribes; resolves with the subscription once its snapshot arrived (or rejects with the error). */
  async subscribe(req: Msg): Promise<SubState> {
    const ack = new Promise<Msg>((resolve) => this.pendingAcks.push({ resolve }));
    this.send({ op: "subscribe", ...req });
    const m = await ack;
    if (m.type === "error") throw Object.assign(new Error(`${m.code}: ${m.message}`), { code: m.code });
    const s = this.subs.get(m.subscriptionId)!;
    await this.until(() => s.data !== undefined, 20_000);
    return s;
  }

  /**
   * A ping and its pong: once it returns, every message the server sent this connection before
   * it read the ping has arrived (one connection is one ordered stream). The barrier before a
   * test asserts that something was NOT sent.
   */
  async roundTrip(timeoutMs = 30_000): Promise<void> {
    const pongs = () => this.messages.filter((m) => m.type === "pong").length;
    const before = pongs();
    this.send({ op: "ping" });
    await this.until(() => pongs() > before, timeoutMs);
  }

  until(pred: () => boolean, timeoutMs = 30_000): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const w = { pred, resolve: () => (clearTimeout(t), resolve()) };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        // the predicate's own text says which wait ran out
        reject(new Error(`stream: not met in ${timeoutMs / 1000} s: ${pred.toString().replace(/\s+/g, " ")}`));
      }, timeoutMs);
      this.waiters.push(w);
    });
  }

  private onMessage(m: Msg) {
    if (m.type === "subscribed") {
      const p = this.pendingAcks.shift();
      const fresh: SubState = { id: m.subscriptionId, request: m, channel: m.channel, epoch: "", seq: -1, block: -1n, data: undefined, trades: [], events: [], gaps: 0, reorgs: [], snapshots: 0 };
      // a resumed subscription continues the old state (the replay follows at once)
      const o = p?.inherit;
      this.subs.set(m.subscriptionId, o ? { ...o, id: m.subscriptionId, request: m } : fresh);
      if (o) this.resumed.push(this.subs.get(m.subscriptionId)!);
      p?.resolve(m);
    } else if (m.type === "error") {
      this.errors.push(m);
      if (!m.subscriptionId && this.pendingAcks.length && m.code !== "RATE_LIMITED") this.pendingAcks.shift()!.resolve(m);
    } else if (m.type === "snapshot" || m.type === "update" || m.type === "reorg") {
      this.apply(this.subs.get(m.subscriptionId)!, m);
    }
    for (const w of [...this.waiters]) if (w.pred()) (this.waiters = this.waiters.filter((x) => x !== w)), w.resolve();
  }

  private apply(s: SubState, m: Msg) {
    if (!s) return;
    this.applyOne(s, m);
    if (m.type !== "reorg" && this.subs.get(s.id) === s) this.onApplied?.(s, m);
  }

  private applyOne(s: SubState, m: Msg) {
    if (m.type === "snapshot") {
      s.epoch = m.epoch;
      s.seq = m.seq;
      s.block = BigInt(m.blockNumber);
      s.data = structuredClone(m.data);
      s.trades = m.channel === "trades" ? [...m.data.trades] : [];
      s.snapshots++;
      return;
    }
    if (m.seq !== s.seq + 1) {
      // a lost message: resume from the last one applied (replay, or a fresh snapshot)
      s.gaps++;
      this.subs.delete(s.id);
      this.send({ op: "unsubscribe", subscriptionId: s.id });
      const { channel, marketId, depth, resolution, accountId } = s.request;
      const req = Object.fromEntries(Object.entries({ channel, marketId, depth, resolution, accountId }).filter(([, v]) => v !== undefined));
      this.subscribeResumed(req, s);
      return;
    }
    s.seq = m.seq;
    s.block = BigInt(m.blockNumber);
    if (m.type === "reorg") {
      s.reorgs.push(m.commonAncestor);
      return;
    }
    const d = m.data;
    switch (s.channel) {
      case "orderbook":
        s.data = applyBookUpdate(s.data as never, d) as Msg;
        break;
      case "trades":
        s.trades = [...d.trades, ...s.trades];
        break;
      case "market":
        s.data = d;
        break;
      case "transactions":
        s.events.push(...d.transactions);
        break;
      case "candles": {
        const by = new Map((s.data!.candles as Msg[]).map((c) => [c.startedAt, c]));
        for (const c of d.candles) by.set(c.startedAt, c);
        s.data = { ...s.data, candles: [...by.values()].sort((a, b) => a.startedAt - b.startedAt) };
        break;
      }
      case "account": {
        const a = s.data!;
        if (d.account) a.account = d.account;
        if (d.orders) a.orders = d.orders;
        if (d.positions) Object.assign(a.positions, d.positions);
        if (d.operators) a.operators = d.operators;
        // a changed trigger replaces the one with its id
        if (d.triggers) for (const t of d.triggers as Msg[]) a.triggers = [...(a.triggers as Msg[]).filter((x) => x.triggerId !== t.triggerId), t];
        for (const k of ["fills", "fundingPayments", "liquidations"]) a[k] = [...d[k], ...a[k]];
        break;
      }
    }
  }

  private subscribeResumed(req: Msg, old: SubState) {
    this.pendingAcks.push({ resolve: () => {}, inherit: old });
    this.send({ op: "subscribe", ...req, resume: { epoch: old.epoch, seq: old.seq } });
  }
  readonly resumed: SubState[] = [];

  close() {
    this.ws.close();
  }
}
