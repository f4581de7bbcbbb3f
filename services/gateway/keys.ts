/**
 * API keys: 256 random bits shown once, stored as SHA-256 hashes, revocable, each tied to one
 * wallet. Verified keys are cached in this process for `cacheMs` (revocation through this
 * process is immediate; on other replicas it takes at most `cacheMs`), by the key as sent: a
 * cached key is never hashed again (its SHA-256 was ~5 % of the hot path's CPU), and the process
 * holds each request's clear key anyway. With `revocations` (core/auth/key-revocations.ts) a
 * revocation is published to every replica, which forgets the key at once and closes its sockets.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Address } from "viem";
import type { KeyRevocations } from "../../core/auth/key-revocations.js";
import type { GatewayStore } from "./db/open.js";

/** `vgw_` + 43 base64url characters (32 random bytes). */
export const KEY_PREFIX = "vgw_";
const KEY_SHAPE = /^vgw_[A-Za-z0-9_-]{43}$/;

export interface ApiKeyIdentity {
  keyId: string;
  wallet: Address;
}

export interface ApiKeyRecord extends ApiKeyIdentity {
  keyPrefix: string;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

export class KeyStore {
  /** By the clear key; only keys found (not revoked) in the store. */
  private readonly cache = new Map<string, { identity: ApiKeyIdentity; expiresAt: number }>();

  constructor(
    private readonly store: GatewayStore,
    private readonly cacheMs = 5_000,
    private readonly revocations?: KeyRevocations,
  ) {
    revocations?.subscribe((keyId) => this.forget(keyId));
  }

  /** Drops a key's cached identity (a revocation here or on another replica). */
  forget(keyId: string) {
    for (const [key, entry] of this.cache) if (entry.identity.keyId === keyId) this.cache.delete(key);
  }

  /** Makes a key for `wallet`; the clear key is in the answer only. */
  async create(wallet: Address, label?: string): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = KEY_PREFIX + randomBytes(32).toString("base64url");
    const keyId = "key_" + randomBytes(8).toString("hex");
    const { apiKey } = this.store.tables;
    const [row] = await this.store.db
      .insert(apiKey)
      .values({ keyId, keyHash: hashKey(key), keyPrefix: key.slice(0, 10), wallet: wallet.toLowerCase(), label: label ?? null })
      .returning();
    return { key, record: toRecord(row!) };
  }

  async list(wallet?: Address): Promise<ApiKeyRecord[]> {
    const { apiKey } = this.store.tables;
    const rows = await this.store.db
      .select()
      .from(apiKey)
      .where(wallet ? eq(apiKey.wallet, wallet.toLowerCase()) : undefined)
      .orderBy(asc(apiKey.createdAt));
    return rows.map(toRecord);
  }

  /** Revokes a key; null when there is no such key. Revoking twice keeps the first time. */
  async revoke(keyId: string): Promise<ApiKeyRecord | null> {
    const { apiKey } = this.store.tables;
    await this.store.db
      .update(apiKey)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKey.keyId, keyId), isNull(apiKey.revokedAt)));
    const [row] = await this.store.db.select().from(apiKey).where(eq(apiKey.keyId, keyId));
    this.forget(keyId);
    if (row?.revokedAt) await this.revocations?.publish(keyId);
    return row ? toRecord(row) : null;
  }

  /**
   * The identity of a key verified within `cacheMs`, without a lookup (the hot path's); undefined
   * when not cached, then `verify` decides.
   */
  cachedIdentity(key: string): ApiKeyIdentity | undefined {
    if (!KEY_SHAPE.test(key)) return undefined;
    const hit = this.cache.get(key);
    return hit && hit.expiresAt > Date.now() ? hit.identity : undefined;
  }

  /** The key's identity, or null when the key is malformed, unknown or revoked. */
  async verify(key: string): Promise<ApiKeyIdentity | null> {
    if (!KEY_SHAPE.test(key)) return null;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > now) return hit.identity;
    const hash = hashKey(key);
    const { apiKey } = this.store.tables;
    const [row] = await this.store.db
      .select({ keyId: apiKey.keyId, wallet: apiKey.wallet })
      .from(apiKey)
      .where(and(eq(apiKey.keyHash, hash), isNull(apiKey.revokedAt)));
    if (!row) {
      this.cache.delete(key);
      return null;
    }
    const identity = { keyId: row.keyId, wallet: row.wallet as Address };
    if (this.cacheMs > 0) this.cache.set(key, { identity, expiresAt: now + this.cacheMs });
    return identity;
  }
}

function toRecord(row: {
  keyId: string;
  keyPrefix: string;
  wallet: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}): ApiKeyRecord {
  return {
    keyId: row.keyId,
    wallet: row.wallet as Address,
    keyPrefix: row.keyPrefix,
    label: row.label,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}
