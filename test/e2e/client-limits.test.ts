/**
 * One client must not lock out others, and an oversized body is a 413 on a connection that stays
 * usable (issue 27, items 2 and 7).
 *
 * Item 2 runs a second read service on the stack's Ponder and relayer with a small per-client
 * limit and no trusted proxy (the profile's default): clients are told apart by their source
 * address (the client socket bound to 127.0.0.2, 127.0.0.3, …). Client A flooding
 * `GET /auth/nonce` past its limit is refused (429) while client B signs in, sends a write with
 * its token and reads a market's trades; a client naming a fresh `X-Forwarded-For` per request is
 * still counted as its own address; Ponder believes a client identity header only from a holder
 * of a service token.
 *
 * Item 7 sends 17 KB and 3 MB JSON bodies to the stack's read service (`POST /auth/login`,
 * `POST /accounts`) and to the gateway's `/v1` write routes over a keep-alive agent of one
 * socket: 413 PAYLOAD_TOO_LARGE in the envelope, then the same socket answers the next request.
 */
import http from "node:http";
import { createSiweMessage } from "viem/siwe";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReads, type Extra } from "./helpers/extra-services.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";


type Reply = { status: number; body: { success: boolean; data?: any; error?: { code: string; message: string } }; socketPort: number }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One HTTP request from a chosen source address (and agent), answering the parsed envelope. */
function request(
  base: string,
  method: string,
  path: string,
  o: { from?: string; agent?: http.Agent; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(o.body));
    }
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, localAddress: o.from, agent: o.agent ?? false },
      (res) => {
        const socketPort = res.socket.localPort!;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          try {
            resolve({ status: res.statusCode!, body: JSON.parse(text), socketPort });
          } catch {
            reject(new Error(`${method} ${path}: ${res.statusCode} non-JSON answer: ${text.slice(0, 200)}`));
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(o.body);
  });
}

