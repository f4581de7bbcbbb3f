/**
 * `/v1/ws`: the stream service behind the API key, in snake_case. The key comes in the upgrade's
 * `X-API-Key` header (a bad one is refused with 401 before the upgrade) or, for browsers (which
 * cannot set headers), in the first message: `{"op":"auth","api_key":"vgw_…"}` within 10 s.
 * Once the client's handshake is complete (never before: a malformed upgrade opens nothing), the
 * gateway opens the stream service's `/ws` with its internal token and the key's wallet and id
 * (the stream service limits connections per key and checks account ownership by that wallet)
 * and relays messages both ways; a refusal there (e.g. the key's connection limit) reaches the
 * client as an `error` message and a close, and the upstream connection ends with the client's.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import WebSocket, { WebSocketServer } from "ws";
import type { KeyRevocations } from "../../core/auth/key-revocations.js";
import { WS_CLOSE } from "../../core/ws/close-codes.js";
import { sendBounded } from "../../core/ws/send-buffer.js";
import type { ApiKeyIdentity, KeyStore } from "./keys.js";

const AUTH_WAIT_MS = 10_000;

function refuse(socket: Duplex, status: number, code: string, message: string) {
  const body = JSON.stringify({ success: false, error: { code, message } });
  const reason = { 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests", 502: "Bad Gateway" }[status] ?? "Error";
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

type Log = { warn: (o: object, m: string) => void };

/** How often the keys of open sockets are checked again (a revocation on a replica without a shared Redis; the key cache bounds it). */
const RECHECK_MS = 1_000;
/** The gateway pings its clients this often; one that answered no ping since the last is dropped. */
const PING_INTERVAL_MS = 30_000;

