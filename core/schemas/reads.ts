/**
 * zod schemas of the read routes: parameters (which validate) and responses (which document).
 * Units come from core/fields.ts, so the OpenAPI description of a field names the unit that the
 * formatter used for its `...Formatted` companion.
 */
import { MARKET_STATUS } from "../market-status.js";
import { z } from "@hono/zod-openapi";
import { describeField, describeUnit, type AmountField, type Unit } from "../fields.js";
import { AccountIdParam, Address, MarketId } from "./writes.js";
import { TIME_IN_FORCE_NAME } from "../order-options.js";
import { TRIGGER_END_NAME, TRIGGER_END_TEXT, TRIGGER_KIND_NAME, TRIGGER_KIND_TEXT, TRIGGER_STATUS } from "../triggers.js";

// ─── parameters ──────────────────────────────────────────────────────────────────────────

export const MAX_BOOK_DEPTH = 100;
export const MAX_ORDERS_LIMIT = 1_000;

const minBlock = z
  .string()
  .regex(/^\d{1,15}$/, { message: "must be a non-negative integer block number" })
  .optional()
  .openapi({
    description:
      "Wait (at most 5 s) until this block is indexed before answering; 503 SERVICE_UNAVAILABLE if it is not by then.",
    example: "120",
  });

/** An integer query value in [min, max] (decimal digits only: no "1e2", no "1.0"). */
const intQuery = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d{1,10}$/, { message: "must be an integer" })
    .transform(Number)
    .pipe(z.number().int().min(min, { message: `must be from ${min} to ${max}` }).max(max, { message: `must be from ${min} to ${max}` }));

export const AccountPath = z.object({ accountId: AccountIdParam.openapi({ param: { name: "accountId", in: "path" } }) });
export const AddressPath = z.object({ userAddress: Address.openapi({ param: { name: "userAddress", in: "path" } }) });
export const MarketPath = z.object({ marketId: MarketId.openapi({ param: { name: "marketId", in: "path" } }) });
export const AccountMarketPath = AccountPath.extend(MarketPath.shape);
// Query schemas are strict: an unknown parameter is a 400 naming it, so a random one can
// neither pass unnoticed nor make a fresh response-cache key.
export const ReadQuery = z.strictObject({ minBlock });

export const OrdersQuery = z.strictObject({
  marketId: MarketId.optional().openapi({ param: { name: "marketId", in: "query" } }),
  status: z.enum(["active", "filled", "cancelled"]).optional().openapi({ description: "Order status filter" }),
  limit: intQuery(1, MAX_ORDERS_LIMIT)
    .default(100)
    .openapi({ type: "integer", description: `Orders per page, newest first (1..${MAX_ORDERS_LIMIT}, default 100)` }),
  cursor: z
    .string()
    .max(512)
    .optional()
    .openapi({ description: "`nextCursor` of the previous page (opaque): the orders after it, in the same order" }),
  minBlock,
});

/** GET /accounts/{accountId}/triggers: the account's take-profits and stop-losses (at most one of each per market, so one page). */
export const TriggersQuery = z.strictObject({
  marketId: MarketId.optional().openapi({ param: { name: "marketId", in: "query" } }),
  status: z
    .enum([...TRIGGER_STATUS, "all"])
    .default("active")
    .openapi({ description: "active (default): set and waiting; executed: fired (its last firing per kind); cancelled: ended without firing (endReason); all" }),
  minBlock,
});

export const OrderBookQuery = z.strictObject({
  depth: intQuery(1, MAX_BOOK_DEPTH)
    .default(10)
    .openapi({
      type: "integer",
      description: `Price levels per side (1..${MAX_BOOK_DEPTH}, default 10), counting only orders that could fill now (see OrderBook)`,
    }),
  minBlock,
});

// ─── response building blocks ────────────────────────────────────────────────────────────

