// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IVenueErrors} from "./IVenueErrors.sol";

/// @notice One perpetual market: its on-chain order book, net positions with isolated margin,
/// funding and liquidation. Deployed by MarketFactory (a copy of one implementation's code with the market's args); state-changing entry points
/// are called by the Engine only (which checks who acts for the account).
///
/// Units: prices `...X18` (18 decimals, USD per base unit); quantities `...Qty` base units with
/// 18 decimals; margin, PnL, fees `...Wad` (18 decimals of USD); funding rate `X18PerHour`;
/// cumulative funding index `X18` (WAD owed per 1e18 of long size); ratios in basis points.
/// Every event but OrderCancelled carries `seq`, strictly increasing per emitting contract (no gaps).
interface IMarket is IVenueErrors {
    enum Side { LONG, SHORT }
    enum OrderType { MARKET, LIMIT }
    /// How long an order may rest (docs/CONTRACTS.md "Time in force"). GTC: until filled or
    /// cancelled (a MARKET order: as IOC); IOC: fills what it can at once, the rest is cancelled
    /// (UNFILLED_IOC); FOK: fills whole at once or reverts (FillOrKillUnfilled); POST_ONLY (LIMIT
    /// only): rests whole without filling or reverts (PostOnlyWouldCross). An expiry (GTC or
    /// POST_ONLY) makes a good-til-time order.
    enum TimeInForce { GTC, IOC, FOK, POST_ONLY }
    enum OrderStatus { NONE, ACTIVE, FILLED, CANCELLED }
    /// Why an order closed with something unfilled.
    /// DUST: a remainder below the minimum order; MARGIN: a maker whose fill would leave its
    /// position below initial margin, or realize a loss beyond its margin (cancelled instead of filled).
    /// REDUCE_ONLY_SESSION: a resting maker whose fill would open or increase its position while
    /// the market is not OPEN (the pre-close window; cancelled instead of filled).
    /// OPERATOR_BAND: an operator-placed resting order met at a price beyond its operator band
    /// from the mark at fill time, on the side that costs the owner (cancelled instead of filled).
    /// UNFILLED_IOC: what an IOC LIMIT order did not fill at once. EXPIRED: a good-til-time order
    /// met by a taker, or removed by anyone (`removeExpired`), at or after its expiry (its bond to
    /// whoever removed it). DEADMAN: cancelled by anyone once its account's dead-man deadline passed.
    enum CloseReason {
        FILLED, USER_CANCEL, UNFILLED_MARKET, REDUCE_ONLY_EXPIRED, FILL_CAP, LIQUIDATION, DUST, MARGIN, REDUCE_ONLY_SESSION,
        OPERATOR_BAND, UNFILLED_IOC, EXPIRED, DEADMAN
    }
    /// Why a position changed. DELEVERAGE: a counterparty closed by auto-deleveraging at a
    /// liquidated position's bankruptcy price. The insurance fund's own position (account 0,
    /// docs/CONTRACTS.md "Backstop") changes with LIQUIDATION when it takes a position over.
    enum PositionReason { TRADE, LIQUIDATION, DELEVERAGE, MARGIN }

    /// The market's trading session (docs/CONTRACTS.md "Weekends and gaps"), derived from
    /// `block.timestamp` and the market's calendar (no key switches it). OPEN: normal. REDUCE_ONLY (the window before a close): only
    /// reduce-only orders (closes) are accepted, and initial and maintenance margin are multiplied
    /// by the close uplift, so positions that would not survive a typical gap are liquidated
    /// before the close. CLOSED: no orders and no liquidation (the index is the last price before
    /// the close), funding does not accrue, the uplift stays; cancels and withdrawals of free
    /// margin work; it lasts at most MAX_CLOSED (96 h). Back to OPEN at reopening: margin back
    /// to normal, liquidations resume.
    enum Session { OPEN, REDUCE_ONLY, CLOSED }

