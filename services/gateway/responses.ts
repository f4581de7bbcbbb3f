/**
 * Response `data` schemas for the OpenAPI document: the integration API's fields in snake_case
 * (core/case.ts); the reads derived from its own schemas (core/schemas/snake-case.ts).
 * Documentation only: answers are proxied, not re-validated.
 */
import { z } from "@hono/zod-openapi";
import * as R from "../../core/schemas/reads.js";
import * as W from "../../core/schemas/write-responses.js";
import { snakeSchema } from "../../core/schemas/snake-case.js";
import { TIME_IN_FORCE_NAME } from "../../core/order-options.js";

const dec = (d: string) => z.string().openapi({ description: d });
const wad = (d = "WAD (18 decimals)") => dec(d);
const fmt = () => z.string().openapi({ description: "exact decimal" });
const int = (d?: string) => z.number().int().openapi(d ? { description: d } : {});
const hex = (d: string) => z.string().openapi({ description: d });
const side = z.enum(["LONG", "SHORT"]);
const orderType = z.enum(["MARKET", "LIMIT"]);

// the reads: the integration API's schemas (core/schemas/reads.ts) in snake_case, one definition
export const AccountData = snakeSchema(R.Account, "Account");
export const AccountByAddressData = snakeSchema(R.AccountByAddress, "AccountByAddress");
export const AccountOperatorsData = snakeSchema(R.AccountOperators, "AccountOperators");
export const MarketData = snakeSchema(R.Market, "Market");
export const MarketListData = snakeSchema(R.MarketList, "MarketList");
export const OrderBookData = snakeSchema(R.OrderBook, "OrderBook");
export const FundingData = snakeSchema(R.Funding, "MarketFunding");
export const MarkPriceData = snakeSchema(R.MarkPrice, "MarkPrice");
export const OrderListData = snakeSchema(R.OrderList, "OrderList");
export const TriggerListData = snakeSchema(R.TriggerList, "TriggerList");
export const PositionData = snakeSchema(R.Position, "Position");
export const PositionFundingData = snakeSchema(R.PositionFunding, "PositionFunding");

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
export const PositionMarginData = z
  .object({
    account_id: int(), market_id: hex("bytes32"), action: z.enum(["ADD", "REMOVE"]), amount: dec("6 decimals"), amount_formatted: fmt(),
    position_margin: wad("the position's margin after the move, WAD"), position_margin_formatted: fmt(),
    new_available_margin: wad(), new_available_margin_formatted: fmt(), ...mined,
  })
  .openapi("PositionMarginResult");
export const OrderPlacedData = z
  .object({
    client_key: hex("bytes32"), order_id: dec("venue-wide id"), market_id: hex("bytes32"), side, size: dec("18 decimals"), size_formatted: fmt(),
    order_type: orderType, status: z.string().openapi({ description: "e.g. PLACED, FILLED, PARTIALLY_FILLED, CANCELLED" }),
    time_in_force: z.enum(TIME_IN_FORCE_NAME).openapi({ description: "the time in force the market applied (a MARKET order's GTC is IOC)" }),
    reduce_only: z.boolean(), expires_at: int("a good-til-time order's expiry (unix seconds); null: none").nullable(), ...mined,
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

// Market v2 writes: the integration API's results in snake_case (one definition)
export const DeadmanData = snakeSchema(W.DeadmanResult, "DeadmanResult") as z.ZodObject;
export const CancelAllData = snakeSchema(W.CancelAllResult, "CancelAllResult") as z.ZodObject;
export const BatchOrdersData = snakeSchema(W.BatchOrdersResult, "BatchOrdersResult") as z.ZodObject;
export const ModifyOrderData = snakeSchema(W.ModifyOrderResult, "ModifyOrderResult") as z.ZodObject;
export const SetTriggerData = snakeSchema(W.SetTriggerResult, "SetTriggerResult") as z.ZodObject;
export const CancelTriggerData = snakeSchema(W.CancelTriggerResult, "CancelTriggerResult") as z.ZodObject;
