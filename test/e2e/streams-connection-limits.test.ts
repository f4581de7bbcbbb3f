/**
 * Issue 27 item 3: WebSocket connection limits count established connections only.
 *   - Upgrade requests the WebSocket handshake refuses (no Sec-WebSocket-Key: 400) do not count
 *     toward the client address's limit on the stream service.
 *   - Through the gateway's `/v1/ws` the client's handshake completes before the upstream one
 *     opens: malformed upgrades open no upstream connection and do not lock the API key out; an
 *     upstream connection closes when its client goes.
 *   - Behind a trusted proxy (TRUSTED_PROXIES) the stream service counts the client address from
 *     X-Forwarded-For, so one client does not lock out every anonymous one; from an untrusted
 *     peer the header is ignored.
 * Distinct source addresses (127.0.0.x, Linux loopback) keep each case's count its own.
 */
import { request } from "node:http";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, startGateway, startStreams, type Extra } from "./helpers/extra-services.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";


/** An upgrade request without Sec-WebSocket-Key; the HTTP status it is answered with. */
function malformedUpgrade(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", ...headers }, localAddress });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 101);
    });
    req.on("error", reject);
    req.end();
  });
}

/** A WebSocket that opened, or the HTTP status its upgrade was refused with. */
function open(url: string, o: { headers?: Record<string, string>; localAddress?: string } = {}): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: o.headers, localAddress: o.localAddress });
    ws.once("open", () => resolve(ws));
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once("error", reject);
  });
}

const closeAll = (xs: (WebSocket | number)[]) => xs.forEach((x) => typeof x !== "number" && x.terminate());
const connections = async (url: string) => ((await (await fetch(`${url}/stats`)).json()) as { data: { connections: number } }).data.connections;

async function until(pred: () => Promise<boolean>, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

describe.each([sharedStack()])("WebSocket connection limits on $kind", (s: StackInfo) => {
  const streamsWs = `${s.streamsUrl!.replace(/^http/, "ws")}/ws`;

  it.each([
    [20, "127.0.0.2"],
    [45, "127.0.0.3"],
  ])("%i upgrades without Sec-WebSocket-Key from one address (400) leave it able to connect", async (n, address) => {
    for (let i = 0; i < n; i++) expect(await malformedUpgrade(`${s.streamsUrl}/ws`, {}, address)).toBe(400);
    const ws = await open(streamsWs, { localAddress: address });
    expect(typeof ws === "number" ? `refused ${ws}` : "open").toBe("open");
    closeAll([ws]);
  });

  describe("through the gateway's /v1/ws", () => {
    // A stream service and a gateway of this case's own: the stream service's connection count is
    // then this case's alone. On the shared one, the market maker's stream (which reconnects when
    // dropped) and connections other cases just closed come and go while it counts.
    let streams: Extra;
    let gateway: Extra;
    let key = "";
    beforeAll(async () => {
      streams = await startStreams(s);
      gateway = await startGateway(s, { STREAMS_URL: streams.url });
      key = (await createKey(gateway.url, s.adminToken, s.wallets[6]!.address, "e2e-ws-limits")).key;
    }, 180_000);
    afterAll(async () => {
      await Promise.all([gateway?.proc.stop(), streams?.proc.stop()]);
    });

    it.each([20, 30])("%i malformed upgrades open no upstream connection and do not lock the key out", async (n) => {
      expect(await connections(streams.url)).toBe(0);
      for (let i = 0; i < n; i++) expect(await malformedUpgrade(gateway.url + "/v1/ws", { "X-API-Key": key })).toBe(400);
      expect(await connections(streams.url)).toBe(0);
      const ws = await open(gateway.ws, { headers: { "X-API-Key": key } });
      expect(typeof ws === "number" ? `refused ${ws}` : "open").toBe("open");
      expect(await until(async () => (await connections(streams.url)) === 1)).toBe(true);
      // the client goes without a close frame: its upstream connection goes too
      (ws as WebSocket).terminate();
      expect(await until(async () => (await connections(streams.url)) === 0)).toBe(true);
    });
  });

  describe("behind a trusted proxy", () => {
    let streams: Extra;
    const PER_ADDRESS = 2;
    beforeAll(async () => {
      streams = await startStreams(s, { TRUSTED_PROXIES: "127.0.0.1", STREAMS_MAX_CONNECTIONS_PER_KEY: String(PER_ADDRESS) });
    }, 180_000);
    afterAll(async () => {
      await streams?.proc.stop();
    });

    it("counts each forwarded client on its own: one at its limit does not lock out another", async () => {
      const held: (WebSocket | number)[] = [];
      try {
        for (let i = 0; i < PER_ADDRESS; i++) held.push(await open(streams.ws, { headers: { "X-Forwarded-For": "198.51.100.1" } }));
        expect(held.every((w) => typeof w !== "number")).toBe(true);
        expect(await open(streams.ws, { headers: { "X-Forwarded-For": "198.51.100.1" } })).toBe(429);
        // other clients behind the same proxy, each up to its own limit
        for (const client of ["198.51.100.2", "198.51.100.3"]) {
          for (let i = 0; i < PER_ADDRESS; i++) {
            const w = await open(streams.ws, { headers: { "X-Forwarded-For": `203.0.113.9, ${client}` } });
            held.push(w);
            expect(typeof w === "number" ? `refused ${w}` : "open").toBe("open");
          }
        }
      } finally {
        closeAll(held);
      }
    });

    it("ignores X-Forwarded-For from a peer that is not a trusted proxy", async () => {
      const held: (WebSocket | number)[] = [];
      try {
        for (let i = 0; i < PER_ADDRESS; i++) held.push(await open(streams.ws, { localAddress: "127.0.0.4", headers: { "X-Forwarded-For": `198.51.100.${10 + i}` } }));
        expect(held.every((w) => typeof w !== "number")).toBe(true);
        expect(await open(streams.ws, { localAddress: "127.0.0.4", headers: { "X-Forwarded-For": "198.51.100.99" } })).toBe(429);
      } finally {
        closeAll(held);
      }
    });
  });
});
