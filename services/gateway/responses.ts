/**
 * Response `data` schemas for the OpenAPI document: the integration API's fields in snake_case
 * (core/case.ts). Documentation only: answers are proxied, not re-validated, and may carry more
 * fields than listed.
 */
import { z } from "@hono/zod-openapi";

const dec = (d: string) => z.string().openapi({ description: d });
const wad = (d = "WAD (18 decimals)") => dec(d);
const fmt = () => z.string().openapi({ description: "exact decimal" });
const int = (d?: string) => z.number().int().openapi(d ? { description: d } : {});
const hex = (d: string) => z.string().openapi({ description: d });
const side = z.enum(["LONG", "SHORT"]);
const orderType = z.enum(["MARKET", "LIMIT"]);

const Margin = z.object({
  available: wad(), available_formatted: fmt(), committed: wad(), committed_formatted: fmt(), total: wad(), total_formatted: fmt(),
});

export const AccountData = z
  .object({ account_id: int(), account_address: hex("the account's own address"), owner: hex("wallet"), margin: Margin })
  .openapi("Account");

export const AccountByAddressData = z
  .object({ account_id: int("0 when none"), account_address: hex("address").optional(), owner: hex("wallet").optional(), exists: z.boolean() })
  .openapi("AccountByAddress");

export const MarketData = z
  .object({
    market_id: hex("bytes32"), symbol: z.string(), market_address: hex("order book contract"),
    base_fx_token: hex("address"), base_fx_token_symbol: z.string(), quote_fx_token: hex("address"), quote_fx_token_symbol: z.string(),
    max_leverage: int(), maintenance_margin_bps: z.union([z.string(), z.number()]), maintenance_margin_percent: z.string(),
    liquidation_fee_bps: z.union([z.string(), z.number()]), liquidation_fee_percent: z.string(), is_active: z.boolean(),
    open_interest: z.object({ long: dec("base quantity, 18 decimals"), long_formatted: fmt(), short: dec("base quantity, 18 decimals"), short_formatted: fmt() }),
    operator_band_bps: int("the relayer's (operator's) orders are priced and filled within mark ± this band"),
    mark_clamp_bps: int("the mark's premium sample stays within index ± this band"),
    max_position_size: dec("cap on one account's position, base quantity, 18 decimals"), max_position_size_formatted: fmt(),
    max_open_interest: dec("cap on open interest per side, base quantity, 18 decimals"), max_open_interest_formatted: fmt(),
    session: z.object({
      state: z.enum(["OPEN", "REDUCE_ONLY", "CLOSED"]).openapi({
        description: "the market schedule: REDUCE_ONLY before a close (closes only, margin raised), CLOSED (no orders, no liquidation, no funding)",
      }),
      margin_uplift_bps: int("multiplier of initial and maintenance margin now, bps (10000 = none)"), margin_uplift_percent: z.string(),
      close_uplift_bps: int("the multiplier REDUCE_ONLY and CLOSED apply, bps"),
      updated_at: int("last session change, unix seconds").nullable(), updated_at_iso: z.string().nullable(),
    }),
  })
  .openapi("Market");

export const MarketListData = z.object({ markets: z.array(MarketData) }).openapi("MarketList");

const Level = z.object({ price: dec("18 decimals"), price_formatted: fmt(), quantity: dec("18 decimals"), quantity_formatted: fmt(), order_count: int() });
export const OrderBookData = z
  .object({
    market_id: hex("bytes32"), timestamp: int("ms of the latest indexed block"), bids: z.array(Level), asks: z.array(Level),
    spread: z.object({ absolute: dec("18 decimals"), absolute_formatted: fmt(), percent: z.string() }).nullable(),
    mid_price: dec("18 decimals").nullable(), mid_price_formatted: fmt().nullable(),
  })
  .openapi("OrderBook");

export const FundingData = z
  .object({
    market_id: hex("bytes32"), current_rate: dec("per hour, 18 decimals, signed"), current_rate_formatted: fmt(), current_rate_percent: z.string(),
    current_rate_annualized: z.string().openapi({ description: "hourly × 24 × 365, percent" }),
    cumulative_funding: dec("18 decimals"), cumulative_funding_formatted: fmt(), pending_funding: dec("18 decimals"), pending_funding_formatted: fmt(),
    last_update: int("seconds"), last_update_iso: z.string(),
    rate_stale_since: int("seconds; a cancel made the stored rate stale from then, current_rate applies since (null: not stale)").nullable(),
    rate_stale_since_iso: z.string().nullable(),
    prices: z.object({ perp_price: dec("18 decimals"), perp_price_formatted: fmt(), index_price: dec("18 decimals"), index_price_formatted: fmt(), premium: dec("18 decimals"), premium_percent: z.string() }),
    components: z.object({ premium_component: dec("18 decimals"), skew_component: dec("18 decimals"), skew: dec("18 decimals"), skew_percent: z.string() }),
    direction: z.enum(["LONGS_PAY", "SHORTS_PAY", "NEUTRAL"]),
  })
  .openapi("MarketFunding");

export const MarkPriceData = z
  .object({
    market_id: hex("bytes32"), mark_price: dec("18 decimals"), mark_price_formatted: fmt(), index_price: dec("18 decimals"), index_price_formatted: fmt(),
    best_bid: dec("18 decimals; null when the side is empty").nullable(), best_bid_formatted: fmt().nullable(),
    best_ask: dec("18 decimals; null when the side is empty").nullable(), best_ask_formatted: fmt().nullable(),
    premium_sample: dec("signed, 18 decimals: the book's median premium clamped to index ± mark_clamp_bps"), premium_sample_percent: z.string(),
    premium: dec("signed, 18 decimals: the sample's time average; mark = index × (1 + premium)"), premium_percent: z.string(),
    mark_clamp_bps: int(), averaging_period_seconds: int(), timestamp: int("seconds"),
  })
  .openapi("MarkPrice");

