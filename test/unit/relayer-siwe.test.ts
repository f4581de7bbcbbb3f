import { describe, expect, it } from "vitest";
import { createSiweMessage } from "viem/siwe";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { checkNonce, issueNonce, issueToken, login, verifyToken } from "../../core/auth/siwe.js";

const secret = "unit-test-secret-0123456789";
const wallet = privateKeyToAccount(generatePrivateKey());

async function signedMessage(o: { nonce: string; domain?: string; chainId?: number; expirationTime?: Date }) {
  const message = createSiweMessage({
    address: wallet.address, chainId: o.chainId ?? 31337, domain: o.domain ?? "api.test", nonce: o.nonce,
    uri: "https://api.test/login", version: "1", expirationTime: o.expirationTime,
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
    const t = await login(message, signature, { secret, domains: ["api.test"], chainId: 31337 });
    expect(t.address).toBe(wallet.address);
    const v = await verifyToken(secret, t.token);
    expect(v.address).toBe(wallet.address);
  });

  it("login refuses: wrong domain, wrong chain, foreign nonce, expired message, signature of another message", async () => {
    const { nonce } = issueNonce(secret);
    const o = { secret, domains: ["api.test"], chainId: 31337 };
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

  it("tokens: expired or forged → UNAUTHENTICATED", async () => {
    const old = await issueToken(secret, wallet.address, 60, new Date(Date.now() - 120_000));
    await expect(verifyToken(secret, old.token)).rejects.toMatchObject({ code: "UNAUTHENTICATED", message: expect.stringContaining("expired") });
    const t = await issueToken(secret, wallet.address);
    await expect(verifyToken("another-secret-xxxxxxxx", t.token)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    await expect(verifyToken(secret, "not.a.jwt")).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
  });
});
