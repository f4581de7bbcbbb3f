// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// The money-safety rules of issue 10 (docs/CONTRACTS.md "Risk model"), one test per rule.
contract MarketRiskTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;
    uint256 internal d;

    /// The highest price the band allows at mark 1.08: 1.08 × (1 + 94 bps), on the tick.
    uint256 internal constant BAND_ASK = 1.09015e18;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 11_000e6);
        b = _account(bob, 11_000e6);
        c = _account(carol, 100_000e6);
        d = _account(dave, 1_000e6);
    }

    // ─── initial margin ──────────────────────────────────────────────────────────────────

    /// Scenario 1: B rests an ask at the band's edge; A buys it at 50x. Born below initial
    /// margin (0.94 % + fee lost of a 2 % margin) → reverts.
    function test_initialMargin_takerBelowReverts() public {
        _limit(bob, b, SHORT, 10_000e6, 5, BAND_ASK);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BelowInitialMargin.selector, a, EUR));
        engine.placeOrder(_params(a, EUR, LONG, MKT, 1_000e6, 50, 0, bytes32(0)));
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }

    /// The roles swapped: a maker far from the mark is cancelled (MARGIN) instead of filled.
    function test_initialMargin_makerBelowIsCancelled() public {
        uint256 bad = _limit(bob, b, LONG, 1_000e6, 50, BAND_ASK);
        uint256 good = _limit(carol, c, LONG, 1_000e6, 5, 1.07e18);
        vm.recordLogs();
        _market(alice, a, SHORT, 100e6, 5);
        assertEq(uint256(_order(bad).status), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(_pos(b).sizeQty, 0, "the maker was not filled");
        assertLt(_pos(a).sizeQty, 0, "the taker filled against the next maker");
        assertGt(_order(good).filledQty, 0);
        Vm.Log[] memory closed = _logs(vm.getRecordedLogs(), address(market), IMarket.OrderClosed.selector);
        (,, IMarket.CloseReason reason,,,) =
            abi.decode(closed[0].data, (uint64, IMarket.OrderStatus, IMarket.CloseReason, uint256, uint256, uint256));
        assertEq(uint256(reason), uint256(IMarket.CloseReason.MARGIN));
        _checkAll();
    }

    /// Skipped makers have their own budget: they do not use up the fill cap.
    function test_initialMargin_skippedMakersDoNotCountTowardFillCap() public {
        for (uint256 i; i < 60; ++i) _limit(bob, b, LONG, 25e6, 50, BAND_ASK); // 60 bids born below IM
        _limit(carol, c, LONG, 1_000e6, 5, 1.07e18);
        _market(alice, a, SHORT, 100e6, 5);
        assertLt(_pos(a).sizeQty, 0, "filled past 60 skipped makers (cap 50)");
        _checkAll();
    }

    // ─── the mark ────────────────────────────────────────────────────────────────────────

    /// Scenario 2: two one-unit orders pin the book at the band's edge; the mark does not move in
    /// that block, and at most by the clamp (≤ maintenance / 2) later, so a fresh position survives.
    function test_mark_dustCannotMoveIt() public {
        _limit(bob, b, SHORT, 100e6, 5, 1.08e18);
        vm.prank(alice);
        engine.placeOrder(_params(a, EUR, SHORT, LMT, 22.5e6, 48, 1.08e18, bytes32(0)));
        _limit(carol, c, LONG, 100e6, 5, 1.08e18); // alice's short opens against carol
        uint256 bid = BAND_ASK;
        _limit(dave, d, LONG, 2e6, 1, bid);
        assertEq(market.markPrice(), 1.08e18, "dust does not move the mark in its block");
        vm.warp(block.timestamp + 1 hours);
        _setPrice(EUR, 1.08e18);
        assertLe(market.markPrice(), 1.08e18 * 10_050 / 10_000, "at most the clamp");
        assertFalse(_health(a).isLiquidatable, "a fresh position is not liquidatable by dust");
    }

    // ─── liquidation cannot be blocked ───────────────────────────────────────────────────

    function _openAlice() internal {
        _limit(bob, b, SHORT, 216e6, 10, 1.08e18);
        _market(alice, a, LONG, 22.5e6, 48); // +1000 @ 1.08
        assertEq(_pos(a).sizeQty, 1_000e18);
    }

    /// Scenario 4a: the owner's own 60 dust bids at the top of the book do not count.
    function test_liquidate_ownDustOrdersDoNotBlock() public {
        _openAlice();
        for (uint256 i; i < 60; ++i) _limit(alice, a, LONG, 1e6, 2, 1.07e18);
        _setPrice(EUR, 1.0655e18);
        _limit(carol, c, LONG, 2_000e6, 5, 1.06e18); // within the band of the new mark
        assertTrue(_health(a).isLiquidatable);
        vm.prank(keeper);
        engine.liquidatePosition(a, EUR);
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }

    /// Scenario 4b: others' reduce-only orders left over after their positions closed.
    function test_liquidate_leftoverReduceOnlyOrdersDoNotBlock() public {
        _openAlice();
        // dave opens a short, rests 55 reduce-only bids, then closes the short elsewhere
        _limit(carol, c, LONG, 200e6, 5, 1.075e18);
        _market(dave, d, SHORT, 100e6, 5);
        for (uint256 i; i < 55; ++i) {
            vm.prank(dave);
            engine.closePosition(d, EUR, LMT, 1.07e18, bytes32(0));
        }
        vm.prank(dave);
        engine.closePosition(d, EUR, MKT, 0, bytes32(0)); // against bob's ask
        assertEq(_pos(d).sizeQty, 0);
        _setPrice(EUR, 1.0655e18);
        _limit(carol, c, LONG, 2_000e6, 5, 1.06e18);
        vm.prank(keeper);
        engine.liquidatePosition(a, EUR);
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }

    /// Scenario 4c: a client key equal to the liquidation order's derived key.
    function test_liquidate_clientKeyCannotCollide() public {
        _openAlice();
        // alice's order, then carol's bid, then the liquidation order: its id, from a run reverted after
        _drainLogs();
        uint256 snap = vm.snapshotState();
        vm.prank(alice);
        engine.placeOrder(_params(a, EUR, SHORT, LMT, 10e6, 5, 1.09e18, bytes32(uint256(7))));
        _setPrice(EUR, 1.0655e18);
        _limit(carol, c, LONG, 2_000e6, 5, 1.06e18);
        vm.prank(keeper);
        engine.liquidatePosition(a, EUR);
        uint256 next = _lastPlacedIdOf(a);
        vm.revertToState(snap);
        bytes32 key = keccak256(abi.encode(a, next));
        vm.prank(alice);
        engine.placeOrder(_params(a, EUR, SHORT, LMT, 10e6, 5, 1.09e18, key));
        _setPrice(EUR, 1.0655e18);
        _limit(carol, c, LONG, 2_000e6, 5, 1.06e18);
        vm.prank(keeper);
        engine.liquidatePosition(a, EUR);
        assertEq(_pos(a).sizeQty, 0);
        assertTrue(market.orderIdOf(a, key) != 0, "the user's order keeps its key");
        _checkAll();
    }

    /// Scenario 4d: a market without liquidity is skipped and reported; the others liquidate.
    function test_liquidateAccount_skipsAMarketItCannotClose() public {
        _openAlice();
        vm.prank(bob);
        engine.placeOrder(_params(b, GBP, SHORT, LMT, 127e6, 10, 1.27e18, bytes32(0)));
        vm.prank(alice);
        engine.placeOrder(_params(a, GBP, LONG, MKT, 15.875e6, 20, 0, bytes32(0)));
        _setPrice(GBP, 1.23e18);
        // GBP/USD cannot liquidate: its price goes stale (an empty book no longer stops a
        // liquidation: the backstop takes the position)
        vm.warp(block.timestamp + MAX_AGE + 1);
        _setPrice(EUR, 1.0655e18);
        _limit(carol, c, LONG, 2_000e6, 5, 1.06e18); // EUR bids only
        assertTrue(lens.positionHealth(gbp, a).isLiquidatable);
        vm.recordLogs();
        vm.prank(keeper);
        assertEq(engine.liquidateAccount(a), 1);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(gbp.getPosition(a).sizeQty, 250e18, "GBP/USD's price was stale");
        Vm.Log[] memory skipped = _logs(vm.getRecordedLogs(), address(engine), IEngine.LiquidationSkipped.selector);
        assertEq(skipped.length, 1);
        assertEq(skipped[0].topics[2], GBP);
        _checkAll();
    }

    /// Paused: liquidation and cancel still work.
    function test_liquidate_worksWhilePaused() public {
        _openAlice();
        _setPrice(EUR, 1.0655e18);
        _limit(carol, c, LONG, 2_000e6, 5, 1.06e18);
        engine.setMarketActive(EUR, false);
        vm.prank(keeper);
        engine.liquidatePosition(a, EUR);
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }

    // ─── orders ──────────────────────────────────────────────────────────────────────────

    function test_orders_atMost100RestingPerAccount() public {
        for (uint256 i; i < 100; ++i) _limit(dave, d, LONG, 2e6, 1, 1.07e18);
        vm.prank(dave);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.TooManyOrders.selector, d, 100));
        engine.placeOrder(_params(d, EUR, LONG, LMT, 2e6, 1, 1.07e18, bytes32(0)));
    }

    function test_orders_dustRemainderIsCancelled() public {
        uint256 maker = _limit(bob, b, SHORT, 2.16e6, 1, 1.08e18); // 2.00
        _limit(carol, c, SHORT, 100e6, 1, 1.09e18);
        // alice buys 1.5 at 1.08 within a limit: bob keeps 0.5 < minimum → cancelled
        vm.prank(alice);
        engine.placeOrder(_params(a, EUR, LONG, LMT, 1.62e6, 1, 1.08e18, bytes32(0)));
        assertEq(uint256(_order(maker).status), uint256(IMarket.OrderStatus.CANCELLED));
        _checkAll();
    }

    // ─── the venue's pots ────────────────────────────────────────────────────────────────

    function test_insurance_anyoneDonates() public {
        token.mint(stranger, 500e6);
        vm.prank(stranger);
        token.approve(address(engine), 500e6);
        vm.expectEmit(address(engine));
        emit IEngine.InsuranceDonated(_nextSeq(address(engine)), stranger, 500e6, 500e18);
        vm.prank(stranger);
        engine.donateInsurance(500e6);
        assertEq(engine.insuranceFundWad(), 500e18);
        _checkAll();
    }

    function test_fees_withdrawnByTheOwnerOnly() public {
        _limit(bob, b, SHORT, 216e6, 10, 1.08e18);
        _market(alice, a, LONG, 400e6, 5);
        uint256 fees = engine.feesWad();
        assertGt(fees, 1e18);
        vm.prank(stranger);
        vm.expectRevert();
        engine.withdrawFees(stranger, 1e6);
        address treasury = address(0x7BEA5);
        engine.withdrawFees(treasury, 1e6);
        assertEq(token.balanceOf(treasury), 1e6);
        assertEq(engine.feesWad(), fees - 1e18);
        _checkAll();
    }
}