    /// What the market accepts now (docs/CONTRACTS.md "Market status"; `status()`). The first four
    /// are the guardian's mode (`setStatus`): ACTIVE everything; POST_ONLY only post-only orders
    /// (MarketPostOnly); CANCEL_ONLY no order at all (MarketCancelOnly); REDUCE_ONLY only
    /// reduce-only orders (MarketReduceOnly, as in the window before a close, which shows as
    /// REDUCE_ONLY too). CLOSED: the calendar's close (MarketClosed; no liquidation). PAUSED: the
    /// guardian's pause (`setActive(false)`: MarketNotActive; reduce-only orders still pass).
    /// Cancels work in every status; liquidations in every status but CLOSED.
    enum MarketStatus { ACTIVE, POST_ONLY, CANCEL_ONLY, REDUCE_ONLY, CLOSED, PAUSED }

    /// A weekly close (libraries/MarketCalendar.sol): CLOSED from `closeAtMin` (minutes since
    /// Monday 00:00 UTC) for `closedMin` minutes (≤ MAX_CLOSED, 96 h), REDUCE_ONLY in the
    /// `windowMin` minutes before (15 min to 12 h); closedMin = 0: no close, always OPEN.
    struct Calendar {
        uint16 closeAtMin;
        uint16 windowMin;
        uint16 closedMin;
    }

    struct MarketParams {
        bytes32 marketId;           // keccak256(bytes(symbol))
        string symbol;              // "EUR/USD"
        address baseFxToken;
        address quoteFxToken;
        uint256 tickSizeX18;        // limit prices must be multiples
        uint256 lotSizeQty;         // quantities are rounded down to multiples
        uint256 minOrderQty;        // smallest order after rounding
        uint16 maxLeverage;         // 1..maxLeverage
        uint16 maintenanceMarginBps;
        uint16 liquidationFeeBps;   // of the closed notional; half to the liquidator, half to insurance
        uint16 makerFeeBps;
        uint16 takerFeeBps;
        uint16 priceBandBps;        // takers never fill beyond mark ± band; limit prices must be inside
        uint16 markClampBps;        // mark is clamped to index ± this
        uint16 maxFillsPerTx;       // maker fills per taker order (guards gas)
        uint256 maxFundingRateX18PerHour; // |rate| clamp
        uint256 skewScaleX18PerHour;      // skew component at full skew (skew = ±1)
        uint16 operatorBandBps;     // orders an operator places: limit price and fills within mark ± this
        uint256 maxOpenInterestQty; // open interest per side (long OI = short OI) never exceeds this
        uint256 maxPositionQty;     // |position| of one account never grows beyond this
    }

    struct OrderView {
        uint256 orderId;
        uint256 accountId;
        Side side;
        OrderType orderType;
        OrderStatus status;
        bool reduceOnly;
        uint256 priceX18;           // limit price; for MARKET the sizing price
        uint256 originalQty;
        uint256 filledQty;
        uint256 remainingQty;       // 0 once closed
        uint256 marginRemainingWad; // still committed to the unfilled part (OrderPlaced carries the margin at placement, its client key too)
        uint256 expiresAt;          // seconds; 0 = none (an order at or past it never fills: docs/CONTRACTS.md "Time in force")
    }

    struct PositionView {
        int256 sizeQty;             // > 0 long, < 0 short
        uint256 openNotionalWad;    // cost basis of the open size
        uint256 entryPriceX18;      // openNotional * 1e18 / |size|, rounded down
        uint256 marginWad;          // isolated margin
        int256 lastFundingIndexX18; // index at the last settlement
        uint256 lastSettledAt;      // seconds
        uint256 openBlock;          // block the current position opened (0 if none)
    }

    struct HealthView {
        uint256 markPriceX18;
        uint256 positionValueWad;   // |size| * mark
        int256 unrealizedPnlWad;    // at mark
        int256 pendingFundingWad;   // > 0 owed by the position
        int256 equityWad;           // margin + uPnL - pendingFunding
        uint256 maintenanceWad;     // positionValue * mmBps / 1e4
        uint256 marginRatioBps;     // equity / positionValue * 1e4 (0 if equity <= 0)
        uint256 liquidationPriceX18;
        uint256 insolvencyPriceX18;
        bool isLiquidatable;
    }

