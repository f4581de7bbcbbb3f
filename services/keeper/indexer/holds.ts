/**
 * What the keeper sent waits for the index: a key (an account, an order, a trigger) acted on in a
 * transaction of block B is skipped until the indexed block is above B, so a lagging index never
 * has the keeper send the same write twice. A failed attempt holds the key until the index moves
 * past the block it was tried at.
 */
export class IndexHolds<K> {
  private readonly until = new Map<K, bigint>();

  /** Whether `key` still waits, the index being at `indexed`. */
  held(key: K, indexed: bigint): boolean {
    const b = this.until.get(key);
    return b !== undefined && indexed <= b;
  }

  hold(key: K, block: bigint): void {
    this.until.set(key, block);
  }

  /** Forgets the keys that are no longer candidates. */
  retain(live: ReadonlySet<K>): void {
    for (const k of this.until.keys()) if (!live.has(k)) this.until.delete(k);
  }
}
