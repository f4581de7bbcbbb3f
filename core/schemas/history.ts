/**
 * The history lists of both surfaces (issue 13): query parameters that the integration API
 * validates, and the items it answers (camelCase; the gateway snake_cases them, see
 * core/schemas/snake-case.ts). Every list pages newest first with an opaque cursor (core/cursor.ts); candles
 * page oldest first. Times are unix seconds (or ISO 8601); `from` is inclusive, `to` exclusive.
 */
import { z } from "@hono/zod-openapi";
import { describeField, type AmountField } from "../fields.js";
import { CANDLE_RESOLUTION_NAMES } from "../candles.js";
import { Bytes32 } from "./writes.js";
import { TIME_IN_FORCE_NAME } from "../order-options.js";
import { TRIGGER_KIND_NAME } from "../triggers.js";
import { orderModificationFields } from "./reads.js";

export const MAX_HISTORY_LIMIT = 1_000;
export const DEFAULT_HISTORY_LIMIT = 100;

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A time bound: unix seconds, or an ISO 8601 date-time with a zone. A fractional second rounds
 * up, which keeps both bounds exact on whole-second block times (t ≥ 10.5 ⇔ t ≥ 11; t < 10.5 ⇔ t < 11).
 */
export function parseTimeBound(v: string): bigint | undefined {
  if (/^\d{1,12}$/.test(v)) return BigInt(v);
  if (!ISO_RE.test(v)) return undefined;
  const ms = Date.parse(v);
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return BigInt(Math.ceil(ms / 1000));
}

const timeBound = (which: "from" | "to") =>
  z
    .string()
    .refine((v) => parseTimeBound(v) !== undefined, { message: "must be unix seconds or an ISO 8601 date-time with a zone" })
    .transform((v) => parseTimeBound(v)!)
    .optional()
    .openapi({
      type: "string",
      description:
        which === "from"
          ? "Only items at or after this time (inclusive): unix seconds or ISO 8601"
          : "Only items before this time (exclusive): unix seconds or ISO 8601",
      example: which === "from" ? "1767225600" : "2026-01-02T00:00:00Z",
    });

const limit = z
  .string()
  .regex(/^\d{1,10}$/, { message: "must be an integer" })
  .transform(Number)
  .pipe(z.number().int().min(1, { message: `must be from 1 to ${MAX_HISTORY_LIMIT}` }).max(MAX_HISTORY_LIMIT, { message: `must be from 1 to ${MAX_HISTORY_LIMIT}` }))
  .default(DEFAULT_HISTORY_LIMIT)
  .openapi({ type: "integer", description: `Items per page (1..${MAX_HISTORY_LIMIT}, default ${DEFAULT_HISTORY_LIMIT})` });

const cursor = z
  .string()
  .max(512)
  .optional()
  .openapi({ description: "`nextCursor` of the previous page (opaque): the items after it, in the same order" });

const minBlock = z
  .string()
  .regex(/^\d{1,15}$/, { message: "must be a non-negative integer block number" })
  .optional()
  .openapi({ description: "Wait (at most 5 s) until this block is indexed", example: "120" });

/** A market's lists (trades, funding history). */
export const MarketHistoryQuery = z.strictObject({ from: timeBound("from"), to: timeBound("to"), limit, cursor, minBlock });

/** An account's lists: also by market. */
export const AccountHistoryQuery = MarketHistoryQuery.extend({
  marketId: Bytes32.optional().openapi({ param: { name: "marketId", in: "query" }, description: "Only this market" }),
});

export const CandlesQuery = z.strictObject({
  resolution: z.enum(CANDLE_RESOLUTION_NAMES as [string, ...string[]]).openapi({ description: "Period length (UTC periods)" }),
  from: timeBound("from").openapi({
    type: "string",
    description:
      "First period start (inclusive): periods starting at or after it. Default: `limit` periods before `to`",
  }),
  to: timeBound("to").openapi({
    type: "string",
    description: "Periods starting before it (exclusive). Default and cap: the end of the period holding the indexed block",
  }),
  limit: limit.openapi({ type: "integer", description: `Periods per page, oldest first (1..${MAX_HISTORY_LIMIT}, default ${DEFAULT_HISTORY_LIMIT})` }),
  cursor,
  minBlock,
});

export const PNL_RESOLUTION_NAMES = ["1h", "1d"] as const;