    struct FundingView {
        int256 rateX18PerHour;        // stored rate, applies since lastUpdate (up to rateStaleSince when set)
        int256 premiumComponentX18;
        int256 skewComponentX18;
        int256 skewX18;               // (L - S) / (L + S), L/S = open interest + resting size per side
        int256 premiumX18;            // (mark - index) / index at the last update
        int256 cumulativeIndexX18;    // as stored at lastUpdate
        int256 cumulativeIndexNowX18; // accrued to block.timestamp with the current index (as the next accrual would)
        uint256 lastUpdate;           // seconds
        int256 rateNowX18PerHour;     // the rate in force now: the stored one, or from rateStaleSince the rate of the stored premium and the margined book now
        uint256 rateStaleSince;       // seconds; 0 = the stored rate is current (else a cancel made it stale, docs/CONTRACTS.md "Funding")
        int256 premiumSampleX18;      // the sample now: of the last update's bid and ask against the index now; premiumX18 moves towards it (docs/CONTRACTS.md "Prices")
        uint256 sampleBidX18;         // the bid and ask the last update sampled (0 = none; both 0: a book around the index, premium 0)
        uint256 sampleAskX18;
    }

    // ─── events (post-state values) ────────────────────────────────────────────────────────

    /// A new order entered the book engine (before any fill). `expiresAt`: 0 = none.
    event OrderPlaced(
        uint64 seq, uint256 indexed orderId, uint256 indexed accountId, bytes32 indexed clientKey,
        Side side, OrderType orderType, bool reduceOnly, uint256 priceX18, uint256 quantityQty,
        uint256 marginWad, TimeInForce timeInForce, uint256 expiresAt
    );
    /// One per maker fill. Taker and maker post-fill filled/remaining quantities included.
    /// Each side's fee for this fill: ceil(notional × feeBps / 1e4) of the fill's notional
    /// (floor(q × price / 1e18)). The taker is settled once per order: its PositionUpdated.feeWad
    /// is exactly Σ takerFeeWad of the order's fills (0 for liquidation fills, whose fee is the
    /// liquidation fee).
    event OrderFilled(
        uint64 seq, uint256 indexed makerOrderId, uint256 indexed takerOrderId,
        uint256 makerAccountId, uint256 takerAccountId, Side takerSide, uint256 priceX18,
        uint256 quantityQty, uint256 makerFilledQty, uint256 makerRemainingQty,
        uint256 takerFilledQty, uint256 takerRemainingQty, uint256 makerFeeWad, uint256 takerFeeWad
    );
    /// The order left the book: FILLED (nothing remains) or CANCELLED (remaining part dropped).
    event OrderClosed(
        uint64 seq, uint256 indexed orderId, uint256 indexed accountId,
        OrderStatus status, CloseReason reason, uint256 filledQty, uint256 cancelledQty,
        uint256 marginReturnedWad
    );
    /// A single cancel (Engine.cancelOrder, cancelOrderById), instead of an OrderClosed, a
    /// LevelUpdated and a FundingRateStale: the order CANCELLED (USER_CANCEL), `filledQty` of its
    /// `originalQty` filled (the rest cancelled) and `marginReturnedWad` back (its bond apart,
    /// 0.5); its level's post-state (`levelTotalQty`, `levelOrderCount`: 0 when it emptied; the level is the order's side and
    /// price, as its OrderPlaced or last OrderModified told them); the skew's sides after it
    /// (`longQty`, `shortQty`, as FundingRateStale's) and, when the skew counted the order, the
    /// second from which the stored rate is stale (`staleSince`; 0: the stale state is as the last
    /// event left it). No `seq`: a single cancel writes no market-wide word but the skew's; its
    /// place among the market's events is its log's (block, log index).
    event OrderCancelled(
        uint256 indexed orderId, uint256 indexed accountId, uint256 originalQty, uint256 filledQty, uint256 marginReturnedWad,
        uint256 levelTotalQty, uint256 levelOrderCount, uint256 staleSince, uint256 longQty, uint256 shortQty
    );
    /// Resting orders of one account cancelled together (`cancelOrders`: Engine.cancelOrders, a
    /// cancel-all or the dead-man switch), instead of an OrderClosed and a LevelUpdated for each:
    /// each order is CANCELLED (`reason`) with its remaining quantity and margin as its own events
    /// last told them, and its level lost that quantity and the order. `marginReturnedWad`: the
    /// sum of their margins (their bonds apart, 0.5 each).
    event OrdersCancelled(uint64 seq, uint256 indexed accountId, CloseReason reason, uint256 marginReturnedWad, uint256[] orderIds);
    /// An order's new price and size (`modifyOrder`), with both levels' post-state: the level it
    /// left (`fromPriceX18`; the same as `priceX18` when it stayed) and the level it is in.
    event OrderModified(
        uint64 seq, uint256 indexed orderId, uint256 indexed accountId, uint256 priceX18, uint256 originalQty,
        uint256 remainingQty, uint256 marginRemainingWad, uint256 fromPriceX18, uint256 fromTotalQty, uint256 fromOrderCount,
        uint256 levelTotalQty, uint256 levelOrderCount
    );
    /// A price level's new totals (emitted once per touched level per transaction step).
    event LevelUpdated(uint64 seq, Side side, uint256 priceX18, uint256 totalQty, uint256 orderCount);
    /// A position's new state; realized PnL, funding and fee settled by this change.
    event PositionUpdated(
        uint64 seq, uint256 indexed accountId, PositionReason reason, int256 sizeQty,
        uint256 openNotionalWad, uint256 marginWad, int256 realizedPnlWad, int256 fundingPaidWad,
        uint256 feeWad, int256 fundingIndexX18
    );
    /// After a fill or a liquidation (a placement that filled nothing leaves the open interest as it was: no event).
    event OpenInterestUpdated(uint64 seq, uint256 longQty, uint256 shortQty);
    /// A cancel changed the margined book: the stored rate applies up to `staleSince` (the first
    /// such cancel since the last FundingUpdated; a reopening after it moves it to the reopening),
    /// from there the rate of the stored premium and the margined sizes after this cancel,
    /// `longQty` = long OI + resting bids − reduce-only bids, `shortQty` likewise; the next
    /// FundingUpdated writes it (docs/CONTRACTS.md "Funding").
    event FundingRateStale(uint64 seq, uint64 staleSince, uint256 longQty, uint256 shortQty);
    /// Funding accrued to `timestamp` and the rate that applies from now on. `premiumX18`: the
    /// premium average now; `sampleBidX18`, `sampleAskX18`: the bid and ask sampled now (the
    /// book's fillable top when a side lies beyond the index; 0 = none, both 0 for a book around
    /// the index). Until the next FundingUpdated the average moves towards their premium sample
    /// against the index of each moment (docs/CONTRACTS.md "Prices").
    event FundingUpdated(
        uint64 seq, int256 rateX18PerHour, int256 premiumComponentX18, int256 skewComponentX18,
        int256 skewX18, int256 premiumX18, uint256 sampleBidX18, uint256 sampleAskX18, int256 cumulativeIndexX18,
        uint256 indexPriceX18, uint256 markPriceX18, uint256 timestamp
    );
    event Liquidated(
        uint64 seq, uint256 indexed accountId, address indexed liquidator, uint256 closedQty,
        uint256 closedNotionalWad, uint256 liquidatorFeeWad, uint256 insuranceFeeWad,
        uint256 badDebtWad, int256 remainingSizeQty
    );
    event ActiveSet(uint64 seq, bool isActive);
    /// The close uplift changed. Post-state: `session` is the session at this block's time,
    /// `marginUpliftBps` the multiplier of initial and maintenance margin now (1e4 = none: OPEN,
    /// or no uplift set), `closeUpliftBps` the one REDUCE_ONLY and CLOSED apply (set under
    /// PARAMS_ROLE; 1e4 = none). Sessions themselves change with time (no event): see `calendar`.
    /// The guardian's mode (ACTIVE, POST_ONLY, CANCEL_ONLY or REDUCE_ONLY).
    event MarketStatusSet(uint64 seq, MarketStatus status);
    event MarketSessionChanged(uint64 seq, Session session, uint256 marginUpliftBps, uint256 closeUpliftBps);
    /// A calendar was scheduled: `next` is in force from `startsAt` (seconds; the second of
    /// this block on a zero-delay local engine), `current` until then (docs/CONTRACTS.md "Weekends and gaps").
    event MarketCalendarScheduled(uint64 seq, Calendar current, Calendar next, uint256 startsAt);
    /// The insurance fund (account 0 of every market) took over `quantityQty` of a liquidated
    /// position at its bankruptcy price; `fundMarginAddedWad` moved from the fund into its
    /// position's margin. Post-state: the fund's position and the fund's balance.
    event InsuranceTakeover(
        uint64 seq, uint256 indexed accountId, uint256 quantityQty, uint256 priceX18, uint256 notionalWad,
        uint256 fundMarginAddedWad, int256 fundSizeQty, uint256 fundOpenNotionalWad, uint256 fundMarginWad,
        uint256 insuranceFundWad
    );
    /// The insurance fund's own position (account 0) was reduced by `quantityQty` against the book
    /// (`reduceFundPosition`; its fills are the OrderFilled of account 0's order just before).
    /// Post-state: the fund's size, and the first second the next reduction may run
    /// (docs/CONTRACTS.md "Backstop").
    event FundPositionReduced(uint64 seq, uint256 quantityQty, int256 fundSizeQty, uint256 nextAt);
    /// Auto-deleveraging: `counterpartyId` (opposite side, in profit, ranked by profit × leverage)
    /// closed `quantityQty` against liquidated `accountId` at its bankruptcy price, `notionalWad`
    /// = quantity × price / 1e18 (rounded against the counterparty, as settled). One per
    /// counterparty. Post-state of the counterparty's position; its realized PnL at that price.
    /// `rank` 0: the last resort, a position not in profit, after those in profit (docs/CONTRACTS.md "Backstop").
    event Deleveraged(
        uint64 seq, uint256 indexed accountId, uint256 indexed counterpartyId, uint256 quantityQty,
        uint256 priceX18, uint256 notionalWad, int256 counterpartySizeQty, int256 counterpartyRealizedPnlWad, uint256 rank
    );


