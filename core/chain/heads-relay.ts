/**
 * A WebSocket relay in front of a node's WebSocket for Ponder's new-heads subscription.
 *
 * Ponder 0.16 with `ws` learns of the chain's head only from `eth_subscribe("newHeads")`
 * notifications: until the next block is mined it never asks for the current head, so on an idle
 * chain (a devnet between transactions) the unfinalized tail (the last 30 blocks on 31337) stays
 * unindexed until a new block arrives (its HTTP polling asks for `latest` at once). The relay
 * passes every message through unchanged and, right after the node confirms a `newHeads`
 * subscription, sends the current head as that subscription's first notification: the tail is
 * indexed at once, and every later head arrives by push (no polling interval in the freshness).
 */
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

type Socket = {
  on(event: "message", fn: (data: Buffer) => void): void;
  on(event: "open" | "close", fn: () => void): void;
  on(event: "error", fn: (e: Error) => void): void;
  send(data: string): void;
  close(): void;
  readyState: number;
};
type WsModule = {
  WebSocket: new (url: string) => Socket;
  WebSocketServer: new (o: { host: string; port: number }) => {
    on(event: "connection", fn: (s: Socket) => void): void;
    on(event: "listening", fn: () => void): void;
    address(): AddressInfo;
  };
};

const HEAD_ID = "venue-relay-head";

/** Starts the relay on 127.0.0.1 (an ephemeral port) and resolves its ws:// URL. */
export async function startHeadsRelay(upstreamUrl: string): Promise<string> {
  // `ws` is Ponder's own WebSocket library (a dependency of ponder)
  const { WebSocket, WebSocketServer } = createRequire(import.meta.url)("ws") as WsModule;
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((r) => server.on("listening", r));
  server.on("connection", (client) => {
    const up = new WebSocket(upstreamUrl);
    const pending: string[] = [];
    const subscribeIds = new Set<unknown>();
    const subscriptions = new Set<string>();
    up.on("open", () => {
      for (const m of pending.splice(0)) up.send(m);
    });
    client.on("message", (data) => {
      const text = data.toString();
      try {
        const msg = JSON.parse(text) as { id?: unknown; method?: string; params?: unknown[] };
        if (msg.method === "eth_subscribe" && msg.params?.[0] === "newHeads") subscribeIds.add(msg.id);
      } catch {
        // passed through as is
      }
      if (up.readyState === 1) up.send(text);
      else pending.push(text);
    });
    up.on("message", (data) => {
      const text = data.toString();
      let msg: { id?: unknown; result?: unknown } | undefined;
      try {
        msg = JSON.parse(text) as { id?: unknown; result?: unknown };
      } catch {
        msg = undefined;
      }
      if (msg?.id === HEAD_ID) {
        // the current head, as the first notification of every newHeads subscription
        if (msg.result) for (const sub of subscriptions) client.send(JSON.stringify({ jsonrpc: "2.0", method: "eth_subscription", params: { subscription: sub, result: msg.result } }));
        return;
      }
      if (client.readyState === 1) client.send(text);
      if (msg && subscribeIds.has(msg.id) && typeof msg.result === "string") {
        subscribeIds.delete(msg.id);
        subscriptions.add(msg.result);
        up.send(JSON.stringify({ jsonrpc: "2.0", id: HEAD_ID, method: "eth_getBlockByNumber", params: ["latest", false] }));
      }
    });
    const closeBoth = () => {
      client.close();
      up.close();
    };
    client.on("close", closeBoth);
    up.on("close", closeBoth);
    client.on("error", closeBoth);
    up.on("error", closeBoth);
  });
  return `ws://127.0.0.1:${server.address().port}`;
}