export const PnlQuery = z.strictObject({
  resolution: z.enum(PNL_RESOLUTION_NAMES).openapi({ description: "Period length (UTC periods)" }),
  from: timeBound("from").openapi({ type: "string", description: "Periods starting at or after it (inclusive): unix seconds or ISO 8601" }),
  to: timeBound("to").openapi({ type: "string", description: "Periods starting before it (exclusive): unix seconds or ISO 8601" }),
  limit: limit.openapi({ type: "integer", description: `Periods per page, newest first (1..${MAX_HISTORY_LIMIT}, default ${DEFAULT_HISTORY_LIMIT})` }),
  cursor,
  minBlock,
});

// ─── responses ───────────────────────────────────────────────────────────────────────────

export const raw = (field: AmountField, extra?: string) => z.string().openapi({ description: describeField(field, extra), example: "0" });
export const formatted = (what: string) => z.string().openapi({ description: `${what} as an exact decimal`, example: "0" });
export const hex = (what: string) => z.string().openapi({ description: what });
const side = z.enum(["LONG", "SHORT"]);

/** Where an item comes from on chain; its place in every list's order. */
export const place = {
  blockNumber: z.number().int(),
  logIndex: z.number().int().openapi({ description: "Log index in the block: (blockNumber, logIndex) orders every list" }),
  timestamp: z.number().int().openapi({ description: "Block time, unix seconds" }),
  timestampISO: z.string().openapi({ description: "Block time, ISO 8601" }),
  transactionHash: hex("Transaction"),
};

export const page = <T extends z.ZodType>(key: string, item: T, name: string) =>
  z
    .object({
      [key]: z.array(item),
      hasMore: z.boolean().openapi({ description: "More items follow: pass nextCursor as cursor" }),
      nextCursor: z.string().nullable().openapi({ description: "Opaque cursor of the next page; null on the last page" }),
    })
    .openapi(name);

export const Trade = z
  .object({
    id: z.string().openapi({ description: "Stable id of the fill" }),
    marketId: hex("Market id"),
    side: side.openapi({ description: "The taker's side (= takerSide)" }),
    takerSide: side.openapi({ description: "The taker's side: the aggressor" }),
    makerSide: side.openapi({ description: "The resting order's side (the opposite of the taker's)" }),
    price: raw("price", "The maker's price"),
    priceFormatted: formatted("price"),
    size: raw("size"),
    sizeFormatted: formatted("size"),
    quoteAmount: raw("quoteAmount", "size × price, rounded down"),
    quoteAmountFormatted: formatted("quoteAmount"),
    makerFee: raw("makerFee", "The maker's fee for this fill"),
    makerFeeFormatted: formatted("makerFee"),
    takerFee: raw("takerFee", "The taker's fee for this fill"),
    takerFeeFormatted: formatted("takerFee"),
    ...place,
  })
  .openapi("Trade");
export const TradeList = page("trades", Trade, "TradeList");

export const Fill = z
  .object({
    id: z.string(),
    marketId: hex("Market id"),
    orderId: z.string().openapi({ description: "This account's order (decimal string)" }),
    side: side.openapi({ description: "This account's side in the fill" }),
    liquidity: z.enum(["MAKER", "TAKER"]),
    price: raw("price"),
    priceFormatted: formatted("price"),
    size: raw("size"),
    sizeFormatted: formatted("size"),
    quoteAmount: raw("quoteAmount", "size × price, rounded down"),
    quoteAmountFormatted: formatted("quoteAmount"),
    fee: raw("fee", "This side's fee for the fill (a taker's fee is carried per fill from the contract's OrderFilled.takerFeeWad)"),
    feeFormatted: formatted("fee"),
    ...place,
  })
  .openapi("Fill");
export const FillList = page("fills", Fill, "FillList");

export const Candle = z
  .object({
    marketId: hex("Market id"),
    resolution: z.string(),
    startedAt: z.number().int().openapi({ description: "Period start, unix seconds (UTC)" }),
    startedAtISO: z.string(),
    open: raw("open", "The period's first trade; the previous close when it had none"),
    openFormatted: formatted("open"),
    high: raw("high"),
    highFormatted: formatted("high"),
    low: raw("low"),
    lowFormatted: formatted("low"),
    close: raw("close", "The period's last trade"),
    closeFormatted: formatted("close"),
    baseVolume: raw("baseVolume"),
    baseVolumeFormatted: formatted("baseVolume"),
    quoteVolume: raw("quoteVolume", "Σ size × price"),
    quoteVolumeFormatted: formatted("quoteVolume"),
    tradeCount: z.number().int(),
  })
  .openapi("Candle");
export const CandleList = page("candles", Candle, "CandleList");