const raw = (field: AmountField, extra?: string) => z.string().openapi({ description: describeField(field, extra), example: "0" });
const rawUnit = (unit: Unit, extra?: string) => z.string().openapi({ description: describeUnit(unit, extra), example: "0" });
const formatted = (what: string) => z.string().openapi({ description: `${what} as an exact decimal`, example: "0" });
const percent = (what: string) => z.string().openapi({ description: `${what} as a percent decimal string`, example: "1.5" });
const seconds = (what: string) => z.number().int().openapi({ description: `${what}, unix seconds` });
const iso = (what: string) => z.string().openapi({ description: `${what}, ISO 8601` });
const hex = (what: string) => z.string().openapi({ description: what });

export const envelope = <T extends z.ZodType>(data: T, name: string) =>
  z.object({ success: z.literal(true), data }).openapi(name);

export { ErrorEnvelope } from "./envelope.js";

// ─── resources ───────────────────────────────────────────────────────────────────────────

export const Account = z
  .object({
    accountId: z.number().int().openapi({ description: "Account id (uint256 from 1), a JSON number" }),
    accountAddress: hex("The account's own address (a minimal clone)"),
    owner: hex("Owner wallet"),
    margin: z.object({
      available: raw("available"),
      availableFormatted: formatted("available"),
      committed: raw("committed", "Held by open orders and positions"),
      committedFormatted: formatted("committed"),
      total: raw("total", "available + committed"),
      totalFormatted: formatted("total"),
    }),
    deadman: z
      .object({
        deadline: z.number().int().openapi({ description: "unix seconds (chain time); 0: off" }),
        deadlineISO: z.string().nullable().openapi({ description: "`deadline` as ISO 8601 UTC; null when off" }),
        enabled: z.boolean().openapi({ description: "a deadline is set: once the chain's time reaches it, anyone (the keeper) may cancel every open order of the account (CloseReason DEADMAN)" }),
      })
      .openapi({ description: "The dead-man switch (POST /accounts/{accountId}/deadman)" }),
  })
  .openapi("Account");

export const AccountByAddress = z
  .object({
    accountId: z.number().int().openapi({ description: "0 when the address has no account" }),
    accountAddress: hex("Present when exists").optional(),
    owner: hex("Present when exists").optional(),
    exists: z.boolean(),
  })
  .openapi("AccountByAddress");

export const Operator = z
  .object({
    operator: hex("The operator's address (the relayer's, for accounts that approved it)"),
    expiry: z.number().int().openapi({ description: "Seconds; the approval holds while the chain's time is below it (0: revoked)" }),
    expiresAtISO: z.string().openapi({ description: "`expiry` as ISO 8601 UTC" }),
    active: z.boolean().openapi({ description: "expiry is after the indexed block's time" }),
    bySignature: z.boolean().openapi({ description: "Set with the owner's EIP-712 signature (setOperatorWithSig)" }),
    policy: z
      .object({
        maxLeverage: z.number().int().openapi({ description: "Highest leverage of an order the operator opens" }),
        bandBps: z.number().int().openapi({ description: "The operator's price band from the mark, bps (the market's operator band caps it)" }),
        budgetBps: z.number().int().openapi({ description: "Adverse-execution budget per 24 h, bps of the account's value" }),
      })
      .openapi({ description: "The owner's on-chain policy for this operator (docs/CONTRACTS.md \"Operators\")" }),
    budgetUsed: raw("budgetUsed", "After the operator's last charge (a cancel's release emits nothing: it may overstate)"),
    budgetUsedFormatted: formatted("budgetUsed"),
    budgetUsedNow: raw("budgetUsedNow", "budgetUsed decayed linearly over 24 h to the indexed block's time"),
    budgetUsedNowFormatted: formatted("budgetUsedNow"),
    budget: raw("budget", "The budget at the last charge (budgetBps of the account's value then; 0 before any)"),
    budgetFormatted: formatted("budget"),
    budgetAtISO: z.string().nullable().openapi({ description: "Time of the last charge (null: none yet)" }),
  })
  .openapi("Operator");

