/**
 * Issue 27 item 4: a revoked API key and an expired sign-in token lose their streams.
 *   - Revoking a key (the gateway's DELETE /admin/keys/:key_id) closes every socket of that key
 *     with 4401 and a reason: on the gateway it was revoked through, on every other gateway and
 *     stream replica sharing the Redis (REDIS_URL, 127.0.0.1:6379): the revocation is published
 *     there. Other keys' sockets stay open.
 *   - A sign-in token's expiry closes its connection with 4401 (token in the upgrade's
 *     Authorization header, or sent with {"op":"auth"}). Tokens are issued with a lifetime of a
 *     few seconds (issueToken's ttl), nothing waits on wall-clock time to assert an absence.
 * Two stream replicas R1, R2 and a gateway G1 → R1 on one Redis; the socket on R2 is opened as a
 * gateway opens it (its service token, the key's wallet and id). On Postgres a second gateway
 * G2 → R2 shares G1's key store and carries a socket of the key too.
 */
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../core/auth/siwe.js";
import { createKey, startGateway, startStreams, type Extra } from "./helpers/extra-services.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";

const REDIS_URL = "redis://127.0.0.1:6379";
/** A liveness bound (the goal is 2 s; this is 10× that, for a loaded machine). */
const CLOSE_BOUND_MS = 20_000;

type Msg = Record<string, unknown>;
type Sock = { ws: WebSocket; messages: Msg[]; closed: Promise<{ code: number; reason: string }> };

function connect(url: string, headers: Record<string, string> = {}): Promise<Sock> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const messages: Msg[] = [];
    ws.on("message", (d) => messages.push(JSON.parse(d.toString()) as Msg));
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once("close", (code, reason) => r({ code, reason: reason.toString() })));
    ws.once("open", () => resolve({ ws, messages, closed }));
    ws.once("unexpected-response", (_q, res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => reject(new Error(`upgrade refused: ${res.statusCode} ${body}`)));
    });
    ws.once("error", reject);
  });
}

async function until(pred: () => boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Subscribes to the transactions channel (a private one) and waits for its ack. */
async function subscribePrivate(s: Sock, channel = "transactions") {
  s.ws.send(JSON.stringify({ op: "subscribe", channel, id: "priv" }));
  await until(() => s.messages.some((m) => m.type === "subscribed" && m.id === "priv") || s.messages.some((m) => m.type === "error"));
  expect(s.messages.find((m) => m.type === "error")).toBeUndefined();
}

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<never>((_r, rej) => setTimeout(() => rej(new Error(`not within ${ms} ms`)), ms))]);

describe.each([sharedStack()])("revoked keys and expired tokens on $kind", (s: StackInfo) => {
  const extras: Extra[] = [];
  let r1: Extra, r2: Extra, g1: Extra;
  let g2: Extra | undefined;
  const wallet = s.wallets[7]!.address.toLowerCase();

  beforeAll(async () => {
    [r1, r2] = await Promise.all([startStreams(s, { REDIS_URL }), startStreams(s, { REDIS_URL })]);
    extras.push(r1, r2);
    const schema = `gw_revoke_${Date.now().toString(36)}`;
    g1 = await startGateway(s, { REDIS_URL, STREAMS_URL: r1.url, GATEWAY_DB_SCHEMA: schema });
    extras.push(g1);
    if (s.databaseUrl) {
      g2 = await startGateway(s, { REDIS_URL, STREAMS_URL: r2.url, GATEWAY_DB_SCHEMA: schema });
      extras.push(g2);
    }
  }, 300_000);
  afterAll(async () => {
    await Promise.all(extras.map((e) => e.proc.stop()));
  });

  it("revoking a key closes its sockets on every gateway and stream replica with 4401; other keys' stay", async () => {
    const doomed = await createKey(g1.url, s.adminToken, wallet, "e2e-revoked");
    const kept = await createKey(g1.url, s.adminToken, wallet, "e2e-kept");
    const viaG1 = await connect(g1.ws, { "X-API-Key": doomed.key });
    // as a gateway opens it: the service token, the key's wallet and id
    const onR2 = await connect(r2.ws, { "X-Internal-Token": s.internalToken, "X-Venue-Wallet": wallet, "X-Venue-Key-Id": doomed.keyId });
    const viaG2 = g2 ? await connect(g2.ws, { "X-API-Key": doomed.key }) : undefined;
    const other = await connect(g1.ws, { "X-API-Key": kept.key });
    const doomedSocks = [viaG1, onR2, ...(viaG2 ? [viaG2] : [])];
    for (const x of [...doomedSocks, other]) await subscribePrivate(x);

    const res = await fetch(`${g1.url}/admin/keys/${doomed.keyId}`, { method: "DELETE", headers: { "X-Admin-Token": s.adminToken } });
    expect(res.status).toBe(200);
    for (const x of doomedSocks) {
      const { code, reason } = await within(x.closed, CLOSE_BOUND_MS);
      expect(code).toBe(4401);
      expect(reason).toMatch(/revoked/);
    }
    // the other key's socket still works
    other.ws.send(JSON.stringify({ op: "ping" }));
    await until(() => other.messages.some((m) => m.type === "pong"));
    expect(other.ws.readyState).toBe(WebSocket.OPEN);
    other.ws.close();
    // and the revoked key cannot open a new one
    await expect(connect(g1.ws, { "X-API-Key": doomed.key })).rejects.toThrow(/401/);
  }, 120_000);

  it.each([
    ["in the upgrade's Authorization header", "header"],
    ["sent with {\"op\":\"auth\"}", "op"],
  ])("a sign-in token's expiry closes its connection with 4401 (token %s)", async (_label, how) => {
    const TTL_SECONDS = 3;
    const { token, expiresAt } = await issueToken(s.jwtSecret, s.wallets[7]!.address, TTL_SECONDS);
    const sock = how === "header" ? await connect(r1.ws, { Authorization: `Bearer ${token}` }) : await connect(r1.ws);
    if (how === "op") {
      sock.ws.send(JSON.stringify({ op: "auth", token }));
      await until(() => sock.messages.some((m) => m.type === "authenticated" || m.type === "error"));
      expect(sock.messages.find((m) => m.type === "error")).toBeUndefined();
    }
    await subscribePrivate(sock);
    const { code, reason } = await within(sock.closed, TTL_SECONDS * 1000 + 60_000);
    expect(code).toBe(4401);
    expect(reason).toMatch(/expired/);
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(expiresAt - 1); // not before its expiry (second resolution)
  }, 120_000);
});