export const FundingRate = z
  .object({
    id: z.string(),
    marketId: hex("Market id"),
    rate: raw("rate", "Signed hourly rate in force from this update"),
    rateFormatted: formatted("rate"),
    cumulativeIndex: raw("cumulativeIndex", "Cumulative funding index after this update"),
    cumulativeIndexFormatted: formatted("cumulativeIndex"),
    premiumComponent: raw("premiumComponent"),
    skewComponent: raw("skewComponent"),
    indexPrice: raw("indexPrice"),
    indexPriceFormatted: formatted("indexPrice"),
    markPrice: raw("markPrice"),
    markPriceFormatted: formatted("markPrice"),
    ...place,
  })
  .openapi("FundingRate");
export const FundingRateList = page("funding", FundingRate, "FundingRateList");

export const FundingPayment = z
  .object({
    id: z.string(),
    marketId: hex("Market id"),
    positionId: hex("keccak256(abi.encode(accountId, marketId))"),
    positionSize: raw("positionSize", "Signed size the funding was owed on (> 0 long)"),
    positionSizeFormatted: formatted("positionSize"),
    payment: raw("payment", "Signed: > 0 paid by the position, < 0 received"),
    paymentFormatted: formatted("payment"),
    cumulativeIndex: raw("cumulativeIndex", "Index the position is settled to"),
    ...place,
  })
  .openapi("FundingPayment");
export const FundingPaymentList = page("fundingPayments", FundingPayment, "FundingPaymentList");

export const Transfer = z
  .object({
    id: z.string(),
    type: z.enum(["DEPOSIT", "WITHDRAWAL"]),
    amount: raw("amount", "Deposit-token units moved"),
    amountFormatted: formatted("amount"),
    availableAfter: raw("availableAfter", "Available margin after the transfer"),
    availableAfterFormatted: formatted("availableAfter"),
    ...place,
  })
  .openapi("Transfer");
export const TransferList = page("transfers", Transfer, "TransferList");

export const Liquidation = z
  .object({
    id: z.string(),
    marketId: hex("Market id"),
    positionId: hex("Position id"),
    type: z.string().openapi({ description: "LIQUIDATION (the account's position liquidated: book, insurance fund and deleveraging together); DELEVERAGE (the account's position closed by auto-deleveraging at a liquidated position's bankruptcy price: closedNotional is the Deleveraged event's notional)" }),
    liquidator: hex("Who liquidated"),
    closedSize: raw("closedSize"),
    closedSizeFormatted: formatted("closedSize"),
    closedNotional: raw("closedNotional"),
    closedNotionalFormatted: formatted("closedNotional"),
    liquidatorFee: raw("liquidatorFee"),
    insuranceFee: raw("insuranceFee"),
    badDebt: raw("badDebt", "Loss beyond the position's margin, covered by the insurance fund"),
    badDebtFormatted: formatted("badDebt"),
    remainingSize: raw("remainingSize", "Signed size left after it"),
    ...place,
  })
  .openapi("Liquidation");
export const LiquidationList = page("liquidations", Liquidation, "LiquidationList");

export const HistoricalOrder = z
  .object({
    orderId: z.string(),
    clientKey: hex("Client order key"),
    marketId: hex("Market id"),
    side,
    orderType: z.enum(["MARKET", "LIMIT"]),
    reduceOnly: z.boolean(),
    status: z.enum(["active", "filled", "cancelled"]),
    closeReason: z.string().nullable().openapi({ description: "Why it left the book (FILLED, USER_CANCEL, UNFILLED_MARKET, REDUCE_ONLY_EXPIRED, FILL_CAP, LIQUIDATION, DUST, MARGIN, REDUCE_ONLY_SESSION, OPERATOR_BAND, UNFILLED_IOC, EXPIRED, DEADMAN); null while active" }),
    timeInForce: z.enum(TIME_IN_FORCE_NAME).openapi({ description: "As placed (a MARKET order's GTC is IOC)" }),
    expiresAt: z.number().int().nullable().openapi({ description: "A good-til-time order's expiry, unix seconds (null: none); the history shows the order as indexed (EXPIRED once removed), GET /accounts/{id}/orders shows it cancelled from that second" }),
    price: raw("price"),
    priceFormatted: formatted("price"),
    originalQuantity: raw("originalQuantity"),
    originalQuantityFormatted: formatted("originalQuantity"),
    filledQuantity: raw("filledQuantity"),
    filledQuantityFormatted: formatted("filledQuantity"),
    cancelledQuantity: raw("cancelledQuantity"),
    cancelledQuantityFormatted: formatted("cancelledQuantity"),
    fillCount: z.number().int().openapi({ description: "Fills of the order (each in /fills with its orderId)" }),
    createdBlock: z.number().int(),
    createdAt: z.number().int(),
    createdAtISO: z.string(),
    closedAt: z.number().int().nullable(),
    closedAtISO: z.string().nullable(),
    transactionHash: hex("Placement transaction"),
    triggerKind: z.enum(TRIGGER_KIND_NAME).nullable().openapi({ description: "TAKE_PROFIT or STOP_LOSS: the position trigger that placed this order; null for any other order" }),
    ...orderModificationFields,
  })
  .openapi("HistoricalOrder");
