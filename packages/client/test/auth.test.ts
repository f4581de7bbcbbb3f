import { describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { parseSiweMessage, verifySiweMessage } from "viem/siwe";
import { createPublicClient, http, hexToString, type EIP1193Provider } from "viem";
import { VenueClient } from "../src/client.js";
import { fakeFetch, ok, on, type Call } from "./fakes.js";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const base = "http://127.0.0.1:24069";

function authServer(ttl: number, now: () => number) {
  let n = 0;
  const logins: { message: string; signature: `0x${string}` }[] = [];
  const f = fakeFetch([
    { match: on("GET", "/auth/nonce"), repeat: true, reply: () => ok({ nonce: `nonce${++n}abcdefgh`, issuedAtISO: "", expiresAtISO: "", domain: null, uri: null, chainId: 31337, version: "1" }) },
    {
      match: on("POST", "/auth/login"), repeat: true,
      reply: (c: Call) => {
        logins.push(c.body as { message: string; signature: `0x${string}` });
        const address = parseSiweMessage((c.body as { message: string }).message).address!;
        return ok({ token: `tok${logins.length}`, tokenType: "Bearer", address, expiresAt: now() + ttl, expiresAtISO: "", expiresIn: ttl });
      },
    },
    { match: on("POST", "/accounts/1/deposit"), repeat: true, reply: ok({ requestId: "r", transactionHash: "0x1", transactionStatus: "CONFIRMED", blockNumber: 0, confirmations: 1, final: true }, 200) },
  ]);
  return { ...f, logins };
}

describe("sign-in with Ethereum", () => {
  it("signs a valid EIP-4361 message with a local account, and signs in again before expiry", async () => {
    let t = 1_800_000_000;
    const s = authServer(900, () => t);
    const account = privateKeyToAccount(KEY);
    const c = new VenueClient({ baseUrl: base, fetch: s.fetch, signer: account, session: { now: () => t, timers: false } });
    const seen: string[] = [];
    c.on("signedIn", (x) => seen.push(x.token));
    await c.deposit(1, 5n, { wait: "mined" });
    expect(s.logins).toHaveLength(1);
    const { message, signature } = s.logins[0]!;
    const parsed = parseSiweMessage(message);
    expect(parsed).toMatchObject({ address: account.address, chainId: 31337, domain: "127.0.0.1:24069", uri: "http://127.0.0.1:24069", nonce: "nonce1abcdefgh", version: "1" });
    const pc = createPublicClient({ transport: http("http://127.0.0.1:1") });
    expect(await verifySiweMessage(pc, { message, signature })).toBe(true);
    expect(s.calls.find((x) => x.path === "/accounts/1/deposit")!.headers.authorization).toBe("Bearer tok1");

    t += 800; // 100 s left (> 60): the same token
    await c.deposit(1, 5n, { wait: "mined" });
    expect(s.logins).toHaveLength(1);
    t += 50; // 50 s left: a local account signs in again by itself
    await c.deposit(1, 5n, { wait: "mined" });
    expect(s.logins).toHaveLength(2);
    expect(s.calls.filter((x) => x.path === "/accounts/1/deposit").map((x) => x.headers.authorization)).toEqual(["Bearer tok1", "Bearer tok1", "Bearer tok2"]);
    expect(seen).toEqual(["tok1", "tok2"]);
  });

  it("an EIP-1193 wallet signs with personal_sign; near expiry the client emits sessionExpiring instead", async () => {
    let t = 1_800_000_000;
    const s = authServer(900, () => t);
    const account = privateKeyToAccount(KEY);
    const requests: string[] = [];
    const wallet = {
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        requests.push(method);
        if (method === "eth_requestAccounts") return [account.address];
        if (method === "personal_sign") return account.signMessage({ message: hexToString(params![0] as `0x${string}`) });
        throw new Error(method);
      },
    } as unknown as EIP1193Provider;
    const c = new VenueClient({ baseUrl: base, fetch: s.fetch, signer: wallet, session: { now: () => t, timers: false } });
    const expiring: number[] = [];
    c.on("sessionExpiring", (e) => expiring.push(e.secondsLeft));
    await c.signIn();
    expect(requests).toEqual(["eth_requestAccounts", "personal_sign"]);
    const pc = createPublicClient({ transport: http("http://127.0.0.1:1") });
    expect(await verifySiweMessage(pc, s.logins[0]!)).toBe(true);
    t += 870; // 30 s left
    await c.deposit(1, 5n, { wait: "mined" });
    t += 5;
    await c.deposit(1, 5n, { wait: "mined" });
    expect(expiring).toEqual([30]); // once per token
    expect(s.logins).toHaveLength(1); // the wallet is never asked by itself
    t += 40; // expired
    await expect(c.deposit(1, 5n, { wait: "mined" })).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
  });
});