    // ─── entry points (Engine only) ────────────────────────────────────────────────────────

    /// `operatorBandBps`: 0 when the owner places the order; else an operator of the account
    /// places it under its owner's policy band (Engine.setOperator): the limit price stays within
    /// mark ± min(that band, the market's operatorBandBps), and so does every later fill of the
    /// order (on the side that costs the owner; else the order is cancelled when met, OPERATOR_BAND).
    /// `chargeWad` (operators only): what the order may cost its owner beyond the mark, charged to
    /// the operator's budget: |price − mark| × quantity on the side that costs the owner (price: the
    /// limit, for MARKET the band edge and only the filled quantity) plus the taker fee at that price.
    /// `options` (libraries/OrderOptions.sol): time in force, the reduce-only flag, the expiry and
    /// `operatorBandBps` in one word.
    function placeOrder(
        uint256 accountId, Side side, OrderType orderType, uint256 collateralWad, uint256 leverage,
        uint256 limitPriceX18, bytes32 clientKey, uint256 options
    ) external returns (uint256 orderId, bytes32 key, uint256 quantityQty, OrderStatus status, uint256 chargeWad);

    /// The account's open order here by client key (`ref`), or by order id (`byId`: `ref` is the
    /// id); OrderNotFound(accountId, ref) when it is not one. `releaseWad`: for an operator-placed
    /// order, the taker fee its unfilled quantity was charged (Engine releases it from the
    /// operator's budget when the operator cancels). `refundWad`: the order's margin and bond,
    /// which the Engine moves from committed to available itself (no call back into it, and no
    /// MarginUpdated: OrderCancelled's `marginReturnedWad` and the bond are the release).
    function cancelOrder(uint256 accountId, bytes32 ref, bool byId)
        external returns (uint256 orderId, uint256 marginReturnedWad, uint256 releaseWad, uint256 refundWad);

