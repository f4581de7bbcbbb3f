/**
 * One HTTP transport for both surfaces: the envelope unwrapped, errors as typed classes, the
 * RateLimit-* / Retry-After / X-Indexed-Block / X-Request-Id headers surfaced on every answer,
 * and 429 (and, for idempotent requests, 503) sent again after Retry-After when allowed.
 */
import { RateLimitedError, UnauthenticatedError, VenueApiError, VenueError, VenueNetworkError, type RateLimit } from "./errors.js";

export type { RateLimit };

/** What every answer carries beside its data. */
export type ResponseMeta = {
  method: string;
  path: string;
  status: number;
  rateLimit: RateLimit;
  /** the indexed block the answer describes (X-Indexed-Block), for reads */
  indexedBlock?: number;
  requestId?: string;
};

export type RetryPolicy = {
  /** how many times a 429 (or a read's 503 with Retry-After) is sent again after its Retry-After (default 0: throw) */
  retries: number;
  /** never wait longer than this for one retry (ms; default 30 000): a longer Retry-After throws */
  maxWaitMs?: number;
};

export type HttpOptions = {
  baseUrl: string;
  /** default: globalThis.fetch */
  fetch?: typeof fetch;
  /** 429 handling (default: no retry) */
  retry?: RetryPolicy;
  /** per-request timeout, ms (default 30 000) */
  timeoutMs?: number;
  /** called with the meta of every answer (errors included) */
  onResponse?: (meta: ResponseMeta) => void;
  /** waits (ms); tests pass a fake */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

export type RequestOptions = {
  query?: Record<string, string | number | bigint | boolean | undefined | null>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** the body as is (exports): no envelope */
  raw?: boolean;
};

export type Answer<T> = { data: T; meta: ResponseMeta; response?: Response };

const metas = new WeakMap<object, ResponseMeta>();
/** The meta (status, rate limit, indexed block, request id) of an object a client method returned. */
export const meta = (answer: object): ResponseMeta | undefined => metas.get(answer);
export const attachMeta = <T>(data: T, m: ResponseMeta): T => {
  if (data !== null && typeof data === "object") metas.set(data as object, m);
  return data;
};

const num = (v: string | null) => (v === null || v === "" || !Number.isFinite(Number(v)) ? undefined : Number(v));

export function rateLimitOf(h: Headers): RateLimit {
  const out: RateLimit = {};
  const set = <K extends keyof RateLimit>(k: K, v: RateLimit[K] | undefined) => v !== undefined && (out[k] = v);
  set("limit", num(h.get("RateLimit-Limit")));
  set("remaining", num(h.get("RateLimit-Remaining")));
  set("reset", num(h.get("RateLimit-Reset")));
  set("policy", h.get("RateLimit-Policy") ?? undefined);
  const ra = h.get("Retry-After");
  if (ra !== null) {
    const s = num(ra) ?? (Number.isFinite(Date.parse(ra)) ? Math.max(0, Math.ceil((Date.parse(ra) - Date.now()) / 1000)) : undefined);
    set("retryAfter", s);
  }
  return out;
}

export const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export function queryString(q: RequestOptions["query"]): string {
  if (!q) return "";
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

export class Http {
  readonly baseUrl: string;
  private readonly f: typeof fetch;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** the meta of the latest answer */
  last: ResponseMeta | undefined;

  constructor(readonly o: HttpOptions) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, "");
    this.f = o.fetch ?? ((...a: Parameters<typeof fetch>) => globalThis.fetch(...a));
    this.sleep = o.sleep ?? defaultSleep;
  }

  /** A request; the envelope's `data` (or the Response itself with `raw`), its meta attached (`meta()`). */
  async request<T>(method: string, path: string, r: RequestOptions = {}): Promise<Answer<T>> {
    const url = this.baseUrl + path + queryString(r.query);
    const headers: Record<string, string> = { Accept: "application/json", ...r.headers };
    if (r.body !== undefined) headers["Content-Type"] = "application/json";
    const body = r.body === undefined ? undefined : JSON.stringify(r.body, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    let attempt = 0;
    for (;;) {
      const timeout = AbortSignal.timeout(this.o.timeoutMs ?? 30_000);
      const signal = r.signal ? anySignal([r.signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await this.f(url, { method, headers, body, signal });
      } catch (e) {
        if (r.signal?.aborted) throw r.signal.reason;
        const name = (e as { name?: string }).name;
        if (name === "TimeoutError" || (name === "AbortError" && timeout.aborted)) throw new VenueError("TIMEOUT", `${method} ${path}: no answer in ${this.o.timeoutMs ?? 30_000} ms`);
        throw new VenueNetworkError(`${method} ${path}: ${(e as Error).message}`, e);
      }
      const m: ResponseMeta = {
        method,
        path,
        status: res.status,
        rateLimit: rateLimitOf(res.headers),
        ...(num(res.headers.get("X-Indexed-Block")) !== undefined ? { indexedBlock: num(res.headers.get("X-Indexed-Block"))! } : {}),
        ...(res.headers.get("X-Request-Id") ? { requestId: res.headers.get("X-Request-Id")! } : {}),
      };
      this.last = m;
      this.o.onResponse?.(m);
      // 429, or a 503 with Retry-After on a read (nothing was done): again after Retry-After, when allowed
      const again = res.status === 429 || (res.status === 503 && method === "GET" && m.rateLimit.retryAfter !== undefined);
      if (again && attempt < (this.o.retry?.retries ?? 0)) {
        const wait = (m.rateLimit.retryAfter ?? 1) * 1000;
        if (wait <= (this.o.retry?.maxWaitMs ?? 30_000)) {
          await res.body?.cancel().catch(() => undefined);
          attempt++;
          await this.sleep(wait, r.signal);
          continue;
        }
      }
      if (r.raw && res.ok) return { data: undefined as T, meta: m, response: res };
      const text = await res.text();
      let json: unknown;
      try {
        json = text === "" ? undefined : JSON.parse(text);
      } catch {
        throw new VenueApiError(res.ok ? "UPSTREAM_ERROR" : "HTTP_" + res.status, `${method} ${path}: HTTP ${res.status} without JSON: ${text.slice(0, 120)}`, res.status, method, path, m.requestId, m.rateLimit);
      }
      const env = json as { success?: boolean; data?: unknown; error?: { code?: string; message?: string } } | undefined;
      if (!res.ok || env?.success === false) {
        const code = env?.error?.code ?? `HTTP_${res.status}`;
        const message = env?.error?.message ?? `HTTP ${res.status}`;
        const E = res.status === 429 ? RateLimitedError : res.status === 401 ? UnauthenticatedError : VenueApiError;
        throw new E(code, message, res.status, method, path, m.requestId, m.rateLimit);
      }
      const data = (env && typeof env === "object" && "data" in env ? env.data : json) as T;
      return { data: attachMeta(data, m), meta: m };
    }
  }
}

/** AbortSignal.any (Node 20.3+, recent browsers), with a fallback. */
export function anySignal(signals: AbortSignal[]): AbortSignal {
  const any = (AbortSignal as unknown as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (any) return any(signals);
  const c = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      c.abort(s.reason);
      break;
    }
    s.addEventListener("abort", () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}
