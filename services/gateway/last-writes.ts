/**
 * Read-your-writes across gateway replicas (Postgres): the block of each wallet's last mined
 * write, in the table `last_write` of the gateway's schema, and pushed to every replica by
 * NOTIFY so that a read never queries for it. A replica that starts loads the table. PGlite runs
 * one gateway process: `memoryLastWrites` (block-cache.ts) is enough there.
 */
import pg from "pg";
import type { Logger } from "pino";
import { memoryLastWrites, type LastWrites } from "./block-cache";

export async function sharedLastWrites(o: { databaseUrl: string; schema: string; log: Logger }): Promise<LastWrites & { close(): Promise<void> }> {
  const mem = memoryLastWrites();
  const table = `"${o.schema}".last_write`;
  const channel = `${o.schema}_last_write`;
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: 2 });
  await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (wallet text PRIMARY KEY, block_number bigint NOT NULL)`);
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
