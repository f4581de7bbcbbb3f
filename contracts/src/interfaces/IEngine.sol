// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IVenueErrors} from "./IVenueErrors.sol";
import {IMarket} from "./IMarket.sol";

/// @notice Margin accounts (one per wallet), the deposit token, operators, and the router to
/// every market. Holds all tokens. Internal margin is WAD: wad = amount6 * 1e12.
///
/// Bookkeeping is double-entry: every change of an account's margin made by a market is booked
/// against that market's settlement pool (signed), so that at all times
///   depositToken.balanceOf(engine) * 1e12
///     == Σ account totals + insuranceFundWad + feesWad + Σ market pools.
/// Rounding in markets always leaves the residue in the pool (the venue's side).
interface IEngine is IVenueErrors {
    /// Why an account's margin changed (MarginUpdated.reason).
    enum MarginReason { DEPOSIT, WITHDRAW, ORDER_COMMIT, ORDER_RELEASE, TRADE_SETTLEMENT, LIQUIDATION, POSITION_MARGIN }

    struct AccountView {
        uint256 accountId;
        address owner;
        address accountAddress;
        uint256 totalWad;
        uint256 committedWad;
        uint256 availableWad;
    }

    /// What an owner lets an operator do (docs/CONTRACTS.md "Operators"). maxLeverage: the highest
    /// leverage of an order the operator opens (1 ..); bandBps: how far from the mark its orders may
    /// be priced and filled (1 .. 10000; each market caps it at its own operatorBandBps);
    /// budgetBps: what its orders may cost the account beyond the mark plus fees, in bps of the
    /// account's value, over a rolling 24 h (used budget decays linearly over 24 h; ≤ 10000).
    struct OperatorPolicy {
        uint16 maxLeverage;
        uint16 bandBps;
        uint16 budgetBps;
    }

    struct OperatorView {
        uint64 expiry;
        uint16 maxLeverage;
        uint16 bandBps;
        uint16 budgetBps;
        uint256 usedWad;
        uint256 budgetWad;
    }

    struct PlaceOrderParams {
        uint256 accountId;
        bytes32 marketId;
        IMarket.Side side;
        IMarket.OrderType orderType;
        uint256 collateral6;     // deposit-token units; 0 = reduce-only for the whole position
        uint256 leverage;        // 1..maxLeverage (ignored when collateral6 == 0)
        uint256 limitPriceX18;   // LIMIT only
        bytes32 clientKey;       // 0 = derived: keccak256(abi.encode(accountId, orderId))
        IMarket.TimeInForce timeInForce; // GTC (0) is today's default: a LIMIT rests, a MARKET is IOC
        bool reduceOnly;         // with collateral6 > 0: sized as an opening order would be, commits nothing, only reduces
        uint64 expiresAt;        // 0 = none; GTC or POST_ONLY LIMIT only, after now
    }

    event AccountCreated(uint64 seq, uint256 indexed accountId, address indexed owner, address accountAddress);
    /// Post-state margin of the account after any change but a single cancel's release (its
    /// market's OrderCancelled carries that: cancelOrder). `marketId` is 0 for deposits and
    /// withdrawals. `amount6` is the token amount for deposits and withdrawals, else 0.
    event MarginUpdated(
        uint64 seq, uint256 indexed accountId, bytes32 indexed marketId, MarginReason reason,
        int256 deltaAvailableWad, int256 deltaCommittedWad, uint256 amount6,
        uint256 availableWad, uint256 committedWad
    );
    /// An operator approved (expiry > now) or revoked, with the policy its owner set for it
    /// (setOperator): the highest leverage of the orders it opens, its price band (bps of the mark,
    /// capped per market by the market's operatorBandBps) and its adverse-execution budget (bps
    /// of the account's value per 24 h).
    event OperatorSet(
        uint64 seq, address indexed owner, address indexed operator, uint64 expiry, uint16 maxLeverage, uint16 bandBps,
        uint16 budgetBps, bool bySignature
    );
    /// The operator's budget use after a charge (an order it placed or a close): `usedWad` decays
    /// linearly to 0 over 24 h; `budgetWad` is the budget now (budgetBps of the account's value).
    /// A release (a cancel) emits nothing: the next charge carries the figure.
    event OperatorBudgetUsed(uint64 seq, address indexed owner, address indexed operator, uint256 usedWad, uint256 budgetWad);
    event MarketRegistered(uint64 seq, bytes32 indexed marketId, address indexed market, uint256 marketIndex);
    /// Post-state of the venue's own balances (insurance fund, fees, bad debt ever recorded,
    /// and the market's pool) after any change to them.
    event VenueBalancesUpdated(
        uint64 seq, bytes32 indexed marketId, uint256 insuranceFundWad, uint256 feesWad,
        uint256 badDebtWad, int256 marketPoolWad
    );