    /// Engine only: cancels those of `orderIds` that are the account's open orders here (others
    /// are skipped: a cancel-all may race a fill), with `reason` USER_CANCEL or DEADMAN.
    /// `releaseWad`: Σ of the cancelled operator-placed orders' charged fees (as cancelOrder).
    function cancelOrders(uint256 accountId, uint256[] calldata orderIds, CloseReason reason)
        external returns (uint256 cancelled, uint256 marginReturnedWad, uint256 releaseWad);

    /// Engine only: a resting order's new price and remaining quantity, in place (docs/CONTRACTS.md
    /// "Modify"): by `orderId`, or by `clientKey` when `orderId` is 0. Never matches (a price at or
    /// beyond the best opposite: PostOnlyWouldCross); keeps its place in time when only its size
    /// shrinks; its margin follows its notional (the order keeps its leverage). `chargeWad` /
    /// `releaseWad`: an operator's budget charge for the new order and release of the old.
    /// `notionalWad` / `marginWad`: when an operator's modify grows a margined order, its notional
    /// and margin now (for the policy's maxLeverage); else 0.
    function modifyOrder(uint256 accountId, uint256 orderId, bytes32 clientKey, uint256 priceX18, uint256 remainingQty, uint256 operatorBandBps)
        external returns (uint256 chargeWad, uint256 releaseWad, uint256 notionalWad, uint256 marginWad);

