/** Quiet venues (test/e2e/reads-env.ts) of a file's database kinds, booted together. */
import { afterAll } from "vitest";
import { startVenue, type Venue } from "../reads-env.js";
import type { DbKind } from "../stack.js";

/**
 * The venues of a file's database kinds, booted at once: the first kind's `beforeAll` that asks
 * starts `boot` for every kind, so the second kind's anvil, Ponder and read service come up while
 * the first kind's tests run (files run one at a time; each describe.each kind awaits its own).
 * `boot` starts its venue with `start` (tracked: every venue started is stopped after the file,
 * also when `boot` fails half-way). Keep chain actions that age (index prices: the oracle's
 * staleness bound) in the kind's own `beforeAll`, after the await, not in `boot`.
 */
export function bootTogether<T>(kinds: DbKind[], boot: (kind: DbKind, start: (opts?: { clock?: number }) => Promise<Venue>) => Promise<T>): (kind: DbKind) => Promise<T> {
  const venues: Venue[] = [];
  let booted: Map<DbKind, Promise<T>> | undefined;
  afterAll(async () => {
    await Promise.all(venues.map((v) => v.stop().catch(() => {})));
  });
  return (kind) => {
    booted ??= new Map(
      kinds.map((k) => {
        const p = boot(k, (opts) => startVenue(k, opts).then((v) => (venues.push(v), v)));
        p.catch(() => {}); // reported by the kind's own beforeAll when it awaits it
        return [k, p] as const;
      }),
    );
    const p = booted.get(kind);
    if (!p) throw new Error(`bootTogether: ${kind} is not one of this file's kinds (${kinds.join(", ")})`);
    return p;
  };
}
