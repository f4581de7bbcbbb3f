// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Time in force (GTC, IOC, FOK, POST_ONLY), good-til-time expiry, the reduce-only flag on sized
/// orders, batch cancels, the dead-man switch and the engine's batch (docs/CONTRACTS.md "Time in force").
contract MarketOrderTypesTest is VenueFixture {
    IMarket.TimeInForce internal constant GTC = IMarket.TimeInForce.GTC;
    IMarket.TimeInForce internal constant IOC = IMarket.TimeInForce.IOC;
    IMarket.TimeInForce internal constant FOK = IMarket.TimeInForce.FOK;
    IMarket.TimeInForce internal constant POST = IMarket.TimeInForce.POST_ONLY;
    bytes32 internal constant CLOSED_SIG = keccak256("OrderClosed(uint64,uint256,uint256,uint8,uint8,uint256,uint256,uint256)");

    uint256 internal a;
    uint256 internal b;
    uint256 internal c;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 10_000e6);
        b = _account(bob, 10_000e6);
        c = _account(carol, 10_000e6);
    }

    function _p(uint256 id, IMarket.Side side, IMarket.OrderType t, uint256 coll6, uint256 lev, uint256 px, IMarket.TimeInForce tif, bool ro, uint64 exp)
        internal pure returns (IEngine.PlaceOrderParams memory p)
    {
        p = _params(id, EUR, side, t, coll6, lev, px, bytes32(0));
        p.timeInForce = tif;
        p.reduceOnly = ro;
        p.expiresAt = exp;
    }

    function _opt(address who, IEngine.PlaceOrderParams memory p) internal returns (uint256 orderId, uint256 qty, IMarket.OrderStatus st) {
        vm.prank(who);
        (orderId,, qty, st) = engine.placeOrder(p);
    }

    /// The reason of the order's OrderClosed among the logs recorded since the last drain.
    function _reason(uint256 orderId) internal returns (IMarket.CloseReason reason) {
        Vm.Log[] memory logs = _logs(vm.getRecordedLogs(), address(market), CLOSED_SIG);
        for (uint256 i; i < logs.length; ++i) {
            if (uint256(logs[i].topics[1]) != orderId) continue;
            (, , reason,,,) = abi.decode(logs[i].data, (uint64, IMarket.OrderStatus, IMarket.CloseReason, uint256, uint256, uint256));
            return reason;
        }
        revert("no OrderClosed for the order");
    }

    // ─── post-only ───────────────────────────────────────────────────────────────────────

    function test_postOnly_restsWholeAndNeverCrosses() public {
        _limit(bob, b, SHORT, 100e6, 10, 1.081e18);
        (uint256 id, uint256 q, IMarket.OrderStatus st) = _opt(alice, _p(a, LONG, LMT, 100e6, 10, 1.0809e18, POST, false, 0));
        assertEq(uint256(st), uint256(IMarket.OrderStatus.ACTIVE));
        assertEq(_order(id).remainingQty, q);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PostOnlyWouldCross.selector, 1.081e18, 1.081e18));
        _opt(alice, _p(a, LONG, LMT, 100e6, 10, 1.081e18, POST, false, 0));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PostOnlyWouldCross.selector, 1.085e18, 1.081e18));
        _opt(alice, _p(a, LONG, LMT, 100e6, 10, 1.085e18, POST, false, 0));
        // the same on the ask side against the bid it just placed
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PostOnlyWouldCross.selector, 1.0809e18, 1.0809e18));
        _opt(bob, _p(b, SHORT, LMT, 100e6, 10, 1.0809e18, POST, false, 0));
        _checkAll();
    }

    function test_options_invalidCombinations() public {
        _limit(bob, b, SHORT, 100e6, 10, 1.081e18);
        uint64 later = uint64(block.timestamp + 60);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidOrderOptions.selector, uint256(POST), uint256(0)));
        _opt(alice, _p(a, LONG, MKT, 100e6, 10, 0, POST, false, 0));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidOrderOptions.selector, uint256(IOC), uint256(later)));
        _opt(alice, _p(a, LONG, LMT, 100e6, 10, 1.08e18, IOC, false, later));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidOrderOptions.selector, uint256(FOK), uint256(later)));
        _opt(alice, _p(a, LONG, LMT, 100e6, 10, 1.08e18, FOK, false, later));
        // a MARKET order's GTC is IOC: an expiry is refused as on IOC
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidOrderOptions.selector, uint256(IOC), uint256(later)));
        _opt(alice, _p(a, LONG, MKT, 100e6, 10, 0, GTC, false, later));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidExpiry.selector, block.timestamp, block.timestamp));
        _opt(alice, _p(a, LONG, LMT, 100e6, 10, 1.08e18, GTC, false, uint64(block.timestamp)));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidExpiry.selector, uint256(1) << 40, block.timestamp));
        _opt(alice, _p(a, LONG, LMT, 100e6, 10, 1.08e18, GTC, false, uint64(1 << 40)));
        // nothing moved
        assertEq(_acct(a).committedWad, 0);
    }

    // ─── IOC and FOK ─────────────────────────────────────────────────────────────────────

    function test_ioc_fillsWhatItCanAndCancelsTheRest() public {
        uint256 ask = _limit(bob, b, SHORT, 54e6, 10, 1.08e18); // 500
        _drainLogs();
        (uint256 id, uint256 q, IMarket.OrderStatus st) = _opt(alice, _p(a, LONG, LMT, 216e6, 10, 1.08e18, IOC, false, 0)); // 2000
        assertEq(uint256(st), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(q, 2_000e18);
        assertEq(uint256(_reason(id)), uint256(IMarket.CloseReason.UNFILLED_IOC));
        assertEq(_pos(a).sizeQty, 500e18);
        assertEq(_order(ask).remainingQty, 0);
        assertEq(_bestBid(), 0, "nothing rests");
        // committed: the position's margin only (the remainder's margin and the bond are back)
        assertEq(_acct(a).committedWad, _pos(a).marginWad);
        _checkAll();
    }

    function test_fok_fillsWholeOrReverts() public {
        _limit(bob, b, SHORT, 54e6, 10, 1.08e18); // 500
        _limit(carol, c, SHORT, 54e6, 10, 1.0801e18); // 500
        uint256 before = _acct(a).availableWad;
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.FillOrKillUnfilled.selector, 999.95e18, 1_999.81e18));
        _opt(alice, _p(a, LONG, LMT, 216e6, 10, 1.0801e18, FOK, false, 0));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.FillOrKillUnfilled.selector, 500e18, 1_000e18));
        _opt(alice, _p(a, LONG, LMT, 108e6, 10, 1.08e18, FOK, false, 0));
        assertEq(_acct(a).availableWad, before, "a reverted FOK moves nothing");
        (, uint256 q, IMarket.OrderStatus st) = _opt(alice, _p(a, LONG, MKT, 100e6, 10, 0, FOK, false, 0));
        assertEq(uint256(st), uint256(IMarket.OrderStatus.FILLED));
        assertEq(uint256(_pos(a).sizeQty), q);
        _checkAll();
    }

    // ─── good-til-time ───────────────────────────────────────────────────────────────────

    function test_gtt_expiredOrderNeverFillsAndItsBondGoesToTheTaker() public {
        uint64 exp = uint64(block.timestamp + 60);
        (uint256 id,,) = _opt(alice, _p(a, LONG, LMT, 108e6, 10, 1.0799e18, GTC, false, exp));
        assertEq(_order(id).expiresAt, exp);
        (uint256[] memory fp,,) = market.getFillableLevels(LONG, 5);
        assertEq(fp.length, 1, "fillable before its expiry");
        vm.warp(exp);
        _refreshPrices();
        (fp,,) = market.getFillableLevels(LONG, 5);
        assertEq(fp.length, 0, "never fillable from its expiry second");
        (uint256[] memory lp,,) = market.getLevels(LONG, 5);
        assertEq(lp.length, 1, "still in the book until removed");
        uint256 bobBefore = _acct(b).availableWad;
        uint256 aliceCommitted = _acct(a).committedWad;
        _drainLogs();
        _limit(bob, b, SHORT, 108e6, 10, 1.0799e18);
        assertEq(uint256(_reason(id)), uint256(IMarket.CloseReason.EXPIRED));
        assertEq(_pos(b).sizeQty, 0, "nothing filled");
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_acct(a).committedWad, aliceCommitted - 108e18 - ORDER_BOND_WAD, "margin back, bond gone");
        // bob's new order rests (margin + bond committed) and he holds alice's bond
        assertEq(_acct(b).availableWad, bobBefore - 108e18 - ORDER_BOND_WAD + ORDER_BOND_WAD);
        _checkAll();
    }

    function test_gtt_neverCountsInTheSkew() public {
        _opt(alice, _p(a, LONG, LMT, 108e6, 10, 1.0799e18, GTC, false, uint64(block.timestamp + 600)));
        market.pokeFunding();
        assertEq(market.funding().skewX18, 0, "a good-til-time bid is left out");
        _limit(alice, a, LONG, 108e6, 10, 1.0798e18);
        market.pokeFunding();
        assertEq(market.funding().skewX18, 1e18, "a GTC bid of the same size counts");
    }

    function test_removeExpired_byAnyonePaysTheBonds() public {
        uint64 exp = uint64(block.timestamp + 60);
        uint256[] memory ids = new uint256[](3);
        (ids[0],,) = _opt(alice, _p(a, LONG, LMT, 108e6, 10, 1.0799e18, GTC, false, exp));
        (ids[1],,) = _opt(alice, _p(a, LONG, LMT, 108e6, 10, 1.0798e18, POST, false, exp));
        ids[2] = _limit(alice, a, LONG, 108e6, 10, 1.0797e18); // no expiry: never removed
        vm.prank(stranger);
        assertEq(market.removeExpired(ids), 0, "not yet");
        vm.warp(exp);
        vm.prank(stranger);
        assertEq(market.removeExpired(ids), 2);
        assertEq(token.balanceOf(stranger), 2 * ORDER_BOND_WAD / TO_WAD);
        assertEq(uint256(_order(ids[0]).status), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(uint256(_order(ids[2]).status), uint256(IMarket.OrderStatus.ACTIVE));
        vm.prank(stranger);
        assertEq(market.removeExpired(ids), 0, "twice: nothing");
        _checkAll();
    }

    // ─── reduce-only flag ────────────────────────────────────────────────────────────────

    function test_reduceOnlyFlag_sizedCappedAtThePositionCommitsNothing() public {
        _limit(bob, b, SHORT, 54e6, 10, 1.08e18);
        _market(alice, a, LONG, 54e6, 10); // long 500
        uint256 committed = _acct(a).committedWad;
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoPosition.selector, a, EUR));
        _opt(alice, _p(a, LONG, LMT, 54e6, 10, 1.0799e18, GTC, true, 0));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.ReduceOnlyExceedsPosition.selector, 1_000e18, 500e18));
        _opt(alice, _p(a, SHORT, LMT, 108e6, 10, 1.08e18, FOK, true, 0));
        // sized 1,000 at 1.0801, capped at the position's 500: rests with its bond only
        (uint256 id, uint256 q,) = _opt(alice, _p(a, SHORT, LMT, 108e6, 10, 1.0801e18, GTC, true, 0));
        assertEq(q, 500e18);
        assertTrue(_order(id).reduceOnly);
        assertEq(_order(id).marginRemainingWad, 0);
        assertEq(_acct(a).committedWad, committed + ORDER_BOND_WAD);
        // a smaller sized one: its own size
        (, uint256 q2,) = _opt(alice, _p(a, SHORT, LMT, 10.8e6, 10, 1.0802e18, GTC, true, 0));
        assertEq(q2, _qty(10.8e6, 10, 1.0802e18));
        _checkAll();
    }

    // ─── cancel several, dead-man switch ─────────────────────────────────────────────────

    function test_cancelOrders_ownerSkipsWhatIsNotOpen() public {
        uint256[] memory ids = new uint256[](4);
        ids[0] = _limit(alice, a, LONG, 108e6, 10, 1.0799e18);
        ids[1] = _limit(alice, a, LONG, 108e6, 10, 1.0798e18);
        ids[2] = _limit(bob, b, LONG, 108e6, 10, 1.0797e18); // another account's: skipped
        ids[3] = (uint256(2) << 64) | 1; // another market's: skipped
        uint256[] memory cancelledIds = new uint256[](2);
        (cancelledIds[0], cancelledIds[1]) = (ids[0], ids[1]);
        uint64 seq = _nextSeq(address(market));
        vm.expectEmit(true, true, true, true, address(market));
        emit IMarket.OrdersCancelled(seq, a, IMarket.CloseReason.USER_CANCEL, 216e18, cancelledIds);
        vm.prank(alice);
        (uint256 n, uint256 margin) = engine.cancelOrders(a, EUR, ids);
        assertEq(n, 2);
        // one OrdersCancelled for both: no OrderClosed, no LevelUpdated
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(_logs(logs, address(market), CLOSED_SIG).length, 0, "no OrderClosed");
        assertEq(_logs(logs, address(market), IMarket.LevelUpdated.selector).length, 0, "no LevelUpdated");
        assertEq(_logs(logs, address(market), IMarket.OrdersCancelled.selector).length, 1, "one OrdersCancelled");
        assertEq(margin, 216e18);
        assertEq(_acct(a).committedWad, 0);
        assertEq(uint256(_order(ids[2]).status), uint256(IMarket.OrderStatus.ACTIVE));
        _checkAll();
    }

    function test_deadman_strangerCancelsOnlyAfterTheDeadline() public {
        uint256[] memory ids = new uint256[](2);
        ids[0] = _limit(alice, a, LONG, 108e6, 10, 1.0799e18);
        ids[1] = _limit(alice, a, SHORT, 108e6, 10, 1.0809e18);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        engine.cancelOrders(a, EUR, ids);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.DeadmanTooSoon.selector, block.timestamp + 4, block.timestamp + 5));
        engine.setDeadman(a, uint64(block.timestamp + 4));
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        engine.setDeadman(a, uint64(block.timestamp + 60));
        vm.prank(alice);
        engine.setDeadman(a, uint64(block.timestamp + 10));
        assertEq(engine.deadmanOf(a), block.timestamp + 10);
        vm.warp(block.timestamp + 9);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        engine.cancelOrders(a, EUR, ids);
        vm.warp(block.timestamp + 1);
        uint64 seq = _nextSeq(address(market));
        uint256 available = _acct(a).availableWad;
        vm.expectEmit(true, true, true, true, address(market));
        emit IMarket.OrdersCancelled(seq, a, IMarket.CloseReason.DEADMAN, 216e18, ids);
        vm.prank(stranger);
        (uint256 n,) = engine.cancelOrders(a, EUR, ids);
        assertEq(n, 2);
        assertEq(_acct(a).availableWad, available + 216e18 + 2 * ORDER_BOND_WAD, "margins and bonds back to the owner");
        assertEq(token.balanceOf(stranger), 0);
        // refreshed (or turned off): strangers are out again
        vm.prank(alice);
        engine.setDeadman(a, 0);
        ids[0] = _limit(alice, a, LONG, 108e6, 10, 1.0799e18);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        engine.cancelOrders(a, EUR, ids);
        _checkAll();
    }

    function test_cancelOrders_andBatch_tooLarge() public {
        uint256[] memory ids = new uint256[](33);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BatchTooLarge.selector, 33, 32));
        engine.cancelOrders(a, EUR, ids);
        bytes[] memory calls = new bytes[](33);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BatchTooLarge.selector, 33, 32));
        engine.batch(calls, false);
    }

    // ─── batch ───────────────────────────────────────────────────────────────────────────

    function _batchOf(bytes32 key) internal view returns (bytes[] memory calls) {
        calls = new bytes[](3);
        IEngine.PlaceOrderParams memory ok = _p(a, LONG, LMT, 108e6, 10, 1.0799e18, GTC, false, 0);
        ok.clientKey = key;
        calls[0] = abi.encodeCall(IEngine.placeOrder, (ok));
        calls[1] = abi.encodeCall(IEngine.placeOrder, (_p(a, LONG, LMT, 108e6, 10, 1.07995e18 + 1, GTC, false, 0)));
        calls[2] = abi.encodeCall(IEngine.setDeadman, (a, uint64(block.timestamp + 30)));
    }

    function test_batch_eachItemOnItsOwn() public {
        vm.prank(alice);
        (bool[] memory ok, bytes[] memory res) = engine.batch(_batchOf(bytes32("k1")), false);
        assertTrue(ok[0]);
        assertFalse(ok[1]);
        assertTrue(ok[2]);
        assertEq(keccak256(res[1]), keccak256(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, 1.07995e18 + 1)));
        (uint256 id,,,) = abi.decode(res[0], (uint256, bytes32, uint256, IMarket.OrderStatus));
        assertEq(market.orderIdOf(a, bytes32("k1")), id);
        assertEq(engine.deadmanOf(a), block.timestamp + 30);
        _checkAll();
    }

    function test_batch_atomicRevertsWithTheFailingItem() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, 1.07995e18 + 1));
        engine.batch(_batchOf(bytes32("k1")), true);
        assertEq(market.orderIdOf(a, bytes32("k1")), 0);
        assertEq(engine.deadmanOf(a), 0);
    }

    /// A batch is the caller's calls: a stranger's batch acting for alice fails item by item.
    function test_batch_keepsTheCallersAuthorization() public {
        vm.prank(stranger);
        (bool[] memory ok, bytes[] memory res) = engine.batch(_batchOf(bytes32("k1")), false);
        for (uint256 i; i < 3; ++i) {
            assertFalse(ok[i]);
            assertEq(keccak256(res[i]), keccak256(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger)));
        }
    }

    /// A batch refuses to run inside a batch: that item fails, the others stand.
    function test_batch_insideABatchFails() public {
        bytes[] memory inner = new bytes[](1);
        inner[0] = abi.encodeCall(IEngine.setDeadman, (a, uint64(block.timestamp + 30)));
        bytes[] memory calls = new bytes[](2);
        calls[0] = abi.encodeCall(IEngine.batch, (inner, false));
        calls[1] = abi.encodeCall(IEngine.placeOrder, (_p(a, LONG, LMT, 108e6, 10, 1.0799e18, GTC, false, 0)));
        vm.prank(alice);
        (bool[] memory ok, bytes[] memory res) = engine.batch(calls, false);
        assertFalse(ok[0]);
        assertEq(keccak256(res[0]), keccak256(abi.encodeWithSelector(IVenueErrors.InvalidParameters.selector)));
        assertTrue(ok[1]);
        assertEq(engine.deadmanOf(a), 0);
    }

    bytes32 internal constant FUNDING_SIG =
        keccak256("FundingUpdated(uint64,int256,int256,int256,int256,int256,uint256,uint256,int256,uint256,uint256,uint256)");

    /// A maker's requote of `n` orders as one batch's items: resting bids and asks in EUR, a cancel
    /// of its order `old`, a GBP bid, and an IOC that takes bob's ask (a fill: open interest moves).
    function _requote(uint256 n, uint256 old) internal view returns (bytes[] memory calls) {
        calls = new bytes[](n + 3);
        for (uint256 i; i < n; ++i) {
            bool bid = i % 2 == 0;
            uint256 px = bid ? 1.0790e18 - i * 1e14 : 1.0830e18 + i * 1e14;
            calls[i] = abi.encodeCall(IEngine.placeOrder, (_p(a, bid ? LONG : SHORT, LMT, 10e6, 10, px, GTC, false, 0)));
        }
        calls[n] = abi.encodeCall(IEngine.cancelOrderById, (a, EUR, old));
        calls[n + 1] = abi.encodeCall(IEngine.placeOrder, (_params(a, GBP, LONG, LMT, 10e6, 10, 1.2690e18, bytes32(0))));
        calls[n + 2] = abi.encodeCall(IEngine.placeOrder, (_p(a, LONG, LMT, 10e6, 10, 1.0815e18, IOC, false, 0)));
    }

    /// What funding and money look like after a requote, per market and for alice.
    function _fundingState() internal view returns (bytes32) {
        return keccak256(
            abi.encode(market.funding(), gbp.funding(), market.markPrice(), gbp.markPrice(), engine.getAccount(a), market.getPosition(a))
        );
    }

    /// A batch's placements leave their rate update to its end (one FundingUpdated per market),
    /// and the batch leaves funding, the marks, alice's money and position exactly as the same
    /// calls sent one by one in that second: for 1, 4 and 10 placements besides a cancel, a
    /// placement in the other market and a fill.
    function test_batch_settlesTheRateOnceAsTheSameCallsSentAlone() public {
        _limit(bob, b, SHORT, 100e6, 10, 1.081e18);
        uint256 old = _limit(alice, a, LONG, 10e6, 10, 1.078e18);
        vm.prank(carol);
        engine.placeOrder(_params(c, GBP, SHORT, LMT, 100e6, 10, 1.2710e18, bytes32(0)));
        vm.roll(block.number + 1);
        vm.warp(block.timestamp + 60); // the first item accrues a minute of funding
        _refreshPrices();
        uint256[3] memory sizes = [uint256(1), 4, 10];
        for (uint256 k; k < sizes.length; ++k) {
            bytes[] memory calls = _requote(sizes[k], old);
            uint256 snap = vm.snapshotState();
            for (uint256 i; i < calls.length; ++i) {
                vm.prank(alice);
                (bool ok,) = address(engine).call(calls[i]);
                assertTrue(ok, "each call alone");
            }
            bytes32 alone = _fundingState();
            vm.revertToState(snap);
            vm.recordLogs();
            vm.prank(alice);
            (bool[] memory oks,) = engine.batch(calls, false);
            for (uint256 i; i < oks.length; ++i) assertTrue(oks[i], "each item");
            Vm.Log[] memory logs = vm.getRecordedLogs();
            assertEq(_logs(logs, address(market), FUNDING_SIG).length, 1, "one EUR rate update");
            assertEq(_logs(logs, address(gbp), FUNDING_SIG).length, 1, "one GBP rate update");
            assertEq(_fundingState(), alone, "as the calls sent alone");
            _checkAll();
            vm.revertToState(snap);
        }
    }

    // ─── modify ──────────────────────────────────────────────────────────────────────────

    function _modify(address who, uint256 id, uint256 orderId, bytes32 key, uint256 px, uint256 qty) internal {
        vm.prank(who);
        engine.modifyOrder(id, EUR, orderId, key, px, qty);
    }

    function test_modify_shrinkKeepsPriorityAndReleasesMargin() public {
        uint256 first = _limit(alice, a, LONG, 108e6, 10, 1.0799e18); // 1000
        uint256 second = _limit(bob, b, LONG, 108e6, 10, 1.0799e18);
        uint256 committed = _acct(a).committedWad;
        _modify(alice, a, first, bytes32(0), 1.0799e18, 500e18);
        IMarket.OrderView memory o = _order(first);
        assertEq(o.remainingQty, 500e18);
        uint256 left = _qty(108e6, 10, 1.0799e18);
        uint256 m = _ceilDiv(108e6 * 500e18, left) * TO_WAD;
        assertEq(o.marginRemainingWad, m, "margin follows the notional (rounded up to 1e-6)");
        assertEq(_acct(a).committedWad, committed - (108e18 - m));
        (, uint256[] memory totals, uint256[] memory counts) = market.getLevels(LONG, 1);
        assertEq(totals[0], 500e18 + left);
        assertEq(counts[0], 2);
        // alice is still first in time: a taker of 500 fills her order alone
        _market(carol, c, SHORT, 54e6, 10);
        assertEq(_pos(a).sizeQty, 500e18, "alice's order filled first, whole");
        assertEq(_pos(a).sizeQty + _pos(b).sizeQty, -_pos(c).sizeQty, "bob only after her");
        _checkAll();
    }

    function test_modify_priceOrGrowthMovesToTheTail() public {
        uint256 first = _limit(alice, a, LONG, 108e6, 10, 1.0799e18);
        _limit(bob, b, LONG, 108e6, 10, 1.0798e18);
        bytes32 key = _keyOf(first);
        // by client key, to bob's level: behind bob
        _modify(alice, a, 0, key, 1.0798e18, 1_000e18);
        IMarket.OrderView memory o = _order(first);
        assertEq(o.priceX18, 1.0798e18);
        assertEq(o.orderId, first, "the id stays");
        assertEq(market.orderIdOf(a, key), first, "the key stays");
        assertEq(_bestBid(), 1.0798e18, "the old level is gone");
        _market(carol, c, SHORT, 54e6, 10); // ~500 at 1.0798: bob's first
        assertEq(_pos(b).sizeQty, -_pos(c).sizeQty);
        assertEq(_pos(a).sizeQty, 0);
        // growth at the same price: to the tail, its margin up with its notional
        uint256 committed = _acct(a).committedWad;
        _modify(alice, a, first, bytes32(0), 1.0798e18, 2_000e18);
        assertEq(_acct(a).committedWad - committed, _order(first).marginRemainingWad - (committed - ORDER_BOND_WAD));
        _checkAll();
    }

    function test_modify_refusals() public {
        uint256 id = _limit(alice, a, LONG, 108e6, 10, 1.0799e18);
        _limit(bob, b, SHORT, 108e6, 10, 1.0805e18);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PostOnlyWouldCross.selector, 1.0805e18, 1.0805e18));
        _modify(alice, a, id, bytes32(0), 1.0805e18, 1_000e18);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, 1.07995e18 + 1));
        _modify(alice, a, id, bytes32(0), 1.07995e18 + 1, 1_000e18);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderTooSmall.selector, 0.5e18, MIN_QTY));
        _modify(alice, a, id, bytes32(0), 1.0799e18, 0.5e18);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, b, bytes32(id)));
        _modify(bob, b, id, bytes32(0), 1.0799e18, 500e18);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        engine.modifyOrder(a, EUR, id, bytes32(0), 1.0799e18, 500e18);
        // expired: not found
        uint64 exp = uint64(block.timestamp + 30);
        (uint256 gtt,,) = _opt(alice, _p(a, LONG, LMT, 108e6, 10, 1.0797e18, GTC, false, exp));
        vm.warp(exp);
        _refreshPrices();
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, a, bytes32(gtt)));
        _modify(alice, a, gtt, bytes32(0), 1.0797e18, 500e18);
    }

    /// Any sequence of modifies keeps the book, the resting totals and the committed margin exact.
    function testFuzz_modify(uint256 seed) public {
        uint256[] memory ids = new uint256[](3);
        for (uint256 i; i < 3; ++i) ids[i] = _limit(alice, a, i == 2 ? SHORT : LONG, 54e6, 10, i == 2 ? 1.0805e18 : 1.0795e18 - i * 1e14);
        for (uint256 k; k < 8; ++k) {
            uint256 r = uint256(keccak256(abi.encode(seed, k)));
            uint256 i = r % 3;
            uint256 px = i == 2 ? 1.0801e18 + (r >> 8) % 50 * 1e13 : 1.0790e18 + (r >> 8) % 90 * 1e13;
            uint256 qty = (1 + (r >> 16) % 2_000) * 1e18;
            vm.prank(alice);
            try engine.modifyOrder(a, EUR, ids[i], bytes32(0), px, qty) {
                IMarket.OrderView memory o = _order(ids[i]);
                assertEq(o.priceX18, px);
                assertEq(o.remainingQty, qty);
            } catch (bytes memory err) {
                bytes4 sel = bytes4(err);
                assertTrue(sel == IVenueErrors.PostOnlyWouldCross.selector || sel == IVenueErrors.InsufficientMargin.selector, "unexpected revert");
            }
            _checkAll();
        }
    }


    // ─── market status ───────────────────────────────────────────────────────────────────

    function _setStatus(IMarket.MarketStatus st) internal {
        engine.setMarketStatus(EUR, st); // the fixture's admin holds GUARDIAN_ROLE
        assertEq(uint256(market.status()), uint256(st));
    }

    function test_status_eachModeLetsThroughWhatItSays() public {
        uint256 ask = _limit(bob, b, SHORT, 108e6, 10, 1.0805e18);
        _market(alice, a, LONG, 10.8e6, 10); // alice long ~100
        uint256 bid = _limit(carol, c, LONG, 108e6, 10, 1.0795e18);
        bytes memory postOnly = abi.encodeWithSelector(IVenueErrors.MarketPostOnly.selector, EUR);
        bytes memory cancelOnly = abi.encodeWithSelector(IVenueErrors.MarketCancelOnly.selector, EUR);
        bytes memory reduceOnly = abi.encodeWithSelector(IVenueErrors.MarketReduceOnly.selector, EUR);

        _setStatus(IMarket.MarketStatus.POST_ONLY);
        vm.expectRevert(postOnly);
        _limit(bob, b, SHORT, 108e6, 10, 1.0806e18);
        vm.expectRevert(postOnly);
        _market(alice, a, LONG, 10.8e6, 10);
        vm.prank(alice);
        vm.expectRevert(postOnly);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        _opt(bob, _p(b, SHORT, LMT, 108e6, 10, 1.0806e18, POST, false, 0)); // a maker's order passes
        _modify(carol, c, bid, bytes32(0), 1.0794e18, 500e18); // a modify never takes: passes

        _setStatus(IMarket.MarketStatus.CANCEL_ONLY);
        vm.expectRevert(cancelOnly);
        _opt(bob, _p(b, SHORT, LMT, 108e6, 10, 1.0807e18, POST, false, 0));
        vm.prank(alice);
        vm.expectRevert(cancelOnly);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        vm.prank(carol);
        vm.expectRevert(cancelOnly);
        engine.modifyOrder(c, EUR, bid, bytes32(0), 1.0793e18, 500e18);
        vm.prank(bob);
        engine.cancelOrderById(b, EUR, ask); // cancels work in every status

        _setStatus(IMarket.MarketStatus.REDUCE_ONLY);
        vm.expectRevert(reduceOnly);
        _limit(bob, b, SHORT, 108e6, 10, 1.0807e18);
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0)); // into carol's bid
        assertEq(_pos(a).sizeQty, 0);

        _setStatus(IMarket.MarketStatus.ACTIVE);
        _limit(bob, b, SHORT, 108e6, 10, 1.0807e18);
        engine.setMarketActive(EUR, false);
        assertEq(uint256(market.status()), uint256(IMarket.MarketStatus.PAUSED));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidParameters.selector));
        engine.setMarketStatus(EUR, IMarket.MarketStatus.CLOSED);
        vm.prank(stranger);
        vm.expectRevert();
        engine.setMarketStatus(EUR, IMarket.MarketStatus.CANCEL_ONLY);
        _checkAll();
    }

    function test_status_closedByTheCalendar() public {
        _testCalendar(EUR);
        _toSession(EUR, IMarket.Session.REDUCE_ONLY);
        assertEq(uint256(market.status()), uint256(IMarket.MarketStatus.REDUCE_ONLY));
        _toSession(EUR, IMarket.Session.CLOSED);
        assertEq(uint256(market.status()), uint256(IMarket.MarketStatus.CLOSED));
    }

    error Accepted();

    /// Runs a placement (or a MARKET close when `close`) as `who`, then undoes it (`Accepted`).
    function probe(address who, IEngine.PlaceOrderParams memory p, bool close) external {
        vm.prank(who);
        if (close) engine.closePosition(p.accountId, EUR, MKT, 0, bytes32(0));
        else engine.placeOrder(p);
        revert Accepted();
    }

    /// Whether the market takes it now; a refusal must be one of the status errors.
    function _takes(address who, IEngine.PlaceOrderParams memory p, bool close) internal returns (bool) {
        (bool ok, bytes memory r) = address(this).call(abi.encodeCall(this.probe, (who, p, close)));
        assertFalse(ok);
        bytes4 s = bytes4(r);
        if (s == Accepted.selector) return true;
        assertTrue(
            s == IVenueErrors.MarketNotActive.selector || s == IVenueErrors.MarketCancelOnly.selector
                || s == IVenueErrors.MarketPostOnly.selector || s == IVenueErrors.MarketReduceOnly.selector,
            "refused for another reason than the status"
        );
        return false;
    }

    /// Property: whatever the guardian's mode, the pause and the session (the window before a
    /// close), `status()` says what passes: ACTIVE all; POST_ONLY orders that do not take;
    /// REDUCE_ONLY and PAUSED reduce-only orders (a MARKET close among them); CANCEL_ONLY none.
    /// Four orders each time: an opening post-only bid, an opening MARKET buy, a MARKET close and
    /// a reduce-only post-only ask.
    function test_status_saysWhatPasses_everyModePauseAndWindow() public {
        _limit(bob, b, SHORT, 108e6, 10, 1.0805e18);
        _market(alice, a, LONG, 10.8e6, 10); // alice long ~100
        _limit(bob, b, SHORT, 108e6, 10, 1.0806e18);
        _limit(carol, c, LONG, 108e6, 10, 1.0795e18);
        IEngine.PlaceOrderParams memory openBid = _p(a, LONG, LMT, 5e6, 10, 1.0790e18, POST, false, 0);
        IEngine.PlaceOrderParams memory openBuy = _p(a, LONG, MKT, 5e6, 10, 0, GTC, false, 0);
        IEngine.PlaceOrderParams memory closeAsk = _p(a, SHORT, LMT, 2e6, 10, 1.0810e18, POST, true, 0);
        for (uint256 w; w < 2; ++w) {
            if (w == 1) _toSession(EUR, IMarket.Session.REDUCE_ONLY);
            for (uint256 mode; mode < 4; ++mode) {
                for (uint256 paused; paused < 2; ++paused) {
                    engine.setMarketStatus(EUR, IMarket.MarketStatus(mode));
                    engine.setMarketActive(EUR, paused == 0);
                    IMarket.MarketStatus st = market.status();
                    bool all = st == IMarket.MarketStatus.ACTIVE;
                    bool reducing = all || st == IMarket.MarketStatus.REDUCE_ONLY || st == IMarket.MarketStatus.PAUSED;
                    bool making = all || st == IMarket.MarketStatus.POST_ONLY;
                    assertEq(_takes(alice, openBid, false), making, "an opening post-only bid");
                    assertEq(_takes(alice, openBuy, false), all, "an opening MARKET buy");
                    assertEq(_takes(alice, openBid, true), reducing, "a MARKET close");
                    assertEq(_takes(alice, closeAsk, false), reducing || making, "a reduce-only post-only ask");
                }
            }
        }
        engine.setMarketActive(EUR, true);
        engine.setMarketStatus(EUR, IMarket.MarketStatus.ACTIVE);
        _checkAll();
    }

    // ─── properties ──────────────────────────────────────────────────────────────────────

    /// Any time in force against a random book: post-only never matches, IOC and MARKET never
    /// rest, FOK fills whole or reverts; the accounting holds after each step.
    function testFuzz_timeInForce(uint8 tifRaw, uint16 off, uint32 coll, bool buy, bool limit) public {
        for (uint256 i; i < 4; ++i) {
            _limit(bob, b, SHORT, 20e6, 10, 1.0801e18 + i * 1e14);
            _limit(carol, c, LONG, 20e6, 10, 1.0799e18 - i * 1e14);
        }
        IMarket.TimeInForce tif = IMarket.TimeInForce(tifRaw % 4);
        uint256 px = limit ? (buy ? 1.0790e18 : 1.0780e18) + uint256(off % 300) * 1e14 : 0;
        uint256 coll6 = 10e6 + uint256(coll) % 500e6;
        IEngine.PlaceOrderParams memory p = _p(a, buy ? LONG : SHORT, limit ? LMT : MKT, coll6, 10, px, tif, false, 0);
        vm.prank(alice);
        try engine.placeOrder(p) returns (uint256 id, bytes32, uint256 q, IMarket.OrderStatus st) {
            uint256 size = VenueMathAbs.abs(_pos(a).sizeQty);
            if (tif == POST) {
                assertEq(size, 0, "post-only matched");
                assertEq(uint256(st), uint256(IMarket.OrderStatus.ACTIVE));
            }
            if (tif == IOC || tif == FOK || !limit) assertTrue(st != IMarket.OrderStatus.ACTIVE, "rests");
            if (tif == FOK) assertEq(size, q, "FOK filled part");
            if (st == IMarket.OrderStatus.ACTIVE) assertEq(_order(id).remainingQty + size, q);
        } catch (bytes memory err) {
            bytes4 sel = bytes4(err);
            assertTrue(
                sel == IVenueErrors.PostOnlyWouldCross.selector || sel == IVenueErrors.FillOrKillUnfilled.selector
                    || sel == IVenueErrors.InvalidOrderOptions.selector || sel == IVenueErrors.InvalidPrice.selector
                    || sel == IVenueErrors.OrderTooSmall.selector,
                "unexpected revert"
            );
        }
        _checkAll();
    }
}

library VenueMathAbs {
    function abs(int256 x) internal pure returns (uint256) {
        return x >= 0 ? uint256(x) : uint256(-x);
    }
}