export const AccountOperators = z
  .object({
    accountId: z.number().int(),
    owner: hex("Owner wallet"),
    operators: z.array(Operator).openapi({ description: "Every operator the owner ever approved (revoked ones with active false), by address" }),
  })
  .openapi("AccountOperators");

export const Health = z
  .object({
    markPrice: raw("markPrice"),
    markPriceFormatted: formatted("markPrice"),
    positionValue: raw("positionValue", "|size| × mark"),
    positionValueFormatted: formatted("positionValue"),
    unrealizedPnL: raw("unrealizedPnL", "Signed, at the mark"),
    unrealizedPnLFormatted: formatted("unrealizedPnL"),
    marginRatioBps: z.number().int().openapi({ description: "equity / positionValue × 10,000 (0 when equity ≤ 0)" }),
    marginRatioPercent: percent("marginRatioBps"),
    liquidationPrice: raw("liquidationPrice", "Mark at which equity = maintenance; 0 if none"),
    liquidationPriceFormatted: formatted("liquidationPrice"),
    insolvencyPrice: raw("insolvencyPrice", "Mark at which equity = 0; 0 if none"),
    insolvencyPriceFormatted: formatted("insolvencyPrice"),
    isLiquidatable: z.boolean(),
  })
  .openapi("PositionHealth");

export const Position = z
  .object({
    accountId: z.number().int(),
    marketId: hex("Market id (bytes32)"),
    positionId: hex("keccak256(abi.encode(accountId, marketId)): the gateway's position_id"),
    isOpen: z.boolean(),
    side: z.enum(["LONG", "SHORT"]).nullable(),
    size: raw("size", "Absolute size; \"0\" when no position is open"),
    sizeFormatted: formatted("size"),
    entryPrice: raw("entryPrice", "openNotional / |size|, rounded down"),
    entryPriceFormatted: formatted("entryPrice"),
    margin: raw("margin", "Isolated margin of the position"),
    marginFormatted: formatted("margin"),
    leverage: z.number().int().openapi({
      description: "max(1, floor(positionValue / margin)); 0 when no position is open or no margin is left",
    }),
    openBlock: z.number().int().openapi({ description: "Block the position opened (or flipped) in; 0 when closed" }),
    health: Health.nullable(),
  })
  .openapi("Position");

/** An order's modifications (Engine.modifyOrder), in every order answer: the orders list and the order history. */
export const orderModificationFields = {
  modificationCount: z.number().int().openapi({ description: "Times the order was modified (price or size in place, same orderId and clientKey); each one in GET /accounts/{accountId}/orders/modifications" }),
  modifiedAt: z.number().int().nullable().openapi({ description: "The last modification's block time, unix seconds (null: never modified)" }),
  modifiedAtISO: z.string().nullable().openapi({ description: "modifiedAt, ISO 8601 (null: never modified)" }),
  modifiedBlock: z.number().int().nullable().openapi({ description: "The last modification's block (null: never modified)" }),
};

