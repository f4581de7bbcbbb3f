// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Vm} from "../utils/Vm.sol";
import {VenueFixture} from "../utils/VenueFixture.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {openPolicy, approvalStructHash} from "../utils/OperatorPolicies.sol";

contract MarketCancelTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
        b = _account(bob, 1_000e6);
    }

    function _key(uint256 oid) internal view returns (bytes32) {
        return _keyOf(oid);
    }

    function test_cancelOrder_returnsMarginAndClears() public {
        uint256 oid = _limit(alice, a, LONG, 108e6, 10, 1.07e18);
        uint256 q = market.getOrder(oid).originalQty;
        bytes32 key = _key(oid);
        vm.prank(alice);
        (uint256 cid, uint256 returned) = engine.cancelOrder(a, EUR, key);
        assertEq(cid, oid);
        assertEq(returned, 108e18);
        IEngine.AccountView memory v = _acct(a);
        assertEq(v.committedWad, 0);
        assertEq(v.availableWad, 1_000e18);
        IMarket.OrderView memory o = market.getOrder(oid);
        assertEq(uint256(o.status), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(o.remainingQty, 0);
        assertEq(o.originalQty, q);
        assertEq(market.orderIdOf(a, key), 0, "key freed");
        assertEq(_bestBid(), 0, "level removed");
        (uint256 bidQty,) = market.restingQty();
        assertEq(bidQty, 0);
        _checkAll();
    }

    /// One event with the order's, its level's and the skew's post-state, and no seq taken: the
    /// market's next event carries the seq it would have carried without the cancel. The engine
    /// emits nothing: the order's margin and bond move from committed to available as that event says.
    function test_cancelOrder_emitsOneOrderCancelledWithThePostState() public {
        _limit(bob, b, LONG, 10.7e6, 10, 1.07e18); // stays at the level
        uint256 oid = _limit(alice, a, LONG, 108e6, 10, 1.07e18);
        uint256 q = market.getOrder(oid).originalQty;
        bytes32 key = _key(oid);
        uint64 s = _nextSeq(address(market));
        IEngine.AccountView memory before = engine.getAccount(a);
        vm.recordLogs();
        vm.expectEmit(true, true, true, true, address(market));
        emit IMarket.OrderCancelled(oid, a, q, 0, 108e18, 100e18, 1, block.timestamp, 100e18, 0);
        vm.prank(alice);
        engine.cancelOrder(a, EUR, key);
        Vm.Log[] memory all = vm.getRecordedLogs();
        uint256 fromMarket;
        for (uint256 i; i < all.length; ++i) if (all[i].emitter == address(market)) ++fromMarket;
        assertEq(fromMarket, 1, "one market event");
        for (uint256 i; i < all.length; ++i) assertTrue(all[i].emitter != address(engine), "no engine event: no MarginUpdated");
        IEngine.AccountView memory after_ = engine.getAccount(a);
        assertEq(after_.availableWad, before.availableWad + 108e18 + 0.5e18, "margin and bond available");
        assertEq(after_.committedWad, before.committedWad - 108e18 - 0.5e18, "and no longer committed");
        vm.recordLogs();
        _limit(bob, b, LONG, 10.7e6, 10, 1.07e18);
        all = vm.getRecordedLogs();
        uint256 i;
        while (all[i].emitter != address(market)) ++i;
        assertEq(abi.decode(all[i].data, (uint256)), s, "no seq taken: the next event carries s");
    }

    /// A level keeps only the links inside it (MarketBase._removeAt): once its tail and its head
    /// are cancelled, the order left holds links to their slots, which the free list hands to two
    /// asks. Every walk ends at the level's tail: the depth view and a taker see that one order and
    /// never the asks in those slots.
    function test_cancelEnds_slotsReusedElsewhereAreNeverWalkedInto() public {
        uint256 c = _account(carol, 1_000e6);
        uint256 d = _account(dave, 1_000e6);
        uint256 first = _limit(alice, a, LONG, 10.7e6, 10, 1.07e18); // 100 each
        uint256 second = _limit(bob, b, LONG, 10.7e6, 10, 1.07e18);
        uint256 third = _limit(alice, a, LONG, 10.7e6, 10, 1.07e18);
        (bytes32 k3, bytes32 k1) = (_key(third), _key(first));
        vm.startPrank(alice);
        engine.cancelOrder(a, EUR, k3); // the tail
        engine.cancelOrder(a, EUR, k1); // the head
        vm.stopPrank();
        uint256 ask1 = _limit(carol, c, SHORT, 10.9e6, 10, 1.09e18);
        uint256 ask3 = _limit(carol, c, SHORT, 10.9e6, 10, 1.09e18);
        assertEq(ask1 & type(uint24).max, first & type(uint24).max, "an ask took the head's slot");
        assertEq(ask3 & type(uint24).max, third & type(uint24).max, "and one the tail's");
        (uint256[] memory px, uint256[] memory qty, uint256[] memory count) = market.getFillableLevels(LONG, 3);
        assertEq(px.length, 1, "one bid level");
        assertEq(px[0], 1.07e18);
        assertEq(qty[0], 100e18, "the second alone");
        assertEq(count[0], 1);
        _market(dave, d, SHORT, 16.05e6, 10); // 150: the second whole, then no bid left
        assertEq(uint256(_order(second).status), uint256(IMarket.OrderStatus.FILLED));
        assertEq(_pos(d).sizeQty, -100e18, "nothing beyond the level's tail");
        for (uint256 i; i < 2; ++i) {
            IMarket.OrderView memory o = _order(i == 0 ? ask1 : ask3);
            assertEq(uint256(o.status), uint256(IMarket.OrderStatus.ACTIVE), "the asks never met");
            assertEq(o.remainingQty, o.originalQty);
        }
        assertEq(_bestBid(), 0);
        _checkAll();
    }

    function test_cancelOrder_afterPartialFillReturnsRemainingMargin() public {
        uint256 ask = _limit(bob, b, SHORT, 108e6, 10, 1.08e18); // 1000
        _market(alice, a, LONG, 27e6, 10); // 250
        bytes32 key = _key(ask);
        vm.prank(bob);
        (, uint256 returned) = engine.cancelOrder(b, EUR, key);
        assertEq(returned, 81e18, "three quarters of the margin");
        IMarket.OrderView memory o = market.getOrder(ask);
        assertEq(uint256(o.status), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(o.filledQty, 250e18, "filled part stays filled");
        assertEq(_acct(b).committedWad, _pos(b).marginWad, "only the position's margin stays committed");
        _checkAll();
    }

    function test_cancelOrder_middleOfLevelKeepsFifo() public {
        uint256 o1 = _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18);
        uint256 o2 = _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18);
        uint256 o3 = _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18);
        bytes32 key = _key(o2);
        vm.prank(bob);
        engine.cancelOrder(b, EUR, key);
        _market(alice, a, LONG, 16.2e6, 10); // 150
        assertEq(market.getOrder(o1).filledQty, 100e18);
        assertEq(market.getOrder(o3).filledQty, 50e18);
        _checkAll();
    }

    function test_cancelOrder_byOperator() public {
        uint256 oid = _limit(alice, a, LONG, 108e6, 10, 1.07e18);
        vm.prank(alice);
        engine.setOperator(bob, uint64(block.timestamp + 1 days), openPolicy());
        bytes32 key = _key(oid);
        vm.prank(bob);
        engine.cancelOrder(a, EUR, key);
        assertEq(_acct(a).committedWad, 0);
    }

    function test_cancelOrder_revertsOperatorNotApproved() public {
        uint256 oid = _limit(alice, a, LONG, 108e6, 10, 1.07e18);
        bytes32 key = _key(oid);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, bob));
        engine.cancelOrder(a, EUR, key);
    }

    function test_cancelOrder_revertsOrderNotFound() public {
        bytes32 key = keccak256("nope");
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, a, key));
        engine.cancelOrder(a, EUR, key);
    }

    function test_cancelOrder_revertsOrderNotFoundTwice() public {
        uint256 oid = _limit(alice, a, LONG, 108e6, 10, 1.07e18);
        bytes32 key = _key(oid);
        vm.prank(alice);
        engine.cancelOrder(a, EUR, key);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, a, key));
        engine.cancelOrder(a, EUR, key);
    }

    function test_cancelOrder_revertsOrderNotFoundWhenFilled() public {
        uint256 ask = _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18);
        bytes32 key = _key(ask);
        _market(alice, a, LONG, 10.8e6, 10);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, b, key));
        engine.cancelOrder(b, EUR, key);
    }

    function test_cancelOrder_revertsOrderNotFoundForOtherAccountsKey() public {
        uint256 oid = _limit(alice, a, LONG, 108e6, 10, 1.07e18);
        bytes32 key = _key(oid);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, b, key));
        engine.cancelOrder(b, EUR, key);
    }

    function test_cancelOrder_revertsMarketNotFound() public {
        bytes32 nope = keccak256("ZZZ/USD");
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketNotFound.selector, nope));
        engine.cancelOrder(a, nope, bytes32(uint256(1)));
    }
}
