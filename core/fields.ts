/**
 * The one field → unit map of the HTTP surfaces (DESIGN.md "Money, units, identifiers"). The
 * formatter (`...Formatted` companions) and the OpenAPI descriptions both read it, so a field's
 * documented unit is the unit it is formatted with.
 */
import { formatUnits } from "./units.js";

export const UNITS = {
  amount6: { decimals: 6, text: "deposit-token base units (6 decimals)" },
  wad: { decimals: 18, text: "WAD: USD with 18 decimals" },
  priceX18: { decimals: 18, text: "price in USD per base unit, 18 decimals" },
  qty: { decimals: 18, text: "base-asset quantity, 18 decimals" },
  rateX18: { decimals: 18, text: "funding rate per hour, 18 decimals (0.01e18 = 1 %/h)" },
  fractionX18: { decimals: 18, text: "fraction with 18 decimals (1e18 = 100 %)" },
  indexX18: { decimals: 18, text: "cumulative funding index: WAD owed per 1e18 of long size, 18 decimals" },
  bps: { decimals: 0, text: "basis points (100 = 1 %)" },
} as const;
export type Unit = keyof typeof UNITS;

/** Every amount-like field of the integration API (camelCase) and its unit. */
export const FIELD_UNITS = {
  // account
  available: "wad",
  committed: "wad",
  total: "wad",
  // operators (GET /accounts/{accountId}/operators)
  budget: "wad",
  budgetUsed: "wad",
  budgetUsedNow: "wad",
  // writes
  amount: "amount6",
  collateralAmount: "amount6",
  depositedAmount: "amount6",
  withdrawnAmount: "amount6",
  newAvailableMargin: "wad",
  marginReturned: "wad",
  limitPrice: "priceX18",
  // position triggers
  triggerPrice: "priceX18",
  executedMarkPrice: "priceX18",
  // position and health
  size: "qty",
  entryPrice: "priceX18",
  margin: "wad",
  markPrice: "priceX18",
  positionValue: "wad",
  unrealizedPnL: "wad",
  liquidationPrice: "priceX18",
  insolvencyPrice: "priceX18",
  marginRatioBps: "bps",
  // orders and book
  price: "priceX18",
  originalQuantity: "qty",
  filledQuantity: "qty",
  remainingQuantity: "qty",
  quantity: "qty",
  marginAllocated: "wad",
  absolute: "priceX18",
  midPrice: "priceX18",
  tickSize: "priceX18",
  lotSize: "qty",
  minOrderSize: "qty",
  maxPositionSize: "qty",
  maxOpenInterest: "qty",
  // markets and funding
  long: "qty",
  short: "qty",
  maintenanceMarginBps: "bps",
  liquidationFeeBps: "bps",
  makerFeeBps: "bps",
  takerFeeBps: "bps",
  currentRate: "rateX18",
  cumulativeFunding: "indexX18",
  perpPrice: "priceX18",
  indexPrice: "priceX18",
  premium: "fractionX18",
  premiumComponent: "rateX18",
  skewComponent: "rateX18",
  skew: "fractionX18",
  pendingFunding: "wad", // a position's; the market's pendingFunding is an index delta (see fundingPendingIndex)
  // history (trades, fills, candles, funding, transfers, liquidations)
  quoteAmount: "wad",
  fee: "wad",
  makerFee: "wad",
  takerFee: "wad",
  open: "priceX18",
  high: "priceX18",
  low: "priceX18",
  close: "priceX18",
  baseVolume: "qty",
  quoteVolume: "wad",
  rate: "rateX18",
  cumulativeIndex: "indexX18",
  payment: "wad",
  positionSize: "qty",
  availableAfter: "wad",
  closedSize: "qty",
  closedNotional: "wad",
  liquidatorFee: "wad",
  insuranceFee: "wad",
  badDebt: "wad",
  remainingSize: "qty",
  cancelledQuantity: "qty",
  // the insurance fund and the mark's components
  balance: "wad",
  donated: "wad",
  fees: "wad",
  feesWithdrawn: "wad",
  delta: "wad",
  balanceAfter: "wad",
  bestBid: "priceX18",
  bestAsk: "priceX18",
  premiumSample: "fractionX18",
  // PnL at period ends
  equity: "wad",
  collateral: "wad",
  realizedPnL: "wad",
  fundingPaid: "wad",
  feesPaid: "wad",
  // an order's modifications (GET /accounts/{accountId}/orders/modifications)
  fromPrice: "priceX18",
  fromRemainingQuantity: "qty",
  fromMarginRemaining: "wad",
  marginRemaining: "wad",
} as const satisfies Record<string, Unit>;
export type AmountField = keyof typeof FIELD_UNITS;

/** The market's pendingFunding: index accrued since lastUpdate (same unit as cumulativeFunding). */
export const MARKET_PENDING_FUNDING_UNIT: Unit = "indexX18";

export const unitOf = (field: AmountField): Unit => FIELD_UNITS[field];
export const decimalsOf = (field: AmountField) => UNITS[FIELD_UNITS[field]].decimals;

/** Exact decimal string of a raw integer in the field's unit ("1080000000000000000" → "1.08"). */
export const formatField = (field: AmountField, value: bigint) => formatUnits(value, decimalsOf(field));
export const formatUnit = (unit: Unit, value: bigint) => formatUnits(value, UNITS[unit].decimals);

/** OpenAPI description of a raw integer field: "<unit>, decimal string". */
export const describeField = (field: AmountField, extra?: string) =>
  `${UNITS[FIELD_UNITS[field]].text}; integer as a decimal string${extra ? `. ${extra}` : ""}`;
export const describeUnit = (unit: Unit, extra?: string) =>
  `${UNITS[unit].text}; integer as a decimal string${extra ? `. ${extra}` : ""}`;
