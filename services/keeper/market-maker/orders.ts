/**
 * The maker's quotes in the client's terms (packages/client, `@venue-indexer/client`): a market's
 * quoting parameters from its read (`GET /markets`, amounts through the client's units helpers),
 * and each quote built with the client's `order.limit` builder, which refuses a bad one (price
 * off the tick, leverage above the market's maximum, a paused market, a zero collateral) before
 * anything is sent. The built order is then mapped onto `Engine.placeOrder`'s struct, since the
 * maker writes on chain with its own key (never through the relayer). Pure.
 */
import type { Hex } from "viem";
import { SIDE_VALUE, ORDER_TYPE_VALUE } from "../../../core/schemas/writes.js";
import { TIME_IN_FORCE_VALUE } from "../../../core/order-options.js";
import { big, buildPlaceOrder, order, type Market, type MarketRules, type PlaceOrderRequest, type Side } from "../../../packages/client/src/index.js";
import { SIDE_LONG, type Quote, type QuoteParams } from "./quotes.js";

const E18 = 10n ** 18n;

/** The ladder's own parameters (QuoteParams'), the quantity in whole units, and the maker's account. */
export type MakerOptions = Pick<QuoteParams, "levels" | "spreadBps" | "levelStepBps" | "leverage" | "requoteBps"> & {
  /** Whole base units per level. */
  levelQty: bigint;
  /** Whole USD the maker keeps deposited. */
  depositUsd: bigint;
  /** Quote only these markets (default: every market the integration API lists). */
  marketIds?: readonly Hex[];
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
 * the client's `VenueInputError` when refused), as `Engine.placeOrder`'s argument.
 */
export function quoteOrder(accountId: bigint, market: MarketRules, q: Quote, leverage: bigint, clientKey: Hex): EngineOrder {
  const side: Side = q.side === SIDE_LONG ? "LONG" : "SHORT";
  const spec = order.limit({ marketId: market.marketId as Hex, side, collateral: q.collateral6, leverage: Number(leverage), price: q.priceX18, clientKey });
  return toEngineOrder(accountId, buildPlaceOrder(spec, market));
}
