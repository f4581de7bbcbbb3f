/**
 * JSON clients of the two public surfaces for e2e tests: the integration API (bearer token from
 * SIWE sign-in) and the /v1 gateway (X-API-Key). A non-JSON answer fails the test with its text.
 */
import { expect } from "vitest";
import { createSiweMessage } from "viem/siwe";
import type { PrivateKeyAccount } from "viem/accounts";
import type { StackInfo } from "../stack.js";

/** The envelope, loosely typed: tests read whatever field they assert on. */
export type Envelope = { success: boolean; data?: any; error?: { code: string; message: string } }; // eslint-disable-line @typescript-eslint/no-explicit-any

export type RequestOptions = {
  /** integration API: `Authorization: Bearer <token>` */
  token?: string | null;
  /** gateway: `X-API-Key` */
  key?: string | null;
  body?: unknown;
  /** a raw body (malformed JSON tests) */
  raw?: string;
  headers?: Record<string, string>;
};

/** How long getOnce waits for an answer. */
const GET_TIMEOUT_MS = 60_000;

/**
 * `fetch` of a GET, sent again once when a reused keep-alive connection turns out closed by the
 * server (undici's UND_ERR_SOCKET "other side closed": the server's idle timeout ran while this
 * process's event loop was busy and had not yet dropped the connection), as browsers do for
 * idempotent requests (RFC 9110 §9.2.2). Any other failure, and a second one, is the test's.
 */
export async function getOnce(url: string, init: RequestInit = {}): Promise<Response> {
  // bounded: a server that never answers fails the test here, naming the request, not at the test's timeout
  const bounded = () => fetch(url, { signal: AbortSignal.timeout(GET_TIMEOUT_MS), ...init }).catch((e: unknown) => {
    if ((e as { name?: string }).name === "TimeoutError") throw new Error(`GET ${url}: no answer in ${GET_TIMEOUT_MS / 1000} s`);
    throw e;
  });
  try {
    return await bounded();
  } catch (e) {
    if ((e as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw e;
    return bounded();
  }
}

export function jsonClient(base: string) {
  return async function req(method: string, path: string, o: RequestOptions = {}) {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.Authorization = `Bearer ${o.token}`;
    if (o.key) headers["X-API-Key"] = o.key;
    if (o.body !== undefined || o.raw !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(base + path, { method, headers, body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)) });
    const text = await res.text();
    let body: Envelope;
    try {
      body = JSON.parse(text) as Envelope;
    } catch {
      throw new Error(`${method} ${path}: ${res.status} non-JSON answer: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body, headers: res.headers };
  };
}

export const integrationClient = (s: StackInfo) => jsonClient(s.integrationUrl);
export const gatewayClient = (s: StackInfo) => jsonClient(s.gatewayUrl!);

/** SIWE sign-in on the integration API (GET /auth/nonce, POST /auth/login): the bearer token. */
export async function signIn(s: StackInfo, account: PrivateKeyAccount): Promise<string> {
  const req = integrationClient(s);
  const n = await req("GET", "/auth/nonce");
  expect(n.status).toBe(200);
  const host = new URL(s.integrationUrl).host;
  const message = createSiweMessage({ address: account.address, chainId: s.chainId, domain: host, nonce: n.body.data.nonce, uri: s.integrationUrl, version: "1" });
  const login = await req("POST", "/auth/login", { body: { message, signature: await account.signMessage({ message }) } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return login.body.data.token;
}