export function attachWebSocket(server: Server, o: { keys: KeyStore; streamsUrl: string; gatewayToken: string; revocations?: KeyRevocations; maxBufferBytes: number; log: Log }) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 });
  // liveness by pongs (the stream service pings the gateway's upstream connection, not the client)
  const answered = new WeakSet<WebSocket>();
  wss.on("connection", (client) => {
    answered.add(client);
    client.on("pong", () => answered.add(client));
  });
  const ping = setInterval(() => {
    for (const client of wss.clients) {
      if (!answered.has(client)) {
        client.terminate();
        continue;
      }
      answered.delete(client);
      client.ping();
    }
  }, PING_INTERVAL_MS);
  ping.unref();
  const upstreamUrl = `${o.streamsUrl.replace(/^http/, "ws")}/ws`;

  /** The stream service's connection for a key; rejects with the status and body it refused with. */
  const connect = (id: ApiKeyIdentity) =>
    new Promise<WebSocket>((resolve, reject) => {
      const up = new WebSocket(upstreamUrl, { headers: { "X-Internal-Token": o.gatewayToken, "X-Venue-Wallet": id.wallet, "X-Venue-Key-Id": id.keyId } });
      up.once("open", () => resolve(up));
      up.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => reject({ status: res.statusCode ?? 502, body }));
      });
      up.once("error", () => reject({ status: 502, body: JSON.stringify({ success: false, error: { code: "UPSTREAM_ERROR", message: "the stream service is unavailable; retry" } }) }));
    });

  /** The open clients by key id, with their clear key (checked again now and then). */
  const byKey = new Map<string, Map<WebSocket, string>>();
  const track = (client: WebSocket, id: ApiKeyIdentity, key: string) => {
    const set = byKey.get(id.keyId) ?? new Map<WebSocket, string>();
    byKey.set(id.keyId, set.set(client, key));
    client.once("close", () => {
      set.delete(client);
      if (set.size === 0 && byKey.get(id.keyId) === set) byKey.delete(id.keyId);
    });
  };
  /** A revoked key's sockets: an `error` message, then close 4401 (their upstream connections close with them). */
  const closeKey = (keyId: string) => {
    for (const client of byKey.get(keyId)?.keys() ?? []) {
      if (client.readyState !== client.OPEN) continue;
      client.send(JSON.stringify({ type: "error", code: "UNAUTHENTICATED", message: "the API key was revoked" }));
      client.close(WS_CLOSE.UNAUTHENTICATED, "API key revoked");
    }
  };
  o.revocations?.subscribe(closeKey);
  // without a shared Redis a revocation on another replica reaches this one through the key store
  const recheck = setInterval(() => {
    for (const [keyId, clients] of byKey) {
      const key = clients.values().next().value;
      if (key === undefined || o.keys.cachedIdentity(key)) continue;
      o.keys.verify(key).then((id) => id === null && closeKey(keyId), (e) => o.log.warn({ err: String(e) }, "ws key check"));
    }
  }, RECHECK_MS);
  recheck.unref();

  const pipe = (client: WebSocket, up: WebSocket) => {
    // a client that does not read is closed past its send buffer (1008 "slow consumer"), its upstream with it
    up.on("message", (data, isBinary) => {
      if (!sendBounded(client, data as Buffer, o.maxBufferBytes, isBinary)) up.terminate();
    });
    client.on("message", (data, isBinary) => up.readyState === up.OPEN && up.send(data, { binary: isBinary }));
    const end = () => {
      if (up.readyState === up.OPEN || up.readyState === up.CONNECTING) up.terminate();
      if (client.readyState === client.OPEN) client.close(1001, "stream closed");
    };
    client.on("close", end);
    client.on("error", end);
    up.on("close", (code, reason) => client.readyState === client.OPEN && client.close(code === 1005 || code === 1006 ? 1011 : code, reason.toString() || "stream closed"));
    up.on("error", end);
  };

  /**
   * The client's handshake is complete: open the stream service's connection for the key. What the
   * client sends meanwhile is passed on after; a client gone meanwhile closes the upstream one; a
   * refusal reaches the client as an `error` message and a close (1013 when it may retry).
   */
  const attach = async (client: WebSocket, id: ApiKeyIdentity, key: string, greet: boolean) => {
    const early: WebSocket.RawData[] = [];
    const hold = (d: WebSocket.RawData) => early.push(d);
    client.on("message", hold);
    let up: WebSocket;
    try {
      up = await connect(id);
    } catch (e) {
      const { status, body } = e as { status: number; body: string };
      const err = (() => {
        try {
          return (JSON.parse(body) as { error: { code: string; message: string } }).error;
        } catch {
          return { code: "UPSTREAM_ERROR", message: "the stream service is unavailable; retry" };
        }
      })();
      if (client.readyState !== client.OPEN) return;
      client.send(JSON.stringify({ type: "error", ...err }));
      const retry = status === 429 || status >= 500;
      client.close(retry ? WS_CLOSE.TRY_AGAIN_LATER : WS_CLOSE.POLICY, status === 429 ? "too many connections" : retry ? "try again later" : "refused");
      return;
    }
    client.off("message", hold);
    if (client.readyState !== client.OPEN) return up.terminate(); // the client went while it opened
    pipe(client, up);
    track(client, id, key);
    if (greet) client.send(JSON.stringify({ type: "authenticated", wallet: id.wallet }));
    for (const d of early) up.send(d, { binary: false });
  };

  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const key = req.headers["x-api-key"];
    if (typeof key === "string" && key !== "") {
      const id = await o.keys.verify(key);
      if (!id) return refuse(socket, 401, "UNAUTHENTICATED", "invalid or revoked API key");
      // the client's handshake first (a malformed one is answered 400 here and opens nothing upstream)
      wss.handleUpgrade(req, socket, head, (client) => void attach(client, id, key, false));
      return;
    }
    // browsers: the key in the first message
    wss.handleUpgrade(req, socket, head, (client) => {
      const fail = (message: string) => {
        client.send(JSON.stringify({ type: "error", code: "UNAUTHENTICATED", message }));
        client.close(1008, "unauthenticated");
      };
      const timer = setTimeout(() => fail(`send {"op":"auth","api_key":"…"} first (within ${AUTH_WAIT_MS / 1000} s), or the key in the X-API-Key header of the upgrade`), AUTH_WAIT_MS);
      client.once("message", async (data) => {
        clearTimeout(timer);
        // what the client sends while the key is checked is passed on after it
        const early: WebSocket.RawData[] = [];
        const hold = (d: WebSocket.RawData) => early.push(d);
        client.on("message", hold);
        let m: { op?: unknown; api_key?: unknown };
        try {
          m = JSON.parse(data.toString());
        } catch {
          return fail('the first message must be {"op":"auth","api_key":"…"}');
        }
        if (m?.op !== "auth" || typeof m.api_key !== "string") return fail('the first message must be {"op":"auth","api_key":"…"}');
        const id = await o.keys.verify(m.api_key);
        client.off("message", hold);
        if (!id) return fail("invalid or revoked API key");
        const attached = attach(client, id, m.api_key, true);
        for (const d of early) client.emit("message", d, false);
        await attached;
      });
    });
  };

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {});
    if ((req.url ?? "").split("?")[0] !== "/v1/ws") return refuse(socket, 404, "NOT_FOUND", "WebSocket upgrades are served at /v1/ws");
    onUpgrade(req, socket, head).catch((e) => {
      o.log.warn({ err: String(e) }, "ws upgrade");
      socket.destroy();
    });
  });
  return {
    close: () => {
      clearInterval(recheck);
      clearInterval(ping);
      wss.close();
    },
  };
}
