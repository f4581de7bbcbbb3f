/**
 * Stateless Sign-In with Ethereum (EIP-4361) for the integration API, whose database is
 * read-only: the nonce carries its own expiry and an HMAC (JWT_SECRET), and a verified message
 * buys a short-lived HS256 JWT whose subject is the wallet. Nothing is stored, so a nonce can be
 * used more than once within its lifetime (only by whoever holds a message signed by the wallet).
 * EOA signatures only (no ERC-1271 contract wallets).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import { getAddress, verifyMessage, type Address, type Hex } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { ApiError } from "../errors.js";

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
  return parseInt(body.slice(0, EXPIRY_DIGITS), 36) >= nowSeconds;
}

export type LoginOptions = {
  secret: string;
  /** accepted `domain` values of the message (e.g. the API's host); empty = any */
  domains: string[];
  chainId?: number;
  now?: Date;
  tokenTtlSeconds?: number;
};

/** Verifies a signed SIWE message and returns a bearer token for its address. 401 UNAUTHENTICATED otherwise. */
export async function login(message: string, signature: Hex, o: LoginOptions) {
  const fields = parseSiweMessage(message);
  if (!fields.address || !fields.nonce || !fields.domain) throw new ApiError("UNAUTHENTICATED", "message is not an EIP-4361 sign-in message");
  const now = o.now ?? new Date();
  if (!checkNonce(o.secret, fields.nonce, Math.floor(now.getTime() / 1000)))
    throw new ApiError("UNAUTHENTICATED", "unknown or expired nonce (GET /auth/nonce)");
  if (o.domains.length && !o.domains.includes(fields.domain))
    throw new ApiError("UNAUTHENTICATED", `message domain ${fields.domain} is not ${o.domains.join(" or ")}`);
  if (o.chainId !== undefined && fields.chainId !== undefined && fields.chainId !== o.chainId)
    throw new ApiError("UNAUTHENTICATED", `message chainId ${fields.chainId} is not ${o.chainId}`);
  if (!validateSiweMessage({ message: fields, time: now }))
    throw new ApiError("UNAUTHENTICATED", "message is expired or not yet valid");
  const valid = await verifyMessage({ address: fields.address, message, signature }).catch(() => false);
  if (!valid) throw new ApiError("UNAUTHENTICATED", "signature does not match the message's address");
  return issueToken(o.secret, getAddress(fields.address), o.tokenTtlSeconds ?? TOKEN_TTL_SECONDS, now);
}

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
