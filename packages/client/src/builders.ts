/**
 * Builders of every write's body that refuse bad combinations before anything is sent
 * (`VenueInputError`, with the code the server would answer): a LIMIT without a price, a MARKET
 * with one, a zero or non-integer leverage, a leverage above the market's maximum, a price off
 * the market's tick, a zero amount, a malformed id, a validUntil in the past or beyond a day, an
 * order option combination that does not exist (POST_ONLY MARKET, an expiry on MARKET, IOC or FOK:
 * the server's own rule, core/order-options.ts) or an expiry not after now.
 * Amounts are bigint (deposit-token base units for collateral and amounts, 18 decimals for prices).
 */
import { VenueInputError } from "./errors.js";
import { MAX_EXPIRES_AT, TIME_IN_FORCE_NAME, expiryProblem, orderOptionsProblem, type TimeInForceName } from "../../../core/order-options.js";
import type { ClosePositionRequest, Market, MarginAction, ModifyOrderRequest, OrderType, PlaceOrderRequest, PositionMarginRequest, SetTriggerRequest, Side } from "./types.js";
import { TRIGGER_KIND_NAME, triggerOrderProblem, type TriggerKindName } from "../../../core/triggers.js";

export type Hex = `0x${string}`;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const UINT256_MAX = 2n ** 256n - 1n;
const MAX_VALID_FOR_S = 86_400;

/** The market facts a builder checks against (a `Market` from `markets()` has them all). */
export type MarketRules = Pick<Market, "marketId" | "maxLeverage" | "tickSize"> & Partial<Pick<Market, "isActive" | "symbol">>;

export type OrderSpec = {
  marketId: Hex;
  side: Side;
  /** deposit-token base units (6 decimals), > 0 */
  collateral: bigint;
  /** an integer from 1 to the market's maximum */
  leverage: number;
  type: OrderType;
  /** 18 decimals; LIMIT only */
  price?: bigint;
  /** bytes32; default: a random one made by the client (so the order can be cancelled even if the answer is lost) */
  clientKey?: Hex;
  /** unix seconds; default the server's (60 s for MARKET, 600 s for LIMIT) */
  validUntil?: number;
  /** GTC (default: a LIMIT rests, a MARKET takes what it can), IOC, FOK (all or nothing), POST_ONLY (LIMIT only: rests or is refused) */
  timeInForce?: TimeInForceName;
  /** only reduce the position: sized from collateral × leverage / price, capped at the position, no margin committed */
  reduceOnly?: boolean;
  /** good-til-time: unix seconds after now (GTC or POST_ONLY LIMIT only) */
  expiresAt?: number;
};

export type CloseSpec = { type: OrderType; price?: bigint; clientKey?: Hex; validUntil?: number };

/** A resting order's new price and remaining size (Market v2 modify), the order named by `orderId` or `clientKey` (exactly one). */
/** A position's take-profit or stop-loss: fires once the mark reaches `triggerPrice`, placing a reduce-only close (MARKET, or LIMIT at `limitPrice`). */
export type TriggerSpec = { marketId: Hex; kind: TriggerKindName; triggerPrice: bigint; type: OrderType; limitPrice?: bigint; oco?: boolean; validUntil?: number };
export type ModifySpec = { marketId: Hex; orderId?: bigint | string; clientKey?: Hex; price: bigint; quantity: bigint; validUntil?: number };

const refuse = (code: "VALIDATION_ERROR" | "INVALID_AMOUNT" | "EXCEEDS_MAX_LEVERAGE" | "INVALID_PRICE" | "MARKET_NOT_FOUND" | "MARKET_NOT_ACTIVE", field: string, message: string): never => {
  throw new VenueInputError(code, `${field}: ${message}`, field);
};

export function checkBytes32(field: string, v: unknown): asserts v is Hex {
  if (typeof v !== "string" || !BYTES32.test(v)) refuse("VALIDATION_ERROR", field, "must be a 0x-prefixed 32-byte hex string");
}

export function checkAmount(field: string, v: unknown, allowZero = false): asserts v is bigint {
  if (typeof v !== "bigint") refuse("VALIDATION_ERROR", field, "must be a bigint (base units)");
  if ((v as bigint) < 0n || (v as bigint) > UINT256_MAX) refuse("VALIDATION_ERROR", field, "must be from 0 to uint256");
  if (!allowZero && v === 0n) refuse("INVALID_AMOUNT", field, "must be greater than 0");
}

function checkValidUntil(v: number | undefined, now: number) {
  if (v === undefined) return;
  if (!Number.isSafeInteger(v) || v <= now) refuse("VALIDATION_ERROR", "validUntil", "must be unix seconds in the future");
  if (v > now + MAX_VALID_FOR_S) refuse("VALIDATION_ERROR", "validUntil", "at most one day ahead");
}