export const Order = z
  .object({
    clientKey: hex("Client order key (bytes32)"),
    orderId: z.string().openapi({ description: "On-chain order id (uint256) as a decimal string, unique venue-wide" }),
    marketId: hex("Market id (bytes32)"),
    side: z.enum(["LONG", "SHORT"]),
    orderType: z.enum(["MARKET", "LIMIT"]),
    status: z.enum(["active", "filled", "cancelled"]),
    reduceOnly: z.boolean().openapi({ description: "Only reduces the position: a close (collateral 0) or an order placed with reduceOnly: true" }),
    price: raw("price", "Limit price; for MARKET the best opposite price at placement"),
    priceFormatted: formatted("price"),
    originalQuantity: raw("originalQuantity"),
    originalQuantityFormatted: formatted("originalQuantity"),
    filledQuantity: raw("filledQuantity"),
    filledQuantityFormatted: formatted("filledQuantity"),
    remainingQuantity: raw("remainingQuantity", "0 once the order is closed"),
    remainingQuantityFormatted: formatted("remainingQuantity"),
    marginAllocated: raw("marginAllocated", "Margin committed at placement"),
    marginAllocatedFormatted: formatted("marginAllocated"),
    isActive: z.boolean(),
    fillPercent: z.number().int().openapi({ description: "floor(filled × 100 / original)" }),
    createdAt: seconds("Placement time"),
    createdAtISO: iso("Placement time"),
    createdBlock: z.number().int(),
    timeInForce: z.enum(TIME_IN_FORCE_NAME).openapi({ description: "As placed (a MARKET order's GTC is IOC): GTC, IOC, FOK, POST_ONLY" }),
    expiresAt: z.number().int().nullable().openapi({
      description: "A good-til-time order's expiry, unix seconds (null: none). From that second it never fills: shown cancelled (remainingQuantity 0), even before anyone removes it",
    }),
    expiresAtISO: z.string().nullable().openapi({ description: "expiresAt, ISO 8601 (null: none)" }),
    triggerKind: z.enum(TRIGGER_KIND_NAME).nullable().openapi({
      description: "TAKE_PROFIT or STOP_LOSS: the position trigger that placed this order (a reduce-only close when it fired; GET /accounts/{accountId}/triggers); null for any other order",
    }),
    ...orderModificationFields,
  })
  .openapi("Order");

/** A position's take-profit or stop-loss (TriggerBook; docs/CONTRACTS.md "Triggers"). */
export const Trigger = z
  .object({
    triggerId: z.string().openapi({ description: "`<accountId>-<marketId>-<kind>`: one trigger of each kind per account and market (setting it again replaces it)" }),
    accountId: z.number().int(),
    marketId: hex("Market id (bytes32)"),
    kind: z.enum(TRIGGER_KIND_NAME).openapi({ description: TRIGGER_KIND_TEXT }),
    status: z.enum(TRIGGER_STATUS).openapi({ description: "active: set, fires once the mark reaches triggerPrice (anyone may fire it; the venue's keeper does); executed: fired (orderId); cancelled: ended without firing (endReason)" }),
    triggerPrice: raw("triggerPrice", "The mark price at which it fires"),
    triggerPriceFormatted: formatted("triggerPrice"),
    orderType: z.enum(["MARKET", "LIMIT"]).openapi({ description: "The order it places: a reduce-only close of the whole position, MARKET (IOC within the market's band) or LIMIT at limitPrice (GTC)" }),
    limitPrice: raw("limitPrice", "A LIMIT order's price; null for MARKET").nullable(),
    limitPriceFormatted: formatted("limitPrice").nullable(),
    oco: z.boolean().openapi({ description: "One cancels other: when it fires, the position's other trigger is removed if that one is oco too (endReason TWIN_FIRED)" }),
    positionSide: z.enum(["LONG", "SHORT"]).openapi({ description: "The side of the position it was set on" }),
    openBlock: z.number().int().openapi({ description: "That position's open block: the trigger ends with it (POSITION_CHANGED)" }),
    operator: hex("The operator that set it (its policy applies when it fires); null: the owner").nullable(),
    endReason: z.enum(TRIGGER_END_NAME).nullable().openapi({ description: TRIGGER_END_TEXT }),
    orderId: z.string().nullable().openapi({ description: "Executed: the order it placed (decimal uint256; that order's triggerKind names this kind); null otherwise" }),
    executedMarkPrice: raw("executedMarkPrice", "Executed: the mark it fired at; null otherwise").nullable(),
    executedMarkPriceFormatted: formatted("executedMarkPrice").nullable(),
    executor: hex("Executed: who sent executeTrigger; null otherwise").nullable(),
    createdAt: seconds("When it was (last) set"),
    createdAtISO: iso("When it was (last) set"),
    updatedAt: seconds("Its last change"),
    updatedAtISO: iso("Its last change"),
    setBlock: z.number().int(),
    updatedBlock: z.number().int(),
  })
  .openapi("Trigger");

