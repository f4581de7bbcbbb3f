// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice Every custom error of the venue. `core/errors.ts` maps each selector to an API code
/// and HTTP status (the only such table). Units are in the argument names.
interface IVenueErrors {
    /// ACCOUNT_EXISTS: the wallet already has an account.
    error AccountExists(address owner, uint256 accountId);
    /// ACCOUNT_NOT_FOUND
    error AccountNotFound(uint256 accountId);
    /// INVALID_AMOUNT: zero deposit, withdrawal or collateral where one is required.
    error InvalidAmount();
    /// INSUFFICIENT_BALANCE: the owner holds fewer deposit tokens than the deposit.
    error InsufficientBalance(uint256 balance6, uint256 needed6);
    /// INSUFFICIENT_ALLOWANCE: the owner approved the engine for less than the deposit.
    error InsufficientAllowance(uint256 allowance6, uint256 needed6);
    /// INSUFFICIENT_MARGIN: available margin below what the action needs.
    error InsufficientMargin(uint256 availableWad, uint256 neededWad);
    /// UNAUTHORIZED: a role-gated function called by someone without the role.
    error Unauthorized(address caller);
    /// OPERATOR_NOT_APPROVED: the sender is neither the account's owner nor an unexpired operator.
    error OperatorNotApproved(address owner, address operator);
    /// MARKET_NOT_FOUND
    error MarketNotFound(bytes32 marketId);
    /// MARKET_NOT_ACTIVE: the market is paused.
    error MarketNotActive(bytes32 marketId);
    /// MARKET_CLOSED: the market is closed for its session break (FX weekend): no orders and no
    /// liquidation until it reopens; cancels and withdrawals of free margin still work.
    error MarketClosed(bytes32 marketId);
    /// MARKET_REDUCE_ONLY: the market is in its pre-close window: only orders that reduce a
    /// position (closes) are accepted.
    error MarketReduceOnly(bytes32 marketId);
    /// EXCEEDS_MAX_LEVERAGE: leverage 0 or above the market's maximum.
    error ExceedsMaxLeverage(uint256 leverage, uint256 maxLeverage);
    /// ORDER_NOT_FOUND: no open order with this client key.
    error OrderNotFound(uint256 accountId, bytes32 clientKey);
    /// NO_POSITION
    error NoPosition(uint256 accountId, bytes32 marketId);
    /// INVALID_PRICE: zero, off the tick, or outside the price band around the mark.
    error InvalidPrice(uint256 priceX18);
    /// ORDER_TOO_SMALL: quantity (after rounding down to the lot) below the market minimum.
    error OrderTooSmall(uint256 quantityX18, uint256 minQuantityX18);
    /// PRICE_STALE: the index price is older than the oracle's bound (or was never set).
    error PriceStale(bytes32 marketId, uint256 updatedAt, uint256 maxAgeSeconds);
    /// SELF_TRADE: the order would match a resting order of the same account.
    error SelfTrade(uint256 accountId, uint256 makerOrderId);
    /// INVALID_SIGNATURE: bad signer, reused nonce, or past the deadline.
    error InvalidSignature();
    /// CLIENT_KEY_IN_USE: an open order of this account in this market already has this key.
    error ClientKeyInUse(uint256 accountId, bytes32 clientKey);
    /// Every order storage slot of the market holds a resting order (2^24 - 1 of them).
    error BookFull();
    /// NO_LIQUIDITY: a MARKET order (or a liquidation) finds no opposite side to price against.
    error NoLiquidity(bytes32 marketId);
    /// NOT_LIQUIDATABLE: the position (or every position of the account) is healthy.
    error NotLiquidatable(uint256 accountId, bytes32 marketId);
    /// INSUFFICIENT_MARGIN: the fill would leave the taker's opened or increased position below
    /// initial margin (equity at the mark after fee and funding < position value / max leverage),
    /// or would realize a loss beyond the position's margin (a close beyond its bankruptcy price).
    error BelowInitialMargin(uint256 accountId, bytes32 marketId);
    /// TOO_MANY_ORDERS: the account already has the maximum of resting orders in this market.
    error TooManyOrders(uint256 accountId, uint256 maxOrders);
    /// OPERATOR_PRICE_TOO_FAR: an operator's order priced (or, for a MARKET order, only fillable)
    /// beyond the market's operator band around the mark.
    error OperatorPriceTooFar(uint256 priceX18, uint256 markX18, uint256 operatorBandBps);
    /// OPERATOR_LIMIT_EXCEEDED: an operator's write beyond the policy the account's owner set for
    /// it (Engine.setOperator): leverage above `limit` (what = 1), or the adverse-execution budget
    /// (what = 2: `value` is the budget used with this write, `limit` the budget now, both WAD).
    error OperatorLimitExceeded(address owner, address operator, uint256 what, uint256 value, uint256 limit);
    /// POSITION_CAP_EXCEEDED: the fill would grow the account's position beyond the market's cap.
    error PositionCapExceeded(uint256 accountId, uint256 sizeQty, uint256 maxPositionQty);
    /// OPEN_INTEREST_CAP_EXCEEDED: the order would grow open interest beyond the market's cap.
    error OpenInterestCapExceeded(uint256 openInterestQty, uint256 maxOpenInterestQty);
    /// INVALID_PARAMETERS: a market or admin parameter out of range.
    error InvalidParameters();
    /// VALIDATION_ERROR: a liquidation's list of deleveraging candidates is longer than the
    /// market ranks in one call.
    error TooManyAdlCandidates(uint256 count, uint256 max);
    /// VALIDATION_ERROR: reduceFundPosition before its interval has passed (the keeper's call).
    error FundReductionNotDue(uint256 nextAt);
    /// POST_ONLY_WOULD_CROSS: a post-only order priced at or beyond the best opposite price.
    error PostOnlyWouldCross(uint256 priceX18, uint256 bestOppositeX18);
    /// FILL_OR_KILL_UNFILLED: a fill-or-kill order that could not fill whole at once.
    error FillOrKillUnfilled(uint256 filledQty, uint256 quantityQty);
    /// VALIDATION_ERROR: a combination of time in force, order type and expiry that does not
    /// exist (post-only MARKET, an expiry on IOC, FOK or MARKET, an unknown time in force).
    error InvalidOrderOptions(uint256 timeInForce, uint256 expiresAt);
    /// VALIDATION_ERROR: an expiry not after now.
    error InvalidExpiry(uint256 expiresAt, uint256 nowSeconds);
    /// REDUCE_ONLY_EXCEEDS_POSITION: a fill-or-kill reduce-only order larger than the position.
    error ReduceOnlyExceedsPosition(uint256 quantityQty, uint256 positionQty);
    /// VALIDATION_ERROR: a dead-man deadline sooner than now + the minimum delay (0 turns it off).
    error DeadmanTooSoon(uint256 deadline, uint256 earliest);
    /// VALIDATION_ERROR: a batch longer than the engine takes in one call.
    error BatchTooLarge(uint256 count, uint256 max);
    /// MARKET_POST_ONLY: the market accepts only post-only orders now (its status).
    error MarketPostOnly(bytes32 marketId);
    /// MARKET_CANCEL_ONLY: the market accepts no orders now, only cancels (its status).
    error MarketCancelOnly(bytes32 marketId);
    /// TRIGGER_NOT_FOUND: the account has no such trigger in the market.
    error TriggerNotFound(uint256 accountId, bytes32 marketId, uint256 kind);
    /// TRIGGER_NOT_REACHED: the mark has not reached the trigger's price.
    error TriggerNotReached(uint256 triggerPriceX18, uint256 markPriceX18);
    /// VALIDATION_ERROR: a trigger price of 0, or on the side of the mark where it would fire at once
    /// (a long's take-profit at or below the mark, its stop-loss at or above it; a short's the reverse).
    error InvalidTrigger(uint256 triggerPriceX18, uint256 markPriceX18);
}
