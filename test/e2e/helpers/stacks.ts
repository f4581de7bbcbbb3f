/**
 * Access to the stacks started by test/e2e/global-setup.ts. Typical use:
 *
 *   describe.each(stackList())("orders on $kind", (stack) => { … stack.integrationUrl … });
 *
 * Stacks are shared by every e2e file of the run (files run one at a time): use wallets that
 * no other file relies on, or create fresh state. See test/e2e/stack.ts for the demo wallets.
 */
import { inject } from "vitest";
import type { DbKind, StackInfo } from "../stack.js";

export type { StackInfo, DbKind };

export function stacks(): Partial<Record<DbKind, StackInfo>> {
  return inject("stacks");
}

/** Every started stack (one per database kind), for describe.each. */
export function stackList(): StackInfo[] {
  return Object.values(stacks()).filter((s): s is StackInfo => !!s);
}

export function stack(kind: DbKind): StackInfo | undefined {
  return stacks()[kind];
}
