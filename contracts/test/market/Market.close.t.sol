// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Closing, reducing and flipping positions; realized PnL.
contract MarketCloseTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 1_000e6);
        // alice long 500 @ 1.08 from bob; the book is empty afterwards
        _limit(bob, b, SHORT, 54e6, 10, 1.08e18);
        _market(alice, a, LONG, 54e6, 10);
    }

    function test_closePosition_marketRealizesProfit() public {
        _setPrice(EUR, 1.10e18);
        _limit(carol, c, LONG, 110e6, 10, 1.10e18); // 1000 bid @ 1.10
        uint256 totalBefore = _acct(a).totalWad;
        vm.prank(alice);
        (uint256 oid,, IMarket.Side side, uint256 qty) = engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(uint256(side), uint256(SHORT), "closing side opposite");
        assertEq(qty, 500e18);
        IMarket.OrderView memory o = _orderEnd(oid);
        assertTrue(o.reduceOnly);
        assertEq(o.marginRemainingWad, 0, "no collateral");
        assertEq(uint256(o.status), uint256(IMarket.OrderStatus.FILLED));
        IMarket.PositionView memory p = _pos(a);
        assertEq(p.sizeQty, 0);
        assertEq(p.openNotionalWad, 0);
        assertEq(p.marginWad, 0);
        assertEq(p.openBlock, 0);
        uint256 pnl = 550e18 - 540e18;
        uint256 fee = _takerFee(500e18, 1.10e18);
        assertEq(_acct(a).totalWad, totalBefore + pnl - fee, "total += pnl - fee");
        assertEq(_acct(a).committedWad, 0);
        _checkAll();
    }

    function test_closePosition_emitsPositionUpdatedWithRealizedPnl() public {
        _setPrice(EUR, 1.10e18);
        _limit(carol, c, LONG, 110e6, 10, 1.10e18);
        vm.recordLogs();
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        Vm.Log[] memory ups = _logs(vm.getRecordedLogs(), address(market), IMarket.PositionUpdated.selector);
        bool seen;
        for (uint256 i; i < ups.length; ++i) {
            if (uint256(ups[i].topics[1]) != a) continue;
            (, IMarket.PositionReason reason, int256 size, uint256 on, uint256 margin, int256 pnl,, uint256 fee,) = abi.decode(
                ups[i].data, (uint64, IMarket.PositionReason, int256, uint256, uint256, int256, int256, uint256, int256)
            );
            assertEq(uint256(reason), uint256(IMarket.PositionReason.TRADE));
            assertEq(size, 0);
            assertEq(on, 0);
            assertEq(margin, 0);
            assertEq(pnl, 10e18);
            assertEq(fee, _takerFee(500e18, 1.10e18));
            seen = true;
        }
        assertTrue(seen);
    }

    function test_closePosition_realizesLoss() public {
        _setPrice(EUR, 1.07e18);
        _limit(carol, c, LONG, 107e6, 10, 1.07e18);
        uint256 totalBefore = _acct(a).totalWad;
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_acct(a).totalWad, totalBefore - 5e18 - _takerFee(500e18, 1.07e18));
        _checkAll();
    }

    function test_closePosition_partialWhenBookIsThin() public {
        _limit(carol, c, LONG, 21.4e6, 10, 1.07e18); // 200 bid
        vm.prank(alice);
        (uint256 oid,,,) = engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 300e18);
        assertEq(_orderEnd(oid).filledQty, 200e18);
        assertEq(uint256(_orderEnd(oid).status), uint256(IMarket.OrderStatus.CANCELLED));
        _checkAll();
    }

    function test_closePosition_limitRestsReduceOnlyThenFills() public {
        vm.prank(alice);
        (uint256 oid,,, uint256 qty) = engine.closePosition(a, EUR, LMT, 1.09e18, bytes32(0));
        assertEq(qty, 500e18);
        assertEq(uint256(_orderEnd(oid).status), uint256(IMarket.OrderStatus.ACTIVE));
        assertEq(_bestAsk(), 1.09e18);
        _market(carol, c, LONG, 54.5e6, 10); // 500 @ 1.09
        assertEq(uint256(_orderEnd(oid).status), uint256(IMarket.OrderStatus.FILLED));
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }

    function test_placeOrder_zeroCollateralIsReduceOnlyClose() public {
        _limit(carol, c, LONG, 107e6, 10, 1.07e18);
        (uint256 oid, uint256 qty,) = _place(alice, a, SHORT, MKT, 0, 0, 0);
        assertEq(qty, 500e18, "whole position");
        assertTrue(_orderEnd(oid).reduceOnly);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_pos(c).sizeQty, 500e18, "reduce-only never flips");
        _checkAll();
    }

    function test_reduceOnlyMaker_expiresWhenPositionGone() public {
        vm.prank(alice);
        (uint256 resting,,,) = engine.closePosition(a, EUR, LMT, 1.09e18, keccak256("tp"));
        // alice closes elsewhere first
        _limit(carol, c, LONG, 107e6, 10, 1.07e18);
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 0);
        // a buyer reaching the stale reduce-only ask cancels it instead of opening a short
        uint256 d = _account(dave, 100e6);
        vm.recordLogs();
        _place(dave, d, LONG, MKT, 10.9e6, 10, 0);
        Vm.Log[] memory closed = _logs(vm.getRecordedLogs(), address(market), IMarket.OrderClosed.selector);
        assertEq(uint256(_orderEnd(resting).status), uint256(IMarket.OrderStatus.CANCELLED));
        bool expired;
        for (uint256 i; i < closed.length; ++i) {
            if (uint256(closed[i].topics[1]) != resting) continue;
            (,, IMarket.CloseReason reason,,,) =
                abi.decode(closed[i].data, (uint64, IMarket.OrderStatus, IMarket.CloseReason, uint256, uint256, uint256));
            expired = reason == IMarket.CloseReason.REDUCE_ONLY_EXPIRED;
        }
        assertTrue(expired, "REDUCE_ONLY_EXPIRED");
        assertEq(_pos(a).sizeQty, 0, "never opened by a reduce-only order");
        _checkAll();
    }

    function test_closePosition_revertsNoPosition() public {
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoPosition.selector, c, EUR));
        engine.closePosition(c, EUR, MKT, 0, bytes32(0));
    }

    function test_placeOrder_reduceOnlySameSideRevertsNoPosition() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoPosition.selector, a, EUR));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 0, 0, 1.07e18, bytes32(0)));
    }

    function test_closePosition_revertsOperatorNotApproved() public {
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, bob));
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
    }

    function test_closePosition_revertsNoLiquidity() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoLiquidity.selector, EUR));
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
    }

    function test_flip_longToShort() public {
        _limit(carol, c, LONG, 108e6, 10, 1.08e18); // 1000 bid @ 1.08
        vm.roll(block.number + 5);
        (uint256 oid, uint256 qty,) = _place(alice, a, SHORT, MKT, 108e6, 10, 0); // 1000
        assertEq(qty, 1_000e18);
        assertEq(_orderEnd(oid).filledQty, 1_000e18);
        IMarket.PositionView memory p = _pos(a);
        assertEq(p.sizeQty, -500e18, "500 closed, 500 opened short");
        assertEq(p.openNotionalWad, 540e18);
        assertEq(p.marginWad, 54e18, "half of the order margin backs the new half");
        assertEq(p.openBlock, block.number, "a flip opens a new position");
        assertEq(_acct(a).committedWad, 54e18);
        _checkAll();
    }

    function test_reduce_realizesProportionally() public {
        _setPrice(EUR, 1.10e18);
        _limit(carol, c, LONG, 110e6, 10, 1.10e18);
        IMarket.PositionView memory before = _pos(a);
        (,, IMarket.OrderStatus st) = _place(alice, a, SHORT, MKT, 5.5e6, 10, 0); // 50 opposite: reduce
        assertEq(uint256(st), uint256(IMarket.OrderStatus.FILLED));
        IMarket.PositionView memory p = _pos(a);
        assertEq(p.sizeQty, 450e18);
        assertEq(p.openNotionalWad, 486e18, "basis of 450 @ 1.08");
        assertEq(p.marginWad, before.marginWad - before.marginWad * 50 / 500, "margin released pro rata");
        assertEq(p.openBlock, before.openBlock, "a reduction keeps openBlock");
        _checkAll();
    }

    /// Paused: new exposure is refused, reduce-only closes (and cancels) keep working.
    function test_closePosition_worksWhilePaused() public {
        engine.setMarketActive(EUR, false);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketNotActive.selector, EUR));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 10e6, 5, 1.07e18, bytes32(0)));
        vm.prank(alice);
        (uint256 oid, bytes32 key,,) = engine.closePosition(a, EUR, LMT, 1.09e18, bytes32(0));
        assertEq(uint256(_order(oid).status), uint256(IMarket.OrderStatus.ACTIVE));
        vm.prank(alice);
        engine.cancelOrder(a, EUR, key);
        _checkAll();
    }

    function test_cancelReduceOnly_returnsNothingAndKeepsPosition() public {
        vm.prank(alice);
        (uint256 oid, bytes32 key,,) = engine.closePosition(a, EUR, LMT, 1.09e18, bytes32(0));
        uint256 committed = _acct(a).committedWad;
        vm.prank(alice);
        (uint256 cid, uint256 returned) = engine.cancelOrder(a, EUR, key);
        assertEq(cid, oid);
        assertEq(returned, 0, "a reduce-only order holds no margin");
        assertEq(_acct(a).committedWad, committed - ORDER_BOND_WAD, "its bond goes back");
        assertEq(_pos(a).sizeQty, 500e18);
        _checkAll();
    }

    function test_withdraw_onlyAvailableWhilePositionOpen() public {
        IEngine.AccountView memory v = _acct(a);
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(IVenueErrors.InsufficientMargin.selector, v.availableWad, v.availableWad + 1e12)
        );
        engine.withdraw(a, v.availableWad / 1e12 + 1);
        vm.prank(alice);
        engine.withdraw(a, v.availableWad / 1e12);
        assertEq(_pos(a).marginWad, v.committedWad, "position margin untouched");
        _checkAll();
    }
}
