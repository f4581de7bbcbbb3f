// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

contract MarketMatchingTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;
    uint256 internal d;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 1_000e6);
        d = _account(dave, 1_000e6);
    }

    function test_match_marketFillsAtMakerPrice() public {
        uint256 ask = _limit(bob, b, SHORT, 108e6, 10, 1.08e18); // 1000
        (uint256 oid, uint256 qty, IMarket.OrderStatus st) = _place(alice, a, LONG, MKT, 54e6, 10, 0);
        assertEq(qty, 500e18, "sized at the best ask");
        assertEq(uint256(st), uint256(IMarket.OrderStatus.FILLED));
        IMarket.OrderView memory t = _orderEnd(oid);
        assertEq(t.filledQty, 500e18);
        assertEq(t.remainingQty, 0);
        IMarket.OrderView memory m = _orderEnd(ask);
        assertEq(uint256(m.status), uint256(IMarket.OrderStatus.ACTIVE), "partly filled maker rests");
        assertEq(m.filledQty, 500e18);
        assertEq(m.remainingQty, 500e18);
        assertEq(m.marginRemainingWad, 54e18, "maker margin moves pro rata");
        IMarket.PositionView memory pa = _pos(a);
        IMarket.PositionView memory pb = _pos(b);
        assertEq(pa.sizeQty, 500e18);
        assertEq(pb.sizeQty, -500e18);
        assertEq(pa.openNotionalWad, 540e18);
        assertEq(pb.openNotionalWad, 540e18);
        assertEq(pa.entryPriceX18, 1.08e18);
        assertEq(pa.openBlock, block.number);
        uint256 takerFee = _takerFee(500e18, 1.08e18); // 0.27
        uint256 makerFee = _makerFee(500e18, 1.08e18); // 0.054
        assertEq(takerFee, 0.27e18);
        assertEq(makerFee, 0.054e18);
        assertEq(_acct(a).totalWad, 1_000e18 - takerFee, "taker pays 5 bp");
        assertEq(_acct(b).totalWad, 1_000e18 - makerFee, "maker pays 1 bp");
        assertEq(engine.feesWad(), takerFee + makerFee);
        (uint256 l, uint256 s) = market.openInterest();
        assertEq(l, 500e18);
        assertEq(s, 500e18);
        _checkAll();
    }

    /// docs/CONTRACTS.md "Positions" step 4: a negative Δavailable (the fee) is "taken first from
    /// available, then from position margin". BUGS.md #2: the fee comes out of the position margin.
    /// Isolated margin (docs/CONTRACTS.md, Positions step 4): an opening fill's fee comes out of
    /// the collateral that becomes the position's margin; the rest of the account is untouched.
    function test_match_takerFeeComesFromPositionMargin() public {
        _limit(bob, b, SHORT, 108e6, 10, 1.08e18);
        _market(alice, a, LONG, 54e6, 10);
        uint256 takerFee = _takerFee(500e18, 1.08e18);
        assertEq(_pos(a).marginWad, 54e18 - takerFee, "position margin = collateral - fee");
        assertEq(_acct(a).availableWad, 1_000e18 - 54e18, "available margin untouched");
    }

    function test_match_emitsOrderFilledWithPostState() public {
        uint256 ask = _limit(bob, b, SHORT, 108e6, 10, 1.08e18);
        vm.recordLogs();
        (uint256 oid,,) = _place(alice, a, LONG, MKT, 54e6, 10, 0);
        Vm.Log[] memory logs = _logs(vm.getRecordedLogs(), address(market), IMarket.OrderFilled.selector);
        assertEq(logs.length, 1, "one event per maker fill");
        assertEq(uint256(logs[0].topics[1]), ask, "maker order id");
        assertEq(uint256(logs[0].topics[2]), oid, "taker order id");
        (, uint256 makerAcct, uint256 takerAcct, IMarket.Side side, uint256 px, uint256 q) =
            abi.decode(logs[0].data, (uint64, uint256, uint256, IMarket.Side, uint256, uint256));
        assertEq(makerAcct, b);
        assertEq(takerAcct, a);
        assertEq(uint256(side), uint256(LONG));
        assertEq(px, 1.08e18);
        assertEq(q, 500e18);
        FillTail memory f = _tail(logs[0].data);
        assertEq(f.makerFilled, 500e18);
        assertEq(f.makerRemaining, 500e18);
        assertEq(f.takerFilled, 500e18);
        assertEq(f.takerRemaining, 0);
        assertEq(f.makerFee, _makerFee(500e18, 1.08e18));
    }

    struct FillTail {
        uint256 makerFilled;
        uint256 makerRemaining;
        uint256 takerFilled;
        uint256 takerRemaining;
        uint256 makerFee;
        uint256 takerFee;
    }

    function _tail(bytes memory data) internal pure returns (FillTail memory f) {
        (,,,,,, f.makerFilled, f.makerRemaining, f.takerFilled, f.takerRemaining, f.makerFee, f.takerFee) = abi.decode(
            data, (uint64, uint256, uint256, IMarket.Side, uint256, uint256, uint256, uint256, uint256, uint256, uint256, uint256)
        );
    }

    function test_match_fifoWithinLevel() public {
        uint256 first = _limit(bob, b, SHORT, 108e6, 10, 1.08e18);
        uint256 second = _limit(carol, c, SHORT, 108e6, 10, 1.08e18);
        _market(alice, a, LONG, 54e6, 10); // 500
        assertEq(_orderEnd(first).filledQty, 500e18, "oldest first");
        assertEq(_orderEnd(second).filledQty, 0);
        _market(dave, d, LONG, 75.6e6, 10); // 700
        assertEq(uint256(_orderEnd(first).status), uint256(IMarket.OrderStatus.FILLED));
        assertEq(_orderEnd(second).filledQty, 200e18);
        (, uint256[] memory totals, uint256[] memory counts) = market.getLevels(SHORT, 5);
        assertEq(totals[0], 800e18);
        assertEq(counts[0], 1);
        _checkAll();
    }

    function test_match_marketSweepsSeveralLevels() public {
        _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18); // 100
        _limit(carol, c, SHORT, 10.81e6, 10, 1.081e18); // 100
        uint256 third = _limit(dave, d, SHORT, 10.82e6, 10, 1.082e18); // 100
        vm.recordLogs();
        (uint256 oid, uint256 qty, IMarket.OrderStatus st) = _place(alice, a, LONG, MKT, 27e6, 10, 0);
        assertEq(qty, 250e18);
        assertEq(uint256(st), uint256(IMarket.OrderStatus.FILLED));
        Vm.Log[] memory all = vm.getRecordedLogs();
        Vm.Log[] memory fills = _logs(all, address(market), IMarket.OrderFilled.selector);
        assertEq(fills.length, 3);
        assertEq(_closedFilled(all, oid), 250e18);
        assertEq(_orderEnd(third).remainingQty, 50e18);
        assertEq(_pos(a).openNotionalWad, 108e18 + 108.1e18 + 54.1e18, "each level at its price");
        assertEq(_bestAsk(), 1.082e18, "swept levels are gone");
        (uint256[] memory prices,,) = market.getLevels(SHORT, 5);
        assertEq(prices.length, 1);
        _checkAll();
    }

    function test_match_limitCrossesThenRests() public {
        _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18); // 100
        (uint256 oid, uint256 qty, IMarket.OrderStatus st) = _place(alice, a, LONG, LMT, 21.8e6, 10, 1.09e18); // 200
        assertEq(qty, 200e18);
        assertEq(uint256(st), uint256(IMarket.OrderStatus.ACTIVE));
        IMarket.OrderView memory o = _orderEnd(oid);
        assertEq(o.filledQty, 100e18);
        assertEq(o.remainingQty, 100e18);
        assertEq(o.marginRemainingWad, 10.9e18, "half the margin stays with the resting half");
        assertEq(_pos(a).openNotionalWad, 108e18, "filled at the maker's 1.08, not 1.09");
        assertEq(_bestBid(), 1.09e18);
        assertEq(_bestAsk(), 0);
        _checkAll();
    }

    function test_match_limitNotCrossingRests() public {
        _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18);
        (, , IMarket.OrderStatus st) = _place(alice, a, LONG, LMT, 10.7e6, 10, 1.07e18);
        assertEq(uint256(st), uint256(IMarket.OrderStatus.ACTIVE));
        assertEq(_pos(a).sizeQty, 0);
    }

    function test_match_bandStopsMarketOrder() public {
        _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18); // 100 @ 1.08
        uint256 far = _limit(carol, c, SHORT, 10.9e6, 10, 1.09e18); // 100 @ 1.09
        _setPrice(EUR, 1.075e18); // asks only: mark = index 1.075, taker bound 1.0851
        (uint256 oid, uint256 qty, IMarket.OrderStatus st) = _place(alice, a, LONG, MKT, 21.6e6, 10, 0); // 200
        assertEq(qty, 200e18);
        assertEq(uint256(st), uint256(IMarket.OrderStatus.CANCELLED), "rest of a MARKET order is cancelled");
        IMarket.OrderView memory o = _orderEnd(oid);
        assertEq(o.filledQty, 100e18);
        assertEq(o.remainingQty, 0);
        assertEq(o.marginRemainingWad, 0);
        assertEq(_orderEnd(far).filledQty, 0, "beyond the band: untouched");
        assertEq(_pos(a).sizeQty, 100e18);
        assertEq(_acct(a).committedWad, _pos(a).marginWad, "unfilled margin returned");
        _checkAll();
    }

    function test_match_bandBlocksMarketEntirely() public {
        _limit(carol, c, SHORT, 10.9e6, 10, 1.09e18);
        _setPrice(EUR, 1.075e18); // taker bound 1.0851
        (uint256 oid,, IMarket.OrderStatus st) = _place(alice, a, LONG, MKT, 21.6e6, 10, 0);
        assertEq(uint256(st), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(_orderEnd(oid).filledQty, 0);
        assertEq(_acct(a).committedWad, 0);
        assertEq(_acct(a).totalWad, 1_000e18, "no fee without a fill");
    }

    function _manyAsks(uint256 n) internal {
        for (uint256 i; i < n; ++i) _limit(bob, b, SHORT, 0.108e6, 10, 1.08e18); // 1 each
    }

    function test_match_fillCapStopsMarketOrder() public {
        _manyAsks(55);
        vm.recordLogs();
        (uint256 oid,, IMarket.OrderStatus st) = _place(alice, a, LONG, MKT, 6.48e6, 10, 0); // 60
        Vm.Log[] memory all = vm.getRecordedLogs();
        assertEq(_logs(all, address(market), IMarket.OrderFilled.selector).length, 50, "maxFillsPerTx");
        assertEq(uint256(st), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(_closedFilled(all, oid), 50e18);
        Vm.Log[] memory closed = _logs(all, address(market), IMarket.OrderClosed.selector);
        (, IMarket.OrderStatus cs, IMarket.CloseReason reason,,,) = abi.decode(
            closed[closed.length - 1].data, (uint64, IMarket.OrderStatus, IMarket.CloseReason, uint256, uint256, uint256)
        );
        assertEq(uint256(cs), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(uint256(reason), uint256(IMarket.CloseReason.FILL_CAP));
        (, uint256[] memory totals, uint256[] memory counts) = market.getLevels(SHORT, 1);
        assertEq(totals[0], 5e18);
        assertEq(counts[0], 5);
        _checkAll();
    }

    function test_match_fillCapStopsLimitWithoutCrossingTheBook() public {
        _manyAsks(55);
        (uint256 oid,, IMarket.OrderStatus st) = _place(alice, a, LONG, LMT, 6.48e6, 10, 1.08e18);
        assertEq(_orderEnd(oid).filledQty, 50e18);
        assertEq(uint256(st), uint256(IMarket.OrderStatus.CANCELLED), "cannot rest while asks at its price remain");
        _checkAll(); // includes: book not crossed
    }

    function test_match_revertsSelfTrade() public {
        uint256 ask = _limit(alice, a, SHORT, 10.8e6, 10, 1.08e18);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.SelfTrade.selector, a, ask));
        engine.placeOrder(_params(a, EUR, LONG, MKT, 10.8e6, 10, 0, bytes32(0)));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.SelfTrade.selector, a, ask));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 10.8e6, 10, 1.08e18, bytes32(0)));
    }

    function test_match_selfTradeOnlyWhenReached() public {
        _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18); // 100 @ 1.08
        _limit(alice, a, SHORT, 10.9e6, 10, 1.09e18); // own ask behind
        (uint256 oid,,) = _place(alice, a, LONG, MKT, 10.8e6, 10, 0); // 100: filled by bob alone
        assertEq(_orderEnd(oid).filledQty, 100e18);
    }

    function test_match_makerPositionIsUpdatedPerFill() public {
        _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18);
        _limit(bob, b, SHORT, 10.81e6, 10, 1.081e18);
        _market(alice, a, LONG, 21.6e6, 10); // 200
        assertEq(_pos(b).sizeQty, -200e18);
        assertEq(_pos(b).openNotionalWad, 108e18 + 108.1e18);
        _checkAll();
    }

    function test_match_emitsLevelUpdatedForSweptLevel() public {
        _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18);
        vm.recordLogs();
        _market(alice, a, LONG, 5.4e6, 10); // 50
        Vm.Log[] memory lv = _logs(vm.getRecordedLogs(), address(market), IMarket.LevelUpdated.selector);
        assertEq(lv.length, 1);
        (, IMarket.Side side, uint256 px, uint256 total, uint256 count) =
            abi.decode(lv[0].data, (uint64, IMarket.Side, uint256, uint256, uint256));
        assertEq(uint256(side), uint256(SHORT));
        assertEq(px, 1.08e18);
        assertEq(total, 50e18);
        assertEq(count, 1);
    }
}
