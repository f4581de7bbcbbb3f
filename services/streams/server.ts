/**
 * The WebSocket protocol (docs/STREAMS.md, /asyncapi.json): connections, identities, limits,
 * subscriptions. JSON text messages; camelCase for integration clients, snake_case on
 * connections piped by the gateway (`/v1/ws`), which input may also use.
 *
 * Identities: the gateway's connections carry its internal token and the API key's wallet and
 * key id (checked by the gateway before the upgrade); a direct client may sign in with the SIWE
 * bearer token (`Authorization` on the upgrade, or `{"op":"auth","token":…}`). Account channels
 * need a wallet that owns the account.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import { camelKeys } from "../../core/case.js";
import { verifyToken } from "../../core/auth/siwe.js";
import { sameSecret } from "../../core/auth/service-tokens.js";
import { clientAddress, type TrustedProxies } from "../../core/http/client-address.js";
import { WS_CLOSE } from "../../core/ws/close-codes.js";
import { sendBounded } from "../../core/ws/send-buffer.js";
import { SubscribeRequest, type ChannelName } from "../../core/streams/protocol.js";
import { topicOf } from "./channels.js";
import type { AtBlock, Casing, Frame, Subscriber, Topic, Topics } from "./topics.js";
import { UpstreamError } from "./topics.js";

export type StreamsLimits = {
  connectionsPerKey: number;
  subscriptionsPerConnection: number;
  messagesPerSecond: number;
  pingIntervalMs: number;
  maxPayloadBytes: number;
  /** A connection's send buffer (bytes not yet taken by the socket): past it, close 1008 "slow consumer". */
  maxBufferBytes: number;
};

export type StreamsDeps = {
  topics: Topics;
  read: AtBlock;
  /** The caller's writes not final and its recent ones, from the relayer (the transactions snapshot). */
  recentWrites: (wallet: string) => Promise<unknown[]>;
  /** The latest indexed block (a new topic's first build reads at it or later). */
  currentBlock: () => bigint;
  markets: () => string[];
  limits: StreamsLimits;
  /** Peers whose X-Forwarded-For names the client (TRUSTED_PROXIES): anonymous connections count per client address. */
  trustedProxies: TrustedProxies;
  jwtSecret: () => string;
  gatewayToken: () => string;
  testHooks: boolean;
  log: { warn: (o: object, m: string) => void; debug: (o: object, m: string) => void };
};

const Op = z.object({ op: z.enum(["subscribe", "unsubscribe", "auth", "ping", "testDrop"]) }).passthrough();
const Unsubscribe = z.strictObject({ op: z.literal("unsubscribe"), subscriptionId: z.string().max(32) });
const Auth = z.strictObject({ op: z.literal("auth"), token: z.string().max(4096) });
const TestDrop = z.strictObject({ op: z.literal("testDrop"), subscriptionId: z.string().max(32) });

/** What a connection needs: the service's deps, and where it counts a slow-consumer close. */
type ConnectionDeps = StreamsDeps & { onSlowConsumer: () => void };

type Sub = { id: string; topic: Topic; sink: Subscriber; tag?: string; dropNext: boolean };

