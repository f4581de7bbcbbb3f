// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Isolated margin (Engine.movePositionMargin, > 0 adds, < 0 removes; docs/CONTRACTS.md
/// "Position margin"): an addition moves available margin into the position, a removal only what
/// exceeds initial margin at the mark (a loss counted, a profit not), funding settled first;
/// an operator adds freely and removes only down to its policy's leverage.
contract MarketMarginTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    address internal op = address(0x0FE7A702);

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
        b = _account(bob, 1_000e6);
        // alice long 500 @ 1.08 (54 of margin, 10×) from bob's short; the book is empty afterwards
        _limit(bob, b, SHORT, 54e6, 10, 1.08e18);
        _market(alice, a, LONG, 54e6, 10);
    }

    /// ceil(|size| × mark × uplift / maxLeverage), at the market's mark now (the fixture's EUR/USD: 50×).
    function _initialMargin(uint256 id) internal view returns (uint256) {
        IMarket.PositionView memory p = _pos(id);
        uint256 size = p.sizeQty < 0 ? uint256(-p.sizeQty) : uint256(p.sizeQty);
        return _ceilDiv(size * market.markPrice() / 1e18, 50);
    }

    function test_add_movesAvailableIntoThePosition() public {
        IEngine.AccountView memory before = _acct(a);
        uint256 marginBefore = _pos(a).marginWad;
        vm.recordLogs();
        vm.prank(alice);
        uint256 m = engine.movePositionMargin(a, EUR, int256(10e6));
        assertEq(m, marginBefore + 10e18, "returned margin");
        assertEq(_pos(a).marginWad, marginBefore + 10e18, "position margin");
        assertEq(_acct(a).availableWad, before.availableWad - 10e18, "available");
        assertEq(_acct(a).committedWad, before.committedWad + 10e18, "committed");
        assertEq(_acct(a).totalWad, before.totalWad, "total unchanged");
        Vm.Log[] memory ups = _logs(vm.getRecordedLogs(), address(market), IMarket.PositionUpdated.selector);
        assertEq(ups.length, 1);
        (, IMarket.PositionReason reason, int256 size,, uint256 margin, int256 pnl,, uint256 fee,) = abi.decode(
            ups[0].data, (uint64, IMarket.PositionReason, int256, uint256, uint256, int256, int256, uint256, int256)
        );
        assertEq(uint256(reason), uint256(IMarket.PositionReason.MARGIN));
        assertEq(size, 500e18);
        assertEq(margin, marginBefore + 10e18);
        assertEq(pnl, 0);
        assertEq(fee, 0);
        _checkAll();
    }

    function test_remove_downToInitialMarginAtTheMark() public {
        vm.prank(alice);
        engine.movePositionMargin(a, EUR, int256(100e6));
        uint256 margin = _pos(a).marginWad;
        uint256 im = _initialMargin(a);
        uint256 removable6 = (margin - im) / 1e12; // whole 6-decimal units
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BelowInitialMargin.selector, a, EUR));
        engine.movePositionMargin(a, EUR, -int256(removable6 + 1));
        uint256 available = _acct(a).availableWad;
        vm.prank(alice);
        uint256 m = engine.movePositionMargin(a, EUR, -int256(removable6));
        assertEq(m, margin - removable6 * 1e12);
        assertGe(m, im, "at least initial margin left");
        assertEq(_acct(a).availableWad, available + removable6 * 1e12);
        _checkAll();
    }

    function test_remove_doesNotPayAnUnrealizedProfit() public {
        _setPrice(EUR, 1.10e18); // +10 on the long
        uint256 margin = _pos(a).marginWad;
        uint256 im = _initialMargin(a);
        uint256 removable6 = (margin - im) / 1e12;
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BelowInitialMargin.selector, a, EUR));
        engine.movePositionMargin(a, EUR, -int256(removable6 + 1));
        vm.prank(alice);
        engine.movePositionMargin(a, EUR, -int256(removable6));
        _checkAll();
    }

    function test_remove_countsAnUnrealizedLoss() public {
        _setPrice(EUR, 1.07e18); // −5 on the long
        IMarket.PositionView memory p = _pos(a);
        uint256 value = 500e18 * market.markPrice() / 1e18;
        uint256 loss = p.openNotionalWad - value;
        uint256 removable6 = (p.marginWad - loss - _initialMargin(a)) / 1e12;
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BelowInitialMargin.selector, a, EUR));
        engine.movePositionMargin(a, EUR, -int256(removable6 + 1));
        vm.prank(alice);
        engine.movePositionMargin(a, EUR, -int256(removable6));
        assertFalse(_health(a).isLiquidatable);
        _checkAll();
    }

    function test_refusals() public {
        uint256 c = _account(carol, 1_000e6);
        vm.startPrank(carol);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoPosition.selector, c, EUR));
        engine.movePositionMargin(c, EUR, int256(1e6));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoPosition.selector, c, EUR));
        engine.movePositionMargin(c, EUR, -int256(1e6));
        vm.stopPrank();
        vm.startPrank(alice);
        vm.expectRevert(IVenueErrors.InvalidAmount.selector);
        engine.movePositionMargin(a, EUR, int256(0));
        vm.expectRevert(IVenueErrors.InvalidAmount.selector);
        engine.movePositionMargin(a, EUR, type(int256).min);
        uint256 available = _acct(a).availableWad;
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InsufficientMargin.selector, available, available + 1e12));
        engine.movePositionMargin(a, EUR, int256(available / 1e12 + 1));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BelowInitialMargin.selector, a, EUR));
        engine.movePositionMargin(a, EUR, -int256(1_000_000e6)); // more than the position holds
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketNotFound.selector, bytes32(uint256(1))));
        engine.movePositionMargin(a, bytes32(uint256(1)), int256(1e6));
        vm.stopPrank();
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        engine.movePositionMargin(a, EUR, int256(1e6));
        // nobody but the engine moves a position's margin
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, alice));
        (bool ok,) = address(market).call(abi.encodeWithSignature("adjustMargin(uint256,int256)", a, int256(-1e18)));
        ok;
    }

    function test_operator_addsFreely_removesOnlyDownToItsLeverage() public {
        vm.prank(alice);
        engine.setOperator(op, uint64(block.timestamp + 1 days), IEngine.OperatorPolicy(20, 100, 100));
        vm.prank(op);
        engine.movePositionMargin(a, EUR, int256(6e6)); // 60 of margin
        uint256 value = 500e18 * market.markPrice() / 1e18;
        uint256 floor = _ceilDiv(value, 20); // the operator's 20×
        uint256 removable6 = (_pos(a).marginWad - floor) / 1e12;
        vm.prank(op);
        vm.expectRevert();
        engine.movePositionMargin(a, EUR, -int256(removable6 + 1));
        vm.prank(op);
        engine.movePositionMargin(a, EUR, -int256(removable6));
        assertLe(value, _pos(a).marginWad * 20, "within the operator's leverage");
        // the owner itself may go down to the market's initial margin
        uint256 ownRemovable6 = (_pos(a).marginWad - _initialMargin(a)) / 1e12;
        vm.prank(alice);
        engine.movePositionMargin(a, EUR, -int256(ownRemovable6));
        _checkAll();
    }

    function test_sessions_closedRefusesBoth_windowAppliesTheUplift() public {
        engine.setMarketCloseUplift(EUR, 20_000); // ×2 outside OPEN
        vm.prank(alice);
        engine.movePositionMargin(a, EUR, int256(100e6));
        _toSession(EUR, IMarket.Session.REDUCE_ONLY);
        uint256 upliftedIm = _initialMargin(a) * 2;
        uint256 removable6 = (_pos(a).marginWad - upliftedIm) / 1e12;
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BelowInitialMargin.selector, a, EUR));
        engine.movePositionMargin(a, EUR, -int256(removable6 + 1));
        vm.prank(alice);
        engine.movePositionMargin(a, EUR, -int256(removable6));
        _toSession(EUR, IMarket.Session.CLOSED);
        vm.startPrank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketClosed.selector, EUR));
        engine.movePositionMargin(a, EUR, int256(1e6));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketClosed.selector, EUR));
        engine.movePositionMargin(a, EUR, -int256(1e6));
        vm.stopPrank();
        _toSession(EUR, IMarket.Session.OPEN);
        vm.prank(alice);
        engine.movePositionMargin(a, EUR, int256(1e6));
        _checkAll();
    }

    function test_settlesPendingFundingFirst() public {
        // a skew: bob rests more asks than bids exist, funding accrues over an hour
        _limit(bob, b, SHORT, 100e6, 10, 1.09e18);
        engine.pokeFunding(EUR);
        vm.warp(block.timestamp + 1 hours);
        vm.roll(block.number + 1);
        _refreshPrices();
        uint256 margin = _pos(a).marginWad;
        vm.recordLogs();
        vm.prank(alice);
        uint256 m = engine.movePositionMargin(a, EUR, int256(1e6));
        Vm.Log[] memory ups = _logs(vm.getRecordedLogs(), address(market), IMarket.PositionUpdated.selector);
        (,,,,,, int256 funding,,) = abi.decode(
            ups[0].data, (uint64, IMarket.PositionReason, int256, uint256, uint256, int256, int256, uint256, int256)
        );
        assertTrue(funding != 0, "funding accrued");
        assertEq(int256(m), int256(margin) - funding + 1e18, "margin = old - funding + added");
        _checkAll();
    }

    /// Any sequence of additions and removals: never below initial margin after a removal, the
    /// venue's books balance, and what left the position is exactly what reached available margin.
    function testFuzz_addRemove(uint256[8] memory amounts, bool[8] memory adds, uint256 priceSeed) public {
        _setPrice(EUR, 1.07e18 + (priceSeed % 300) * TICK * 10);
        for (uint256 i; i < 8; ++i) {
            uint256 amount6 = 1 + amounts[i] % 200e6;
            uint256 total = _acct(a).totalWad;
            vm.prank(alice);
            if (adds[i]) {
                try engine.movePositionMargin(a, EUR, int256(amount6)) {} catch {}
            } else {
                try engine.movePositionMargin(a, EUR, -int256(amount6)) {
                    assertGe(_pos(a).marginWad, _initialMargin(a), "initial margin kept");
                } catch {}
            }
            assertEq(_acct(a).totalWad, total, "a margin move changes no total");
            _checkAll();
        }
    }
}
