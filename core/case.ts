/**
 * The one key-case rule between the integration API (camelCase) and the gateway (snake_case).
 * Acronyms count as one word: `unrealizedPnL` → `unrealized_pnl`, `lastUpdateISO` →
 * `last_update_iso`, `marginRatioBps` → `margin_ratio_bps`. Only keys change, never values.
 */

/** Mixed-case acronyms that a plain case split would cut in two (`PnL` → `Pn`, `L`). */
const MIXED_ACRONYMS = ["PnL"] as const;
/** snake word → its camelCase spelling when it is not the first word (inverse of the rule). */
const ACRONYM_WORDS: Record<string, string> = { pnl: "PnL", iso: "ISO" };

// A word: an upper-case run not followed by a lower-case letter (an acronym such as ISO), or an
// optional capital followed by lower-case letters and digits.
const WORD = /[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g;

const snakeCache = new Map<string, string>();
const camelCache = new Map<string, string>();

export function toSnakeCase(key: string): string {
  const cached = snakeCache.get(key);
  if (cached !== undefined) return cached;
  let k = key;
  for (const a of MIXED_ACRONYMS) k = k.replaceAll(a, a[0] + a.slice(1).toLowerCase());
  const out = (k.match(WORD) ?? [key]).map((w) => w.toLowerCase()).join("_");
  if (snakeCache.size < 10_000) snakeCache.set(key, out);
  return out;
}

export function toCamelCase(key: string): string {
  const cached = camelCache.get(key);
  if (cached !== undefined) return cached;
  const [first = "", ...rest] = key.split("_");
  const out =
    first + rest.map((w) => ACRONYM_WORDS[w] ?? (w.length ? w[0]!.toUpperCase() + w.slice(1) : "")).join("");
  if (camelCache.size < 10_000) camelCache.set(key, out);
  return out;
}

function mapKeys(value: unknown, rename: (k: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => mapKeys(v, rename));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[rename(k)] = mapKeys(v, rename);
  return out;
}

/** Deep copy with every object key in snake_case (arrays and nested objects included). */
export const snakeKeys = <T = unknown>(value: unknown): T => mapKeys(value, toSnakeCase) as T;
/** Deep copy with every object key in camelCase. */
export const camelKeys = <T = unknown>(value: unknown): T => mapKeys(value, toCamelCase) as T;
