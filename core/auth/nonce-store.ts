/**
 * Single use of SIWE nonces. A nonce is HMAC-signed and carries its expiry (core/auth/siwe.ts),
 * so only *used* nonces are stored, until they expire: nothing is written for a nonce that is
 * merely requested. With `DATABASE_URL` the used nonces live in Postgres (schema
 * `SIWE_DB_SCHEMA`, default `integration_auth`), shared by every integration-API replica on that
 * database; without it (PGlite, one process) they live in this process's memory.
 */
import pg from "pg";

export interface NonceStore {
  readonly kind: "memory" | "postgres";
  /** Marks the nonce used; false when it was used before. */
  consume(nonce: string, expiresAtSeconds: number, nowSeconds?: number): Promise<boolean>;
}

export class MemoryNonceStore implements NonceStore {
  readonly kind = "memory";
  private readonly used = new Map<string, number>();
  async consume(nonce: string, expiresAtSeconds: number, nowSeconds = Math.floor(Date.now() / 1000)) {
    for (const [n, exp] of this.used) if (exp < nowSeconds) this.used.delete(n);
    if (this.used.has(nonce)) return false;
    this.used.set(nonce, expiresAtSeconds);
    return true;
  }
}

export class PostgresNonceStore implements NonceStore {
  readonly kind = "postgres";
  private ready: Promise<void> | undefined;
  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`SIWE_DB_SCHEMA must be a lower-case SQL identifier (got "${schema}")`);
  }

  private init() {
    this.ready ??= (async () => {
      await this.pool.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await this.pool.query(`CREATE TABLE IF NOT EXISTS ${this.schema}.siwe_used_nonce (nonce text PRIMARY KEY, expires_at bigint NOT NULL)`);
    })().catch((e) => {
      this.ready = undefined;
      throw e;
    });
    return this.ready;
  }

  async consume(nonce: string, expiresAtSeconds: number, nowSeconds = Math.floor(Date.now() / 1000)) {
    await this.init();
    await this.pool.query(`DELETE FROM ${this.schema}.siwe_used_nonce WHERE expires_at < $1`, [nowSeconds]);
    const r = await this.pool.query(
      `INSERT INTO ${this.schema}.siwe_used_nonce (nonce, expires_at) VALUES ($1, $2) ON CONFLICT (nonce) DO NOTHING`,
      [nonce, expiresAtSeconds],
    );
    return r.rowCount === 1;
  }
}

/** Postgres when DATABASE_URL is set, else memory. */
export function nonceStoreFromEnv(env: Record<string, string | undefined> = process.env): NonceStore {
  if (!env.DATABASE_URL) return new MemoryNonceStore();
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 2 });
  pool.on("error", () => {}); // an idle client's error must not kill the API process; the next query reports it
  return new PostgresNonceStore(pool, env.SIWE_DB_SCHEMA || "integration_auth");
}