describe.each([sharedStack()])("one client does not lock out others ($kind)", (s: StackInfo) => {
  const LIMIT = 30;
  let reads: Extra | undefined;
  let base = "";

  beforeAll(async () => {
    // the profile's default: no proxy is trusted, the socket peer is the client
    reads = await startReads(s, { RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUSTED_PROXIES: "" });
    base = reads.url;
  }, 150_000);

  afterAll(async () => {
    await reads?.proc.stop();
  });

  /** Sign-in of a wallet from a source address: the bearer token. */
  async function signInFrom(from: string, privateKey: `0x${string}`): Promise<{ token: string; statuses: number[] }> {
    const account = privateKeyToAccount(privateKey);
    const n = await request(base, "GET", "/auth/nonce", { from });
    expect(n.status, JSON.stringify(n.body)).toBe(200);
    const message = createSiweMessage({ address: account.address, chainId: s.chainId, domain: new URL(base).host, nonce: n.body.data.nonce, uri: base, version: "1" });
    const login = await request(base, "POST", "/auth/login", { from, body: JSON.stringify({ message, signature: await account.signMessage({ message }) }) });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    return { token: login.body.data.token, statuses: [n.status, login.status] };
  }

  /** Requests until the first 429 (at most `max`): how many were answered before it, or null. */
  async function flood(max: number, send: (i: number) => Promise<Reply>): Promise<{ answered: number; refused: Reply | null }> {
    for (let i = 0; i < max; i++) {
      const r = await send(i);
      if (r.status === 429) return { answered: i, refused: r };
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    return { answered: max, refused: null };
  }

  it("client A flooding GET /auth/nonce is refused; client B's sign-in, write and trades still answer", async () => {
    const A = s.kind === "postgres" ? "127.0.0.12" : "127.0.0.2";
    const B = s.kind === "postgres" ? "127.0.0.13" : "127.0.0.3";
    const a = await flood(LIMIT + 10, () => request(base, "GET", "/auth/nonce", { from: A }));
    expect(a.refused, `client A sent ${LIMIT + 10} nonce requests over a limit of ${LIMIT} and was never refused`).not.toBeNull();
    expect(a.answered).toBeLessThanOrEqual(LIMIT);
    expect(a.refused!.body.error!.code).toBe("RATE_LIMITED");
    // A stays refused …
    expect((await request(base, "GET", "/auth/nonce", { from: A })).status).toBe(429);
    // … and B is not: sign-in, a write with its token (answered by the relayer), a history read
    const wallet = s.wallets[7]!;
    const { token } = await signInFrom(B, wallet.privateKey as `0x${string}`);
    const auth = { Authorization: `Bearer ${token}` };
    const write = await request(base, "POST", `/transactions/req_${Date.now().toString(36)}/cancel`, { from: B, headers: auth });
    expect(write.status, JSON.stringify(write.body)).toBe(404);
    expect(write.body.error!.code).toBe("TRANSACTION_NOT_FOUND");
    const market = s.deployment.markets[0]!.marketId;
    const trades = await request(base, "GET", `/markets/${market}/trades`, { from: B });
    expect(trades.status, JSON.stringify(trades.body)).toBe(200);
    const session = await request(base, "GET", "/auth/session", { from: B, headers: auth });
    expect(session.status).toBe(200);
    expect(session.body.data.address.toLowerCase()).toBe(wallet.address.toLowerCase());
  });

  it("a client naming a fresh X-Forwarded-For (or X-Venue-Client) per request is counted as its own address", async () => {
    for (const [i, header] of (["X-Forwarded-For", "X-Venue-Client"] as const).entries()) {
      const C = `127.0.0.${(s.kind === "postgres" ? 14 : 4) + 20 * i}`;
      const forged = (n: number) => (header === "X-Forwarded-For" ? `203.0.113.${n % 250}, 198.51.100.${n % 250}` : `ip:203.0.113.${n % 250}`);
      const c = await flood(LIMIT + 10, (n) => request(base, "GET", "/auth/nonce", { from: C, headers: { [header]: forged(n) } }));
      expect(c.refused, `a client forging ${header} sent ${LIMIT + 10} requests over a limit of ${LIMIT} and was never refused`).not.toBeNull();
      expect(c.answered).toBeLessThanOrEqual(LIMIT);
    }
  });

  it("Ponder believes X-Venue-Client only beside a service token: forged per request, the typed-data limit still counts the address", async () => {
    const owner = s.wallets[3]!.address;
    // the stack trusts loopback as a proxy: X-Forwarded-For names a client of our own
    const client = `198.51.100.${s.kind === "postgres" ? 78 : 77}`;
    const d = await flood(40, (n) =>
      request(s.indexerUrl, "GET", `/operators/typed-data?owner=${owner}`, { headers: { "X-Forwarded-For": client, "X-Venue-Client": `ip:192.0.2.${n}` } }),
    );
    expect(d.refused).not.toBeNull();
    expect(d.answered).toBe(30);
  });
});

describe.each([sharedStack()])("an oversized body is 413 and the connection stays usable ($kind)", (s: StackInfo) => {
  const sizes = [17 * 1024, 3 * 1024 * 1024];
  const bodyOf = (bytes: number) => JSON.stringify({ message: "x".repeat(bytes), signature: "0x" });

  async function oversizedThenNext(base: string, path: string, headers: Record<string, string>, next: string) {
    for (const bytes of sizes) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const r = await request(base, "POST", path, { agent, headers, body: bodyOf(bytes) });
        expect(r.status, `${path} with ${bytes} bytes: ${JSON.stringify(r.body)}`).toBe(413);
        expect(r.body).toMatchObject({ success: false, error: { code: "PAYLOAD_TOO_LARGE" } });
        const after = await request(base, "GET", next, { agent, headers });
        expect(after.status, JSON.stringify(after.body)).toBe(200);
        expect(after.socketPort, "the next request went on the same connection").toBe(r.socketPort);
      } finally {
        agent.destroy();
      }
    }
  }

  it("integration API (through the read service): POST /auth/login and POST /accounts", async () => {
    await oversizedThenNext(s.integrationUrl, "/auth/login", {}, "/markets");
    await oversizedThenNext(s.integrationUrl, "/accounts", { Authorization: "Bearer x.y.z" }, "/markets");
  });

  it("gateway /v1 write routes", async () => {
    expect(s.gatewayUrl, "the stack runs a gateway").toBeTruthy();
    const key = s.wallets[5]!.apiKey!;
    expect(key).toBeTruthy();
    const account = s.wallets[5]!.accountId ?? "1";
    for (const path of ["/v1/accounts/create", `/v1/accounts/${account}/deposit`, `/v1/accounts/${account}/trade`]) {
      await oversizedThenNext(s.gatewayUrl!, path, { "X-API-Key": key }, "/v1/markets");
    }
  });
});
