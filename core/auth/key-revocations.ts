/**
 * API-key revocations between processes. The gateway that revokes a key tells this process's
 * listeners at once and, with `REDIS_URL`, publishes the key id on the Redis channel
 * `venue:keys:revoked`; every gateway and stream replica subscribed there forgets the key and
 * closes its sockets (4401). Without Redis only this process hears it (other gateway replicas
 * notice when their key cache expires: `KEY_CACHE_MS`).
 */
import { Redis } from "ioredis";

export const REVOKED_CHANNEL = "venue:keys:revoked";

export type KeyRevocations = {
  /** Tells this process's listeners and (with Redis) every other process. Never throws (a Redis error goes to onError). */
  publish(keyId: string): Promise<void>;
  /** `fn(keyId)` on every revocation, here or in another process (possibly twice for one: it must be idempotent). */
  subscribe(fn: (keyId: string) => void): void;
  close(): Promise<void>;
};

export function keyRevocations(redisUrl: string | undefined, onError: (e: unknown) => void = () => {}): KeyRevocations {
  const listeners = new Set<(keyId: string) => void>();
  const tell = (keyId: string) => {
    for (const fn of listeners) fn(keyId);
  };
  let pub: Redis | undefined;
  let sub: Redis | undefined;
  if (redisUrl) {
    pub = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: false });
    // a subscribed connection serves nothing else; ioredis subscribes again after a reconnect
    sub = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    pub.on("error", onError);
    sub.on("error", onError);
    sub.on("message", (channel: string, keyId: string) => channel === REVOKED_CHANNEL && tell(keyId));
    sub.subscribe(REVOKED_CHANNEL).catch(onError);
  }
  return {
    async publish(keyId) {
      tell(keyId);
      await pub?.publish(REVOKED_CHANNEL, keyId).catch(onError);
    },
    subscribe: (fn) => void listeners.add(fn),
    async close() {
      await Promise.all([pub?.quit().catch(() => undefined), sub?.quit().catch(() => undefined)]);
    },
  };
}