export const TriggerList = z
  .object({
    accountId: z.number().int(),
    triggers: z.array(Trigger).openapi({ description: "By market, take-profit first" }),
  })
  .openapi("TriggerList");

export const OrderList = z
  .object({
    orders: z.array(Order),
    totalCount: z.number().int().openapi({ description: "Orders matching the filters (all pages)" }),
    hasMore: z.boolean().openapi({ description: "More orders follow this page: pass nextCursor as cursor" }),
    nextCursor: z.string().nullable().openapi({ description: "Opaque cursor of the next page; null on the last page" }),
  })
  .openapi("OrderList");

/** The market schedule (docs/CONTRACTS.md "Weekends and gaps"). */
export const MarketSession = z
  .object({
    state: z.enum(["OPEN", "REDUCE_ONLY", "CLOSED"]).openapi({
      description:
        "OPEN: normal. REDUCE_ONLY (before a close): only closes are accepted (MARKET_REDUCE_ONLY otherwise) and margin is raised. CLOSED: no orders and no liquidation (MARKET_CLOSED), no funding; cancels and withdrawals of free margin work",
    }),
    marginUpliftBps: z.number().int().openapi({ description: "Multiplier of initial and maintenance margin now, bps (10000 = none)", example: 10000 }),
    marginUpliftPercent: percent("marginUpliftBps"),
    closeUpliftBps: z.number().int().openapi({ description: "The multiplier REDUCE_ONLY and CLOSED apply, bps (set by the venue's parameters)", example: 30000 }),
    updatedAt: seconds("Last session change (the market's on-chain calendar and the time decide it)").nullable(),
    updatedAtISO: iso("Last session change (the market's on-chain calendar and the time decide it)").nullable(),
    nextSession: z.enum(["OPEN", "REDUCE_ONLY", "CLOSED"]).nullable().openapi({ description: "The session the calendar switches to next (null: no change scheduled)" }),
    nextSessionAt: seconds("When the next session starts (the calendar on chain; a change to it is timelocked)").nullable(),
    nextSessionAtISO: iso("When the next session starts").nullable(),
  })
  .openapi("MarketSession");

export const Market = z
  .object({
    marketId: hex("keccak256(symbol)"),
    symbol: z.string().openapi({ example: "EUR/USD" }),
    marketAddress: hex("The market's order-book contract"),
    marketIndex: z.number().int(),
    baseFxToken: hex("Base FX token"),
    baseFxTokenSymbol: z.string().openapi({ example: "fxEUR" }),
    quoteFxToken: hex("Quote FX token"),
    quoteFxTokenSymbol: z.string().openapi({ example: "fxUSD" }),
    maxLeverage: z.number().int(),
    maintenanceMarginBps: z.number().int(),
    maintenanceMarginPercent: percent("maintenanceMarginBps"),
    liquidationFeeBps: z.number().int(),
    liquidationFeePercent: percent("liquidationFeeBps"),
    isActive: z.boolean().openapi({ description: "true only while the market accepts every order (status ACTIVE)" }),
    status: z.enum(MARKET_STATUS).openapi({
      description:
        "ACTIVE: every order; POST_ONLY: post-only orders only (409 MARKET_POST_ONLY); CANCEL_ONLY: no orders, cancels only (409 MARKET_CANCEL_ONLY); REDUCE_ONLY: reduce-only orders only, set by the guardian or the window before a close (409 MARKET_REDUCE_ONLY); CLOSED: the calendar's close, no orders and no liquidation (409 MARKET_CLOSED); PAUSED: the guardian's pause, reduce-only orders only (409 MARKET_NOT_ACTIVE). Cancels work in every status, liquidations in every status but CLOSED",
    }),
    openInterest: z.object({
      long: raw("long"),
      longFormatted: formatted("long"),
      short: raw("short"),
      shortFormatted: formatted("short"),
    }),
    tickSize: raw("tickSize", "Limit prices are multiples of it"),
    tickSizeFormatted: formatted("tickSize"),
    lotSize: raw("lotSize", "Order sizes are rounded down to multiples of it"),
    lotSizeFormatted: formatted("lotSize"),
    minOrderSize: raw("minOrderSize", "Smallest order after rounding"),
    minOrderSizeFormatted: formatted("minOrderSize"),
    makerFeeBps: z.number().int(),
    makerFeePercent: percent("makerFeeBps"),
    takerFeeBps: z.number().int(),
    takerFeePercent: percent("takerFeeBps"),
    priceBandBps: z.number().int().openapi({ description: "Takers never fill beyond mark ± this band" }),
    markClampBps: z.number().int().openapi({ description: "The mark's premium sample stays within index ± this band (GET /markets/{marketId}/price shows the components)" }),
    operatorBandBps: z.number().int().openapi({
      description: "Orders the relayer (the account's operator) places are priced and filled within mark ± this band",
    }),
    maxPositionSize: raw("maxPositionSize", "Cap on one account's position in this market (base units, 18 decimals)"),
    maxPositionSizeFormatted: formatted("maxPositionSize"),
    maxOpenInterest: raw("maxOpenInterest", "Cap on the market's open interest per side (base units, 18 decimals)"),
    maxOpenInterestFormatted: formatted("maxOpenInterest"),
    session: MarketSession,
  })
  .openapi("Market");