    /// Anyone: removes those of `orderIds` that rest at or past their expiry (others are skipped);
    /// their bonds go to the caller's wallet. Works in every session and while paused.
    function removeExpired(uint256[] calldata orderIds) external returns (uint256 removed);

    /// Reduce-only order for the whole position on the opposite side, zero collateral. Engine only,
    /// or the market itself for the insurance fund's account 0 (`reduceFundPosition`).
    function closePosition(uint256 accountId, OrderType orderType, uint256 limitPriceX18, bytes32 clientKey, uint256 operatorBandBps)
        external returns (uint256 orderId, bytes32 key, Side closingSide, uint256 quantityQty, uint256 chargeWad);

    /// `adlCandidates`: the counterparties auto-deleveraging may close (any order; the market
    /// ranks them; at most 64), or empty for accounts 0 .. 256 (docs/CONTRACTS.md "Backstop").
    function liquidate(uint256 accountId, address liquidator, uint256[] calldata adlCandidates) external returns (uint256 closedQty);

    /// Engine only. Isolated margin (docs/CONTRACTS.md "Position margin"; served by the extension):
    /// moves `deltaWad` from the account's available margin into the position's margin (> 0), or
    /// back (< 0: only what exceeds initial margin at the mark, unrealized profit not counted).
    /// Needs a fresh index and a session that is not CLOSED, a removal also an active market.
    /// Settles pending funding first.
    /// `valueWad`: the position's value at the mark (for a removal; 0 for an addition).
    function adjustMargin(uint256 accountId, int256 deltaWad) external returns (uint256 marginWad, uint256 valueWad);

    /// Once, by the factory, on the new market (served by the backstop).
    function initialize(MarketParams calldata p) external;

    function setActive(bool active) external;
    /// Engine only (GUARDIAN_ROLE or PARAMS_ROLE): the mode, ACTIVE to REDUCE_ONLY (else InvalidParameters).
    function setStatus(MarketStatus status) external;
    /// The status now: the mode, the calendar's session and the pause together.
    function status() external view returns (MarketStatus);
    /// Engine only (PARAMS_ROLE, at least the engine's calendar delay ahead): `next` is in force
    /// from `startsAt`, at which second it must be OPEN (a close is never entered, extended or
    /// joined to another by a change; one in progress may be cut short). A calendar scheduled
    /// earlier and not yet in force is replaced. Invalid calendar or start: InvalidParameters.
    function scheduleCalendar(Calendar calldata next, uint256 startsAt) external;
    /// Engine only (PARAMS_ROLE): the margin multiplier of REDUCE_ONLY and CLOSED, bps:
    /// 1e4 ≤ uplift, maintenance × uplift < 100 %, initial margin × uplift ≤ 100 % (else InvalidParameters).
    function setCloseUplift(uint256 upliftBps) external;

