/**
 * Forwarding a write to the relayer's internal API (docs/SERVICES.md): the caller's service token, the
 * authenticated wallet as X-Caller-Address, Idempotency-Key and X-Request-Id passed through.
 * The relayer's envelope and status come back as they are; a relayer that is down or slow is a
 * 503 SERVICE_UNAVAILABLE / 504 UPSTREAM_TIMEOUT envelope, never a 500.
 */
import { ApiError } from "./errors.js";
import { defaultUrl } from "./ports.js";

export type RelayerTarget = { url: string; token: string; timeoutMs: number };

export type ForwardRequest = {
  method: "GET" | "POST" | "DELETE";
  /** path and query on the relayer, e.g. `/internal/accounts/1/deposit` */
  path: string;
  body?: unknown;
  caller?: string;
  idempotencyKey?: string | null;
  requestId?: string | null;
};

/** Relayer settings of a client service: RELAYER_URL, WRITE_TIMEOUT_MS, and the caller's own service token. */
export function relayerTargetFromEnv(env: Record<string, string | undefined>, token: string): RelayerTarget {
  const writeTimeout = Number(env.WRITE_TIMEOUT_MS ?? 15_000);
  return {
    url: (env.RELAYER_URL ?? defaultUrl("relayer")).replace(/\/$/, ""),
    token,
    // The relayer answers 202 after WRITE_TIMEOUT_MS; leave it room to do so.
    timeoutMs: (Number.isFinite(writeTimeout) ? writeTimeout : 15_000) + 10_000,
  };
}

export async function forwardToRelayer(target: RelayerTarget, req: ForwardRequest): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { "X-Internal-Token": target.token, Accept: "application/json" };
  if (req.body !== undefined) headers["Content-Type"] = "application/json";
  if (req.caller) headers["X-Caller-Address"] = req.caller;
  if (req.idempotencyKey) headers["Idempotency-Key"] = req.idempotencyKey;
  if (req.requestId) headers["X-Request-Id"] = req.requestId;
  let res: Response;
  try {
    res = await fetch(`${target.url}${req.path}`, {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: AbortSignal.timeout(target.timeoutMs),
    });
  } catch (e) {
    const name = (e as { name?: string }).name;
    if (name === "TimeoutError" || name === "AbortError") throw new ApiError("UPSTREAM_TIMEOUT", "the relayer did not answer in time");
    throw new ApiError("SERVICE_UNAVAILABLE", "the relayer is unavailable");
  }
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    throw new ApiError("UPSTREAM_ERROR", `the relayer answered HTTP ${res.status} without JSON`);
  }
}
