// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IMarket} from "./interfaces/IMarket.sol";
import {IEngine} from "./interfaces/IEngine.sol";
import {MarketBase} from "./MarketBase.sol";
import {MarketArgs} from "./libraries/MarketArgs.sol";
import {TickBitmap} from "./libraries/TickBitmap.sol";

/// @notice Order management off the placing path, run on a market's storage by
/// delegatecall from `Market`'s fallback (deployed once, an immutable of the implementation):
/// several cancels at once (the engine's cancel-all and dead-man cancels), the removal of
/// expired orders and modifying a resting order. Kept apart so `Market` keeps room under EIP-170 (docs/CONTRACTS.md "Contracts").
contract MarketOrders is MarketBase {
    using TickBitmap for TickBitmap.Bitmap;

    function cancelOrders(uint256 accountId, uint256[] calldata orderIds, IMarket.CloseReason reason)
        external returns (uint256 cancelled, uint256 marginReturnedWad, uint256 releaseWad)
    {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        bool counted;
        uint256[] memory ids = new uint256[](orderIds.length);
        for (uint256 i; i < orderIds.length; ++i) {
            uint256 n = _localOf(orderIds[i]);
            uint256 a = _openWord(accountId, n);
            if (a == 0) continue;
            (uint256 m, uint256 r, bool c,,) = _cancel(n, a, reason, BOND_REFUND | MARGIN_DEFERRED | QUIET);
            marginReturnedWad += m;
            releaseWad += r;
            counted = counted || c;
            ids[cancelled++] = orderIds[i];
        }
        if (cancelled != 0) {
            assembly ("memory-safe") {
                mstore(ids, cancelled)
            }
            emit IMarket.OrdersCancelled(++seq, accountId, reason, marginReturnedWad, ids);
        }
        if (counted) _markStale();
        // the margin and bonds of every order cancelled: back in one engine call
        if (cancelled != 0) {
            int256 back = int256(marginReturnedWad + cancelled * ORDER_BOND_WAD);
            _margin(accountId, back, -back, IEngine.MarginReason.ORDER_RELEASE);
        }
    }

    /// Anyone: expired orders out of the book (docs/CONTRACTS.md "Time in force"); their bonds to
    /// the caller. They never counted in the funding skew (a good-til-time order does not), so the
    /// rate is not touched.
    function removeExpired(uint256[] calldata orderIds) external returns (uint256 removed) {
        for (uint256 i; i < orderIds.length; ++i) {
            uint256 n = _localOf(orderIds[i]);
            Order storage o = orders[n & SLOT_MASK];
            if (!_isLive(n, o) || !_expired(o)) continue;
            _cancel(n, _word(o), IMarket.CloseReason.EXPIRED, BOND_FORFEIT);
            ++removed;
        }
        if (removed != 0) _engine().payLiquidator(msg.sender, removed * ORDER_BOND_WAD);
    }

    function modifyOrder(uint256 accountId, uint256 orderId, bytes32 clientKey, uint256 price, uint256 remaining, uint256 bandBps)
        external returns (uint256 charge, uint256 release, uint256 notional, uint256 margin)
    {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        uint256 n = orderId != 0 ? _localOf(orderId) : _keyed(accountId, clientKey);
        Order storage o = orders[n & SLOT_MASK];
        if (_openWord(accountId, n) == 0 || _expired(o)) revert OrderNotFound(accountId, orderId != 0 ? bytes32(orderId) : clientKey);
        uint256 index = _admitModify(o.reduceOnly);
        uint256 mark = _mark(index);
        bool isBid = o.side == IMarket.Side.LONG;
        uint256 left = o.originalQty - o.filledQty;
        uint256 oldPrice = uint256(o.tick) * MarketArgs.get(MarketArgs.TICK_SIZE);
        _checkModify(o, accountId, isBid, price, remaining, left, mark);
        // an operator's band (its owner's policy, at most the market's), charged like a new order;
        // the old order's charged fee is released (as a cancel)
        if (o.operatorBandBps != 0) release = _operatorCharge(false, 0, oldPrice, left, false);
        if (bandBps != 0) {
            bandBps = _operatorBand(bandBps, price, mark);
            charge = _operatorCharge(isBid, mark, price, remaining, true);
        }
        o.operatorBandBps = uint16(bandBps);
        _remargin(o, accountId, left * oldPrice, remaining * price);
        // an operator that grows a margined order opens exposure: the engine holds it to the policy's maxLeverage
        if (bandBps != 0 && remaining > left) (notional, margin) = (remaining * price / WAD, uint256(o.margin6) * MICRO);
        _move(n, o, isBid, price, remaining, left);
        _afterTrade(index, false);
    }

    /// A modify needs what a post-only placement needs (`_checkStatus`) and a fresh index.
    function _admitModify(bool reduceOnly) internal returns (uint256 index) {
        // a modify never takes: it passes where post-only orders pass
        _checkStatus(reduceOnly, true);
        index = _accrueFresh();
    }

    /// The new price as a placement's (a tick multiple within the band) that does not cross, and
    /// a size in lots of at least the minimum (a reduce-only order: any), within the position cap.
    function _checkModify(Order storage o, uint256 accountId, bool isBid, uint256 price, uint256 remaining, uint256 left, uint256 mark)
        internal view
    {
        _checkLimitPrice(price, mark);
        _checkPostOnly(isBid, price);
        uint256 minQty = o.reduceOnly ? 1 : MarketArgs.get(MarketArgs.MIN_ORDER);
        if (remaining < minQty || remaining % MarketArgs.get(MarketArgs.LOT_SIZE) != 0 || o.filledQty + remaining > type(uint96).max) {
            revert OrderTooSmall(remaining, minQty);
        }
        if (!o.reduceOnly && remaining > left) _checkPositionCap(accountId, positions[accountId].size, isBid, remaining);
    }

    /// The order's margin follows its notional (old: `from`, new: `to`; rounded up: the order
    /// keeps at least its leverage); the difference committed or released.
    function _remargin(Order storage o, uint256 accountId, uint256 from, uint256 to) internal {
        uint256 m6 = o.margin6;
        if (m6 == 0) return;
        uint256 next = (m6 * to + from - 1) / from;
        if (next == m6) return;
        o.margin6 = uint64(next);
        int256 d = (int256(next) - int256(m6)) * int256(MICRO);
        _margin(accountId, -d, d, d > 0 ? IEngine.MarginReason.ORDER_COMMIT : IEngine.MarginReason.ORDER_RELEASE);
    }

    /// The order at its new price and size: in place when only its size shrank (its time kept),
    /// else at the tail of its new level; the skew's flag and the resting totals follow; one OrderModified.
    function _move(uint256 n, Order storage o, bool isBid, uint256 price, uint256 remaining, uint256 left) internal {
        uint256 ts = MarketArgs.get(MarketArgs.TICK_SIZE);
        uint256 fromTick = o.tick;
        uint256 tick = price / ts;
        Level storage from = isBid ? bidLevels[fromTick] : askLevels[fromTick];
        _resting(isBid, _uncounted(o), left, false);
        Level storage level = from;
        if (tick == fromTick && remaining <= left) {
            from.totalQty = uint96(from.totalQty - left + remaining);
        } else {
            _removeAt(from, n & SLOT_MASK, _word(o), left);
            if (from.orderCount == 0 && tick != fromTick) _bookClear(isBid, fromTick);
            level = _link(n & SLOT_MASK, o, tick, remaining);
        }
        o.tick = uint24(tick);
        o.originalQty = uint96(o.filledQty + remaining);
        o.uncounted = _uncountedOf(o.reduceOnly || o.expiresAt != 0, remaining, price, uint256(o.margin6) * MICRO);
        _resting(isBid, _uncounted(o), remaining, true);
        emit IMarket.OrderModified(
            ++seq, _orderId(n), o.accountId, price, o.originalQty, remaining, uint256(o.margin6) * MICRO, fromTick * ts, from.totalQty,
            from.orderCount, level.totalQty, level.orderCount
        );
        if (from.orderCount == 0 && tick != fromTick) {
            if (isBid) delete bidLevels[fromTick];
            else delete askLevels[fromTick];
        }
    }

    // ─── views (here for the backstop's size: EIP-170) ──────────────────────────────────

    /// Orders `getFillableLevels` reads at most (a view; bounds its cost for a node's eth_call).
    uint256 internal constant MAX_DEPTH_ORDERS = 2_000;

    /// Up to `depth` levels from the best price outwards counting only orders that could fill an
    /// ordinary taker now at the mark (`_fillable`); a level with none is left out. Reads at most
    /// MAX_DEPTH_ORDERS orders (what lies beyond is not listed). `getLevels` is the book as stored.
    function getFillableLevels(IMarket.Side side, uint256 depth)
        external view returns (uint256[] memory pricesX18, uint256[] memory totalQty, uint256[] memory orderCounts)
    {
        bool isBid = side == IMarket.Side.LONG;
        TickBitmap.Bitmap storage book = isBid ? bids : asks;
        pricesX18 = new uint256[](depth);
        totalQty = new uint256[](depth);
        orderCounts = new uint256[](depth);
        (uint256 index,) = _oracle().getPrice(_marketId());
        uint256 mark = _markNow(index);
        // from the best tick the market keeps (`_bookSet`): what its sweep starts from
        uint256 tick = isBid ? _bestBidTick : _bestAskTick;
        if (tick == 0) tick = TickBitmap.NONE;
        uint256 k;
        uint256 read;
        while (k < depth && tick != TickBitmap.NONE && read < MAX_DEPTH_ORDERS) {
            Level storage level = isBid ? bidLevels[tick] : askLevels[tick];
            uint256 last = level.tail;
            for (uint256 n = level.head; n != 0 && read < MAX_DEPTH_ORDERS; n = n == last ? 0 : orders[n].next) {
                ++read;
                if (!_fillable(n, mark)) continue;
                Order storage o = orders[n];
                totalQty[k] += o.originalQty - o.filledQty;
                ++orderCounts[k];
            }
            if (orderCounts[k] != 0) pricesX18[k++] = tick * MarketArgs.get(MarketArgs.TICK_SIZE);
            tick = isBid ? book.nextBelow(tick) : book.nextAbove(tick);
        }
        assembly ("memory-safe") {
            mstore(pricesX18, k)
            mstore(totalQty, k)
            mstore(orderCounts, k)
        }
    }
}
