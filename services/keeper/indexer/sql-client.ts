/**
 * Ponder's SQL over HTTP (`/sql/*`), queried with drizzle and the indexer's own schema
 * (`ponder.schema.ts`). Same wire format as `@ponder/client`'s `db` (GET `/sql/db?sql=<superjson>`),
 * plus the `X-Internal-Token` header that `/sql` needs outside the local profile (the
 * `@ponder/client` fetch sends no headers).
 */
import { drizzle, type PgRemoteDatabase } from "drizzle-orm/pg-proxy";
import superjson from "superjson";
import * as schema from "../../../ponder.schema.js";
import { ApiError } from "../../../core/errors.js";

export type IndexerDb = PgRemoteDatabase<typeof schema>;
export { schema };

export function createIndexerDb(integrationUrl: string, opts: { internalToken?: string; timeoutMs?: number } = {}): IndexerDb {
  const base = new URL("/sql/db", integrationUrl);
  return drizzle(
    async (sql, params, method, typings) => {
      const url = new URL(base);
      url.searchParams.set("sql", superjson.stringify({ sql, params, typings }));
      let res: Response;
      try {
        res = await fetch(url, {
          headers: opts.internalToken ? { "X-Internal-Token": opts.internalToken } : {},
          signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
        });
      } catch (e) {
        const timedOut = e instanceof Error && e.name === "TimeoutError";
        throw new ApiError(timedOut ? "UPSTREAM_TIMEOUT" : "SERVICE_UNAVAILABLE", `indexer ${timedOut ? "timed out" : "unreachable"}`);
      }
      if (!res.ok) throw new ApiError("UPSTREAM_ERROR", `indexer SQL failed (${res.status}): ${(await res.text()).slice(0, 200)}`);
      const result = (await res.json()) as { rows: Record<string, unknown>[] };
      // drizzle's proxy driver wants rows as arrays for "all" (select) queries.
      return method === "all" ? { ...result, rows: result.rows.map((r) => Object.values(r)) } : (result as any);
    },
    { schema, casing: "snake_case" },
  );
}

export type IndexedBlock = { number: bigint; timestamp: bigint };

/** The latest indexed block of the chain (Ponder's `/status`). */
export async function indexedBlock(integrationUrl: string, chainId: number, timeoutMs = 10_000): Promise<IndexedBlock> {
  let res: Response;
  try {
    res = await fetch(new URL("/status", integrationUrl), { signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    throw new ApiError("SERVICE_UNAVAILABLE", "indexer unreachable");
  }
  if (!res.ok) throw new ApiError("SERVICE_UNAVAILABLE", `indexer status ${res.status}`);
  const status = (await res.json()) as Record<string, { id: number; block?: { number: number; timestamp: number } | null }>;
  const chain = Object.values(status).find((c) => c.id === chainId) ?? Object.values(status)[0];
  if (!chain?.block) throw new ApiError("SERVICE_UNAVAILABLE", "indexer has not indexed a block yet");
  return { number: BigInt(chain.block.number), timestamp: BigInt(chain.block.timestamp) };
}
