// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IMarket} from "./interfaces/IMarket.sol";
import {MarketBase} from "./MarketBase.sol";

/// @notice Order management off the placing path, run on a market clone's storage by
/// delegatecall from `Market`'s fallback (deployed once, an immutable of the implementation):
/// several cancels at once (the engine's cancel-all and dead-man cancels) and the removal of
/// expired orders. Kept apart so `Market` keeps room under EIP-170 (docs/CONTRACTS.md "Contracts").
contract MarketOrders is MarketBase {
    function cancelOrders(uint256 accountId, uint256[] calldata orderIds, IMarket.CloseReason reason)
        external returns (uint256 cancelled, uint256 marginReturnedWad, uint256 releaseWad)
    {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        bool counted;
        for (uint256 i; i < orderIds.length; ++i) {
            uint256 n = _localOf(orderIds[i]);
            if (!_isOpen(accountId, n)) continue;
            (uint256 m, uint256 r, bool c) = _cancel(n, reason);
            marginReturnedWad += m;
            releaseWad += r;
            counted = counted || c;
            ++cancelled;
        }
        if (counted) _markStale();
    }

    /// Anyone: expired orders out of the book (docs/CONTRACTS.md "Time in force"); their bonds to
    /// the caller. They never counted in the funding skew (a good-til-time order does not), so the
    /// rate is not touched.
    function removeExpired(uint256[] calldata orderIds) external returns (uint256 removed) {
        for (uint256 i; i < orderIds.length; ++i) {
            uint256 n = _localOf(orderIds[i]);
            Order storage o = orders[n];
            if (n == 0 || o.status != IMarket.OrderStatus.ACTIVE || !_expired(o)) continue;
            _unlinkFromLevel(o);
            _closeOrder(n, o, IMarket.OrderStatus.CANCELLED, IMarket.CloseReason.EXPIRED, BOND_FORFEIT);
            ++removed;
        }
        if (removed != 0) _engine().payLiquidator(msg.sender, removed * ORDER_BOND_WAD);
    }
}
