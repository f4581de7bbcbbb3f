import { describe, expect, it } from "vitest";
import { createSiweMessage } from "viem/siwe";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { checkNonce, issueNonce, issueToken, login, siweConfig, verifyToken } from "../../core/auth/siwe.js";
import { MemoryNonceStore } from "../../core/auth/nonce-store.js";

const secret = "unit-test-secret-0123456789";
const wallet = privateKeyToAccount(generatePrivateKey());

async function signedMessage(o: { nonce: string; domain?: string; uri?: string; chainId?: number; expirationTime?: Date }) {
  const message = createSiweMessage({
    address: wallet.address, chainId: o.chainId ?? 31337, domain: o.domain ?? "api.test", nonce: o.nonce,
    uri: o.uri ?? "https://api.test/login", version: "1", expirationTime: o.expirationTime,
  });
  return { message, signature: await wallet.signMessage({ message }) };
}

describe("SIWE nonces and tokens", () => {
  it("nonce: alphanumeric, signed, expires", () => {
    const now = 1_800_000_000;
    const { nonce } = issueNonce(secret, now, 300);
    expect(nonce).toMatch(/^[0-9a-z]{56}$/);
    expect(checkNonce(secret, nonce, now + 299)).toBe(true);
    expect(checkNonce(secret, nonce, now + 301)).toBe(false);
    expect(checkNonce("other-secret", nonce, now)).toBe(false);
    const forged = nonce.slice(0, 8).replace(/.$/, (c) => (c === "z" ? "y" : "z")) + nonce.slice(8);
    expect(checkNonce(secret, forged, now)).toBe(false);
  });

  it("login: a signed message gives a token for its wallet", async () => {
    const { nonce } = issueNonce(secret);
    const { message, signature } = await signedMessage({ nonce });
    const t = await login(message, signature, { secret, domains: ["api.test"], origins: ["https://api.test"], chainId: 31337, nonces: new MemoryNonceStore() });
    expect(t.address).toBe(wallet.address);
    const v = await verifyToken(secret, t.token);
    expect(v.address).toBe(wallet.address);
  });

  it("login refuses: wrong domain, wrong chain, foreign nonce, expired message, signature of another message", async () => {
    const { nonce } = issueNonce(secret);
    const o = { secret, domains: ["api.test"], origins: ["https://api.test"], chainId: 31337, nonces: new MemoryNonceStore() };
    const wrongDomain = await signedMessage({ nonce, domain: "evil.test" });
    await expect(login(wrongDomain.message, wrongDomain.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    const wrongChain = await signedMessage({ nonce, chainId: 1 });
    await expect(login(wrongChain.message, wrongChain.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    const foreign = await signedMessage({ nonce: issueNonce("other-secret").nonce });
    await expect(login(foreign.message, foreign.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    const expired = await signedMessage({ nonce, expirationTime: new Date(Date.now() - 1000) });
    await expect(login(expired.message, expired.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    const good = await signedMessage({ nonce });
    const other = await signedMessage({ nonce: issueNonce(secret).nonce });
    await expect(login(good.message, other.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
  });

  it("login refuses a forged domain, a wrong URI and a replayed nonce", async () => {
    const o = { secret, domains: ["app.venue.test"], origins: ["https://app.venue.test"], chainId: 31337, nonces: new MemoryNonceStore() };
    const forged = await signedMessage({ nonce: issueNonce(secret).nonce, domain: "evil.test", uri: "https://app.venue.test/" });
    await expect(login(forged.message, forged.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED", message: expect.stringContaining("domain evil.test") });
    const wrongUri = await signedMessage({ nonce: issueNonce(secret).nonce, domain: "app.venue.test", uri: "https://evil.test/login" });
    await expect(login(wrongUri.message, wrongUri.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED", message: expect.stringContaining("URI https://evil.test") });
    const good = await signedMessage({ nonce: issueNonce(secret).nonce, domain: "app.venue.test", uri: "https://app.venue.test/login" });
    await expect(login(good.message, good.signature, o)).resolves.toMatchObject({ address: wallet.address });
    await expect(login(good.message, good.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED", message: expect.stringContaining("already used") });
  });

  it("without configuration (local profile) only loopback domains and URIs sign in", async () => {
    const o = { ...siweConfig({}), secret, nonces: new MemoryNonceStore() };
    expect(o).toMatchObject({ domains: [], origins: [], chainId: 31337 });
    const local = await signedMessage({ nonce: issueNonce(secret).nonce, domain: "localhost:5173", uri: "http://localhost:5173/" });
    await expect(login(local.message, local.signature, o)).resolves.toMatchObject({ address: wallet.address });
    const remote = await signedMessage({ nonce: issueNonce(secret).nonce, domain: "evil.test", uri: "http://127.0.0.1:42069/" });
    await expect(login(remote.message, remote.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    const remoteUri = await signedMessage({ nonce: issueNonce(secret).nonce, domain: "127.0.0.1:42069", uri: "https://evil.test/" });
    await expect(login(remoteUri.message, remoteUri.signature, o)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
  });

  it("SIWE_DOMAINS and SIWE_URI_ORIGINS are required outside local", () => {
    expect(() => siweConfig({ PROFILE: "production" })).toThrow(/SIWE_DOMAINS and SIWE_URI_ORIGINS must be set/);
    expect(() => siweConfig({ PROFILE: "production", SIWE_DOMAINS: "app.venue.example" })).toThrow(/SIWE_URI_ORIGINS must be set/);
    expect(siweConfig({ PROFILE: "production", SIWE_DOMAINS: "app.venue.example", SIWE_URI_ORIGINS: "https://app.venue.example/" }))
      .toMatchObject({ domains: ["app.venue.example"], origins: ["https://app.venue.example"] });
  });

  it("tokens: expired or forged → UNAUTHENTICATED", async () => {
    const old = await issueToken(secret, wallet.address, 60, new Date(Date.now() - 120_000));
    await expect(verifyToken(secret, old.token)).rejects.toMatchObject({ code: "UNAUTHENTICATED", message: expect.stringContaining("expired") });
    const t = await issueToken(secret, wallet.address);
    await expect(verifyToken("another-secret-xxxxxxxx", t.token)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    await expect(verifyToken(secret, "not.a.jwt")).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
  });
});
