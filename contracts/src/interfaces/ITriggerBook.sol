// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IVenueErrors} from "./IVenueErrors.sol";
import {IMarket} from "./IMarket.sol";

/// @notice Take-profit and stop-loss on positions (docs/CONTRACTS.md "Triggers"): stored here, fired
/// by anyone once the mark has reached them. The order a trigger places is its owner's (a
/// reduce-only close of the whole position, MARKET or LIMIT at the owner's price), never the
/// executor's; it goes through `IEngine.closePositionFor` under the policy of the operator that
/// set the trigger (its band and budget when it fires).
interface ITriggerBook is IVenueErrors {
    /// TAKE_PROFIT fires when the mark moves in the position's favour to the trigger price,
    /// STOP_LOSS when it moves against the position to it.
    enum TriggerKind { TAKE_PROFIT, STOP_LOSS }
    /// Why a trigger ended without firing (TriggerRemoved.reason): its owner or an operator
    /// cancelled it; the position it was set on is gone (closed, turned, or closed and opened
    /// again); the operator that set it is no longer approved; its one-cancels-other twin fired.
    enum TriggerEnd { CANCELLED, POSITION_CHANGED, OPERATOR_REVOKED, TWIN_FIRED }

    struct TriggerView {
        bool set;
        uint256 triggerPriceX18;
        IMarket.OrderType orderType;
        uint256 limitPriceX18;      // LIMIT only (0 for MARKET)
        bool oco;                   // firing removes the position's other trigger when that one is oco too
        IMarket.Side positionSide;  // the side of the position it was set on
        uint256 openBlock;          // that position's openBlock (IMarket.PositionView)
        address operator;           // the operator that set it (its policy applies when it fires); 0: the owner
    }

    /// A trigger set (or replaced) on the account's position in the market; `operator` 0: by the owner.
    event TriggerSet(
        uint64 seq, uint256 indexed accountId, bytes32 indexed marketId, TriggerKind kind, uint256 triggerPriceX18,
        IMarket.OrderType orderType, uint256 limitPriceX18, bool oco, IMarket.Side positionSide, uint256 openBlock, address operator
    );
    /// A trigger ended without firing (`reason`).
    event TriggerRemoved(uint64 seq, uint256 indexed accountId, bytes32 indexed marketId, TriggerKind kind, TriggerEnd reason);
    /// A trigger fired: the mark it saw, the order it placed (the market's OrderPlaced comes
    /// first in the same transaction) and who sent the call.
    event TriggerExecuted(
        uint64 seq, uint256 indexed accountId, bytes32 indexed marketId, TriggerKind kind, uint256 orderId, uint256 markPriceX18,
        address executor
    );

    /// The owner or an operator of the account: sets (or replaces) the take-profit or stop-loss of
    /// its position in the market. The trigger price lies beyond the mark in the direction it
    /// fires (else InvalidTrigger); a LIMIT order's price is not 0, a MARKET order's is 0 (else
    /// InvalidPrice); no position: NoPosition.
    function setTrigger(
        uint256 accountId, bytes32 marketId, TriggerKind kind, uint256 triggerPriceX18, IMarket.OrderType orderType,
        uint256 limitPriceX18, bool oco
    ) external;
    /// The owner or an operator (TriggerRemoved, CANCELLED).
    function cancelTrigger(uint256 accountId, bytes32 marketId, TriggerKind kind) external;
    /// Anyone, once the mark has reached the trigger price: places the trigger's order and removes
    /// the trigger (and its twin when both are oco). A trigger whose position is gone, or whose
    /// operator is no longer approved, is removed instead (TriggerRemoved) and 0 returned.
    /// Reverts, the trigger kept, when the mark has not reached it (TriggerNotReached) or the
    /// order cannot be placed now (the market's error: closed, cancel-only, no liquidity, ...).
    function executeTrigger(uint256 accountId, bytes32 marketId, TriggerKind kind) external returns (uint256 orderId);
    function triggerOf(uint256 accountId, bytes32 marketId, TriggerKind kind) external view returns (TriggerView memory);
    function engine() external view returns (address);
}
