// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IEngine} from "./interfaces/IEngine.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {ITriggerBook} from "./interfaces/ITriggerBook.sol";

/// @notice Positions' take-profit and stop-loss. See ITriggerBook and docs/CONTRACTS.md "Triggers".
/// Holds no money: a trigger's order is placed by the engine (`closePositionFor`, which only this
/// contract may call) as the owner's reduce-only close.
contract TriggerBook is ITriggerBook {
    /// Two words (TriggerView says what each field means).
    struct Trigger {
        uint128 triggerPriceX18;
        uint128 limitPriceX18;
        address operator;
        uint32 openBlock;
        IMarket.Side side;
        IMarket.OrderType orderType;
        bool oco;
        bool set;
    }

    address public immutable engine;
    uint64 internal seq;
    mapping(uint256 => mapping(bytes32 => Trigger[2])) internal _triggers;

    constructor(address engine_) {
        engine = engine_;
    }

    function setTrigger(
        uint256 accountId, bytes32 marketId, TriggerKind kind, uint256 triggerPriceX18, IMarket.OrderType orderType,
        uint256 limitPriceX18, bool oco
    ) external {
        address operator = _authorize(accountId);
        IMarket m = _market(marketId);
        IMarket.PositionView memory p = m.getPosition(accountId);
        if (p.sizeQty == 0) revert NoPosition(accountId, marketId);
        bool long = p.sizeQty > 0;
        uint256 mark = m.markPrice();
        // it must not fire at once: beyond the mark in the direction it fires
        if (
            (_firesUp(kind, long) ? triggerPriceX18 <= mark : triggerPriceX18 >= mark) || triggerPriceX18 == 0
                || triggerPriceX18 > type(uint128).max
        ) {
            revert InvalidTrigger(triggerPriceX18, mark);
        }
        if ((orderType == IMarket.OrderType.LIMIT) != (limitPriceX18 != 0) || limitPriceX18 > type(uint128).max) {
            revert InvalidPrice(limitPriceX18);
        }
        IMarket.Side side = long ? IMarket.Side.LONG : IMarket.Side.SHORT;
        _triggers[accountId][marketId][uint256(kind)] = Trigger({
            triggerPriceX18: uint128(triggerPriceX18),
            limitPriceX18: uint128(limitPriceX18),
            operator: operator,
            openBlock: uint32(p.openBlock),
            side: side,
            orderType: orderType,
            oco: oco,
            set: true
        });
        emit TriggerSet(++seq, accountId, marketId, kind, triggerPriceX18, orderType, limitPriceX18, oco, side, p.openBlock, operator);
    }

    function cancelTrigger(uint256 accountId, bytes32 marketId, TriggerKind kind) external {
        _authorize(accountId);
        if (!_triggers[accountId][marketId][uint256(kind)].set) revert TriggerNotFound(accountId, marketId, uint256(kind));
        _remove(accountId, marketId, kind, TriggerEnd.CANCELLED);
    }

    function executeTrigger(uint256 accountId, bytes32 marketId, TriggerKind kind) external returns (uint256 orderId) {
        Trigger memory t = _triggers[accountId][marketId][uint256(kind)];
        if (!t.set) revert TriggerNotFound(accountId, marketId, uint256(kind));
        IMarket m = _market(marketId);
        bool long = t.side == IMarket.Side.LONG;
        // the position it was set on: still open, same side, opened at the same block
        IMarket.PositionView memory p = m.getPosition(accountId);
        if (p.sizeQty == 0 || (p.sizeQty > 0) != long || p.openBlock != t.openBlock) {
            _remove(accountId, marketId, kind, TriggerEnd.POSITION_CHANGED);
            return 0;
        }
        if (t.operator != address(0)) {
            address owner = IEngine(engine).ownerOf(accountId);
            if (IEngine(engine).operatorExpiry(owner, t.operator) <= block.timestamp) {
                _remove(accountId, marketId, kind, TriggerEnd.OPERATOR_REVOKED);
                return 0;
            }
        }
        uint256 mark = m.markPrice();
        if (_firesUp(kind, long) ? mark < t.triggerPriceX18 : mark > t.triggerPriceX18) revert TriggerNotReached(t.triggerPriceX18, mark);
        delete _triggers[accountId][marketId][uint256(kind)]; // TriggerExecuted below says why
        if (t.oco) {
            TriggerKind twin = kind == TriggerKind.TAKE_PROFIT ? TriggerKind.STOP_LOSS : TriggerKind.TAKE_PROFIT;
            Trigger storage other = _triggers[accountId][marketId][uint256(twin)];
            if (other.set && other.oco) _remove(accountId, marketId, twin, TriggerEnd.TWIN_FIRED);
        }
        orderId = IEngine(engine).closePositionFor(accountId, marketId, t.operator, t.orderType, t.limitPriceX18);
        emit TriggerExecuted(++seq, accountId, marketId, kind, orderId, mark, msg.sender);
    }

    function triggerOf(uint256 accountId, bytes32 marketId, TriggerKind kind) external view returns (TriggerView memory v) {
        Trigger storage t = _triggers[accountId][marketId][uint256(kind)];
        (v.set, v.triggerPriceX18, v.orderType, v.limitPriceX18, v.oco) = (t.set, t.triggerPriceX18, t.orderType, t.limitPriceX18, t.oco);
        (v.positionSide, v.openBlock, v.operator) = (t.side, t.openBlock, t.operator);
    }

    /// The caller's role for the account: 0 for its owner, else the caller as an approved operator.
    function _authorize(uint256 accountId) internal view returns (address operator) {
        address owner = IEngine(engine).ownerOf(accountId);
        if (owner == address(0)) revert AccountNotFound(accountId);
        if (msg.sender == owner) return address(0);
        if (IEngine(engine).operatorExpiry(owner, msg.sender) <= block.timestamp) revert OperatorNotApproved(owner, msg.sender);
        return msg.sender;
    }

    function _market(bytes32 marketId) internal view returns (IMarket m) {
        m = IMarket(IEngine(engine).marketOf(marketId));
        if (address(m) == address(0)) revert MarketNotFound(marketId);
    }

    function _remove(uint256 accountId, bytes32 marketId, TriggerKind kind, TriggerEnd reason) internal {
        delete _triggers[accountId][marketId][uint256(kind)];
        emit TriggerRemoved(++seq, accountId, marketId, kind, reason);
    }

    /// Whether the trigger fires when the mark rises to its price (a long's take-profit, a short's stop-loss).
    function _firesUp(TriggerKind kind, bool long) internal pure returns (bool) {
        return (kind == TriggerKind.TAKE_PROFIT) == long;
    }
}
