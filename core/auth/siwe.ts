/**
 * Sign-In with Ethereum (EIP-4361) for the integration API: the nonce carries its own expiry and
 * an HMAC (JWT_SECRET), and a verified message buys a short-lived HS256 JWT whose subject is the
 * wallet. A nonce signs in once (used nonces are stored until they expire: core/auth/nonce-store.ts).
 * The message's domain and URI must be configured ones (`SIWE_DOMAINS`, `SIWE_URI_ORIGINS`),
 * never the request's Host. EOA signatures only (no ERC-1271 contract wallets).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import { getAddress, verifyMessage, type Address, type Hex } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { ApiError } from "../errors.js";
import { LOCAL_CHAIN_ID } from "../config.js";
import { profileFromEnv } from "../profiles.js";
import type { NonceStore } from "./nonce-store.js";

export const NONCE_TTL_SECONDS = 300;
export const TOKEN_TTL_SECONDS = 900;
const ISSUER = "venue-integration-api";
const EXPIRY_DIGITS = 8; // base36 seconds, zero-padded (good until year 2087+)

const hmac = (secret: string, data: string) => createHmac("sha256", secret).update(`siwe-nonce:${data}`).digest("hex").slice(0, 32);

/** A fresh nonce: <expiry base36><16 random hex><hmac>, alphanumeric as EIP-4361 requires. */
export function issueNonce(secret: string, nowSeconds = Math.floor(Date.now() / 1000), ttlSeconds = NONCE_TTL_SECONDS) {
  const expiresAt = nowSeconds + ttlSeconds;
  const body = expiresAt.toString(36).padStart(EXPIRY_DIGITS, "0") + randomBytes(8).toString("hex");
  return { nonce: body + hmac(secret, body), expiresAt };
}

/** true when `nonce` was issued with `secret` and has not expired. */
export function checkNonce(secret: string, nonce: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  if (!/^[0-9a-z]{56}$/.test(nonce)) return false;
  const body = nonce.slice(0, 24);
  const mac = Buffer.from(nonce.slice(24));
  const expected = Buffer.from(hmac(secret, body));
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return false;
  return nonceExpiry(nonce) >= nowSeconds;
}

/**
 * Where sign-in messages may come from. `domains`: accepted `domain` values (the frontend's host,
 * as wallets fill it in); `origins`: accepted origins of the message's `uri`. Empty lists (local
 * profile, nothing configured) accept loopback hosts only: a frontend on localhost works, a
 * message made for another site does not.
 */
export type SiweConfig = { domains: string[]; origins: string[]; chainId: number };

const list = (v: string | undefined) => (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);

/** SIWE_DOMAINS and SIWE_URI_ORIGINS; required outside the local profile (throws naming them). */
export function siweConfig(env: Record<string, string | undefined> = process.env): SiweConfig {
  const profile = profileFromEnv(env);
  const domains = list(env.SIWE_DOMAINS);
  const origins = list(env.SIWE_URI_ORIGINS).map((o) => {
    try {
      return new URL(o).origin;
    } catch {
      throw new Error(`SIWE_URI_ORIGINS: "${o}" is not an origin such as https://app.example`);
    }
  });
  if (profile.name !== "local") {
    const missing = [!domains.length && "SIWE_DOMAINS", !origins.length && "SIWE_URI_ORIGINS"].filter(Boolean);
    if (missing.length) throw new Error(`refusing to start with PROFILE=${profile.name}: ${missing.join(" and ")} must be set (the sign-in message's accepted domains and URI origins, comma-separated)`);
  }
  return { domains, origins, chainId: Number(env.CHAIN_ID || LOCAL_CHAIN_ID) };
}

const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

export type LoginOptions = SiweConfig & {
  secret: string;
  /** single use of nonces */
  nonces: NonceStore;
  now?: Date;
  tokenTtlSeconds?: number;
};

/** Verifies a signed SIWE message and returns a bearer token for its address. 401 UNAUTHENTICATED otherwise. */
export async function login(message: string, signature: Hex, o: LoginOptions) {
  const fields = parseSiweMessage(message);
  if (!fields.address || !fields.nonce || !fields.domain || !fields.uri)
    throw new ApiError("UNAUTHENTICATED", "message is not an EIP-4361 sign-in message");
  const now = o.now ?? new Date();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (!checkNonce(o.secret, fields.nonce, nowSeconds)) throw new ApiError("UNAUTHENTICATED", "unknown or expired nonce (GET /auth/nonce)");
  const domainOk = o.domains.length ? o.domains.includes(fields.domain) : LOOPBACK_HOST.test(fields.domain);
  if (!domainOk) throw new ApiError("UNAUTHENTICATED", `message domain ${fields.domain} is not accepted`);
  let uri: URL;
  try {
    uri = new URL(fields.uri);
  } catch {
    throw new ApiError("UNAUTHENTICATED", "message URI is not a URL");
  }
  const uriOk = o.origins.length ? o.origins.includes(uri.origin) : /^https?:$/.test(uri.protocol) && LOOPBACK_HOST.test(uri.host);
  if (!uriOk) throw new ApiError("UNAUTHENTICATED", `message URI ${uri.origin} is not accepted`);
  if (fields.chainId !== o.chainId) throw new ApiError("UNAUTHENTICATED", `message chainId ${fields.chainId} is not ${o.chainId}`);
  if (!validateSiweMessage({ message: fields, time: now }))
    throw new ApiError("UNAUTHENTICATED", "message is expired or not yet valid");
  const valid = await verifyMessage({ address: fields.address, message, signature }).catch(() => false);
  if (!valid) throw new ApiError("UNAUTHENTICATED", "signature does not match the message's address");
  // last, so that only a valid sign-in uses the nonce up; atomic, so two racing replays cannot both pass
  if (!(await o.nonces.consume(fields.nonce, nonceExpiry(fields.nonce), nowSeconds)))
    throw new ApiError("UNAUTHENTICATED", "nonce already used: get a new one (GET /auth/nonce)");
  return issueToken(o.secret, getAddress(fields.address), o.tokenTtlSeconds ?? TOKEN_TTL_SECONDS, now);
}

/** The expiry (seconds) a nonce carries. */
const nonceExpiry = (nonce: string) => parseInt(nonce.slice(0, EXPIRY_DIGITS), 36);

const key = (secret: string) => new TextEncoder().encode(secret);

export async function issueToken(secret: string, address: Address, ttlSeconds = TOKEN_TTL_SECONDS, now = new Date()) {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ttlSeconds;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(address)
    .setIssuer(ISSUER)
    .setAudience(ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key(secret));
  return { token, address, expiresAt: exp, expiresIn: ttlSeconds };
}

/** The wallet of a valid token; 401 UNAUTHENTICATED when missing, malformed, forged or expired. */
export async function verifyToken(secret: string, token: string): Promise<{ address: Address; expiresAt: number }> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { issuer: ISSUER, audience: ISSUER, algorithms: ["HS256"] });
    if (!payload.sub || !/^0x[0-9a-fA-F]{40}$/.test(payload.sub)) throw new ApiError("UNAUTHENTICATED", "token has no wallet");
    return { address: getAddress(payload.sub), expiresAt: payload.exp ?? 0 };
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e instanceof joseErrors.JWTExpired) throw new ApiError("UNAUTHENTICATED", "token expired: sign in again (POST /auth/login)");
    throw new ApiError("UNAUTHENTICATED", "invalid bearer token");
  }
}