    /// The owner's operator-approval nonce moved to `nonce` (setOperator, invalidateNonces):
    /// signatures with a lower nonce can no longer be used.
    event NonceInvalidated(uint64 seq, address indexed owner, uint256 nonce);
    /// A donation to the insurance fund; `insuranceFundWad` is the fund after it.
    event InsuranceDonated(uint64 seq, address indexed donor, uint256 amount6, uint256 insuranceFundWad);
    /// Fees paid out to a treasury; `feesWad` is what remains.
    event FeesWithdrawn(uint64 seq, address indexed to, uint256 amount6, uint256 feesWad);
    /// The account's dead-man deadline (0 = off): from that second anyone may cancel its orders
    /// (`cancelOrders`, reason DEADMAN) until its owner or an operator sets a later one.
    event DeadmanSet(uint64 seq, uint256 indexed accountId, uint64 deadline);
    /// liquidateAccount could not liquidate the account in this market (`reason`: the error selector).
    event LiquidationSkipped(uint64 seq, uint256 indexed accountId, bytes32 indexed marketId, bytes4 reason);

    // ─── accounts and money ──────────────────────────────────────────────────────────────
    function createAccount(address owner) external returns (uint256 accountId, address accountAddress);
    /// Pulls amount6 of the deposit token from the owner (owner or operator may call).
    function deposit(uint256 accountId, uint256 amount6) external;
    /// Pays amount6 of available margin to the owner (owner or operator may call).
    function withdraw(uint256 accountId, uint256 amount6) external;

    // ─── the venue's pots ────────────────────────────────────────────────────────────────
    /// Anyone: pulls amount6 from the sender into the insurance fund (no shares, no withdrawal).
    function donateInsurance(uint256 amount6) external;
    /// Owner: pays accrued fees to `to`.
    function withdrawFees(address to, uint256 amount6) external;

    // ─── operators ───────────────────────────────────────────────────────────────────────
    /// msg.sender approves `operator` until `expiry` (seconds) under `policy`; expiry 0 revokes
    /// (the policy is then ignored). Only the owner sets the policy (here or by signature).
    function setOperator(address operator, uint64 expiry, OperatorPolicy calldata policy) external;
    /// Moves the sender's nonce up to `newNonce` (> current): voids every unused signature below it.
    function invalidateNonces(uint256 newNonce) external;
    /// EIP-712 OperatorApproval(address owner,address operator,uint64 expiry,uint16 maxLeverage,
    /// uint16 bandBps,uint16 budgetBps,uint256 nonce,uint256 deadline) signed by `owner`; anyone may submit.
    function setOperatorWithSig(
        address owner, address operator, uint64 expiry, OperatorPolicy calldata policy, uint256 deadline, bytes calldata signature
    ) external;
    /// The operator's approval, policy and budget now (`usedWad` decayed to now).
    function operatorState(address owner, address operator) external view returns (OperatorView memory);

    // ─── trading (owner or operator of the account) ──────────────────────────────────────
    function placeOrder(PlaceOrderParams calldata p)
        external returns (uint256 orderId, bytes32 clientKey, uint256 quantityQty, IMarket.OrderStatus status);
    /// A single cancel (alone or as an item of `batch`): the order's margin and bond (0.5) from
    /// committed to available, with no MarginUpdated (the market's OrderCancelled carries them).
    function cancelOrder(uint256 accountId, bytes32 marketId, bytes32 clientKey)
        external returns (uint256 orderId, uint256 marginReturnedWad);
    function cancelOrderById(uint256 accountId, bytes32 marketId, uint256 orderId) external returns (uint256 marginReturnedWad);
    /// Cancels those of `orderIds` (at most MAX_BATCH) that are the account's open orders in the
    /// market; the others are skipped (a cancel-all may race a fill). The owner or an operator
    /// (USER_CANCEL), or anyone once the account's dead-man deadline has passed (DEADMAN).
    function cancelOrders(uint256 accountId, bytes32 marketId, uint256[] calldata orderIds)
        external returns (uint256 cancelled, uint256 marginReturnedWad);
    /// The owner or an operator (its policy's band and budget): IMarket.modifyOrder.
    function modifyOrder(uint256 accountId, bytes32 marketId, uint256 orderId, bytes32 clientKey, uint256 priceX18, uint256 remainingQty)
        external;
    /// The owner or an operator: the dead-man deadline, at least MIN_DEADMAN_DELAY from now, or 0 (off).
    function setDeadman(uint256 accountId, uint64 deadline) external;
    function deadmanOf(uint256 accountId) external view returns (uint64);
    /// Runs each of `calls` (at most MAX_BATCH; each the calldata of one of this engine's entry
    /// points) as if sent alone by the caller, in order. `atomic`: the first failure reverts the
    /// whole batch with that item's error; else each item succeeds or fails on its own (`ok[i]`,
    /// `results[i]` its return data or its error's data).
    function batch(bytes[] calldata calls, bool atomic) external returns (bool[] memory ok, bytes[] memory results);
    function closePosition(uint256 accountId, bytes32 marketId, IMarket.OrderType orderType, uint256 limitPriceX18, bytes32 clientKey)
        external returns (uint256 orderId, bytes32 key, IMarket.Side closingSide, uint256 quantityQty);
    /// The trigger book only (ITriggerBook): a trigger's reduce-only close of the whole position,
    /// under the policy of `operator`, the operator that set it (its band and budget now; no
    /// longer approved: OperatorNotApproved), or 0 for the owner.
    function closePositionFor(uint256 accountId, bytes32 marketId, address operator, IMarket.OrderType orderType, uint256 limitPriceX18)
        external returns (uint256 orderId);
    /// Isolated margin: moves delta6 (6 decimals) of available margin into the position's margin
    /// (> 0), or of the position's margin back to available margin (< 0: only what exceeds initial
    /// margin at the mark, IMarket.adjustMargin; an operator only down to its policy's
    /// maxLeverage). Returns the position's margin after the move.
    function movePositionMargin(uint256 accountId, bytes32 marketId, int256 delta6) external returns (uint256 marginWad);

