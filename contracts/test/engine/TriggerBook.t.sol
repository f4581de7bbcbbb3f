// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {ITriggerBook} from "../../src/interfaces/ITriggerBook.sol";

/// Take-profit and stop-loss (docs/CONTRACTS.md "Triggers"): set on a position, fired by anyone
/// once the mark reaches them, the order the owner's, under the setting operator's policy.
contract TriggerBookTest is VenueFixture {
    ITriggerBook.TriggerKind internal constant TP = ITriggerBook.TriggerKind.TAKE_PROFIT;
    ITriggerBook.TriggerKind internal constant SL = ITriggerBook.TriggerKind.STOP_LOSS;
    bytes32 internal constant EXECUTED_SIG = keccak256("TriggerExecuted(uint64,uint256,bytes32,uint8,uint256,uint256,address)");
    bytes32 internal constant REMOVED_SIG = keccak256("TriggerRemoved(uint64,uint256,bytes32,uint8,uint8)");

    uint256 internal a;
    uint256 internal b;
    uint256 internal c;
    address internal relayer = address(0x4E1A7E4);

    function setUp() public override {
        super.setUp();
        a = _account(alice, 10_000e6);
        b = _account(bob, 100_000e6);
        c = _account(carol, 100_000e6);
    }

    /// Alice holds `side` (about 925 EUR at 1.08, 10×) against bob's resting order.
    function _open(IMarket.Side side) internal returns (uint256 qty) {
        _limit(bob, b, side == LONG ? SHORT : LONG, 100e6, 10, side == LONG ? 1.0801e18 : 1.0799e18);
        _market(alice, a, side, 100e6, 10);
        qty = _abs(_pos(a).sizeQty);
        assertGt(qty, 0);
    }

    function _abs(int256 x) internal pure returns (uint256) {
        return uint256(x >= 0 ? x : -x);
    }

    function _set(address who, ITriggerBook.TriggerKind kind, uint256 trig, IMarket.OrderType t, uint256 limit, bool oco) internal {
        vm.prank(who);
        triggers.setTrigger(a, EUR, kind, trig, t, limit, oco);
    }

    uint256[] internal carolOrders;

    /// Moves the index (and so the mark) to `px`, with carol's liquidity on both sides around it
    /// (her earlier quotes cancelled) for the trigger's close to meet.
    function _moveTo(uint256 px) internal {
        vm.prank(carol);
        engine.cancelOrders(c, EUR, carolOrders);
        delete carolOrders;
        _setPrice(EUR, px);
        _setPrice(GBP, GBP_PX);
        carolOrders.push(_limit(carol, c, LONG, 1_000e6, 5, px - 5e13));
        carolOrders.push(_limit(carol, c, SHORT, 1_000e6, 5, px + 5e13));
    }

    function _removedReason(ITriggerBook.TriggerKind kind) internal returns (bool found, ITriggerBook.TriggerEnd reason) {
        Vm.Log[] memory logs = _logs(vm.getRecordedLogs(), address(triggers), REMOVED_SIG);
        for (uint256 i; i < logs.length; ++i) {
            (, ITriggerBook.TriggerKind k, ITriggerBook.TriggerEnd r) = abi.decode(logs[i].data, (uint64, ITriggerBook.TriggerKind, ITriggerBook.TriggerEnd));
            if (k == kind) return (true, r);
        }
    }

    // ─── setting ─────────────────────────────────────────────────────────────────────────

    function test_set_storesTheOwnersOrderAndThePosition() public {
        _open(LONG);
        uint256 mark = market.markPrice();
        _set(alice, TP, mark + 1e16, LMT, mark + 9e15, true);
        ITriggerBook.TriggerView memory v = triggers.triggerOf(a, EUR, TP);
        assertTrue(v.set);
        assertEq(v.triggerPriceX18, mark + 1e16);
        assertEq(uint256(v.orderType), uint256(LMT));
        assertEq(v.limitPriceX18, mark + 9e15);
        assertTrue(v.oco);
        assertEq(uint256(v.positionSide), uint256(LONG));
        assertEq(v.openBlock, _pos(a).openBlock);
        assertEq(v.operator, address(0));
        assertFalse(triggers.triggerOf(a, EUR, SL).set);
    }

    function test_set_refusals() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoPosition.selector, a, EUR));
        triggers.setTrigger(a, EUR, TP, 1.1e18, MKT, 0, false);
        _open(LONG);
        uint256 mark = market.markPrice();
        // a long's take-profit at or below the mark, its stop-loss at or above it: it would fire at once
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidTrigger.selector, mark, mark));
        _set(alice, TP, mark, MKT, 0, false);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidTrigger.selector, mark - 1, mark));
        _set(alice, TP, mark - 1, MKT, 0, false);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidTrigger.selector, mark + 1, mark));
        _set(alice, SL, mark + 1, MKT, 0, false);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidTrigger.selector, 0, mark));
        _set(alice, SL, 0, MKT, 0, false);
        // LIMIT needs its price, MARKET has none
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, 0));
        _set(alice, TP, mark + 1e16, LMT, 0, false);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, 1.09e18));
        _set(alice, TP, mark + 1e16, MKT, 1.09e18, false);
        // a stranger, an unknown account or market
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        triggers.setTrigger(a, EUR, TP, mark + 1e16, MKT, 0, false);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.AccountNotFound.selector, 999));
        triggers.setTrigger(999, EUR, TP, mark + 1e16, MKT, 0, false);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketNotFound.selector, bytes32("XYZ")));
        triggers.setTrigger(a, bytes32("XYZ"), TP, mark + 1e16, MKT, 0, false);
        assertFalse(triggers.triggerOf(a, EUR, TP).set);
        assertFalse(triggers.triggerOf(a, EUR, SL).set);
    }

    function test_cancel_ownerOrOperatorOnly() public {
        _open(SHORT);
        uint256 mark = market.markPrice();
        _set(alice, TP, mark - 1e16, MKT, 0, false);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        triggers.cancelTrigger(a, EUR, TP);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.TriggerNotFound.selector, a, EUR, uint256(SL)));
        triggers.cancelTrigger(a, EUR, SL);
        vm.recordLogs();
        vm.prank(alice);
        triggers.cancelTrigger(a, EUR, TP);
        (bool found, ITriggerBook.TriggerEnd reason) = _removedReason(TP);
        assertTrue(found);
        assertEq(uint256(reason), uint256(ITriggerBook.TriggerEnd.CANCELLED));
        assertFalse(triggers.triggerOf(a, EUR, TP).set);
    }

    // ─── firing ──────────────────────────────────────────────────────────────────────────

    function test_takeProfit_long_firesOnlyOnceReachedAndClosesWhole() public {
        _open(LONG);
        uint256 trig = 1.09e18;
        _set(alice, TP, trig, MKT, 0, false);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.TriggerNotReached.selector, trig, market.markPrice()));
        triggers.executeTrigger(a, EUR, TP);
        _moveTo(1.0925e18);
        uint256 mark = market.markPrice();
        assertGe(mark, trig);
        uint256 keeperBefore = token.balanceOf(stranger);
        vm.recordLogs();
        vm.prank(stranger);
        uint256 orderId = triggers.executeTrigger(a, EUR, TP);
        assertEq(_pos(a).sizeQty, 0, "closed whole");
        assertGt(orderId, 0);
        assertFalse(triggers.triggerOf(a, EUR, TP).set);
        assertEq(token.balanceOf(stranger), keeperBefore, "the executor gains nothing");
        Vm.Log[] memory ex = _logs(vm.getRecordedLogs(), address(triggers), EXECUTED_SIG);
        assertEq(ex.length, 1);
        (, ITriggerBook.TriggerKind k, uint256 oid, uint256 m, address executor) =
            abi.decode(ex[0].data, (uint64, ITriggerBook.TriggerKind, uint256, uint256, address));
        assertEq(uint256(k), uint256(TP));
        assertEq(oid, orderId);
        assertEq(m, mark);
        assertEq(executor, stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.TriggerNotFound.selector, a, EUR, uint256(TP)));
        triggers.executeTrigger(a, EUR, TP);
        _checkAll();
    }

    function test_stopLoss_short_limitRestsAtTheOwnersPrice() public {
        _open(SHORT);
        uint256 trig = 1.085e18;
        uint256 limit = 1.0852e18;
        _set(alice, SL, trig, LMT, limit, false);
        _setPrice(EUR, 1.086e18);
        _setPrice(GBP, GBP_PX);
        uint256 mark = market.markPrice();
        assertGe(mark, trig);
        // no ask at or below the limit: the owner's LIMIT buy rests, reduce-only, at its price
        vm.prank(keeper);
        uint256 orderId = triggers.executeTrigger(a, EUR, SL);
        IMarket.OrderView memory o = _order(orderId);
        assertEq(uint256(o.side), uint256(LONG));
        assertEq(o.priceX18, limit);
        assertEq(uint256(o.status), uint256(IMarket.OrderStatus.ACTIVE));
        assertTrue(o.reduceOnly);
        assertEq(o.remainingQty, _abs(_pos(a).sizeQty));
        _checkAll();
    }

    function test_oco_firingRemovesTheTwin_otherwiseItStays() public {
        _open(LONG);
        uint256 mark = market.markPrice();
        _set(alice, TP, mark + 2e16, MKT, 0, true);
        _set(alice, SL, mark - 5e15, MKT, 0, true);
        _moveTo(1.074e18);
        vm.recordLogs();
        vm.prank(keeper);
        triggers.executeTrigger(a, EUR, SL);
        (bool found, ITriggerBook.TriggerEnd reason) = _removedReason(TP);
        assertTrue(found);
        assertEq(uint256(reason), uint256(ITriggerBook.TriggerEnd.TWIN_FIRED));
        assertFalse(triggers.triggerOf(a, EUR, TP).set);
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }

    function test_notOco_theOtherEndsWithThePosition() public {
        _open(LONG);
        uint256 mark = market.markPrice();
        _set(alice, TP, mark + 2e16, MKT, 0, false);
        _set(alice, SL, mark - 5e15, MKT, 0, true); // oco alone: its twin is not
        _moveTo(1.074e18);
        vm.prank(keeper);
        triggers.executeTrigger(a, EUR, SL);
        assertTrue(triggers.triggerOf(a, EUR, TP).set, "not oco: kept");
        // the position it was set on is gone: removed, nothing placed, 0
        _moveTo(1.11e18);
        vm.recordLogs();
        vm.prank(keeper);
        assertEq(triggers.executeTrigger(a, EUR, TP), 0);
        (bool found, ITriggerBook.TriggerEnd reason) = _removedReason(TP);
        assertTrue(found);
        assertEq(uint256(reason), uint256(ITriggerBook.TriggerEnd.POSITION_CHANGED));
        assertEq(_pos(a).sizeQty, 0);
    }

    /// Closed and opened again on the same side in a later block: another position, not the trigger's.
    function test_positionReopened_triggerVoid() public {
        _open(LONG);
        uint256 mark = market.markPrice();
        _set(alice, SL, mark - 1e16, MKT, 0, false);
        // close by hand, then open again later
        carolOrders.push(_limit(carol, c, LONG, 1_000e6, 5, 1.0799e18));
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 0);
        vm.roll(block.number + 1);
        vm.warp(block.timestamp + 1);
        _open(LONG);
        _moveTo(1.06e18);
        uint256 sizeBefore = uint256(_pos(a).sizeQty);
        vm.prank(keeper);
        assertEq(triggers.executeTrigger(a, EUR, SL), 0);
        assertEq(uint256(_pos(a).sizeQty), sizeBefore, "the new position untouched");
        assertFalse(triggers.triggerOf(a, EUR, SL).set);
    }

    function test_executionThatCannotPlaceReverts_triggerKept() public {
        _open(LONG);
        uint256 mark = market.markPrice();
        _set(alice, SL, mark - 5e15, MKT, 0, false);
        _moveTo(1.074e18);
        engine.setMarketStatus(EUR, IMarket.MarketStatus.CANCEL_ONLY);
        vm.prank(keeper);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketCancelOnly.selector, EUR));
        triggers.executeTrigger(a, EUR, SL);
        assertTrue(triggers.triggerOf(a, EUR, SL).set);
        engine.setMarketStatus(EUR, IMarket.MarketStatus.ACTIVE);
        vm.prank(keeper);
        triggers.executeTrigger(a, EUR, SL);
        assertEq(_pos(a).sizeQty, 0);
    }

    function test_closePositionFor_onlyTheTriggerBook() public {
        _open(LONG);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, alice));
        engine.closePositionFor(a, EUR, address(0), MKT, 0);
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        engine.setTriggerBook(address(0xBEEF));
    }

    // ─── operators ───────────────────────────────────────────────────────────────────────

    function _approve(uint16 band, uint16 budget) internal {
        vm.prank(alice);
        engine.setOperator(relayer, uint64(block.timestamp + 30 days), IEngine.OperatorPolicy(10, band, budget));
    }

    function test_operator_revokedBeforeFiring_triggerVoid() public {
        _open(LONG);
        _approve(200, 10_000);
        uint256 mark = market.markPrice();
        _set(relayer, SL, mark - 5e15, MKT, 0, false);
        assertEq(triggers.triggerOf(a, EUR, SL).operator, relayer);
        vm.prank(alice);
        engine.setOperator(relayer, 0, IEngine.OperatorPolicy(0, 0, 0));
        _moveTo(1.074e18);
        vm.recordLogs();
        vm.prank(keeper);
        assertEq(triggers.executeTrigger(a, EUR, SL), 0);
        (bool found, ITriggerBook.TriggerEnd reason) = _removedReason(SL);
        assertTrue(found);
        assertEq(uint256(reason), uint256(ITriggerBook.TriggerEnd.OPERATOR_REVOKED));
        assertGt(_pos(a).sizeQty, 0, "the position stays");
    }

    /// An operator's trigger fires within its band and is charged to its budget, as its own close would be.
    function test_operator_bandAndBudgetApplyWhenItFires() public {
        _open(LONG);
        _approve(20, 1); // 0.2 % band, a budget of 1 bp of the account's value
        uint256 mark = market.markPrice();
        // a LIMIT sell within the market's price band but beyond the operator's band at the mark then
        _set(relayer, SL, mark - 5e15, LMT, 1.07e18, false);
        _moveTo(1.074e18);
        vm.prank(keeper);
        vm.expectPartialRevert(IVenueErrors.OperatorPriceTooFar.selector);
        triggers.executeTrigger(a, EUR, SL);
        assertTrue(triggers.triggerOf(a, EUR, SL).set, "kept");
        // a MARKET one: the budget is charged to the relayer (and a budget too small refuses it)
        _set(relayer, SL, market.markPrice() - 5e15, MKT, 0, false);
        _moveTo(1.069e18);
        vm.prank(keeper);
        vm.expectPartialRevert(IVenueErrors.OperatorLimitExceeded.selector);
        triggers.executeTrigger(a, EUR, SL);
        _approve(20, 10_000);
        vm.prank(keeper);
        triggers.executeTrigger(a, EUR, SL);
        assertEq(_pos(a).sizeQty, 0);
        assertGt(engine.operatorState(alice, relayer).usedWad, 0, "charged to the relayer");
        _checkAll();
    }

    // ─── property: a trigger fires exactly when its mark is reached; it only ever reduces ─

    struct FuzzCase {
        bool long;
        ITriggerBook.TriggerKind kind;
        uint256 trig;
        uint256 limit;
        bool up;
        uint256 qty;
    }

    function testFuzz_firesIffReached_onlyReduces(bool long, bool takeProfit, uint256 offsetBps, uint256 moveBps, bool limitOrder) public {
        offsetBps = bound(offsetBps, 1, 150);
        moveBps = bound(moveBps, 0, 300);
        FuzzCase memory f;
        f.long = long;
        f.qty = _open(long ? LONG : SHORT);
        f.kind = takeProfit ? TP : SL;
        f.up = takeProfit == long;
        uint256 mark = market.markPrice();
        f.trig = f.up ? mark * (1e4 + offsetBps) / 1e4 : mark * (1e4 - offsetBps) / 1e4;
        // the owner's LIMIT: at the trigger price, on the tick
        f.limit = limitOrder ? f.trig / TICK * TICK : 0;
        _set(alice, f.kind, f.trig, limitOrder ? LMT : MKT, f.limit, false);
        uint256 target = f.up ? EUR_PX * (1e4 + moveBps) / 1e4 : EUR_PX * (1e4 - moveBps) / 1e4;
        _moveTo(target / TICK * TICK);
        _fireAndCheck(f);
    }

    function _fireAndCheck(FuzzCase memory f) internal {
        uint256 now_ = market.markPrice();
        bool reached = f.up ? now_ >= f.trig : now_ <= f.trig;
        vm.prank(keeper);
        try triggers.executeTrigger(a, EUR, f.kind) returns (uint256 orderId) {
            assertTrue(reached, "fired before its mark");
            assertGt(orderId, 0);
            IMarket.OrderView memory o = _order(orderId);
            // one still resting is the owner's LIMIT on the closing side (a filled one is gone)
            if (o.status == IMarket.OrderStatus.ACTIVE) {
                assertEq(uint256(o.side), uint256(f.long ? SHORT : LONG), "the closing side");
                assertEq(o.priceX18, f.limit, "the owner's price");
                assertTrue(o.reduceOnly);
            }
        } catch (bytes memory err) {
            if (!reached) assertEq(bytes4(err), IVenueErrors.TriggerNotReached.selector);
            assertTrue(triggers.triggerOf(a, EUR, f.kind).set, "a failed execution keeps it");
        }
        // never grows or turns the position
        int256 size = _pos(a).sizeQty;
        assertLe(_abs(size), f.qty);
        if (size != 0) assertEq(size > 0, f.long);
        _checkAll();
    }
}
