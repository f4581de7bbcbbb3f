/**
 * The local price feed's simulated index: a bounded random walk in whole ticks, reproducible from
 * a seed. Pure bigint (no floats): the same seed and start give the same prices on any machine.
 */
import { keccak256, toHex } from "viem";

const MASK64 = (1n << 64n) - 1n;

/** splitmix64: a tiny, well-mixed 64-bit generator; state and outputs are bigint. */
export class SplitMix64 {
  private state: bigint;
  constructor(seed: bigint) {
    this.state = seed & MASK64;
  }
  next(): bigint {
    this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  }
}

/** A 64-bit seed per (FEED_SEED, market), so markets walk independently but reproducibly. */
export function walkSeed(feedSeed: string, marketId: string): bigint {
  return BigInt(keccak256(toHex(`${feedSeed}:${marketId.toLowerCase()}`))) & MASK64;
}

export type WalkParams = {
  tickX18: bigint;
  /** Largest move of one step in basis points of the current price (at least one tick if > 0). */
  maxStepBps: bigint;
  /** Prices stay within anchor × (1 ± bandBps / 1e4), rounded inwards to the tick. */
  bandBps: bigint;
};

export const roundToTick = (priceX18: bigint, tickX18: bigint) => ((priceX18 + tickX18 / 2n) / tickX18) * tickX18;

/** The band [lo, hi] around the anchor, on the tick, never below one tick. */
export function walkBand(anchorX18: bigint, p: WalkParams): { lo: bigint; hi: bigint } {
  const rawLo = (anchorX18 * (10_000n - p.bandBps)) / 10_000n;
  const lo = ((rawLo + p.tickX18 - 1n) / p.tickX18) * p.tickX18; // ceil to tick
  const hi = (((anchorX18 * (10_000n + p.bandBps)) / 10_000n) / p.tickX18) * p.tickX18; // floor to tick
  return { lo: lo < p.tickX18 ? p.tickX18 : lo, hi };
}

/**
 * One step: move by k ticks, k uniform in [−m, m] with m = max(1, price × maxStepBps / 1e4 / tick),
 * reflected at the band's edges. `u` is a uniform 64-bit draw.
 */
export function stepPrice(priceX18: bigint, anchorX18: bigint, u: bigint, p: WalkParams): bigint {
  const { lo, hi } = walkBand(anchorX18, p);
  if (p.maxStepBps === 0n || hi <= lo) return clamp(priceX18, lo, hi);
  let m = (priceX18 * p.maxStepBps) / 10_000n / p.tickX18;
  if (m < 1n) m = 1n;
  const k = (u % (2n * m + 1n)) - m;
  let next = priceX18 + k * p.tickX18;
  if (next > hi) next = hi - (next - hi);
  if (next < lo) next = lo + (lo - next);
  return clamp(next, lo, hi);
}

const clamp = (x: bigint, lo: bigint, hi: bigint) => (x < lo ? lo : x > hi ? hi : x);

/**
 * The walk of one market. It starts from (and is banded around) `startX18`; when someone else
 * moves the price (an admin, a test), `reanchor` continues the walk from there.
 */
export class RandomWalk {
  private readonly rng: SplitMix64;
  private anchor: bigint;
  private price: bigint;

  constructor(seed: bigint, startX18: bigint, private readonly params: WalkParams) {
    if (params.tickX18 <= 0n) throw new Error("tick must be positive");
    this.rng = new SplitMix64(seed);
    this.anchor = roundToTick(startX18, params.tickX18);
    this.price = this.anchor;
  }

  get current(): bigint {
    return this.price;
  }

  get anchorX18(): bigint {
    return this.anchor;
  }

  reanchor(priceX18: bigint): void {
    this.anchor = roundToTick(priceX18, this.params.tickX18);
    this.price = this.anchor;
  }

  next(): bigint {
    this.price = stepPrice(this.price, this.anchor, this.rng.next(), this.params);
    return this.price;
  }
}
