/**
 * Issue 27 item 5: slow consumers and dead peers.
 *   - A client that stops reading while it keeps asking (subscribe/unsubscribe: a snapshot per
 *     request) fills its send buffer; past WS_MAX_BUFFER_BYTES the stream service closes it with
 *     1008 "slow consumer" (queued behind what it already sent: the client sees the code once it
 *     reads again). A normal client on the same server is unaffected.
 *   - Liveness is judged by pongs: a client that keeps sending messages but never answers the
 *     server's pings is dropped; one that answers stays.
 * The same through the gateway's `/v1/ws` (its own WS_MAX_BUFFER_BYTES). Each on a stream
 * service (and gateway) of its own: a small buffer, a short ping interval.
 */
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, startGateway, startStreams, type Extra } from "./helpers/extra-services.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";

type Msg = Record<string, unknown>;
type Sock = { ws: WebSocket; messages: Msg[]; closed: Promise<{ code: number; reason: string }> };

function connect(url: string, opts: WebSocket.ClientOptions = {}): Promise<Sock> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts);
    const messages: Msg[] = [];
    ws.on("message", (d) => messages.push(JSON.parse(d.toString()) as Msg));
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once("close", (code, reason) => r({ code, reason: reason.toString() })));
    ws.once("open", () => resolve({ ws, messages, closed }));
    ws.once("error", reject);
  });
}

async function until(pred: () => boolean | Promise<boolean>, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<never>((_r, rej) => setTimeout(() => rej(new Error(`not within ${ms} ms`)), ms))]);

async function pingPong(s: Sock) {
  const n = s.messages.filter((m) => m.type === "pong").length;
  s.ws.send(JSON.stringify({ op: "ping" }));
  await until(() => s.messages.filter((m) => m.type === "pong").length > n, 30_000);
}

describe.each([sharedStack()])("slow consumers on $kind", (s: StackInfo) => {
  const market = s.deployment.markets[0]!.marketId.toLowerCase();
  const extras: Extra[] = [];
  afterAll(async () => {
    await Promise.all(extras.map((e) => e.proc.stop()));
  });

  describe("a client that never reads", () => {
    let streams: Extra;
    beforeAll(async () => {
      // a 64 KiB send buffer; the message rate limit out of the way of the flood
      streams = await startStreams(s, { WS_MAX_BUFFER_BYTES: "65536", STREAMS_MAX_MESSAGES_PER_SECOND: "1000000" });
      extras.push(streams);
    }, 180_000);

    it.each([1, 3])("is closed with 1008 \"slow consumer\" (%i at once); a normal client is not", async (n) => {
      const normal = await connect(streams.ws);
      normal.ws.send(JSON.stringify({ op: "subscribe", channel: "market", marketId: market, id: "m" }));
      await until(() => normal.messages.some((m) => m.type === "subscribed"));
      const slow = await Promise.all(Array.from({ length: n }, () => connect(streams.ws)));
      const ended: boolean[] = slow.map(() => false);
      slow.forEach((x, i) => void x.closed.then(() => (ended[i] = true)));
      for (const x of slow) x.ws.pause(); // stop reading: what the server sends stays in its buffers
      // keep asking: each subscribe answers with a snapshot; subscription ids are s1, s2, … per connection
      const next = slow.map(() => 0);
      const stats = async () => ((await (await fetch(`${streams.url}/stats`)).json()) as { data: { slowConsumerCloses?: number; connections: number } }).data;
      const before = (await stats()).slowConsumerCloses ?? 0;
      for (let round = 0; round < 400 && ((await stats()).slowConsumerCloses ?? 0) < before + n; round++) {
        slow.forEach((x, c) => {
          if (x.ws.readyState !== WebSocket.OPEN) return;
          for (let i = 0; i < 50; i++) {
            x.ws.send(JSON.stringify({ op: "subscribe", channel: "market", marketId: market }));
            x.ws.send(JSON.stringify({ op: "unsubscribe", subscriptionId: `s${++next[c]!}` }));
          }
        });
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const x of slow) x.ws.resume();
      for (const x of slow) {
        const { code, reason } = await within(x.closed, 60_000);
        expect(code).toBe(1008);
        expect(reason).toBe("slow consumer");
      }
      expect(ended.every(Boolean)).toBe(true);
      // the normal client kept its subscription and its connection
      expect(normal.ws.readyState).toBe(WebSocket.OPEN);
      await pingPong(normal);
      normal.ws.close();
    }, 180_000);

    it("through the gateway's /v1/ws: closed with 1008 \"slow consumer\", its upstream connection with it", async () => {
      const gateway = await startGateway(s, { STREAMS_URL: streams.url, WS_MAX_BUFFER_BYTES: "65536" });
      extras.push(gateway);
      const { key } = await createKey(gateway.url, s.adminToken, s.wallets[8]!.address, "e2e-slow");
      const connections = async () => ((await (await fetch(`${streams.url}/stats`)).json()) as { data: { connections: number } }).data.connections;
      const before = await connections();
      const normal = await connect(gateway.ws, { headers: { "X-API-Key": key } });
      const slow = await connect(gateway.ws, { headers: { "X-API-Key": key } });
      await until(async () => (await connections()) === before + 2);
      slow.ws.pause();
      let next = 0;
      for (let round = 0; round < 400 && (await connections()) > before + 1; round++) {
        for (let i = 0; i < 50 && slow.ws.readyState === WebSocket.OPEN; i++) {
          slow.ws.send(JSON.stringify({ op: "subscribe", channel: "market", market_id: market }));
          slow.ws.send(JSON.stringify({ op: "unsubscribe", subscription_id: `s${++next}` }));
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      // the gateway dropped the slow client's upstream connection; the client sees 1008 once it reads
      slow.ws.resume();
      const { code, reason } = await within(slow.closed, 60_000);
      expect(code).toBe(1008);
      expect(reason).toBe("slow consumer");
      expect(normal.ws.readyState).toBe(WebSocket.OPEN);
      await pingPong(normal);
      normal.ws.close();
    }, 240_000);
  });

  describe("liveness by pongs", () => {
    let streams: Extra;
    beforeAll(async () => {
      streams = await startStreams(s, { STREAMS_PING_INTERVAL_MS: "300" });
      extras.push(streams);
    }, 180_000);

    it("a client that sends messages but never answers pings is dropped; one that answers stays", async () => {
      const deaf = await connect(streams.ws, { autoPong: false });
      const fine = await connect(streams.ws);
      let gone = false;
      void deaf.closed.then(() => (gone = true));
      // the deaf client keeps talking (application pings) the whole time
      const chatter = setInterval(() => deaf.ws.readyState === WebSocket.OPEN && deaf.ws.send(JSON.stringify({ op: "ping" })), 100);
      try {
        await until(() => gone, 60_000);
      } finally {
        clearInterval(chatter);
      }
      expect(fine.ws.readyState).toBe(WebSocket.OPEN);
      await pingPong(fine);
      fine.ws.close();
    }, 120_000);
  });
});
