// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {TickBitmap} from "./libraries/TickBitmap.sol";
import {VenueMath} from "./libraries/VenueMath.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {MarketBase} from "./MarketBase.sol";

/// @notice Liquidation and the bulky views of a market. Never called directly:
/// `Market` delegatecalls it, so it runs on the market clone's storage (MarketBase layout).
contract MarketExtension is MarketBase {
    using TickBitmap for TickBitmap.Bitmap;

    /// Closes a liquidatable position through the book as a reduce-only taker (docs/CONTRACTS.md
    /// "Liquidation"). The account's own resting orders met on the way are cancelled and not
    /// counted; expired reduce-only makers and makers below initial margin are cancelled within
    /// the skip budget; the liquidation order never enters the client-key map.
    function liquidate(uint256 accountId, address liquidator) external returns (uint256 closedQty) {
        if (msg.sender != address(_engine)) revert Unauthorized(msg.sender);
        uint256 index = _oracle.getFreshPrice(_marketId);
        _accrue(index);
        Position storage pos = positions[accountId];
        int256 size = pos.size;
        if (size == 0) revert NoPosition(accountId, _marketId);
        uint256 mark = _mark(index);
        VenueMath.Health memory h = VenueMath.health(
            size, pos.openNotional, pos.margin, _pending(pos, fundingState.cumulativeIndex), mark, _params.maintenanceMarginBps
        );
        if (!h.isLiquidatable) revert NotLiquidatable(accountId, _marketId);

        IMarket.Side side = size > 0 ? IMarket.Side.SHORT : IMarket.Side.LONG;
        uint256 absSize = VenueMath.abs(size);
        uint256 n = _newOrder(accountId, side, IMarket.OrderType.MARKET, true, mark, absSize, 0, bytes32(0), false);
        Sweep memory s;
        s.orderN = n;
        s.accountId = accountId;
        s.isBuy = side == IMarket.Side.LONG;
        s.reduceOnly = true;
        s.liquidation = true;
        s.bound = _bandPrice(s.isBuy, mark);
        s.mark = mark;
        _sweep(s, absSize);
        if (s.filledQty == 0) revert NoLiquidity(_marketId);
        uint256 feeWad = Math.mulDiv(s.notional, _params.liquidationFeeBps, BPS, Math.Rounding.Ceil);
        Settlement memory st = _computeSettle(accountId, s.isBuy, s.filledQty, s.notional, 0, feeWad, true);
        _writeSettle(accountId, st, 0, IMarket.PositionReason.LIQUIDATION);
        _finishTaker(n, s, IMarket.OrderType.MARKET);
        uint256 takenFee = st.feeTaken;
        uint256 liquidatorFee = takenFee / 2;
        if (takenFee != 0) {
            _engine.payLiquidator(liquidator, liquidatorFee);
            _engine.collect(0, takenFee - liquidatorFee);
        }
        if (s.makerFees != 0) _engine.collect(s.makerFees, 0);
        _afterTrade(index);
        closedQty = s.filledQty;
        emit IMarket.Liquidated(
            ++seq, accountId, liquidator, closedQty, s.notional, liquidatorFee, takenFee - liquidatorFee, st.shortfall,
            positions[accountId].size
        );
    }

    // ─── views ───────────────────────────────────────────────────────────────────────────

    function getOrder(uint256 orderId) external view returns (IMarket.OrderView memory v) {
        if (orderId >> 64 != _marketIndex) return v;
        uint256 n = orderId & type(uint64).max;
        Order storage o = orders[n];
        if (o.status == IMarket.OrderStatus.NONE) return v;
        v.orderId = orderId;
        v.accountId = o.accountId;
        v.clientKey = _keyOf(n, o);
        v.side = o.side;
        v.orderType = o.orderType;
        v.status = o.status;
        v.reduceOnly = o.reduceOnly;
        v.priceX18 = uint256(o.tick) * _params.tickSizeX18;
        v.originalQty = o.originalQty;
        v.filledQty = o.filledQty;
        v.remainingQty = o.status == IMarket.OrderStatus.ACTIVE ? o.originalQty - o.filledQty : 0;
        v.marginAllocatedWad = o.marginAllocatedWad;
        v.marginRemainingWad = o.marginRemainingWad;
    }

    function getLevels(IMarket.Side side, uint256 depth)
        external view returns (uint256[] memory pricesX18, uint256[] memory totalQty, uint256[] memory orderCounts)
    {
        bool isBid = side == IMarket.Side.LONG;
        TickBitmap.Bitmap storage book = isBid ? bids : asks;
        pricesX18 = new uint256[](depth);
        totalQty = new uint256[](depth);
        orderCounts = new uint256[](depth);
        uint256 tick = isBid ? book.highest() : book.lowest();
        uint256 k;
        while (k < depth && tick != TickBitmap.NONE) {
            Level storage level = isBid ? bidLevels[tick] : askLevels[tick];
            pricesX18[k] = tick * _params.tickSizeX18;
            totalQty[k] = level.totalQty;
            orderCounts[k] = level.orderCount;
            ++k;
            tick = isBid ? book.nextBelow(tick) : book.nextAbove(tick);
        }
        assembly {
            mstore(pricesX18, k)
            mstore(totalQty, k)
            mstore(orderCounts, k)
        }
    }

    function getPosition(uint256 accountId) external view returns (IMarket.PositionView memory v) {
        Position storage p = positions[accountId];
        v.sizeQty = p.size;
        v.openNotionalWad = p.openNotional;
        v.entryPriceX18 = p.size == 0 ? 0 : uint256(p.openNotional) * WAD / VenueMath.abs(p.size);
        v.marginWad = p.margin;
        v.lastFundingIndexX18 = p.lastFundingIndex;
        v.lastSettledAt = p.lastSettledAt;
        v.openBlock = p.openBlock;
    }

    function markPrice() external view returns (uint256) {
        (uint256 index,) = _oracle.getPrice(_marketId);
        return _markNow(index);
    }

    function funding() external view returns (IMarket.FundingView memory v) {
        FundingState memory f = fundingState;
        FundingComponents memory c = components;
        (uint256 index,) = _oracle.getPrice(_marketId);
        v.rateX18PerHour = f.rate;
        v.premiumComponentX18 = c.premiumComponent;
        v.skewComponentX18 = c.skewComponent;
        v.skewX18 = c.skew;
        v.premiumX18 = c.premium;
        v.cumulativeIndexX18 = f.cumulativeIndex;
        v.cumulativeIndexNowX18 = _cumulativeIndexNow(index);
        v.lastUpdate = f.lastUpdate;
    }
}
