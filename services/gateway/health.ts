/**
 * Health of the gateway's dependencies, each checked with a short timeout: indexer (Ponder's
 * /ready and /status against the chain head: how many blocks behind), relayer, keeper, the
 * gateway's database and the chain. `HealthMonitor` caches each result for HEALTH_CACHE_MS
 * (1 s) and shares a check in flight, so requests to /health never fan out to the services.
 */
import type { GatewayConfig } from "./config.js";
import type { GatewayStore } from "./db/open.js";

export const SERVICES = ["indexer", "relayer", "keeper", "database", "chain"] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface ServiceHealth {
  service: ServiceName;
  /** ok: serving; syncing: up but the backfill is not done; degraded: serving but says so (e.g. the relayer's nonce is stuck); down: unreachable or failing */
  status: "ok" | "syncing" | "degraded" | "down";
  latencyMs: number;
  error?: string;
  [detail: string]: unknown;
}

export interface HealthDeps {
  config: GatewayConfig;
  store: GatewayStore;
}

async function getJson(url: string, timeoutMs: number, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* plain text answers (Ponder's /ready) */
  }
  return { status: res.status, body };
}

async function rpc(url: string, method: string, timeoutMs: number): Promise<string> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: string; error?: { message: string } };
  if (typeof body.result !== "string") throw new Error(body.error?.message ?? `${method} failed`);
  return body.result;
}

/** URLs in error text may carry a provider's key (RPC URLs): never repeat them, even to the admin. */
export const redactUrls = (text: string) => text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, "<url>");

const message = (err: unknown) => {
  const e = err as { name?: string; message?: string; cause?: { code?: string } };
  if (e?.name === "TimeoutError") return "timed out";
  return redactUrls(e?.cause?.code ?? e?.message ?? String(err));
};

/** Ponder's /status: `{ [chain]: { id, block: { number, timestamp } } }`; the indexed block of our chain. */
function indexedBlock(status: unknown): number | null {
  if (typeof status !== "object" || status === null) return null;
  let best: number | null = null;
  for (const v of Object.values(status as Record<string, { block?: { number?: unknown } }>)) {
    const n = v?.block?.number;
    if (typeof n === "number" && (best === null || n > best)) best = n;
  }
  return best;
}

export async function checkService(name: ServiceName, { config, store }: HealthDeps): Promise<ServiceHealth> {
  const t0 = performance.now();
  const ms = () => Math.round((performance.now() - t0) * 100) / 100;
  const timeout = config.timeouts.healthMs;
  const internal = { "X-Internal-Token": config.gatewayToken };
  try {
    switch (name) {
      case "chain": {
        const [head, chainId] = await Promise.all([rpc(config.rpcUrl, "eth_blockNumber", timeout), rpc(config.rpcUrl, "eth_chainId", timeout)]);
        return { service: name, status: "ok", latencyMs: ms(), chainId: Number(BigInt(chainId)), headBlock: Number(BigInt(head)) };
      }
      case "database": {
        await store.ping();
        return { service: name, status: "ok", latencyMs: ms(), kind: store.kind };
      }
      case "indexer": {
        const [ready, status, head] = await Promise.all([
          getJson(`${config.integrationUrl}/ready`, timeout),
          getJson(`${config.integrationUrl}/status`, timeout),
          rpc(config.rpcUrl, "eth_blockNumber", timeout).then(
            (h) => Number(BigInt(h)),
            () => null,
          ),
        ]);
        const indexed = indexedBlock(status.body);
        const lag = head !== null && indexed !== null ? Math.max(0, head - indexed) : null;
        if (status.status !== 200 || indexed === null) {
          return { service: name, status: "down", latencyMs: ms(), error: `/status answered ${status.status}`, headBlock: head };
        }
        return {
          service: name,
          status: ready.status === 200 ? "ok" : "syncing",
          latencyMs: ms(),
          ready: ready.status === 200,
          indexedBlock: indexed,
          headBlock: head,
          blocksBehind: lag,
        };
      }
      case "relayer":
      case "keeper": {
        const base = name === "relayer" ? config.relayerUrl : config.keeperUrl;
        const res = await getJson(`${base}/health`, timeout, internal);
        const body = res.body as { success?: boolean; data?: Record<string, unknown> } | string;
        const details = typeof body === "object" && body?.data && typeof body.data === "object" ? body.data : {};
        if (res.status !== 200) {
          return { service: name, status: "down", latencyMs: ms(), error: `/health answered ${res.status}`, details };
        }
        // the service's own verdict (the relayer: degraded while out of funds or its nonce is stuck)
        return { service: name, status: details.status === "degraded" ? "degraded" : "ok", latencyMs: ms(), details };
      }
    }
  } catch (err) {
    return { service: name, status: "down", latencyMs: ms(), error: message(err) };
  }
}

/** The public view of a check: its status only (details and error text are for the admin). */
export const publicHealth = (h: ServiceHealth) => ({ service: h.service, status: h.status });

/** Cached health checks: at most one check per service per `ttlMs`, shared by concurrent callers. */
export class HealthMonitor {
  private readonly cache = new Map<ServiceName, { at: number; result: Promise<ServiceHealth> }>();
  constructor(
    private readonly deps: HealthDeps,
    private readonly ttlMs = deps.config.timeouts.healthCacheMs,
  ) {}

  check(name: ServiceName): Promise<ServiceHealth> {
    const now = Date.now();
    const hit = this.cache.get(name);
    if (hit && now - hit.at < this.ttlMs) return hit.result;
    const result = checkService(name, this.deps);
    this.cache.set(name, { at: now, result });
    return result;
  }

  all(): Promise<ServiceHealth[]> {
    return Promise.all(SERVICES.map((s) => this.check(s)));
  }
}
