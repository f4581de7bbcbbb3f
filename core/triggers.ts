/**
 * A position's take-profit and stop-loss (TriggerBook, docs/CONTRACTS.md "Triggers"): the names of
 * its enums, the indexed row's id and statuses, and the one rule of which side of the mark a
 * trigger may be set on. One statement for the indexer (src/TriggerBook.ts), the reads, the
 * request schemas of both surfaces, the relayer's prechecks and the keeper. Pure: no zod, no viem.
 */

/** ITriggerBook.TriggerKind, in its enum order (the value is the index). */
export const TRIGGER_KIND_NAME = ["TAKE_PROFIT", "STOP_LOSS"] as const;
export type TriggerKindName = (typeof TRIGGER_KIND_NAME)[number];
export const triggerKindValue = (name: TriggerKindName): number => TRIGGER_KIND_NAME.indexOf(name);

/** ITriggerBook.TriggerEnd, in its enum order: why a trigger ended without firing. */
export const TRIGGER_END_NAME = ["CANCELLED", "POSITION_CHANGED", "OPERATOR_REVOKED", "TWIN_FIRED"] as const;
export type TriggerEndName = (typeof TRIGGER_END_NAME)[number];

/** The indexed trigger's status (table position_trigger): set and waiting, fired, or ended without firing. */
export const TRIGGER_STATUS = ["active", "executed", "cancelled"] as const;
export type TriggerStatus = (typeof TRIGGER_STATUS)[number];

/** What each kind means, for the schemas' descriptions. */
export const TRIGGER_KIND_TEXT =
  "TAKE_PROFIT fires when the mark moves in the position's favour to the trigger price (a long's: mark ≥ trigger; a short's: mark ≤ trigger); STOP_LOSS when it moves against it (a long's: mark ≤ trigger; a short's: mark ≥ trigger)";
export const TRIGGER_END_TEXT =
  "why a trigger ended without firing: CANCELLED (its owner or an operator), POSITION_CHANGED (the position it was set on is gone: closed, turned, or closed and opened again), OPERATOR_REVOKED (the operator that set it is no longer approved), TWIN_FIRED (its one-cancels-other twin fired); null while active or once executed";

/** The row id of table position_trigger: `${accountId}-${marketId lower-case}-${kind}`. */
export const triggerId = (accountId: bigint | string, marketId: string, kind: TriggerKindName): string =>
  `${accountId}-${marketId.toLowerCase()}-${kind}`;

/** Whether the trigger fires when the mark rises to its price: a long's take-profit, a short's stop-loss (TriggerBook._firesUp). */
export const firesUp = (kind: TriggerKindName, positionSide: "LONG" | "SHORT"): boolean => (kind === "TAKE_PROFIT") === (positionSide === "LONG");

/**
 * The trigger price on the wrong side of the mark (it would fire at once; TriggerBook.setTrigger's
 * InvalidTrigger): its message, or null. It must lie strictly beyond the mark in the direction it fires.
 */
export function triggerSideProblem(kind: TriggerKindName, positionSide: "LONG" | "SHORT", triggerPriceX18: bigint, markX18: bigint): string | null {
  if (triggerPriceX18 <= 0n) return "must be above 0";
  const up = firesUp(kind, positionSide);
  if (up ? triggerPriceX18 > markX18 : triggerPriceX18 < markX18) return null;
  const name = kind === "TAKE_PROFIT" ? "a take-profit" : "a stop-loss";
  return `${name} of a ${positionSide.toLowerCase()} position must be ${up ? "above" : "below"} the mark (it would fire at once)`;
}

/** The order a trigger places: a LIMIT carries its price, a MARKET none (TriggerBook.setTrigger's InvalidPrice). Its problem, or null. */
export function triggerOrderProblem(o: { orderType: "MARKET" | "LIMIT"; limitPrice?: string }): { field: "limitPrice"; message: string } | null {
  if (o.orderType === "LIMIT" && o.limitPrice === undefined) return { field: "limitPrice", message: "required for a LIMIT trigger order (the price of the reduce-only close it places)" };
  if (o.orderType === "LIMIT" && /^0+$/.test(o.limitPrice ?? "")) return { field: "limitPrice", message: "must be greater than 0" };
  if (o.orderType === "MARKET" && o.limitPrice !== undefined) return { field: "limitPrice", message: "a MARKET trigger order has no limit price (leave it out, or use orderType LIMIT)" };
  return null;
}
