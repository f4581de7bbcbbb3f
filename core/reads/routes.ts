/**
 * The hot read routes, in one table, and the key of an answer. Everything that needs to know
 * which routes are hot reads it from here: the plans of their answers (plans.ts), the read
 * service's store of per-block answers (services/reads), the gateway's copy
 * (services/gateway/block-cache.ts), Ponder's routes (src/api/routes) and POST /internal/answers.
 */

/** The hot routes: each one's kind and OpenAPI path (`{param}`: a path parameter). */
export const HOT_ROUTES = {
  markets: "/markets",
  market: "/markets/{marketId}",
  funding: "/markets/{marketId}/funding",
  price: "/markets/{marketId}/price",
  orderbook: "/markets/{marketId}/orderbook",
  account: "/accounts/{accountId}",
  orders: "/accounts/{accountId}/orders",
  position: "/accounts/{accountId}/positions/{marketId}",
  positionFunding: "/accounts/{accountId}/positions/{marketId}/funding",
} as const;

export type HotKind = keyof typeof HOT_ROUTES;

export type HotRoute =
  | { kind: "markets" }
  | { kind: "market" | "funding" | "price" | "orderbook"; marketId: string }
  | { kind: "account" | "orders"; accountId: string }
  | { kind: "position" | "positionFunding"; accountId: string; marketId: string };

/** A path parameter's shape in a held key: a market id (0x + 32 bytes) or an account id (decimal). */
const WELL_FORMED: Record<string, string> = { marketId: "0x[0-9a-fA-F]{64}", accountId: "[0-9]{1,30}" };

const compile = (path: string, param: (name: string) => string) =>
  new RegExp(`^${path.replace(/\{(\w+)\}/g, (_m, name: string) => `(${param(name)})`)}$`);

const TABLE = (Object.entries(HOT_ROUTES) as [HotKind, string][]).map(([kind, path]) => ({
  kind,
  params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
  any: compile(path, () => "[^/]+"),
  held: compile(path, (name) => WELL_FORMED[name]!),
}));

/** The hot route of a path (the path part of an answer key), if it is one: its parameters as sent (validated by the plan). */
export function hotRoute(path: string): HotRoute | undefined {
  for (const r of TABLE) {
    const m = r.any.exec(path);
    if (!m) continue;
    const out: Record<string, string> = { kind: r.kind };
    r.params.forEach((name, i) => (out[name] = m[i + 1]!));
    return out as HotRoute;
  }
  return undefined;
}

/** Whether a path is a hot route's with well-formed ids: the answers the read service and the gateway hold per block. */
export const isHeldPath = (path: string) => TABLE.some((r) => r.held.test(path));

/** Whether `key` (path and query) is a hot route's: the only keys a plan is made for. */
export const isHotKey = (key: string) => {
  const qi = key.indexOf("?");
  return hotRoute(qi < 0 ? key : key.slice(0, qi)) !== undefined;
};

/** The key of an answer: path and query without `minBlock` (it only says how long to wait), parameters sorted. */
export function answerKey(path: string, search: string | URLSearchParams | Record<string, string | number | undefined>): string {
  const q =
    typeof search === "string"
      ? new URLSearchParams(search)
      : search instanceof URLSearchParams
        ? new URLSearchParams(search)
        : new URLSearchParams(Object.entries(search).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])));
  q.delete("minBlock");
  q.sort();
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** The key of a URL (absolute, or a path with its query). */
export function answerKeyOfUrl(url: string): string {
  const u = new URL(url, "http://x");
  return answerKey(u.pathname, u.searchParams);
}
