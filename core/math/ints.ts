/** Integer helpers with Solidity's semantics (bigint `/` truncates toward zero, like Solidity). */
export const WAD = 10n ** 18n;
export const BPS = 10_000n;
export const SECONDS_PER_HOUR = 3_600n;

export const abs = (a: bigint) => (a < 0n ? -a : a);
export const min = (a: bigint, b: bigint) => (a < b ? a : b);
export const max = (a: bigint, b: bigint) => (a > b ? a : b);
/** ceil(a / b) for a ≥ 0, b > 0. */
export const ceilDiv = (a: bigint, b: bigint) => (a === 0n ? 0n : (a - 1n) / b + 1n);
/** `x` within [lo, hi]. */
export const clamp = (x: bigint, lo: bigint, hi: bigint) => (x < lo ? lo : x > hi ? hi : x);
