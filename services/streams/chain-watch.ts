/**
 * Reorg detection for the streams: the hash of every indexed block seen, checked against the
 * chain's parent links on each new one (one block read per indexed block, a few more only when
 * the chain changed branch). Returns the common ancestor when blocks the streams described were
 * replaced.
 */
import { createPublicClient, http, type Hex } from "viem";

export class ChainWatch {
  private readonly hashes = new Map<bigint, Hex>();
  private readonly client;
  constructor(rpcUrl: string, private readonly keep = 512) {
    this.client = createPublicClient({ transport: http(rpcUrl, { retryCount: 1, timeout: 5_000 }) });
  }

  /** Records block `n` of the chain as it is now; the common ancestor if an earlier recorded block is no longer on it. */
  async check(n: bigint): Promise<bigint | null> {
    const b = await this.client.getBlock({ blockNumber: n });
    let ancestor: bigint | null = null;
    let num = n - 1n;
    let parent = b.parentHash;
    const walked: [bigint, Hex][] = [[n, b.hash!]];
    // replaced blocks above n (the new branch is shorter so far)
    for (const [k, h] of this.hashes) if (k > n || (k === n && h !== b.hash)) ancestor = n - 1n;
    for (let steps = 0; num >= 0n && steps < this.keep; steps++) {
      const known = this.hashes.get(num);
      if (known === undefined) {
        if (![...this.hashes.keys()].some((k) => k < num)) break; // nothing recorded below: nothing to compare
      } else if (known === parent) break;
      else ancestor = num - 1n; // num was replaced
      const p = await this.client.getBlock({ blockHash: parent });
      walked.push([num, p.hash!]);
      parent = p.parentHash;
      num--;
    }
    if (ancestor !== null) for (const k of [...this.hashes.keys()]) if (k > ancestor) this.hashes.delete(k);
    for (const [k, h] of walked) this.hashes.set(k, h);
    for (const k of [...this.hashes.keys()]) if (k < n - BigInt(this.keep)) this.hashes.delete(k);
    return ancestor;
  }
}
