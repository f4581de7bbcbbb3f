/**
 * Calls to the internal services (integration API, relayer, keeper) with a timeout each. Their
 * answers are the camelCase envelope; failures become the gateway's codes: timeout 504
 * UPSTREAM_TIMEOUT, unreachable 503 SERVICE_UNAVAILABLE, a non-envelope answer 502 UPSTREAM_ERROR.
 */
import { ApiError, ERROR_CODES, type ErrorCode } from "../../core/errors.js";
import { UpstreamTimeoutError, rawRequest, type RawReply } from "../../core/http/raw-request.js";

export type UpstreamName = "integration" | "relayer" | "keeper";

export interface UpstreamRequest {
  method?: "GET" | "POST" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string | undefined>;
}

export interface UpstreamReply {
  upstream: UpstreamName;
  status: number;
  /** the parsed envelope */
  body: { success: boolean; data?: unknown; error?: { code: string; message: string } };
  /** `X-Indexed-Block` of reads, when the upstream sent it */
  indexedBlock: string | null;
  /** time spent waiting for the upstream (ms) */
  ms: number;
  /** the gateway's rendering of a success body, kept with a reply held for a block (block-cache.ts) */
  rendered?: string;
  /** `rendered` as bytes, made once for the hot path below Hono (held-copies-listener.ts) */
  bytes?: Buffer;
  /** set on a reply held for a block: the block copy's generation, and its key there (block-cache.ts) */
  heldGen?: number;
  heldKey?: string;
}

export interface Upstream {
  name: UpstreamName;
  baseUrl: string;
  call(req: UpstreamRequest): Promise<UpstreamReply>;
  /** With a per-block copy (block-cache.ts): its generation, bumped on every pushed block. */
  generation?: () => number;
  /**
   * With a per-block copy: whether the copy of `key` held at generation `gen` may be served now
   * as the previous block's, carried over while the current block's is fetched (which this call
   * starts if it has not started): true only right after a forward block, within the carry
   * window, while the current block's copy of `key` has not landed.
   */
  carried?: (key: string, gen: number) => boolean;
  /** A GET whose body is streamed back as it comes (exports): the timeout covers the headers only. */
  open?(req: UpstreamRequest): Promise<Response>;
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "UND_ERR_SOCKET", "EPIPE"]);

export function createUpstream(
  name: UpstreamName,
  baseUrl: string,
  timeoutMs: number,
  fixedHeaders: Record<string, string> = {},
): Upstream {
  async function call({ method = "GET", path, query, body, headers }: UpstreamRequest): Promise<UpstreamReply> {
    let url = baseUrl + path;
    if (query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
      const s = qs.toString();
      if (s) url += "?" + s;
    }
    const h: Record<string, string> = { accept: "application/json", ...fixedHeaders };
    for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) h[k] = v;
    if (body !== undefined) h["content-type"] = "application/json";

    let res: RawReply;
    const t0 = performance.now();
    try {
      res = await rawRequest(new URL(url), method, h, body === undefined ? undefined : JSON.stringify(body), timeoutMs);
    } catch (err) {
      throw networkError(name, timeoutMs, err);
    }
    const ms = performance.now() - t0;
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.text);
    } catch {
      parsed = undefined;
    }
    if (!isEnvelope(parsed)) {
      if (res.status === 503) throw new ApiError("SERVICE_UNAVAILABLE", `${name} is unavailable`);
      throw new ApiError("UPSTREAM_ERROR", `${name} answered ${res.status} without an envelope`);
    }
    const indexed = res.headers["x-indexed-block"];
    return { upstream: name, status: res.status, body: parsed, indexedBlock: typeof indexed === "string" ? indexed : null, ms };
  }
  async function open({ path, query, headers }: UpstreamRequest): Promise<Response> {
    const url = new URL(baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const h: Record<string, string> = { ...fixedHeaders };
    for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) h[k] = v;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new UpstreamTimeoutError("headers timeout")), timeoutMs);
    try {
      return await fetch(url, { headers: h, signal: abort.signal });
    } catch (err) {
      throw networkError(name, timeoutMs, err);
    } finally {
      clearTimeout(timer);
    }
  }
  return { name, baseUrl, call, open };
}

function isEnvelope(v: unknown): v is UpstreamReply["body"] {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  if (o.success === true) return "data" in o;
  if (o.success === false) {
    const e = o.error as Record<string, unknown> | undefined;
    return typeof e === "object" && e !== null && typeof e.code === "string";
  }
  return false;
}

function networkError(name: UpstreamName, timeoutMs: number, err: unknown): ApiError {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError" || e?.cause?.name === "TimeoutError") {
    return new ApiError("UPSTREAM_TIMEOUT", `${name} did not answer within ${timeoutMs} ms`);
  }
  const code = e?.cause?.code ?? e?.code;
  if (code && NETWORK_CODES.has(code)) return new ApiError("SERVICE_UNAVAILABLE", `${name} is unavailable (${code})`);
  return new ApiError("SERVICE_UNAVAILABLE", `${name} is unavailable`);
}

/**
 * The gateway status of an upstream error envelope: the code's status in core/errors.ts when the
 * code is known (so `UNAUTHORIZED` is 403 whatever the upstream said), else the upstream's
 * status; an upstream 500 becomes 502 (the fault is behind the gateway).
 */
export function errorStatus(code: string, upstreamStatus: number): number {
  const known = (ERROR_CODES as Record<string, number>)[code];
  if (code === "INTERNAL_ERROR") return 502;
  if (known !== undefined) return known;
  if (upstreamStatus >= 400 && upstreamStatus < 600 && upstreamStatus !== 500) return upstreamStatus;
  return 502;
}

export const isErrorCode = (code: string): code is ErrorCode => code in ERROR_CODES;
