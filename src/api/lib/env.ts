/** The indexer process's numeric settings (its env: Ponder reads no config module of ours). */

/** `name` from `env` as a positive integer, `fallback` when unset or empty; a clear error otherwise. */
export function positiveIntEnv(name: string, fallback: number, env: Record<string, string | undefined> = process.env): number {
  const n = Number(env[name] || fallback);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer (got ${env[name]})`);
  return n;
}