class Connection {
  readonly subs = new Map<string, Sub>();
  private next = 1;
  private tokens: number;
  private last = Date.now();
  alive = true;
  private strikes = 0;
  private expiry: NodeJS.Timeout | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly identity: string,
    readonly casing: Casing,
    public wallet: string | null,
    private readonly d: ConnectionDeps,
  ) {
    this.tokens = d.limits.messagesPerSecond;
  }

  private key(k: string) {
    return this.casing === "snake" ? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : k;
  }

  send(o: Record<string, unknown>) {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) out[this.key(k)] = v;
    this.write(JSON.stringify(out));
  }

  /** Every message goes out here: past the send buffer's limit the connection closes with 1008 "slow consumer" instead. */
  write(text: string) {
    if (!sendBounded(this.ws, text, this.d.limits.maxBufferBytes)) this.d.onSlowConsumer();
  }

  error(code: string, message: string, extra: Record<string, unknown> = {}) {
    this.send({ type: "error", code, message, ...extra });
  }

  /** An `error` message, then the close (what the client already has queued goes first). */
  end(code: number, reason: string, message: string) {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.error("UNAUTHENTICATED", message);
    this.ws.close(code, reason);
  }

  /** The sign-in token's expiry (unix seconds) ends the connection: close 4401 (sign in again and reconnect). */
  expireAt(seconds: number) {
    clearTimeout(this.expiry);
    const ms = Math.min(Math.max(0, seconds * 1000 - Date.now()), 2 ** 31 - 1);
    this.expiry = setTimeout(() => this.end(WS_CLOSE.UNAUTHENTICATED, "sign-in token expired", "the sign-in token expired: sign in again (POST /auth/login) and reconnect"), ms);
    this.expiry.unref();
  }

  /** A token bucket refilled at the limit per second; past it the message is refused, and a flood closes the connection. */
  private allow(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.d.limits.messagesPerSecond, this.tokens + ((now - this.last) / 1000) * this.d.limits.messagesPerSecond);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  async onMessage(raw: string) {
    if (this.ws.readyState !== this.ws.OPEN) return; // closing: nothing more is answered
    if (!this.allow()) {
      this.error("RATE_LIMITED", `more than ${this.d.limits.messagesPerSecond} messages per second: message ignored; slow down`);
      if (++this.strikes > this.d.limits.messagesPerSecond * 5) this.ws.close(WS_CLOSE.POLICY, "message rate limit exceeded");
      return;
    }
    let msg: unknown;
    try {
      msg = JSON.parse(raw);
    } catch {
      return this.error("VALIDATION_ERROR", "not JSON: send one JSON object per message, e.g. {\"op\":\"subscribe\",\"channel\":\"orderbook\",\"marketId\":\"0x…\"}");
    }
    if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return this.error("VALIDATION_ERROR", "a message is a JSON object with an op");
    msg = camelKeys(msg);
    const op = Op.safeParse(msg);
    if (!op.success) return this.error("VALIDATION_ERROR", "op: must be one of subscribe, unsubscribe, auth, ping");
    const tag = typeof (msg as { id?: unknown }).id === "string" ? { id: (msg as { id: string }).id } : {};
    switch (op.data.op) {
      case "ping":
        return this.send({ type: "pong", blockNumber: this.d.currentBlock().toString() });
      case "auth":
        return this.auth(msg);
      case "unsubscribe": {
        const u = Unsubscribe.safeParse(msg);
        if (!u.success) return this.error("VALIDATION_ERROR", issues(u.error));
        if (!this.drop(u.data.subscriptionId)) return this.error("NOT_FOUND", `no subscription ${u.data.subscriptionId} on this connection`);
        return this.send({ type: "unsubscribed", subscriptionId: u.data.subscriptionId });
      }
      case "testDrop": {
        const t = TestDrop.safeParse(msg);
        if (!this.d.testHooks || !t.success) return this.error("VALIDATION_ERROR", "op: must be one of subscribe, unsubscribe, auth, ping");
        const s = this.subs.get(t.data.subscriptionId);
        if (s) s.dropNext = true;
        return;
      }
      case "subscribe":
        return this.subscribe(msg, tag);
    }
  }

  private async auth(msg: unknown) {
    const a = Auth.safeParse(msg);
    if (!a.success) return this.error("VALIDATION_ERROR", issues(a.error));
    if (this.casing === "snake") return this.error("VALIDATION_ERROR", "this connection is authenticated by its API key");
    try {
      const t = await verifyToken(this.d.jwtSecret(), a.data.token);
      this.wallet = t.address.toLowerCase();
      this.expireAt(t.expiresAt);
      this.send({ type: "authenticated", wallet: this.wallet });
    } catch (e) {
      this.error("UNAUTHENTICATED", (e as Error).message);
    }
  }

  private async subscribe(msg: unknown, tag: { id?: string }) {
    const r = SubscribeRequest.safeParse(msg);
    if (!r.success) return this.error("VALIDATION_ERROR", issues(r.error), tag);
    if (this.subs.size >= this.d.limits.subscriptionsPerConnection)
      return this.error("LIMIT_EXCEEDED", `at most ${this.d.limits.subscriptionsPerConnection} subscriptions per connection: unsubscribe first or open another connection`, tag);
    const req = r.data;
    if ("marketId" in req && !this.d.markets().includes(req.marketId)) return this.error("MARKET_NOT_FOUND", `no market ${req.marketId}`, tag);
    if (req.channel === "transactions" && !this.wallet)
      return this.error("UNAUTHENTICATED", this.casing === "snake" ? "the transactions channel needs an API key" : "the transactions channel needs a sign-in: {\"op\":\"auth\",\"token\":\"<bearer token from POST /auth/login>\"}", tag);
    if (req.channel === "account") {
      if (!this.wallet)
        return this.error("UNAUTHENTICATED", this.casing === "snake" ? "account channels need an API key" : "account channels need a sign-in: {\"op\":\"auth\",\"token\":\"<bearer token from POST /auth/login>\"}", tag);
      let owner: string;
      try {
        const { data } = await this.d.read(this.d.currentBlock())(`/accounts/${req.accountId}`);
        owner = String((data as { owner: string }).owner).toLowerCase();
      } catch (e) {
        if (e instanceof UpstreamError) return this.error(e.code, e.message, tag);
        return this.error("SERVICE_UNAVAILABLE", "the integration API is unavailable; retry", tag);
      }
      if (owner !== this.wallet) return this.error("UNAUTHORIZED", `account ${req.accountId} is not owned by ${this.wallet}`, tag);
    }
    const { key, params, def } = topicOf(req, this.d.markets, this.wallet, this.d.recentWrites);
    const topic = this.d.topics.get(key, req.channel, params, def);
    const id = `s${this.next++}`;
    const sub: Sub = { id, topic, dropNext: false, ...tag, sink: undefined as unknown as Subscriber };
    sub.sink = {
      deliver: (_t: Topic, f: Frame) => {
        if (sub.dropNext) {
          sub.dropNext = false;
          return;
        }
        this.write(`{"${this.key("subscriptionId")}":"${id}",${f.tail(this.casing)}`);
      },
      fail: (_t: Topic, code: string, message: string) => {
        this.drop(id);
        this.error(code, message, { subscriptionId: id });
      },
    };
    this.subs.set(id, sub);
    this.send({ type: "subscribed", subscriptionId: id, channel: req.channel as ChannelName, ...params, ...tag });
    try {
      const how = await topic.join(sub.sink, this.d.read, this.d.currentBlock(), req.resume);
      if (this.ws.readyState !== this.ws.OPEN || !this.subs.has(id)) topic.leave(sub.sink); // closed meanwhile
      this.d.log.debug({ key, how }, "subscribed");
    } catch (e) {
      this.subs.delete(id);
      topic.leave(sub.sink);
      if (e instanceof UpstreamError) return this.error(e.code, e.message, { subscriptionId: id, ...tag });
      this.error("SERVICE_UNAVAILABLE", "the integration API is unavailable; retry", { subscriptionId: id, ...tag });
    }
  }

  drop(id: string): boolean {
    const s = this.subs.get(id);
    if (!s) return false;
    this.subs.delete(id);
    s.topic.leave(s.sink);
    return true;
  }

  close() {
    clearTimeout(this.expiry);
    for (const id of [...this.subs.keys()]) this.drop(id);
  }
}