    /// Anyone: accrue funding to now (applying a stale rate's split) and recompute the rate.
    function pokeFunding() external;
    /// Engine only, at the end of `Engine.batch`: the rate update its placements deferred (all in
    /// one second, so none of the rates between them applies to any time), once; a no-op when none is due.
    function settleRate() external;
    /// Anyone, at most once per 300 s after a reduction (else FundReductionNotDue(nextAt)): the insurance
    /// fund's position (account 0) is closed against the book as a reduce-only MARKET order, within
    /// the price band, the fund paying the taker fee (`FundPositionReduced`). NoPosition when the
    /// fund holds none; NoLiquidity with an empty opposite side; a call that closes nothing returns
    /// 0 and leaves the interval unused. (The market's own call of `closePosition` for account 0.)
    function reduceFundPosition() external returns (uint256 closedQty);

    // ─── views ──────────────────────────────────────────────────────────────────────────────

    function engine() external view returns (address);
    function oracle() external view returns (address);
    function marketId() external view returns (bytes32);
    function params() external view returns (MarketParams memory);
    function isActive() external view returns (bool);
    /// The session, the margin multiplier applied now and the close uplift (bps, 1e4 = none).
    function session() external view returns (Session current, uint256 marginUpliftBps, uint256 closeUpliftBps);
    /// The calendar in force now, the next one and the second it starts (0: none scheduled).
    function calendar() external view returns (Calendar memory current, Calendar memory next, uint256 nextStartsAt);
    /// Position of this market in the factory (1-based). Order ids are venue-wide unique and grow
    /// with each order: orderId = (marketIndex << 64) | (k << 24) | slot for the market's k-th
    /// order (k = 1..orderCount()), held in storage slot `slot` (reused once the order closes:
    /// docs/CONTRACTS.md "Order ids and slots").
    function marketIndex() external view returns (uint256);
    function orderCount() external view returns (uint256);
    /// Storage slots orders have used so far (1..orderSlots()).
    function orderSlots() external view returns (uint256);
    /// The id of the order `slot` holds (resting, or closed and its slot not yet reused); 0: none yet.
    function orderIdAt(uint256 slot) external view returns (uint256);
    /// An order that rested (ACTIVE, or FILLED / CANCELLED after resting) while its slot still
    /// holds it; a taker that filled or closed at once is not stored, and a closed order's slot is
    /// reused by a later one (status NONE here then: its OrderClosed tells its end).
    function getOrder(uint256 orderId) external view returns (OrderView memory);
    /// Open order id for (account, clientKey), 0 if none.
    function orderIdOf(uint256 accountId, bytes32 clientKey) external view returns (uint256);
    /// Up to `depth` levels from the best price outwards.
    function getLevels(Side side, uint256 depth)
        external view returns (uint256[] memory pricesX18, uint256[] memory totalQty, uint256[] memory orderCounts);
    /// As getLevels, counting only orders that could fill an ordinary taker now at the mark (not a
    /// reduce-only order with no position to reduce, not an opening order outside OPEN, not one
    /// below initial margin at its fill); levels with none left out; reads at most 2,000 orders.
    function getFillableLevels(Side side, uint256 depth)
        external view returns (uint256[] memory pricesX18, uint256[] memory totalQty, uint256[] memory orderCounts);
    function getPosition(uint256 accountId) external view returns (PositionView memory);
    function openInterest() external view returns (uint256 longQty, uint256 shortQty);
    function restingQty() external view returns (uint256 bidQty, uint256 askQty);
    function markPrice() external view returns (uint256 priceX18);
    function funding() external view returns (FundingView memory);
}
