/** Hour ends for the PnL route's period values (src/history/clock.ts keeps them per block). */
export const HOUR = 3_600n;

/**
 * Whether the block stamped `last`, followed by the block stamped `next`, is the last block at
 * or before some hour end H (last ≤ H < next). A block stamped exactly H is still that hour's
 * end: the comparison is on timestamp − 1.
 */
export const endsAnHour = (last: bigint, next: bigint): boolean => (last - 1n) / HOUR < (next - 1n) / HOUR;
