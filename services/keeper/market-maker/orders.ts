/**
 * The maker's quotes in the client's terms (packages/client, `@venue-indexer/client`): a market's
 * quoting parameters from its read (`GET /markets`, amounts through the client's units helpers),
 * and each quote built with the client's `order.limit` builder, which refuses a bad one (price
 * off the tick, leverage above the market's maximum, a paused market, a zero collateral) before
 * anything is sent. The built order is then mapped onto `Engine.placeOrder`'s struct, since the
 * maker writes on chain with its own key (never through the relayer). Pure.
 */
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, encodeFunctionData, type Hex } from "viem";
import { engineAbi } from "../../../abis/index.js";
import { SIDE_VALUE, ORDER_TYPE_VALUE } from "../../../core/schemas/writes.js";
import { TIME_IN_FORCE_VALUE } from "../../../core/order-options.js";
import { big, buildPlaceOrder, order, type Market, type MarketRules, type PlaceOrderRequest, type Side } from "../../../packages/client/src/index.js";
import { SIDE_LONG, type BatchItemKind, type Quote, type QuoteParams } from "./quotes.js";

const E18 = 10n ** 18n;

/** The ladder's own parameters (QuoteParams'), the quantity in whole units, and the maker's account. */
export type MakerOptions = Pick<QuoteParams, "levels" | "spreadBps" | "levelStepBps" | "leverage" | "requoteBps"> & {
  /** Whole base units per level. */
  levelQty: bigint;
  /** Whole USD the maker keeps deposited. */
  depositUsd: bigint;
  /** Quote only these markets (default: every market the integration API lists). */
  marketIds?: readonly Hex[];
  /**
   * The dead-man period in seconds (Engine.setDeadman): each batch sets the account's deadline to
   * the chain's time + this, a quiet round refreshes it alone when less than half is left; when the
   * maker stops, anyone (the keeper's dead-man executor) may cancel its orders from the deadline.
   * 0 or absent: off (a deadline left armed by an earlier run is cleared).
   */
  deadmanSeconds?: number;
};

/** The ladder's parameters in one market: the maker's options, the market's tick, lot and leverage cap. */
export function quoteParams(m: Pick<Market, "tickSize" | "lotSize" | "maxLeverage">, o: MakerOptions): QuoteParams {
  return {
    levels: o.levels,
    spreadBps: o.spreadBps,
    levelStepBps: o.levelStepBps,
    levelQty: o.levelQty * E18,
    leverage: o.leverage < BigInt(m.maxLeverage) ? o.leverage : BigInt(m.maxLeverage),
    requoteBps: o.requoteBps,
    tickX18: big(m.tickSize),
    lotQty: big(m.lotSize),
  };
}

/** `Engine.placeOrder`'s argument (abis/Engine.ts). */
export type EngineOrder = {
  accountId: bigint;
  marketId: Hex;
  side: number;
  orderType: number;
  collateral6: bigint;
  leverage: bigint;
  limitPriceX18: bigint;
  clientKey: Hex;
  timeInForce: number;
  reduceOnly: boolean;
  expiresAt: bigint;
};


/** A checked order body (the client's `buildPlaceOrder`) as `Engine.placeOrder`'s argument. */
export function toEngineOrder(accountId: bigint, b: PlaceOrderRequest & { clientKey: Hex }): EngineOrder {
  return {
    accountId,
    marketId: b.marketId as Hex,
    side: SIDE_VALUE[b.side],
    orderType: ORDER_TYPE_VALUE[b.orderType],
    collateral6: BigInt(b.collateralAmount),
    leverage: BigInt(b.leverage),
    limitPriceX18: b.orderType === "LIMIT" ? BigInt(b.limitPrice ?? "0") : 0n,
    clientKey: b.clientKey,
    // the body's order options, when it has them (absent: GTC, false, none, as before)
    timeInForce: TIME_IN_FORCE_VALUE[b.timeInForce ?? "GTC"],
    reduceOnly: b.reduceOnly === true,
    expiresAt: BigInt(b.expiresAt ?? 0),
  };
}

/**
 * A quote as a LIMIT order of the client's builder, checked against the market's rules (throws
 * the client's `VenueInputError` when refused), as `Engine.placeOrder`'s argument: POST_ONLY by
 * default (a quote that would cross the book reverts PostOnlyWouldCross instead of taking); GTC for
 * a level a stale order of someone else crosses (the maker's retry: it takes that order first).
 */
export function quoteOrder(
  accountId: bigint, market: MarketRules, q: Quote, leverage: bigint, clientKey: Hex, timeInForce: "POST_ONLY" | "GTC" = "POST_ONLY",
): EngineOrder {
  const side: Side = q.side === SIDE_LONG ? "LONG" : "SHORT";
  const spec = order.limit({
    marketId: market.marketId as Hex, side, collateral: q.collateral6, leverage: Number(leverage), price: q.priceX18, clientKey, timeInForce,
  });
  return toEngineOrder(accountId, buildPlaceOrder(spec, market));
}

// ─── Engine.batch items ─────────────────────────────────────────────────────────────────────

export const placeCall = (o: EngineOrder): Hex => encodeFunctionData({ abi: engineAbi, functionName: "placeOrder", args: [o] });
export const cancelCall = (accountId: bigint, marketId: Hex, clientKey: Hex): Hex =>
  encodeFunctionData({ abi: engineAbi, functionName: "cancelOrder", args: [accountId, marketId, clientKey] });
export const deadmanCall = (accountId: bigint, deadline: bigint): Hex =>
  encodeFunctionData({ abi: engineAbi, functionName: "setDeadman", args: [accountId, deadline] });

/**
 * Gas per item of a non-atomic batch, well above what each takes (bench/gas-snapshot.json: a
 * LIMIT order at a new level ~263k, a cancel ~116k, a dead-man refresh ~38k). A non-atomic batch
 * never reverts, so the node's estimate may be the gas at which a late item runs out silently
 * (it fails with empty revert data while the transaction succeeds): the maker sends this budget
 * instead (unused gas is not charged).
 */
export const ITEM_GAS: Record<BatchItemKind, bigint> = { place: 600_000n, cancel: 300_000n, deadman: 100_000n };
export const BATCH_BASE_GAS = 150_000n;
export const batchGas = (kinds: readonly BatchItemKind[]): bigint => kinds.reduce((g, k) => g + ITEM_GAS[k], BATCH_BASE_GAS);

export type ItemError = { name: string; args: readonly unknown[] };

/**
 * A failed item's revert data as the engine's (or a market's, bubbled) custom error: its name
 * and arguments; `""` for empty data (out of gas, or a bare revert), the selector when unknown.
 */
export function itemError(data: Hex): ItemError {
  if (!data || data === "0x") return { name: "", args: [] };
  try {
    const d = decodeErrorResult({ abi: engineAbi, data });
    return { name: d.errorName, args: d.args ?? [] };
  } catch {
    return { name: data.slice(0, 10), args: [] };
  }
}

/** A viem revert's decoded arguments (e.g. DeadmanTooSoon's minimum), or none. */
export function revertArgs(e: unknown): readonly unknown[] {
  if (!(e instanceof BaseError)) return [];
  const r = e.walk((x) => x instanceof ContractFunctionRevertedError);
  return r instanceof ContractFunctionRevertedError ? (r.data?.args ?? []) : [];
}
