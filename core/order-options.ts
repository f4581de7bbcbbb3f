/**
 * An order's options (Market v2, docs/CONTRACTS.md "Time in force"): time in force, reduce-only
 * on a sized order, good-til-time expiry. The one statement of which combinations exist, for the
 * request schemas of both surfaces (core/schemas/writes.ts, the gateway's snake_case TradeBody)
 * and the client's builders (packages/client): Market._checkOptions refuses the same ones
 * (InvalidOrderOptions). Pure: no zod, no viem.
 */

/** IMarket.TimeInForce, in its enum order (the value is the index). */
export const TIME_IN_FORCE_NAME = ["GTC", "IOC", "FOK", "POST_ONLY"] as const;
export type TimeInForceName = (typeof TIME_IN_FORCE_NAME)[number];
export const TIME_IN_FORCE_VALUE: Record<TimeInForceName, number> = { GTC: 0, IOC: 1, FOK: 2, POST_ONLY: 3 };

/** What each time in force means, for the schemas' descriptions. */
export const TIME_IN_FORCE_TEXT =
  "GTC (default): a LIMIT rests until filled or cancelled, a MARKET fills what it can at once; IOC: fills what it can at once, the rest is cancelled (UNFILLED_IOC); FOK: fills whole at once or is refused (409 FILL_OR_KILL_UNFILLED, nothing sent); POST_ONLY (LIMIT only): rests whole without filling, or is refused when it would cross (409 POST_ONLY_WOULD_CROSS)";
export const REDUCE_ONLY_TEXT =
  "true: the order only reduces the position (side opposite it), sized from collateral × leverage / price as an opening order would be, capped at the position (FOK beyond it: 422 REDUCE_ONLY_EXCEEDS_POSITION); commits no margin. Default false (collateral 0 still places a reduce-only order for the whole position)";
export const EXPIRES_AT_TEXT =
  "unix seconds (chain time), after now: a good-til-time order (GTC or POST_ONLY LIMIT only); from that second it never fills and shows as cancelled (EXPIRED once removed). Absent: none";

/** Expiry bound: Market packs it in 40 bits (OrderOptions.pack; beyond: InvalidExpiry). */
export const MAX_EXPIRES_AT = 2n ** 40n - 1n;

/** The fields of an order the rules read (the camelCase names; the gateway maps its own). */
export type OrderOptionsInput = { orderType: "MARKET" | "LIMIT"; timeInForce?: TimeInForceName; expiresAt?: string | number | bigint };
export type OrderOptionsProblem = { field: "timeInForce" | "expiresAt"; message: string };

/**
 * The first combination that does not exist, or null: POST_ONLY on a MARKET order; an expiry on
 * a MARKET, IOC or FOK order. (An expiry not after now needs the chain's time: the relayer checks
 * it; the client's builder against its clock.)
 */
export function orderOptionsProblem(o: OrderOptionsInput): OrderOptionsProblem | null {
  const tif = o.timeInForce ?? "GTC";
  if (o.orderType === "MARKET" && tif === "POST_ONLY") return { field: "timeInForce", message: "POST_ONLY is for LIMIT orders only (a MARKET order always takes)" };
  if (o.expiresAt !== undefined) {
    if (o.orderType === "MARKET") return { field: "expiresAt", message: "an expiry is for LIMIT orders only (GTC or POST_ONLY)" };
    if (tif === "IOC" || tif === "FOK") return { field: "expiresAt", message: `an expiry is for GTC or POST_ONLY orders only (${tif} never rests)` };
  }
  return null;
}

/** An expiry not after `nowSeconds` (the chain's time): its message, or null. */
export function expiryProblem(expiresAt: string | number | bigint | undefined, nowSeconds: bigint): string | null {
  if (expiresAt === undefined) return null;
  const e = BigInt(expiresAt);
  return e <= nowSeconds ? `must be after now (unix seconds, chain time ${nowSeconds})` : null;
}

/** The time in force the market applies (and OrderPlaced reports): a MARKET order's GTC is IOC (Market._checkOptions). */
export const appliedTimeInForce = (orderType: "MARKET" | "LIMIT", tif: TimeInForceName | undefined): TimeInForceName =>
  orderType === "MARKET" && (tif ?? "GTC") === "GTC" ? "IOC" : (tif ?? "GTC");