    // ─── permissionless ──────────────────────────────────────────────────────────────────
    function liquidatePosition(uint256 accountId, bytes32 marketId) external returns (uint256 closedQty);
    /// The same with the counterparties auto-deleveraging may close (at most 64, any order: the
    /// market ranks them by profit × leverage); `liquidatePosition` lets it read accounts 0 .. 256.
    function liquidatePositionRanked(uint256 accountId, bytes32 marketId, uint256[] calldata adlCandidates)
        external returns (uint256 closedQty);
    /// Liquidates every liquidatable position of the account; markets that fail are skipped
    /// (LiquidationSkipped). Reverts when none was liquidated (the first failure, else NotLiquidatable).
    function liquidateAccount(uint256 accountId) external returns (uint256 positionsLiquidated);
    function pokeFunding(bytes32 marketId) external;

    // ─── admin ───────────────────────────────────────────────────────────────────────────
    function setMarketActive(bytes32 marketId, bool active) external;
    /// GUARDIAN_ROLE or PARAMS_ROLE: the market's mode (IMarket.setStatus).
    function setMarketStatus(bytes32 marketId, IMarket.MarketStatus status) external;
    /// PARAMS_ROLE: the market's next calendar (IMarket.scheduleCalendar), in force from
    /// `startsAt` ≥ now + calendarDelay (else InvalidParameters; 0: this block's second).
    function scheduleMarketCalendar(bytes32 marketId, IMarket.Calendar calldata next, uint256 startsAt) external;
    /// Seconds between scheduling a calendar and its start: at least MarketCalendar.MIN_DELAY
    /// (12 h, the longest REDUCE_ONLY window); 0 only on the local chain (31337).
    function calendarDelay() external view returns (uint256);
    /// PARAMS_ROLE: the margin multiplier (bps) the market's REDUCE_ONLY and CLOSED sessions apply.
    function setMarketCloseUplift(bytes32 marketId, uint256 upliftBps) external;
    /// PARAMS_ROLE, once: the trigger book (the one caller of closePositionFor).
    function setTriggerBook(address triggerBook) external;
    /// Factory only: registers a new market.
    function registerMarket(bytes32 marketId, address market) external;

    // ─── market hooks (registered markets only) ──────────────────────────────────────────
    /// Applies deltas to an account; the market's pool takes the opposite entry.
    function applyMargin(uint256 accountId, int256 deltaAvailableWad, int256 deltaCommittedWad, MarginReason reason) external;
    /// Moves WAD from the market's pool to fees / the insurance fund (fees, liquidation share).
    function collect(uint256 feeWad, uint256 insuranceWad) external;
    /// Covers a loss from the insurance fund into the pool; what it cannot cover is bad debt.
    function coverBadDebt(uint256 lossWad) external returns (uint256 uncoveredWad);
    /// Pays a liquidator in deposit tokens out of the pool (floor to 6 decimals; residue to insurance).
    function payLiquidator(address to, uint256 wad) external;
    /// The insurance fund's position in the calling market (account 0) settled: the fund's balance
    /// changes by `deltaWad` (< 0: put into the position), its position's margin by the second.
    function settleInsurance(int256 deltaWad, int256 positionMarginDeltaWad) external;

    // ─── views ───────────────────────────────────────────────────────────────────────────
    function depositToken() external view returns (address);
    function factory() external view returns (address);
    function oracle() external view returns (address);
    function accountCount() external view returns (uint256);
    function accountIdOf(address owner) external view returns (uint256);
    function getAccount(uint256 accountId) external view returns (AccountView memory);
    function isAuthorized(uint256 accountId, address caller) external view returns (bool);
    /// The account's owner (0: no such account).
    function ownerOf(uint256 accountId) external view returns (address);
    function triggerBook() external view returns (address);
    function operatorExpiry(address owner, address operator) external view returns (uint64);
    function operatorNonce(address owner) external view returns (uint256);
    function OPERATOR_APPROVAL_TYPEHASH() external view returns (bytes32);
    function marketOf(bytes32 marketId) external view returns (address);
    function marketIds() external view returns (bytes32[] memory);
    function insuranceFundWad() external view returns (uint256);
    function feesWad() external view returns (uint256);
    function badDebtWad() external view returns (uint256);
    function marketPoolWad(bytes32 marketId) external view returns (int256);
}