const Order = z.object({
  client_key: hex("bytes32"), order_id: dec("venue-wide id"), market_id: hex("bytes32"), side, order_type: orderType,
  price: dec("18 decimals"), price_formatted: fmt(), original_quantity: dec("18 decimals"), original_quantity_formatted: fmt(),
  filled_quantity: dec("18 decimals"), filled_quantity_formatted: fmt(), remaining_quantity: dec("18 decimals"), remaining_quantity_formatted: fmt(),
  margin_allocated: wad(), is_active: z.boolean(), fill_percent: int(),
});
export const OrderListData = z
  .object({
    orders: z.array(Order),
    total_count: int(),
    has_more: z.boolean().openapi({ description: "more orders follow: pass next_cursor as cursor" }),
    next_cursor: z.string().nullable().openapi({ description: "opaque cursor of the next page; null on the last page" }),
  })
  .openapi("OrderList");

const Health = z.object({
  mark_price: dec("18 decimals"), mark_price_formatted: fmt(), position_value: wad(), position_value_formatted: fmt(),
  unrealized_pnl: wad("WAD, signed"), unrealized_pnl_formatted: fmt(), margin_ratio_bps: int(), margin_ratio_percent: z.string(),
  liquidation_price: dec("18 decimals"), liquidation_price_formatted: fmt(), insolvency_price: dec("18 decimals"), insolvency_price_formatted: fmt(),
  is_liquidatable: z.boolean(),
});
export const PositionData = z
  .object({
    is_open: z.boolean(), side: side.nullable(), size: dec("18 decimals"), size_formatted: fmt().optional(), entry_price: dec("18 decimals").optional(),
    entry_price_formatted: fmt().optional(), margin: wad().optional(), margin_formatted: fmt().optional(), leverage: int().optional(),
    open_block: int().optional(), health: Health.nullable(),
  })
  .openapi("Position");

export const PositionFundingData = z
  .object({
    account_id: int(), market_id: hex("bytes32"), pending_funding: wad("WAD, signed"), pending_funding_formatted: fmt(),
    direction: z.enum(["PAY", "RECEIVE", "NONE"]), last_settled: int("seconds"), last_settled_iso: z.string(),
  })
  .openapi("PositionFunding");

/** Fields every mined write carries besides its own. */
const mined = {
  transaction_hash: hex("0x hash"), request_id: z.string().openapi({ description: "relayer request id (GET /v1/transactions/{id})" }),
  transaction_status: z.string().openapi({ description: "CONFIRMED once mined" }), block_number: int().optional(),
  confirmations: int().optional().openapi({ description: "1 at inclusion (the answer never waits for more)" }),
  final: z.boolean().optional().openapi({ description: "confirmations ≥ CONFIRMATIONS (per profile); until then a reorg may send the write again (transaction_status REORGED, then PENDING)" }),
};
export const AccountCreatedData = z.object({ account_id: int(), account_address: hex("address"), owner: hex("wallet"), ...mined }).openapi("AccountCreated");
export const DepositData = z
  .object({ account_id: int(), deposited_amount: dec("6 decimals"), deposited_amount_formatted: fmt(), new_available_margin: wad(), ...mined })
  .openapi("DepositResult");
export const WithdrawData = z
  .object({ account_id: int(), withdrawn_amount: dec("6 decimals"), withdrawn_amount_formatted: fmt(), new_available_margin: wad(), ...mined })
  .openapi("WithdrawResult");
export const OrderPlacedData = z
  .object({
    client_key: hex("bytes32"), order_id: dec("venue-wide id"), market_id: hex("bytes32"), side, size: dec("18 decimals"), size_formatted: fmt(),
    order_type: orderType, status: z.string().openapi({ description: "e.g. PLACED, FILLED, PARTIALLY_FILLED, CANCELLED" }), ...mined,
  })
  .openapi("OrderResult");
export const CancelData = z
  .object({ client_key: hex("bytes32"), order_id: dec("id"), margin_returned: wad(), margin_returned_formatted: fmt(), ...mined })
  .openapi("CancelResult");
export const CloseData = z
  .object({ client_key: hex("bytes32"), order_id: dec("id"), market_id: hex("bytes32"), closing_side: side, size: dec("18 decimals"), order_type: orderType, ...mined })
  .openapi("CloseResult");
export const AcceptedData = z
  .object({ request_id: z.string(), transaction_hash: hex("current hash (changes on gas bumps)").nullable(), transaction_status: z.literal("PENDING") })
  .openapi("Accepted");

/**
 * A write's 202: the fields of its result, those known before mining filled (amounts,
 * client_key, side, market_id, order_type...), the others null until mined.
 */
export function pendingOf<T extends z.ZodRawShape>(result: z.ZodObject<T>, name: string) {
  const nullable = Object.fromEntries(Object.entries(result.shape).map(([k, v]) => [k, (v as z.ZodType).nullable()]));
  return z
    .object({
      ...nullable,
      request_id: z.string().openapi({ description: "GET /v1/transactions/{id}, POST /v1/transactions/{id}/cancel" }),
      transaction_hash: hex("current hash (changes on gas bumps); null until signed").nullable(),
      transaction_status: z.literal("PENDING"),
      block_number: z.null(),
      valid_until: int("unix seconds: not mined by then, the write is replaced by a no-op and ends EXPIRED").nullable(),
    })
    .openapi(name, { description: "not mined yet: the fields known before mining, the rest null" });
}