function issues(e: z.ZodError): string {
  return e.issues.map((i) => `${i.path.join(".") || "message"}: ${i.message}`).join("; ");
}

/** Refuses an upgrade with an HTTP answer and a JSON error envelope. */
function refuse(socket: Duplex, status: number, code: string, message: string) {
  const body = JSON.stringify({ success: false, error: { code, message } });
  const reason = { 400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests" }[status] ?? "Error";
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export function createStreamServer(d: StreamsDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: d.limits.maxPayloadBytes });
  const conns = new Set<Connection>();
  const perKey = new Map<string, number>();
  let slowConsumerCloses = 0;
  const cd: ConnectionDeps = { ...d, onSlowConsumer: () => void slowConsumerCloses++ };

  const ping = setInterval(() => {
    for (const c of conns) {
      if (!c.alive) {
        c.ws.terminate(); // silent since the last ping
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }, d.limits.pingIntervalMs);
  ping.unref();

  async function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const h = (n: string) => {
      const v = req.headers[n];
      return Array.isArray(v) ? v[0] : v;
    };
    let identity: string;
    let casing: Casing = "camel";
    let wallet: string | null = null;
    let expiresAt: number | null = null;
    const internal = h("x-internal-token");
    if (internal !== undefined) {
      if (!sameSecret(internal, d.gatewayToken())) return refuse(socket, 401, "UNAUTHENTICATED", "invalid internal token");
      casing = "snake";
      wallet = h("x-venue-wallet")?.toLowerCase() ?? null;
      identity = `key:${h("x-venue-key-id") ?? "anonymous"}`;
    } else {
      identity = `ip:${clientAddress(req.socket.remoteAddress, h("x-forwarded-for"), d.trustedProxies) ?? "unknown"}`;
      const auth = h("authorization");
      if (auth) {
        const m = /^Bearer\s+([A-Za-z0-9\-_.]+)\s*$/i.exec(auth);
        try {
          if (!m) throw new Error("Authorization: expected Bearer <token>");
          const t = await verifyToken(d.jwtSecret(), m[1]!);
          wallet = t.address.toLowerCase();
          expiresAt = t.expiresAt;
          identity = `wallet:${wallet}`;
        } catch (e) {
          return refuse(socket, 401, "UNAUTHENTICATED", (e as Error).message);
        }
      }
    }
    if ((perKey.get(identity) ?? 0) >= d.limits.connectionsPerKey)
      return refuse(socket, 429, "RATE_LIMITED", `at most ${d.limits.connectionsPerKey} connections per key: close one first (one connection carries up to ${d.limits.subscriptionsPerConnection} subscriptions)`);
    // counted once established (ws calls back synchronously after the check above, or never: a
    // handshake it refuses, e.g. without Sec-WebSocket-Key, is answered 400 and counts nothing)
    wss.handleUpgrade(req, socket, head, (ws) => {
      perKey.set(identity, (perKey.get(identity) ?? 0) + 1);
      const c = new Connection(ws, identity, casing, wallet, cd);
      conns.add(c);
      if (expiresAt !== null) c.expireAt(expiresAt);
      ws.on("pong", () => (c.alive = true));
      // liveness is the pong to the last ping (sending messages does not count: a client that
      // keeps talking but never answers pings is dropped)
      ws.on("message", (data, isBinary) => {
        if (isBinary) return c.error("VALIDATION_ERROR", "binary messages are not accepted: send JSON text");
        void c.onMessage(data.toString()).catch((e) => d.log.warn({ err: String(e) }, "message"));
      });
      const gone = () => {
        if (!conns.delete(c)) return;
        c.close();
        const left = (perKey.get(identity) ?? 1) - 1;
        if (left > 0) perKey.set(identity, left);
        else perKey.delete(identity);
      };
      ws.on("close", gone);
      ws.on("error", gone);
    });
  }

  return {
    handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on("error", () => {});
      void handleUpgrade(req, socket, head).catch(() => socket.destroy());
    },
    /** A revoked API key's connections (the gateway's, by key id): close 4401. */
    closeKey(keyId: string) {
      for (const c of conns) if (c.identity === `key:${keyId}`) c.end(WS_CLOSE.UNAUTHENTICATED, "API key revoked", "the API key was revoked");
    },
    stats: () => ({ slowConsumerCloses, connections: conns.size, subscriptions: [...conns].reduce((a, c) => a + c.subs.size, 0), topics: d.topics.map.size }),
    close() {
      clearInterval(ping);
      for (const c of conns) c.ws.terminate();
      wss.close();
    },
  };
}
