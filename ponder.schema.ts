/**
 * The indexed tables. State tables hold the post-state carried by the events (keyed naturally);
 * `..._event` tables are append-only logs keyed by Ponder's event id. Every row can be rebuilt
 * from events alone. Units are in the column names: `...Wad` margin/PnL/fees (18 decimals),
 * `...X18` prices, rates and indexes (18), `...Qty` base-asset quantities (18), `...6` deposit
 * token units (6), `...Bps` basis points; times are unix seconds, blocks are numbers.
 * SQL names are snake_case (docs/SQL.md describes each table for analysts).
 */
import { index, onchainTable, primaryKey } from "ponder";

// ─── indexed head ───────────────────────────────────────────────────────────────────────

/**
 * One row (id 0): the last venue event applied. With Ponder's checkpoint it identifies the
 * indexed state exactly, also across reorgs (a block hash pins the whole chain before it): the
 * integration API keys its response cache on the pair (src/api/lib/responseCache.ts).
 */
export const indexedHead = onchainTable("indexed_head", (t) => ({
  id: t.integer().primaryKey(),
  blockNumber: t.bigint().notNull(),
  blockHash: t.hex().notNull(),
  logIndex: t.integer().notNull(),
}));

// ─── accounts ───────────────────────────────────────────────────────────────────────────

