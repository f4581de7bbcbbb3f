/**
 * Read-your-writes: the block of each wallet's last mined write, so that the wallet's next reads
 * wait (bounded) on the block feed for it. One place for the gateway (API keys) and the read
 * service (sign-in sessions). With Postgres the notes are the table `last_write` of one schema
 * (the gateway's), pushed to every process and replica by NOTIFY so that a read never queries for
 * them; a process that starts loads the table. On PGlite each service is one process:
 * `memoryLastWrites` is enough there.
 */
import pg from "pg";
import type { Logger } from "pino";

export interface LastWrites {
  /** the block of `wallet`'s last mined write, if any is known */
  get(wallet: string): bigint | undefined;
  record(wallet: string, block: bigint): Promise<void>;
}

/** Notes in this process only. */
export function memoryLastWrites(): LastWrites & { apply(wallet: string, block: bigint): void } {
  const blocks = new Map<string, bigint>();
  const apply = (wallet: string, block: bigint) => {
    const w = wallet.toLowerCase();
    if ((blocks.get(w) ?? -1n) < block) blocks.set(w, block);
  };
  return { get: (w) => blocks.get(w.toLowerCase()), apply, record: async (w, b) => apply(w, b) };
}

/** The block of a mined write from its envelope's data (`blockNumber`, number or decimal string). */
export function minedBlock(data: unknown): bigint | undefined {
  const b = (data as { blockNumber?: unknown } | undefined)?.blockNumber;
  if (typeof b === "number" && Number.isSafeInteger(b) && b >= 0) return BigInt(b);
  if (typeof b === "string" && /^\d{1,15}$/.test(b)) return BigInt(b);
  return undefined;
}

export async function sharedLastWrites(o: { databaseUrl: string; schema: string; log: Pick<Logger, "warn"> }): Promise<LastWrites & { close(): Promise<void> }> {
  const mem = memoryLastWrites();
  const table = `"${o.schema}".last_write`;
  const channel = `${o.schema}_last_write`;
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: 2 });
  // the gateway and the read service may both create it at once: IF NOT EXISTS still races
  // (a unique violation on the catalog), so try again
  for (let attempt = 0; ; attempt++) {
    try {
      await pool.query(`CREATE SCHEMA IF NOT EXISTS "${o.schema}"`);
      await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (wallet text PRIMARY KEY, block_number bigint NOT NULL)`);
      break;
    } catch (e) {
      if (attempt >= 4) throw e;
      await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
    }
  }
  let closed = false;
  let listener: pg.Client | undefined;
  const listen = async () => {
    while (!closed) {
      try {
        const c = new pg.Client({ connectionString: o.databaseUrl });
        c.on("notification", (n) => {
          const [wallet, block] = (n.payload ?? "").split(":");
          if (wallet && block && /^\d+$/.test(block)) mem.apply(wallet, BigInt(block));
        });
        c.on("error", (e) => {
          o.log.warn({ err: String(e) }, "last_write listener lost; reconnecting");
          c.end().catch(() => {});
          if (!closed) setTimeout(() => void listen(), 250);
        });
        await c.connect();
        await c.query(`LISTEN "${channel}"`);
        listener = c;
        // whatever was written before we listened
        for (const r of (await pool.query<{ wallet: string; block_number: string }>(`SELECT wallet, block_number FROM ${table}`)).rows) {
          mem.apply(r.wallet, BigInt(r.block_number));
        }
        return;
      } catch (e) {
        o.log.warn({ err: String(e) }, "last_write listener failed; retrying");
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  await listen();
  return {
    get: mem.get,
    async record(wallet: string, block: bigint) {
      mem.apply(wallet, block);
      await pool.query(
        `WITH up AS (
           INSERT INTO ${table} (wallet, block_number) VALUES ($1, $2)
           ON CONFLICT (wallet) DO UPDATE SET block_number = GREATEST(${table}.block_number, EXCLUDED.block_number)
           RETURNING wallet, block_number)
         SELECT pg_notify($3, wallet || ':' || block_number) FROM up`,
        [wallet.toLowerCase(), block.toString(), channel],
      );
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}
