/**
 * The shapes of both HTTP surfaces, taken from the servers' own zod schemas in core/ as types
 * only (`import type`: neither zod nor Hono reaches the bundle). The build flattens them into
 * plain declarations (scripts/flatten-types.ts), so the package's .d.ts names nothing of core/.
 * The gateway's /v1 answers are the same schemas in snake_case; the client turns their keys back
 * (core/case.ts), so one set of types serves both surfaces.
 */
import type { z } from "zod";
import type * as R from "../../../core/schemas/reads.js";
import type * as H from "../../../core/schemas/history.js";
import type * as W from "../../../core/schemas/writes.js";
import type * as WR from "../../../core/schemas/write-responses.js";
import type * as I from "../../../core/schemas/insurance.js";
import type * as P from "../../../core/streams/protocol.js";
import type * as A from "../../../core/schemas/auth.js";

// ─── sign-in ───────────────────────────────────────────────────────────────────────────────
export type SiweNonce = z.output<typeof A.SiweNonce>;
export type SessionToken = z.output<typeof A.SessionToken>;

// ─── reads ─────────────────────────────────────────────────────────────────────────────────
export type Account = z.output<typeof R.Account>;
export type AccountByAddress = z.output<typeof R.AccountByAddress>;
export type AccountOperators = z.output<typeof R.AccountOperators>;
export type Operator = z.output<typeof R.Operator>;
export type PositionHealth = z.output<typeof R.Health>;
export type Position = z.output<typeof R.Position>;
export type Order = z.output<typeof R.Order>;
export type OrderList = z.output<typeof R.OrderList>;
export type Trigger = z.output<typeof R.Trigger>;
export type TriggerList = z.output<typeof R.TriggerList>;
export type MarketSession = z.output<typeof R.MarketSession>;
export type Market = z.output<typeof R.Market>;
export type MarketList = z.output<typeof R.MarketList>;
export type MarketFunding = z.output<typeof R.Funding>;
export type OrderBook = z.output<typeof R.OrderBook>;
export type BookLevel = OrderBook["bids"][number];
export type MarkPrice = z.output<typeof R.MarkPrice>;
export type PositionFunding = z.output<typeof R.PositionFunding>;
export type InsuranceFund = z.output<typeof I.InsuranceFund>;

// ─── history ───────────────────────────────────────────────────────────────────────────────
export type Trade = z.output<typeof H.Trade>;
export type TradeList = z.output<typeof H.TradeList>;
export type Fill = z.output<typeof H.Fill>;
export type FillList = z.output<typeof H.FillList>;
export type Candle = z.output<typeof H.Candle>;
export type CandleList = z.output<typeof H.CandleList>;
export type FundingRate = z.output<typeof H.FundingRate>;
export type FundingRateList = z.output<typeof H.FundingRateList>;
export type FundingPayment = z.output<typeof H.FundingPayment>;
export type FundingPaymentList = z.output<typeof H.FundingPaymentList>;
export type Transfer = z.output<typeof H.Transfer>;
export type TransferList = z.output<typeof H.TransferList>;
export type Liquidation = z.output<typeof H.Liquidation>;
export type LiquidationList = z.output<typeof H.LiquidationList>;
export type HistoricalOrder = z.output<typeof H.HistoricalOrder>;
export type HistoricalOrderList = z.output<typeof H.HistoricalOrderList>;
export type OrderModification = z.output<typeof H.OrderModification>;
export type OrderModificationList = z.output<typeof H.OrderModificationList>;
export type PnlPoint = z.output<typeof H.PnlPoint>;
export type PnlList = z.output<typeof H.PnlList>;
export type InsuranceFundEvent = z.output<typeof I.InsuranceFundEvent>;
export type InsuranceFundEventList = z.output<typeof I.InsuranceFundEventList>;
/** A history list's query as the server takes it (before parsing): times as unix seconds or ISO 8601. */
export type AccountHistoryQuery = z.input<typeof H.AccountHistoryQuery>;
export type MarketHistoryQuery = z.input<typeof H.MarketHistoryQuery>;
export type CandlesQuery = z.input<typeof H.CandlesQuery>;
export type PnlQuery = z.input<typeof H.PnlQuery>;
export type OrdersQuery = z.input<typeof R.OrdersQuery>;

// ─── writes ────────────────────────────────────────────────────────────────────────────────
export type PlaceOrderRequest = z.input<typeof W.PlaceOrderBody>;
export type ModifyOrderRequest = z.input<typeof W.ModifyOrderBody>;
export type SetTriggerRequest = z.input<typeof W.SetTriggerBody>;
export type CancelTriggerRequest = z.input<typeof W.CancelTriggerBody>;
export type ClosePositionRequest = z.input<typeof W.ClosePositionBody>;
export type CreateAccountRequest = z.input<typeof W.CreateAccountBody>;
export type AmountRequest = z.input<typeof W.AmountBody>;
export type PositionMarginRequest = z.input<typeof W.PositionMarginBody>;
export type OperatorApproveRequest = z.input<typeof W.OperatorApproveBody>;
export type Side = z.output<typeof W.Side>;
export type TimeInForce = z.output<typeof W.TimeInForce>;
export type OrderType = z.output<typeof W.OrderType>;
export type MarginAction = z.output<typeof W.MarginAction>;
export type TransactionStatusName = z.output<typeof WR.TransactionStatusResult>["transactionStatus"];

export type CreateAccountResult = z.output<typeof WR.CreateAccountResult>;
export type DepositResult = z.output<typeof WR.DepositResult>;
export type WithdrawResult = z.output<typeof WR.WithdrawResult>;
export type PositionMarginResult = z.output<typeof WR.PositionMarginResult>;
export type PlaceOrderResult = z.output<typeof WR.PlaceOrderResult>;
export type ClosePositionResult = z.output<typeof WR.ClosePositionResult>;
export type CancelOrderResult = z.output<typeof WR.CancelOrderResult>;
export type OperatorApprovalResult = z.output<typeof WR.OperatorApprovalResult>;
export type TransactionStatus = z.output<typeof WR.TransactionStatusResult>;
export type OperatorTypedData = z.output<typeof WR.OperatorTypedData>;
export type DeadmanResult = z.output<typeof WR.DeadmanResult>;
export type CancelAllResult = z.output<typeof WR.CancelAllResult>;
export type BatchOrdersResult = z.output<typeof WR.BatchOrdersResult>;
export type ModifyOrderResult = z.output<typeof WR.ModifyOrderResult>;
export type SetTriggerResult = z.output<typeof WR.SetTriggerResult>;
export type CancelTriggerResult = z.output<typeof WR.CancelTriggerResult>;
export type BatchItemResult = z.output<typeof WR.BatchItemResult>;

// ─── streams ───────────────────────────────────────────────────────────────────────────────
export type SubscribeRequest = z.input<typeof P.SubscribeRequest>;
export type ChannelName = z.output<typeof P.SubscribeRequest>["channel"];

// ─── errors ────────────────────────────────────────────────────────────────────────────────
/** Every error code of both HTTP surfaces (core/errors.ts `ERROR_CODES`). */
export type ErrorCode = import("../../../core/errors.js").ErrorCode;