export const account = onchainTable(
  "account",
  (t) => ({
    accountId: t.bigint().primaryKey(),
    owner: t.hex().notNull(),
    accountAddress: t.hex().notNull(),
    availableWad: t.bigint().notNull(),
    committedWad: t.bigint().notNull(),
    totalWad: t.bigint().notNull(),
    // the dead-man deadline (unix seconds, 0 = off; Engine.DeadmanSet): past it anyone may cancel the account's open orders
    deadman: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    createdAt: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (t) => ({ ownerIdx: index().on(t.owner), addressIdx: index().on(t.accountAddress), deadmanIdx: index().on(t.deadman) }),
);

/** Every margin change (deposits, withdrawals, order commits/releases, trade settlements, liquidations). */
export const marginUpdateEvent = onchainTable(
  "margin_update_event",
  (t) => ({
    id: t.text().primaryKey(),
    accountId: t.bigint().notNull(),
    marketId: t.hex().notNull(), // 0x00…00 for deposits and withdrawals
    reason: t.text().notNull(), // DEPOSIT WITHDRAW ORDER_COMMIT ORDER_RELEASE TRADE_SETTLEMENT LIQUIDATION
    deltaAvailableWad: t.bigint().notNull(),
    deltaCommittedWad: t.bigint().notNull(),
    amount6: t.bigint().notNull(),
    availableWad: t.bigint().notNull(),
    committedWad: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    accountIdx: index().on(t.accountId, t.blockNumber),
    reasonIdx: index().on(t.reason, t.timestamp),
  }),
);

export const operatorApproval = onchainTable(
  "operator_approval",
  (t) => ({
    owner: t.hex().notNull(),
    operator: t.hex().notNull(),
    expiry: t.bigint().notNull(), // seconds; 0 = revoked
    // the policy the owner set for the operator (Engine.setOperator; docs/CONTRACTS.md "Operators")
    maxLeverage: t.integer().notNull(),
    bandBps: t.integer().notNull(),
    budgetBps: t.integer().notNull(),
    // its budget use after the last charge (OperatorBudgetUsed; decays over 24 h from budgetAt; a release emits nothing)
    budgetUsedWad: t.bigint().notNull(),
    budgetWad: t.bigint().notNull(),
    budgetAt: t.bigint().notNull(),
    bySignature: t.boolean().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (t) => ({ pk: primaryKey({ columns: [t.owner, t.operator] }), operatorIdx: index().on(t.operator) }),
);

/** Venue balances (insurance fund, fees, bad debt are venue-wide; the pool is the market's). */
export const venueBalance = onchainTable("venue_balance", (t) => ({
  marketId: t.hex().primaryKey(),
  insuranceFundWad: t.bigint().notNull(),
  feesWad: t.bigint().notNull(),
  badDebtWad: t.bigint().notNull(),
  marketPoolWad: t.bigint().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

/** The insurance fund now (one row, id "venue"): every VenueBalancesUpdated carries its post-state. */
export const insuranceFund = onchainTable("insurance_fund", (t) => ({
  id: t.text().primaryKey(),
  balanceWad: t.bigint().notNull(),
  donatedWad: t.bigint().notNull(), // Σ donations ever
  feesWad: t.bigint().notNull(), // accrued protocol fees, withdrawable by the admin
  feesWithdrawnWad: t.bigint().notNull(),
  badDebtWad: t.bigint().notNull(), // losses neither the book nor the fund could absorb, ever
  updatedBlock: t.bigint().notNull(),
}));

/**
 * The insurance fund's history: one row per change. `kind`: DONATION (InsuranceDonated),
 * else CHANGE (liquidation fees in, bad debt covered out, a liquidator's sub-unit residue).
 */
export const insuranceFundEvent = onchainTable(
  "insurance_fund_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    kind: t.text().notNull(),
    marketId: t.hex(), // null for donations
    donor: t.hex(),
    deltaWad: t.bigint().notNull(),
    balanceWad: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  // the history list's keyset order (GET /insurance-fund/history)
  (t) => ({ timeIdx: index().on(t.timestamp, t.blockNumber, t.logIndex) }),
);

/** Fees paid out to a treasury (FeesWithdrawn). */
export const feeWithdrawalEvent = onchainTable("fee_withdrawal_event", (t) => ({
  id: t.text().primaryKey(),
  seq: t.bigint().notNull(),
  to: t.hex().notNull(),
  amount6: t.bigint().notNull(),
  feesWad: t.bigint().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
  transactionHash: t.hex().notNull(),
}));

/** An owner's operator-approval nonce (setOperatorWithSig uses it; setOperator and invalidateNonces move it). */
export const operatorNonce = onchainTable("operator_nonce", (t) => ({
  owner: t.hex().primaryKey(),
  nonce: t.bigint().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

/** A market liquidateAccount skipped (it could not liquidate there); `reason` is the error selector. */
export const liquidationSkipEvent = onchainTable(
  "liquidation_skip_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    accountId: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    reason: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({ accountIdx: index().on(t.accountId, t.timestamp) }),
);

// ─── markets ────────────────────────────────────────────────────────────────────────────

/** Static parameters of a market, from MarketCreated. */
export const market = onchainTable(
  "market",
  (t) => ({
    marketId: t.hex().primaryKey(),
    marketAddress: t.hex().notNull(),
    marketIndex: t.bigint().notNull(),
    symbol: t.text().notNull(),
    baseFxToken: t.hex().notNull(),
    baseFxTokenSymbol: t.text().notNull(),
    quoteFxToken: t.hex().notNull(),
    quoteFxTokenSymbol: t.text().notNull(),
    tickSizeX18: t.bigint("tick_size_x18").notNull(),
    lotSizeQty: t.bigint().notNull(),
    minOrderQty: t.bigint().notNull(),
    maxLeverage: t.integer().notNull(),
    maintenanceMarginBps: t.integer().notNull(),
    liquidationFeeBps: t.integer().notNull(),
    makerFeeBps: t.integer().notNull(),
    takerFeeBps: t.integer().notNull(),
    priceBandBps: t.integer().notNull(),
    markClampBps: t.integer().notNull(),
    maxFillsPerTx: t.integer().notNull(),
    maxFundingRateX18PerHour: t.bigint("max_funding_rate_x18_per_hour").notNull(),
    skewScaleX18PerHour: t.bigint("skew_scale_x18_per_hour").notNull(),
    operatorBandBps: t.integer().notNull(),
    maxOpenInterestQty: t.bigint().notNull(),
    maxPositionQty: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    createdAt: t.bigint().notNull(),
  }),
  (t) => ({ addressIdx: index().on(t.marketAddress), indexIdx: index().on(t.marketIndex) }),
);

/**
 * Live state of a market, keyed by its address: a market may emit events while it is being
 * initialized, before the factory's MarketCreated tells us its id.
 */
export const marketState = onchainTable("market_state", (t) => ({
  marketAddress: t.hex().primaryKey(),
  marketId: t.hex(), // set by MarketCreated
  isActive: t.boolean().notNull(),
  longOpenInterestQty: t.bigint().notNull(),
  shortOpenInterestQty: t.bigint().notNull(),
  restingBidQty: t.bigint().notNull(),
  restingAskQty: t.bigint().notNull(),
  fundingRateX18PerHour: t.bigint("funding_rate_x18_per_hour").notNull(),
  premiumComponentX18: t.bigint("premium_component_x18").notNull(),
  skewComponentX18: t.bigint("skew_component_x18").notNull(),
  skewX18: t.bigint("skew_x18").notNull(),
  premiumX18: t.bigint("premium_x18").notNull(),
  // the bid and ask the last funding update sampled (the book's fillable top, taken on chain; 0 = none, both 0 for a
  // book around the index): until the next, premium_x18 moves towards their sample against the index of the moment
  sampleBidX18: t.bigint("sample_bid_x18").notNull(),
  sampleAskX18: t.bigint("sample_ask_x18").notNull(),
  cumulativeFundingIndexX18: t.bigint("cumulative_funding_index_x18").notNull(),
  fundingLastUpdate: t.bigint().notNull(), // seconds
  fundingIndexPriceX18: t.bigint("funding_index_price_x18").notNull(), // index and mark at the last funding update
  fundingMarkPriceX18: t.bigint("funding_mark_price_x18").notNull(),
  // a cancel since the last FundingUpdated made the stored rate stale (FundingRateStale; docs/CONTRACTS.md "Funding"):
  // the stored rate applies up to rateStaleSince, the stale rate (stored premium, margined sizes after the last cancel) from it
  rateStaleSince: t.bigint().notNull(), // seconds; 0 = the stored rate is current
  staleRateX18PerHour: t.bigint("stale_rate_x18_per_hour").notNull(),
  staleLongQty: t.bigint().notNull(), // margined: long OI + resting bids − reduce-only bids
  staleShortQty: t.bigint().notNull(),
  orderCount: t.bigint().notNull(),
  // the trading session at `updatedBlock` (MarketSessionChanged; docs/CONTRACTS.md "Weekends and gaps"):
  // sessions follow the calendar below and the time, with no event at a switch, so reads derive
  // the session and the uplift at their block's time (core/reads/snapshot.ts)
  session: t.text().notNull(), // OPEN | REDUCE_ONLY | CLOSED
  // the guardian's mode (MarketStatusSet): ACTIVE | POST_ONLY | CANCEL_ONLY | REDUCE_ONLY; the status
  // reads answer combines it with the session and the pause (core/reads/snapshot.ts marketStatus)
  mode: t.text().notNull(),
  marginUpliftBps: t.integer().notNull(), // multiplier of initial and maintenance margin now, 10000 = none
  closeUpliftBps: t.integer().notNull(), // what REDUCE_ONLY and CLOSED apply
  sessionUpdatedAt: t.bigint(), // seconds of the last change; null before any
  // the calendar (MarketCalendarScheduled; core/calendar.ts): in force until calendarStartsAt, the next one from it
  calendarCloseAtMin: t.integer().notNull(),
  calendarWindowMin: t.integer().notNull(),
  calendarClosedMin: t.integer().notNull(),
  nextCalendarCloseAtMin: t.integer().notNull(),
  nextCalendarWindowMin: t.integer().notNull(),
  nextCalendarClosedMin: t.integer().notNull(),
  calendarStartsAt: t.bigint().notNull(), // seconds; 0 = no next calendar
  updatedBlock: t.bigint().notNull(),
}));

/**
 * Every MarketSessionChanged: the market schedule's history (session switches, uplift changes).
 * `fundingLastUpdate` is the market's funding lastUpdate after the event: a reopening (leaving
 * CLOSED) restarts funding at its second without a FundingUpdated, so PnL at a past block reads
 * the session in force and that second here (the last row at or before it, by `marketIdx`).
 */
export const marketSessionEvent = onchainTable(
  "market_session_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    marketAddress: t.hex().notNull(),
    marketId: t.hex(), // null only for an event before MarketCreated (none today)
    session: t.text().notNull(),
    marginUpliftBps: t.integer().notNull(),
    closeUpliftBps: t.integer().notNull(),
    fundingLastUpdate: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({ marketIdx: index().on(t.marketId, t.timestamp, t.seq) }),
);

/** Latest index price per market (Oracle). */
export const indexPrice = onchainTable("index_price", (t) => ({
  marketId: t.hex().primaryKey(),
  priceX18: t.bigint("price_x18").notNull(),
  updatedAt: t.bigint().notNull(), // the oracle's timestamp, seconds
  // the first update of the unbroken fresh run `updatedAt` belongs to (each update within maxAge
  // of the one before; Oracle's runAge, saturating at 2^24 - 1 s): funding accrues only over
  // [freshSince, updatedAt + maxAge] (IOracle.priceWindow, docs/CONTRACTS.md "Funding")
  freshSince: t.bigint().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

export const indexPriceEvent = onchainTable(
  "index_price_event",
  (t) => ({
    id: t.text().primaryKey(),
    marketId: t.hex().notNull(),
    priceX18: t.bigint("price_x18").notNull(),
    timestamp: t.bigint().notNull(),
    freshSince: t.bigint().notNull(), // as index_price.fresh_since after this update
    blockNumber: t.bigint().notNull(),
  }),
  (t) => ({ marketIdx: index().on(t.marketId, t.timestamp) }),
);

/** Oracle updates that asked for more than the move bound: requested vs applied (IndexPriceClamped). */
export const indexPriceClamp = onchainTable(
  "index_price_clamp",
  (t) => ({
    id: t.text().primaryKey(),
    marketId: t.hex().notNull(),
    requestedPriceX18: t.bigint("requested_price_x18").notNull(),
    appliedPriceX18: t.bigint("applied_price_x18").notNull(),
    referencePriceX18: t.bigint("reference_price_x18").notNull(), // the price before this second's first update
    timestamp: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
  }),
  (t) => ({ marketIdx: index().on(t.marketId, t.timestamp) }),
);

/** The oracle's configuration (one row, id 0): staleness bound and move bound per update. */
export const oracleConfig = onchainTable("oracle_config", (t) => ({
  id: t.integer().primaryKey(),
  maxAgeSeconds: t.bigint().notNull(),
  maxMoveBps: t.integer().notNull(),
  updatedBlock: t.bigint().notNull(),
  // the markets routed to a price feed now (price_feed rows with a feed): the indexer reads their
  // index each block (src/oracle/feeds.ts); null = none
  feedMarketIds: t.hex().array(),
}));

/** Markets routed to an external price feed (Oracle.setFeed); a row with feed 0x0… went back to pushed prices. */
export const priceFeed = onchainTable("price_feed", (t) => ({
  marketId: t.hex().primaryKey(),
  feed: t.hex().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

/** Who may push index prices (UPDATER_ROLE), as granted and revoked. */
export const oracleUpdater = onchainTable("oracle_updater", (t) => ({
  address: t.hex().primaryKey(),
  allowed: t.boolean().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

/** Funding accruals: rate and its components, the premium average and the book's sample, the cumulative index, index and mark price. */
export const fundingUpdateEvent = onchainTable(
  "funding_update_event",
  (t) => ({
    id: t.text().primaryKey(),
    marketAddress: t.hex().notNull(),
    seq: t.bigint().notNull(),
    rateX18PerHour: t.bigint("rate_x18_per_hour").notNull(),
    premiumComponentX18: t.bigint("premium_component_x18").notNull(),
    skewComponentX18: t.bigint("skew_component_x18").notNull(),
    skewX18: t.bigint("skew_x18").notNull(),
    premiumX18: t.bigint("premium_x18").notNull(),
    sampleBidX18: t.bigint("sample_bid_x18").notNull(),
    sampleAskX18: t.bigint("sample_ask_x18").notNull(),
    cumulativeIndexX18: t.bigint("cumulative_index_x18").notNull(),
    indexPriceX18: t.bigint("index_price_x18").notNull(),
    markPriceX18: t.bigint("mark_price_x18").notNull(),
    timestamp: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
  }),
  (t) => ({ marketIdx: index().on(t.marketAddress, t.timestamp) }),
);

/**
 * Every FundingRateStale: a margined cancel marked the stored rate stale from `staleSince`; the
 * rate in force from then (the stored premium with the margined sizes after this cancel), as the
 * next accrual applies it. PnL reads the latest one after the latest funding update.
 */
export const fundingRateStaleEvent = onchainTable(
  "funding_rate_stale_event",
  (t) => ({
    id: t.text().primaryKey(),
    marketAddress: t.hex().notNull(),
    staleSince: t.bigint().notNull(),
    longQty: t.bigint().notNull(),
    shortQty: t.bigint().notNull(),
    rateX18PerHour: t.bigint("rate_x18_per_hour").notNull(),
    skewX18: t.bigint("skew_x18").notNull(),
    timestamp: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
  }),
  (t) => ({ marketIdx: index().on(t.marketAddress, t.timestamp) }),
);

export const openInterestEvent = onchainTable(
  "open_interest_event",
  (t) => ({
    id: t.text().primaryKey(),
    marketAddress: t.hex().notNull(),
    longQty: t.bigint().notNull(),
    shortQty: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
  }),
  (t) => ({ marketIdx: index().on(t.marketAddress, t.timestamp) }),
);

// ─── orders and the book ────────────────────────────────────────────────────────────────

// SQL name "orders": ORDER is a reserved word, analysts would have to quote it.
export const order = onchainTable(
  "orders",
  (t) => ({
    orderId: t.bigint().primaryKey(),
    marketId: t.hex().notNull(),
    accountId: t.bigint().notNull(),
    clientKey: t.hex().notNull(),
    side: t.text().notNull(), // LONG | SHORT
    orderType: t.text().notNull(), // MARKET | LIMIT
    reduceOnly: t.boolean().notNull(),
    priceX18: t.bigint("price_x18").notNull(), // limit price; MARKET: the sizing price
    originalQty: t.bigint().notNull(),
    filledQty: t.bigint().notNull(),
    remainingQty: t.bigint().notNull(), // 0 once closed
    cancelledQty: t.bigint().notNull(),
    // its fills so far (the order history's fillCount), counted by the fill handler so that a
    // history page reads it instead of counting account_fill rows per order
    fillCount: t.integer().notNull(),
    marginAllocatedWad: t.bigint().notNull(),
    // the order's margin not yet gone into its position (the chain's Order.marginRemainingWad, to the
    // wei: src/Market.ts); 0 once closed. What a fill of the rest would bring (core/math/fillable.ts)
    marginRemainingWad: t.bigint().notNull(),
    marginReturnedWad: t.bigint().notNull(),
    status: t.text().notNull(), // active | filled | cancelled
    closeReason: t.text(), // FILLED USER_CANCEL UNFILLED_MARKET REDUCE_ONLY_EXPIRED FILL_CAP LIQUIDATION DUST MARGIN REDUCE_ONLY_SESSION OPERATOR_BAND UNFILLED_IOC EXPIRED DEADMAN
    // Market v2 options as OrderPlaced reports them: GTC | IOC | FOK | POST_ONLY (a MARKET order's
    // GTC is IOC); expiry in seconds, 0 = none. An active order at or past its expiry never fills:
    // the reads show it cancelled from that second (core/reads/plans.ts), before anyone removes it
    timeInForce: t.text().notNull(),
    expiresAt: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    createdAt: t.bigint().notNull(),
    updatedAt: t.bigint().notNull(),
    closedAt: t.bigint(),
    transactionHash: t.hex().notNull(),
    // TAKE_PROFIT | STOP_LOSS: the position trigger that placed this order (TriggerExecuted); null for any other order
    triggerKind: t.text(),
    // its modifications (OrderModified, Engine.modifyOrder): how many, and the last one's time and block (null: never modified)
    modificationCount: t.integer().notNull(),
    modifiedAt: t.bigint(),
    modifiedBlock: t.bigint(),
    // its place in its level's FIFO: the market's event seq (OrderPlaced's, or the OrderModified's that
    // moved it to the tail of a level: a new price or a larger size); a level's orders in rising
    // queueSeq are the chain's queue (core/reads/plans.ts `bookSide`, cut where getFillableLevels cuts)
    queueSeq: t.bigint().notNull(),
  }),
  (t) => ({
    accountIdx: index().on(t.accountId, t.marketId, t.status),
    accountStatusIdx: index().on(t.accountId, t.status),
    clientKeyIdx: index().on(t.accountId, t.marketId, t.clientKey),
    // also a side's resting orders in price-time order (core/reads/plans.ts `bookSide`)
    marketIdx: index().on(t.marketId, t.status, t.side, t.priceX18, t.queueSeq),
    // the order history route: newest first by (createdAt, createdBlock, orderId), with a time range
    historyIdx: index().on(t.accountId, t.createdAt, t.createdBlock, t.orderId),
    historyMarketIdx: index().on(t.accountId, t.marketId, t.createdAt, t.createdBlock, t.orderId),
  }),
);

export const fill = onchainTable(
  "fill",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    makerOrderId: t.bigint().notNull(),
    takerOrderId: t.bigint().notNull(),
    makerAccountId: t.bigint().notNull(),
    takerAccountId: t.bigint().notNull(),
    takerSide: t.text().notNull(),
    priceX18: t.bigint("price_x18").notNull(),
    quantityQty: t.bigint().notNull(),
    notionalWad: t.bigint().notNull(), // quantity × price / 1e18 (floor)
    makerFeeWad: t.bigint().notNull(),
    takerFeeWad: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    marketIdx: index().on(t.marketId, t.timestamp),
    makerIdx: index().on(t.makerAccountId, t.timestamp),
    takerIdx: index().on(t.takerAccountId, t.timestamp),
    makerOrderIdx: index().on(t.makerOrderId),
    takerOrderIdx: index().on(t.takerOrderId),
  }),
);

/** One row per non-empty price level (deleted when it empties). */
export const orderBookLevel = onchainTable(
  "order_book_level",
  (t) => ({
    marketId: t.hex().notNull(),
    side: t.text().notNull(), // LONG = bid, SHORT = ask
    priceX18: t.bigint("price_x18").notNull(),
    quantityQty: t.bigint().notNull(),
    orderCount: t.integer().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (t) => ({
    pk: primaryKey({ columns: [t.marketId, t.side, t.priceX18] }),
    bookIdx: index().on(t.marketId, t.side, t.priceX18),
  }),
);

// ─── positions ──────────────────────────────────────────────────────────────────────────

export const position = onchainTable(
  "position",
  (t) => ({
    accountId: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    positionId: t.hex().notNull(), // keccak256(abi.encode(accountId, marketId)): the gateway's position_id
    sizeQty: t.bigint().notNull(), // > 0 long, < 0 short
    openNotionalWad: t.bigint().notNull(),
    marginWad: t.bigint().notNull(),
    lastFundingIndexX18: t.bigint("last_funding_index_x18").notNull(),
    lastSettledAt: t.bigint().notNull(), // seconds
    openBlock: t.bigint().notNull(), // 0 when closed
    realizedPnlWad: t.bigint().notNull(), // lifetime totals of this (account, market)
    fundingPaidWad: t.bigint().notNull(),
    feesPaidWad: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
    updatedAt: t.bigint().notNull(),
  }),
  (t) => ({
    pk: primaryKey({ columns: [t.accountId, t.marketId] }),
    positionIdIdx: index().on(t.positionId),
    marketIdx: index().on(t.marketId, t.sizeQty),
  }),
);

/** Position history: every change, with what it settled. */
export const positionUpdateEvent = onchainTable(
  "position_update_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    accountId: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    positionId: t.hex().notNull(),
    reason: t.text().notNull(), // TRADE | LIQUIDATION
    sizeQty: t.bigint().notNull(),
    openNotionalWad: t.bigint().notNull(),
    marginWad: t.bigint().notNull(),
    realizedPnlWad: t.bigint().notNull(),
    fundingPaidWad: t.bigint().notNull(), // > 0 paid by the position
    feeWad: t.bigint().notNull(),
    fundingIndexX18: t.bigint("funding_index_x18").notNull(),
    // the (account, market)'s lifetime totals after this event (the `position` row's then):
    // the PnL route reads them as of a block
    realizedPnlTotalWad: t.bigint().notNull(),
    fundingPaidTotalWad: t.bigint().notNull(),
    feesPaidTotalWad: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    positionIdx: index().on(t.positionId, t.blockNumber),
    accountIdx: index().on(t.accountId, t.timestamp),
    marketIdx: index().on(t.marketId, t.timestamp),
  }),
);

export const liquidationEvent = onchainTable(
  "liquidation_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    accountId: t.bigint().notNull(),
    positionId: t.hex().notNull(),
    liquidator: t.hex().notNull(),
    closedQty: t.bigint().notNull(),
    closedNotionalWad: t.bigint().notNull(),
    liquidatorFeeWad: t.bigint().notNull(),
    insuranceFeeWad: t.bigint().notNull(),
    badDebtWad: t.bigint().notNull(),
    remainingSizeQty: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    marketIdx: index().on(t.marketId, t.timestamp),
    accountIdx: index().on(t.accountId, t.timestamp),
  }),
);

/**
 * The insurance fund took over the rest of a liquidated position at its bankruptcy price
 * (InsuranceTakeover): the fund's position is account 0's row in `position`.
 */
export const insuranceTakeoverEvent = onchainTable(
  "insurance_takeover_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    accountId: t.bigint().notNull(),
    quantityQty: t.bigint().notNull(),
    priceX18: t.bigint().notNull(),
    notionalWad: t.bigint().notNull(),
    fundMarginAddedWad: t.bigint().notNull(),
    fundSizeQty: t.bigint().notNull(),
    fundOpenNotionalWad: t.bigint().notNull(),
    fundMarginWad: t.bigint().notNull(),
    insuranceFundWad: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    marketIdx: index().on(t.marketId, t.timestamp),
    accountIdx: index().on(t.accountId, t.timestamp),
  }),
);

/**
 * The insurance fund's own position was reduced against the book (FundPositionReduced, issue 26:
 * `reduceFundPosition`, at most once per 300 s); its fills are account 0's order fills, its
 * position account 0's row in `position`.
 */
export const fundPositionReducedEvent = onchainTable(
  "fund_position_reduced_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    quantityQty: t.bigint().notNull(),
    fundSizeQty: t.bigint().notNull(), // after the reduction
    nextAt: t.bigint().notNull(), // seconds: the first second the next reduction may run
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    marketIdx: index().on(t.marketId, t.timestamp),
  }),
);

/**
 * A resting order's new price and size (OrderModified, `Engine.modifyOrder`): the order's
 * post-state and what it was before, one row per modify (the order's modifications, newest last).
 */
export const orderModifiedEvent = onchainTable(
  "order_modified_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    orderId: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    accountId: t.bigint().notNull(),
    fromPriceX18: t.bigint("from_price_x18").notNull(),
    fromRemainingQty: t.bigint().notNull(),
    fromMarginRemainingWad: t.bigint().notNull(),
    priceX18: t.bigint("price_x18").notNull(),
    originalQty: t.bigint().notNull(), // filled + the new remaining
    remainingQty: t.bigint().notNull(),
    marginRemainingWad: t.bigint().notNull(),
    // only a smaller size at the same price keeps the order's time in its level
    keptPriority: t.boolean().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
  }),
  (t) => ({
    orderIdx: index().on(t.orderId, t.seq),
    // the modifications list (GET /accounts/{accountId}/orders/modifications, filters marketId, orderId): newest first by (timestamp, blockNumber, logIndex)
    accountIdx: index().on(t.accountId, t.timestamp, t.blockNumber, t.logIndex),
    accountMarketIdx: index().on(t.accountId, t.marketId, t.timestamp, t.blockNumber, t.logIndex),
    accountOrderIdx: index().on(t.accountId, t.orderId, t.timestamp, t.blockNumber, t.logIndex),
  }),
);

/** Auto-deleveraging (Deleveraged): one row per counterparty closed at the liquidated position's bankruptcy price. */
export const deleverageEvent = onchainTable(
  "deleverage_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    accountId: t.bigint().notNull(),
    counterpartyId: t.bigint().notNull(),
    quantityQty: t.bigint().notNull(),
    priceX18: t.bigint().notNull(),
    notionalWad: t.bigint().notNull(), // quantity × price / 1e18, as settled
    counterpartySizeQty: t.bigint().notNull(),
    counterpartyRealizedPnlWad: t.bigint().notNull(),
    rank: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    marketIdx: index().on(t.marketId, t.timestamp),
    accountIdx: index().on(t.accountId, t.timestamp),
    counterpartyIdx: index().on(t.counterpartyId, t.timestamp),
  }),
);

// ─── history (append-only, for the history routes and analysts) ─────────────────────────
// Every row carries its event's (blockNumber, logIndex) and block `timestamp`. Lists page
// newest first by (timestamp, blockNumber, logIndex): timestamps never decrease along the chain,
// so that is chain order, and one index per list serves its time range and its cursor.
// Written by src/history/*.ts from the handlers of the events they come from.

/** Every fill of a market (one per OrderFilled): the public trades. */
export const trade = onchainTable(
  "trade",
  (t) => ({
    id: t.text().primaryKey(), // the OrderFilled event's id
    marketId: t.hex().notNull(),
    takerSide: t.text().notNull(), // LONG | SHORT
    priceX18: t.bigint("price_x18").notNull(),
    quantityQty: t.bigint().notNull(),
    notionalWad: t.bigint().notNull(), // quantity × price / 1e18 (floor)
    makerOrderId: t.bigint().notNull(),
    takerOrderId: t.bigint().notNull(),
    makerAccountId: t.bigint().notNull(),
    takerAccountId: t.bigint().notNull(),
    makerFeeWad: t.bigint().notNull(),
    takerFeeWad: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({ marketIdx: index().on(t.marketId, t.timestamp, t.blockNumber, t.logIndex) }),
);

/** Each side of each fill, per account: side, MAKER or TAKER, price, size and that side's fee. */
export const accountFill = onchainTable(
  "account_fill",
  (t) => ({
    id: t.text().primaryKey(), // `${event id}:M` (maker) or `:T` (taker)
    accountId: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    orderId: t.bigint().notNull(),
    side: t.text().notNull(), // this account's side: LONG | SHORT
    liquidity: t.text().notNull(), // MAKER | TAKER
    priceX18: t.bigint("price_x18").notNull(),
    quantityQty: t.bigint().notNull(),
    notionalWad: t.bigint().notNull(),
    feeWad: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    accountIdx: index().on(t.accountId, t.timestamp, t.blockNumber, t.logIndex),
    accountMarketIdx: index().on(t.accountId, t.marketId, t.timestamp, t.blockNumber, t.logIndex),
    orderIdx: index().on(t.orderId),
  }),
);

/**
 * OHLCV per market, resolution (1m 5m 15m 1h 4h 1d) and UTC period, updated by every fill.
 * Only periods with trades have a row; the candles route fills the others (previous close, zero
 * volume). Shape kept stable: the streams service reads it.
 */
export const candle = onchainTable(
  "candle",
  (t) => ({
    marketId: t.hex().notNull(),
    resolution: t.text().notNull(),
    periodStart: t.bigint().notNull(), // unix seconds, a multiple of the resolution
    openX18: t.bigint("open_x18").notNull(), // the period's first trade
    highX18: t.bigint("high_x18").notNull(),
    lowX18: t.bigint("low_x18").notNull(),
    closeX18: t.bigint("close_x18").notNull(), // its last trade
    baseVolumeQty: t.bigint().notNull(),
    quoteVolumeWad: t.bigint().notNull(), // Σ notional
    tradeCount: t.integer().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (t) => ({ pk: primaryKey({ columns: [t.marketId, t.resolution, t.periodStart] }) }),
);

/** The funding rate and cumulative index at every FundingUpdated, per market. */
export const fundingHistory = onchainTable(
  "funding_history",
  (t) => ({
    id: t.text().primaryKey(),
    marketAddress: t.hex().notNull(), // a market may accrue before MarketCreated names it
    rateX18PerHour: t.bigint("rate_x18_per_hour").notNull(),
    cumulativeIndexX18: t.bigint("cumulative_index_x18").notNull(),
    premiumComponentX18: t.bigint("premium_component_x18").notNull(),
    skewComponentX18: t.bigint("skew_component_x18").notNull(),
    indexPriceX18: t.bigint("index_price_x18").notNull(),
    markPriceX18: t.bigint("mark_price_x18").notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(), // the accrual time (the event's), = the block's
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({ marketIdx: index().on(t.marketAddress, t.timestamp, t.blockNumber, t.logIndex) }),
);

/** Every settlement of funding on an open position (PositionUpdated of a position that had size). */
export const fundingPayment = onchainTable(
  "funding_payment",
  (t) => ({
    id: t.text().primaryKey(),
    accountId: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    positionId: t.hex().notNull(),
    sizeQty: t.bigint().notNull(), // the position's signed size the funding was owed on
    paymentWad: t.bigint().notNull(), // > 0 paid by the position, < 0 received
    fundingIndexX18: t.bigint("funding_index_x18").notNull(), // settled up to this index
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    accountIdx: index().on(t.accountId, t.timestamp, t.blockNumber, t.logIndex),
    accountMarketIdx: index().on(t.accountId, t.marketId, t.timestamp, t.blockNumber, t.logIndex),
  }),
);

/** Deposits and withdrawals (MarginUpdated DEPOSIT / WITHDRAW). */
export const transfer = onchainTable(
  "transfer",
  (t) => ({
    id: t.text().primaryKey(),
    accountId: t.bigint().notNull(),
    kind: t.text().notNull(), // DEPOSIT | WITHDRAWAL
    amount6: t.bigint().notNull(), // deposit-token units moved
    availableWad: t.bigint().notNull(), // available margin after it
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({ accountIdx: index().on(t.accountId, t.timestamp, t.blockNumber, t.logIndex) }),
);

/** Liquidations of an account's positions. `kind`: LIQUIDATION (the liquidated account: book, fund
 *  takeover and deleveraging together), DELEVERAGE (the account was a deleveraged counterparty). */
export const accountLiquidation = onchainTable(
  "account_liquidation",
  (t) => ({
    id: t.text().primaryKey(),
    accountId: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    positionId: t.hex().notNull(),
    kind: t.text().notNull(),
    liquidator: t.hex().notNull(),
    closedQty: t.bigint().notNull(),
    closedNotionalWad: t.bigint().notNull(),
    liquidatorFeeWad: t.bigint().notNull(),
    insuranceFeeWad: t.bigint().notNull(),
    badDebtWad: t.bigint().notNull(),
    remainingSizeQty: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    accountIdx: index().on(t.accountId, t.timestamp, t.blockNumber, t.logIndex),
    accountMarketIdx: index().on(t.accountId, t.marketId, t.timestamp, t.blockNumber, t.logIndex),
  }),
);

// ─── PnL at period ends (GET /accounts/{id}/pnl; src/history/clock.ts) ─────────────────────
// An account's PnL at a period end is the state at the last block B with a timestamp at or
// before it, valued as the contracts' views value it at B: that needs B's own timestamp (funding
// accrues and the mark's premium moves with time).

/** The last block the indexer saw (one row, id 0), kept by the per-block clock. */
export const chainClock = onchainTable("chain_clock", (t) => ({
  id: t.integer().primaryKey(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
}));

/**
 * One row per pair of consecutive blocks on either side of an hour boundary: block B
 * (`blockNumber`, `timestamp`) is the last block at or before every hour end in
 * [timestamp, nextTimestamp). Day ends are hour ends.
 */
export const periodEndBlock = onchainTable(
  "period_end_block",
  (t) => ({
    blockNumber: t.bigint().primaryKey(),
    timestamp: t.bigint().notNull(),
    nextTimestamp: t.bigint().notNull(), // the next block's
  }),
  (t) => ({ timeIdx: index().on(t.timestamp) }),
);


// ─── position triggers (take-profit, stop-loss; TriggerBook, docs/CONTRACTS.md "Triggers") ──

/**
 * A position's take-profit or stop-loss now: one row per (account, market, kind), id
 * `${accountId}-${marketId}-${kind}` (core/triggers.ts `triggerId`). Setting the same kind again
 * overwrites it (active again, the end fields cleared). The keeper finds the active ones of a
 * market by `statusMarketIdx`.
 */
export const positionTrigger = onchainTable(
  "position_trigger",
  (t) => ({
    id: t.text().primaryKey(),
    accountId: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    kind: t.text().notNull(), // TAKE_PROFIT | STOP_LOSS
    status: t.text().notNull(), // active | executed | cancelled
    triggerPriceX18: t.bigint("trigger_price_x18").notNull(),
    orderType: t.text().notNull(), // MARKET | LIMIT: the order it places (a reduce-only close of the whole position)
    limitPriceX18: t.bigint("limit_price_x18").notNull(), // LIMIT's price; 0 for MARKET
    oco: t.boolean().notNull(), // firing removes the position's other trigger when that one is oco too
    positionSide: t.text().notNull(), // LONG | SHORT: the position it was set on
    openBlock: t.bigint().notNull(), // that position's open block: the trigger ends with it
    operator: t.hex(), // the operator that set it (its policy applies when it fires); null: the owner
    endReason: t.text(), // CANCELLED | POSITION_CHANGED | OPERATOR_REVOKED | TWIN_FIRED; null while active or once executed
    orderId: t.bigint(), // the order it placed (executed)
    executedMarkX18: t.bigint("executed_mark_x18"), // the mark it fired at
    executor: t.hex(), // who sent executeTrigger
    createdAt: t.bigint().notNull(), // seconds: the last set
    updatedAt: t.bigint().notNull(),
    setBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (t) => ({
    statusMarketIdx: index().on(t.status, t.marketId),
    accountIdx: index().on(t.accountId),
  }),
);

/**
 * Every TriggerSet, TriggerRemoved and TriggerExecuted (`event` SET | REMOVED | EXECUTED), newest
 * last by (blockNumber, logIndex): a trigger's history. The fields of its event; the others null.
 */
export const triggerEvent = onchainTable(
  "trigger_event",
  (t) => ({
    id: t.text().primaryKey(),
    seq: t.bigint().notNull(),
    event: t.text().notNull(), // SET | REMOVED | EXECUTED
    accountId: t.bigint().notNull(),
    marketId: t.hex().notNull(),
    kind: t.text().notNull(),
    // SET
    triggerPriceX18: t.bigint("trigger_price_x18"),
    orderType: t.text(),
    limitPriceX18: t.bigint("limit_price_x18"),
    oco: t.boolean(),
    positionSide: t.text(),
    openBlock: t.bigint(),
    operator: t.hex(), // SET: null = the owner
    // REMOVED
    reason: t.text(),
    // EXECUTED
    orderId: t.bigint(),
    markPriceX18: t.bigint("mark_price_x18"),
    executor: t.hex(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (t) => ({
    accountIdx: index().on(t.accountId, t.timestamp, t.blockNumber, t.logIndex),
    triggerIdx: index().on(t.accountId, t.marketId, t.kind, t.blockNumber),
  }),
);