export const MarketList = z.object({ markets: z.array(Market) }).openapi("MarketList");

export const Funding = z
  .object({
    marketId: hex("Market id"),
    currentRate: raw(
      "currentRate",
      "Signed; the rate in force now: the one stored at lastUpdate, or after a cancel of margined size (rateStaleSince) the rate of the stored premium and the book after the cancel (the contract's rateNowX18PerHour)",
    ),
    currentRateFormatted: formatted("currentRate (per hour)"),
    currentRatePercent: percent("Hourly rate"),
    currentRateAnnualized: percent("Hourly rate × 24 × 365"),
    cumulativeFunding: raw("cumulativeFunding", "Cumulative index at lastUpdate"),
    cumulativeFundingFormatted: formatted("cumulativeFunding"),
    pendingFunding: rawUnit(
      "indexX18",
      "Index accrued since lastUpdate at the index price, up to the indexed block's time: at the stored rate, and from rateStaleSince at the current rate (cumulativeFunding + pendingFunding = the contract's cumulativeIndexNow; nothing while the market is closed)",
    ),
    pendingFundingFormatted: formatted("pendingFunding"),
    lastUpdate: seconds("Last funding accrual"),
    lastUpdateISO: iso("Last funding accrual"),
    rateStaleSince: seconds(
      "Since when the rate stored at lastUpdate no longer applies (a cancel of margined size; the next accrual stores the current rate); null when it does",
    ).nullable(),
    rateStaleSinceISO: iso("rateStaleSince").nullable(),
    prices: z.object({
      perpPrice: raw("perpPrice", "The mark price now"),
      perpPriceFormatted: formatted("perpPrice"),
      indexPrice: raw("indexPrice", "The oracle's index price now"),
      indexPriceFormatted: formatted("indexPrice"),
      premium: raw("premium", "(perpPrice − indexPrice) / indexPrice now, signed"),
      premiumPercent: percent("premium"),
    }),
    components: z.object({
      premiumComponent: raw("premiumComponent", "Premium part of the rate stored at lastUpdate (premium at lastUpdate / 24)"),
      skewComponent: raw("skewComponent", "Skew part of the rate stored at lastUpdate"),
      skew: raw("skew", "(L − S) / (L + S) at lastUpdate, L/S = open interest + resting size per side"),
      skewPercent: percent("skew"),
    }),
    direction: z.enum(["LONGS_PAY", "SHORTS_PAY", "NEUTRAL"]),
  })
  .openapi("MarketFunding");