function checkPrice(type: OrderType, price: bigint | undefined, market?: MarketRules) {
  if (type !== "MARKET" && type !== "LIMIT") refuse("VALIDATION_ERROR", "type", "must be MARKET or LIMIT");
  if (type === "MARKET" && price !== undefined) refuse("VALIDATION_ERROR", "price", "a MARKET order takes no price (use a LIMIT order)");
  if (type === "LIMIT") {
    if (price === undefined) refuse("VALIDATION_ERROR", "price", "is required for a LIMIT order");
    checkAmount("price", price);
    const tick = market ? BigInt(market.tickSize) : 0n;
    if (tick > 0n && price! % tick !== 0n) refuse("INVALID_PRICE", "price", `must be a multiple of the market's tick ${tick}`);
  }
}

/** A random bytes32 client key. */
export function randomClientKey(): Hex {
  const b = new Uint8Array(32);
  globalThis.crypto.getRandomValues(b);
  return `0x${Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")}`;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The integration API's body of POST /accounts/{id}/orders, checked. `market`: its rules (leverage cap, tick). */
export function buildPlaceOrder(spec: OrderSpec, market?: MarketRules, now = nowSeconds()): PlaceOrderRequest & { clientKey: Hex } {
  checkBytes32("marketId", spec.marketId);
  if (market && market.marketId.toLowerCase() !== spec.marketId.toLowerCase()) refuse("VALIDATION_ERROR", "marketId", "is not the market whose rules were given");
  if (market?.isActive === false) refuse("MARKET_NOT_ACTIVE", "marketId", `${market.symbol ?? spec.marketId} is paused`);
  if (spec.side !== "LONG" && spec.side !== "SHORT") refuse("VALIDATION_ERROR", "side", "must be LONG or SHORT");
  checkAmount("collateral", spec.collateral);
  if (!Number.isInteger(spec.leverage) || spec.leverage < 1) refuse("EXCEEDS_MAX_LEVERAGE", "leverage", "must be an integer from 1 to the market's maximum");
  if (market && spec.leverage > market.maxLeverage) refuse("EXCEEDS_MAX_LEVERAGE", "leverage", `at most ${market.maxLeverage} in ${market.symbol ?? spec.marketId}`);
  checkPrice(spec.type, spec.price, market);
  const clientKey = spec.clientKey ?? randomClientKey();
  checkBytes32("clientKey", clientKey);
  checkValidUntil(spec.validUntil, now);
  checkOrderOptions(spec, now);
  return {
    marketId: spec.marketId,
    collateralAmount: spec.collateral.toString(),
    side: spec.side,
    leverage: spec.leverage,
    orderType: spec.type,
    ...(spec.type === "LIMIT" ? { limitPrice: spec.price!.toString() } : {}),
    clientKey,
    ...(spec.timeInForce !== undefined ? { timeInForce: spec.timeInForce } : {}),
    ...(spec.reduceOnly !== undefined ? { reduceOnly: spec.reduceOnly } : {}),
    ...(spec.expiresAt !== undefined ? { expiresAt: spec.expiresAt } : {}),
    ...(spec.validUntil !== undefined ? { validUntil: spec.validUntil } : {}),
  };
}

/** The order options: known names and types, then the server's rule of which combinations exist, an expiry after `now`. */
function checkOrderOptions(spec: OrderSpec, now: number) {
  if (spec.timeInForce !== undefined && !(TIME_IN_FORCE_NAME as readonly string[]).includes(spec.timeInForce))
    refuse("VALIDATION_ERROR", "timeInForce", `must be one of ${TIME_IN_FORCE_NAME.join(", ")}`);
  if (spec.reduceOnly !== undefined && typeof spec.reduceOnly !== "boolean") refuse("VALIDATION_ERROR", "reduceOnly", "must be a boolean");
  if (spec.expiresAt !== undefined && (!Number.isSafeInteger(spec.expiresAt) || spec.expiresAt <= 0 || BigInt(spec.expiresAt) > MAX_EXPIRES_AT))
    refuse("VALIDATION_ERROR", "expiresAt", "must be a positive integer (unix seconds)");
  const bad = orderOptionsProblem({ orderType: spec.type, timeInForce: spec.timeInForce, expiresAt: spec.expiresAt });
  if (bad) refuse("VALIDATION_ERROR", bad.field, bad.message);
  const past = expiryProblem(spec.expiresAt, BigInt(now));
  if (past) refuse("VALIDATION_ERROR", "expiresAt", past.replace("chain time", "this clock"));
}

/** Order builders: `order.limit({...})`, `order.market({...})`, checked when placed. */
export const order = {
  limit: (s: Omit<OrderSpec, "type"> & { price: bigint }): OrderSpec => ({ ...s, type: "LIMIT" }),
  market: (s: Omit<OrderSpec, "type" | "price" | "expiresAt" | "timeInForce"> & { timeInForce?: "GTC" | "IOC" | "FOK" }): OrderSpec => ({ ...s, type: "MARKET" }),
};

/** The body of POST /accounts/{id}/positions/{marketId}/close, checked. */
export function buildClose(spec: CloseSpec, market?: MarketRules, now = nowSeconds()): ClosePositionRequest & { clientKey: Hex } {
  checkPrice(spec.type, spec.price, market);
  const clientKey = spec.clientKey ?? randomClientKey();
  checkBytes32("clientKey", clientKey);
  checkValidUntil(spec.validUntil, now);
  return {
    orderType: spec.type,
    ...(spec.type === "LIMIT" ? { limitPrice: spec.price!.toString() } : {}),
    clientKey,
    ...(spec.validUntil !== undefined ? { validUntil: spec.validUntil } : {}),
  };
}

/** The body of POST /accounts/{id}/orders/modify, checked (`market`: its tick). */
export function buildModify(spec: ModifySpec, market?: MarketRules, now = nowSeconds()): ModifyOrderRequest {
  checkBytes32("marketId", spec.marketId);
  if ((spec.orderId === undefined) === (spec.clientKey === undefined)) refuse("VALIDATION_ERROR", "orderId", "exactly one of orderId and clientKey is required");
  if (spec.clientKey !== undefined) checkBytes32("clientKey", spec.clientKey);
  const orderId = spec.orderId === undefined ? undefined : String(spec.orderId);
  if (orderId !== undefined && !/^[1-9]\d{0,77}$/.test(orderId)) refuse("VALIDATION_ERROR", "orderId", "must be a positive integer");
  checkPrice("LIMIT", spec.price, market);
  checkAmount("quantity", spec.quantity);
  checkValidUntil(spec.validUntil, now);
  return {
    marketId: spec.marketId,
    ...(orderId !== undefined ? { orderId } : { clientKey: spec.clientKey! }),
    price: spec.price.toString(),
    quantity: spec.quantity.toString(),
    ...(spec.validUntil !== undefined ? { validUntil: spec.validUntil } : {}),
  };
}

/**
 * The body of POST /accounts/{id}/triggers, checked (`market`: its tick for a LIMIT's price). The
 * side of the mark needs the chain's mark: the venue checks it (400 VALIDATION_ERROR on triggerPrice).
 */
export function buildTrigger(spec: TriggerSpec, market?: MarketRules, now = nowSeconds()): SetTriggerRequest {
  checkBytes32("marketId", spec.marketId);
  if (!TRIGGER_KIND_NAME.includes(spec.kind)) refuse("VALIDATION_ERROR", "kind", `must be one of ${TRIGGER_KIND_NAME.join(", ")}`);
  checkAmount("triggerPrice", spec.triggerPrice);
  if (spec.type !== "MARKET" && spec.type !== "LIMIT") refuse("VALIDATION_ERROR", "type", "must be MARKET or LIMIT");
  const bad = triggerOrderProblem({ orderType: spec.type, limitPrice: spec.limitPrice === undefined ? undefined : spec.limitPrice.toString() });
  if (bad) refuse("VALIDATION_ERROR", bad.field, bad.message);
  if (spec.type === "LIMIT") checkPrice("LIMIT", spec.limitPrice, market);
  checkValidUntil(spec.validUntil, now);
  return {
    marketId: spec.marketId,
    kind: spec.kind,
    triggerPrice: spec.triggerPrice.toString(),
    orderType: spec.type,
    ...(spec.limitPrice !== undefined ? { limitPrice: spec.limitPrice.toString() } : {}),
    ...(spec.oco !== undefined ? { oco: spec.oco } : {}),
    ...(spec.validUntil !== undefined ? { validUntil: spec.validUntil } : {}),
  };
}

/** The body of deposit and withdraw (deposit-token base units, > 0). */
export function buildAmount(amount: bigint, validUntil?: number, now = nowSeconds()) {
  checkAmount("amount", amount);
  checkValidUntil(validUntil, now);
  return { amount: amount.toString(), ...(validUntil !== undefined ? { validUntil } : {}) };
}

/** The body of POST /accounts/{id}/positions/{marketId}/margin. */
export function buildMargin(action: MarginAction, amount: bigint, validUntil?: number, now = nowSeconds()): PositionMarginRequest {
  if (action !== "ADD" && action !== "REMOVE") refuse("VALIDATION_ERROR", "action", "must be ADD or REMOVE");
  return { action, ...buildAmount(amount, validUntil, now) };
}

export function checkAccountId(v: unknown): string {
  const s = typeof v === "bigint" || typeof v === "number" ? String(v) : v;
  if (typeof s !== "string" || !/^[1-9]\d{0,77}$/.test(s)) refuse("VALIDATION_ERROR", "accountId", "must be a positive integer");
  return s as string;
}