export const HistoricalOrderList = page("orders", HistoricalOrder, "HistoricalOrderList");

/** One modification of an order (OrderModified, Engine.modifyOrder): what it had and what it has since. */
export const OrderModification = z
  .object({
    orderId: z.string().openapi({ description: "The order (decimal string): its id and client key stay" }),
    marketId: hex("Market id"),
    fromPrice: raw("fromPrice", "Its price before"),
    fromPriceFormatted: formatted("fromPrice"),
    price: raw("price", "Its price since"),
    priceFormatted: formatted("price"),
    fromRemainingQuantity: raw("fromRemainingQuantity", "Its remaining size before"),
    fromRemainingQuantityFormatted: formatted("fromRemainingQuantity"),
    remainingQuantity: raw("remainingQuantity", "Its remaining size since"),
    remainingQuantityFormatted: formatted("remainingQuantity"),
    originalQuantity: raw("originalQuantity", "filled + the new remaining size"),
    originalQuantityFormatted: formatted("originalQuantity"),
    fromMarginRemaining: raw("fromMarginRemaining", "Its margin not yet used before"),
    fromMarginRemainingFormatted: formatted("fromMarginRemaining"),
    marginRemaining: raw("marginRemaining", "Its margin since (it follows the notional, rounded up: the difference committed or released)"),
    marginRemainingFormatted: formatted("marginRemaining"),
    keptPriority: z.boolean().openapi({ description: "true: a smaller (or equal) size at the same price, its place in its level kept; false: moved to the tail of its (new) level" }),
    ...place,
  })
  .openapi("OrderModification");
export const OrderModificationList = page("modifications", OrderModification, "OrderModificationList");

/** The modifications list: an account's, by market and by order. */
export const OrderModificationsQuery = AccountHistoryQuery.extend({
  orderId: z
    .string()
    .regex(/^[1-9]\d{0,77}$/, { message: "must be an order id (a positive decimal integer)" })
    .optional()
    .openapi({ param: { name: "orderId", in: "query" }, description: "Only this order's modifications (404 ORDER_NOT_FOUND when the account has no such order)" }),
});

export const PnlPoint = z
  .object({
    startedAt: z.number().int().openapi({ description: "Period start, unix seconds (UTC)" }),
    startedAtISO: z.string(),
    endedAt: z.number().int().openapi({ description: "Period end (= the next period's start): the values are the state at the last block at or before it" }),
    endedAtISO: z.string(),
    blockNumber: z.number().int().openapi({ description: "That block: the last with a timestamp at or before endedAt" }),
    blockTimestamp: z.number().int().openapi({ description: "Its timestamp, unix seconds (funding and the mark are valued at it)" }),
    equity: raw("equity", "collateral + Σ over open positions of VenueLens.positionHealth(...).equityWad (margin + unrealized PnL − pending funding) at that block"),
    equityFormatted: formatted("equity"),
    collateral: raw("collateral", "Engine.getAccount(...).totalWad at that block: available + committed to resting orders"),
    collateralFormatted: formatted("collateral"),
    unrealizedPnL: raw("unrealizedPnL", "Σ positionHealth.unrealizedPnlWad at that block (at its mark)"),
    unrealizedPnLFormatted: formatted("unrealizedPnL"),
    pendingFunding: raw("pendingFunding", "Σ positionHealth.pendingFundingWad at that block: accrued, not yet settled (> 0 owed)"),
    pendingFundingFormatted: formatted("pendingFunding"),
    realizedPnL: raw("realizedPnL", "Lifetime Σ PositionUpdated.realizedPnlWad up to that block"),
    realizedPnLFormatted: formatted("realizedPnL"),
    fundingPaid: raw("fundingPaid", "Lifetime Σ of settled funding up to that block (> 0 paid, < 0 received)"),
    fundingPaidFormatted: formatted("fundingPaid"),
    feesPaid: raw("feesPaid", "Lifetime Σ of trading fees up to that block"),
    feesPaidFormatted: formatted("feesPaid"),
    openPositions: z.number().int().openapi({ description: "Positions open at that block" }),
  })
  .openapi("PnlPoint");
export const PnlList = page("pnl", PnlPoint, "PnlList");

export { snakeSchema } from "./snake-case.js";