const Level = z.object({
  price: raw("price"),
  priceFormatted: formatted("price"),
  quantity: raw("quantity"),
  quantityFormatted: formatted("quantity"),
  orderCount: z.number().int(),
});

export const OrderBook = z
  .object({
    marketId: hex("Market id"),
    timestamp: z.number().int().openapi({ description: "Time of the indexed block, unix milliseconds" }),
    blockNumber: z.number().int().openapi({ description: "The indexed block the book describes" }),
    bids: z.array(Level).openapi({ description: "Best (highest) first" }),
    asks: z.array(Level).openapi({ description: "Best (lowest) first" }),
    spread: z
      .object({
        absolute: raw("absolute", "bestAsk − bestBid"),
        absoluteFormatted: formatted("absolute"),
        percent: percent("(bestAsk − bestBid) / midPrice"),
      })
      .nullable()
      .openapi({ description: "null when a side is empty" }),
    midPrice: raw("midPrice", "(bestBid + bestAsk) / 2 rounded down").nullable(),
    midPriceFormatted: formatted("midPrice").nullable(),
  })
  .openapi("OrderBook", {
    description:
      "The depth a taker could fill now: each level's quantity and orderCount count only the resting orders that could fill an ordinary taker at the mark and session of the indexed block (not a reduce-only order whose position is gone or on its own side; outside OPEN only what an order's position lets it reduce; not an order whose fill would leave its owner below initial margin, such as a bid at the maximum leverage at or above the mark); a level with none is left out; at most 2,000 orders are read per side. The same as the market contract's getFillableLevels(side, depth) at that block",
  });

export const MarkPrice = z
  .object({
    marketId: hex("Market id"),
    markPrice: raw("markPrice", "index × (1 + premium): the premium is a time average of the book's clamped premium, so dust cannot move it in one block"),
    markPriceFormatted: formatted("markPrice"),
    indexPrice: raw("indexPrice"),
    indexPriceFormatted: formatted("indexPrice"),
    bestBid: raw("bestBid").nullable().openapi({ description: "Best bid that could fill now (the order book's first bid level); null when there is none" }),
    bestBidFormatted: formatted("bestBid").nullable(),
    bestAsk: raw("bestAsk").nullable().openapi({ description: "Best ask that could fill now (the order book's first ask level); null when there is none" }),
    bestAskFormatted: formatted("bestAsk").nullable(),
    premiumSample: raw("premiumSample", "Signed: the sample the premium moves towards now, (median(index, bid, ask) clamped to index ± markClampBps) ÷ index − 1 with the index now and the bid and ask the last funding update sampled: the book's fillable top when a side lay beyond the index (orders that cannot fill never count); none (0) when the book lay around the index or a side gave no price"),
    premiumSamplePercent: percent("premiumSample"),
    premium: raw("premium", "Signed: the sample averaged over averagingPeriodSeconds (premium += (sample − premium) × min(dt, period) ÷ period), at the indexed block's time"),
    premiumPercent: percent("premium"),
    markClampBps: z.number().int().openapi({ description: "The sample never leaves index ± this band" }),
    averagingPeriodSeconds: z.number().int().openapi({ description: "The premium average's period" }),
    timestamp: z.number().int().openapi({ description: "Time of the indexed block, unix seconds" }),
  })
  .openapi("MarkPrice");

export const PositionFunding = z
  .object({
    accountId: z.number().int(),
    marketId: hex("Market id"),
    pendingFunding: raw("pendingFunding", "Signed: > 0 the position owes (PAY), < 0 it receives"),
    pendingFundingFormatted: formatted("pendingFunding"),
    direction: z.enum(["PAY", "RECEIVE", "NONE"]),
    lastSettled: z.number().int().openapi({ description: "Last funding settlement of the position, unix seconds; 0 if never" }),
    lastSettledISO: z.string().nullable().openapi({ description: "ISO 8601; null if never settled" }),
  })
  .openapi("PositionFunding");
