// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// The market schedule (docs/CONTRACTS.md "Weekends and gaps"): OPEN → REDUCE_ONLY (closes only,
/// margin × the close uplift) → CLOSED (no orders, no liquidation, no funding) → OPEN.
contract MarketSessionTest is VenueFixture {
    IMarket.Session internal constant OPEN = IMarket.Session.OPEN;
    IMarket.Session internal constant REDUCE_ONLY = IMarket.Session.REDUCE_ONLY;
    IMarket.Session internal constant CLOSED = IMarket.Session.CLOSED;
    uint256 internal constant UPLIFT = 30_000; // 3×: maintenance 1 % → 3 %, initial 2 % → 6 %

    uint256 internal a;
    uint256 internal b;
    uint256 internal c;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 100e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 10_000e6);
        // alice long 1000 @ 1.08 at 45x (equity ≈ 2.2 % of value: healthy at 1 %, not at 3 %)
        _limit(bob, b, SHORT, 216e6, 10, 1.08e18); // 2000
        _market(alice, a, LONG, 24e6, 45);
        assertEq(_pos(a).sizeQty, 1_000e18);
        engine.setMarketCloseUplift(EUR, UPLIFT);
    }

    function _session(IMarket.Session s) internal {
        _toSession(EUR, s);
    }

    function _liquidate(uint256 id) internal returns (uint256) {
        vm.prank(stranger);
        return engine.liquidatePosition(id, EUR);
    }

    // ─── roles and parameters ────────────────────────────────────────────────────────────

    function test_session_defaultsOpenWithoutUplift() public view {
        (IMarket.Session s, uint256 now_, uint256 close) = gbp.session();
        assertEq(uint256(s), uint256(OPEN));
        assertEq(now_, 1e4);
        assertEq(close, 1e4);
        (s, now_, close) = market.session();
        assertEq(now_, 1e4, "OPEN applies no uplift");
        assertEq(close, UPLIFT);
    }

    function test_scheduleMarketCalendar_onlyParamsRole_marketOnlyEngine() public {
        vm.prank(keeper);
        vm.expectRevert(); // AccessControlUnauthorizedAccount: PARAMS_ROLE
        engine.scheduleMarketCalendar(EUR, IMarket.Calendar(0, 0, 0), block.timestamp);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        engine.setMarketCloseUplift(EUR, UPLIFT);
        // the market itself only listens to the engine
        vm.prank(keeper);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, keeper));
        market.scheduleCalendar(IMarket.Calendar(0, 0, 0), block.timestamp);
    }

    function test_setMarketCloseUplift_validated() public {
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        engine.setMarketCloseUplift(EUR, 9_999); // below 1×
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        engine.setMarketCloseUplift(EUR, 65_536); // beyond the stored uint16
        // (maintenance × uplift < 100 % and initial margin × uplift ≤ 100 % bind only at low
        // leverage: GBP/USD 25×, 200 bps allows the whole uint16 range)
        engine.setMarketCloseUplift(GBP, 65_535);
        (,, uint256 close) = gbp.session();
        assertEq(close, 65_535);
    }

    /// Sessions follow the calendar and the clock: no key switches them.
    function test_sessionsFollowTheCalendar() public {
        vm.expectEmit(address(market));
        emit IMarket.MarketCalendarScheduled(
            _nextSeq(address(market)), IMarket.Calendar(0, 0, 0), IMarket.Calendar(uint16(_closeAtMinSoon()), 15, 15), block.timestamp
        );
        uint256[3] memory t = _testCalendar(EUR);
        (IMarket.Session s, uint256 now_,) = market.session();
        assertEq(uint256(s), uint256(OPEN));
        vm.warp(t[0] - 1);
        (s,,) = market.session();
        assertEq(uint256(s), uint256(OPEN));
        vm.warp(t[0]);
        (s, now_,) = market.session();
        assertEq(uint256(s), uint256(REDUCE_ONLY));
        assertEq(now_, UPLIFT);
        vm.warp(t[1] - 1);
        (s,,) = market.session();
        assertEq(uint256(s), uint256(REDUCE_ONLY));
        vm.warp(t[1]);
        (s,,) = market.session();
        assertEq(uint256(s), uint256(CLOSED));
        vm.warp(t[2] - 1);
        (s,,) = market.session();
        assertEq(uint256(s), uint256(CLOSED));
        vm.warp(t[2]);
        (s, now_,) = market.session();
        assertEq(uint256(s), uint256(OPEN));
        assertEq(now_, 1e4, "margin back to normal at reopening");
        // a week later, the same
        vm.warp(t[1] + 7 days);
        (s,,) = market.session();
        assertEq(uint256(s), uint256(CLOSED));
        (s,,) = gbp.session();
        assertEq(uint256(s), uint256(OPEN), "GBP/USD has no calendar");
    }

    function _closeAtMinSoon() internal view returns (uint256) {
        uint256 pos = (block.timestamp + 3 days) % 7 days;
        return ((pos + 60 + 15 * 60 + 59) / 60) % (7 days / 60);
    }

    // ─── REDUCE_ONLY ─────────────────────────────────────────────────────────────────────

    function test_reduceOnly_refusesOpeningOrdersAcceptsCloses() public {
        _limit(bob, b, LONG, 200e6, 10, 1.079e18); // a bid placed before the window (bob is short 1000)
        _session(REDUCE_ONLY);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketReduceOnly.selector, EUR));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 1e6, 10, 1.07e18, bytes32(0)));
        // an order on the reducing side that carries collateral is an opening order too
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketReduceOnly.selector, EUR));
        engine.placeOrder(_params(a, EUR, SHORT, MKT, 1e6, 10, 0, bytes32(0)));
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketReduceOnly.selector, EUR));
        engine.placeOrder(_params(c, EUR, SHORT, LMT, 10e6, 10, 1.09e18, bytes32(0)));
        // uplift makes alice liquidatable, so let her close before a keeper gets there
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }

    function test_reduceOnly_upliftMakesPositionLiquidatable() public {
        // a bid from before the window: a liquidation's maker may open (at the uplifted margin)
        _limit(carol, c, LONG, 200e6, 10, 1.079e18);
        assertFalse(_health(a).isLiquidatable);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NotLiquidatable.selector, a, EUR));
        _liquidate(a);
        _session(REDUCE_ONLY);
        IMarket.HealthView memory h = _health(a);
        assertEq(h.maintenanceWad, h.positionValueWad * 300 / 1e4, "maintenance 1 % x 3");
        assertTrue(h.isLiquidatable);
        assertGt(h.equityWad, 0);
        assertEq(_liquidate(a), 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_pos(c).sizeQty, 1_000e18, "the liquidation filled carol's bid");
        assertEq(engine.badDebtWad(), 0);
        _checkAll();
    }

    /// Orders resting from before the window fill as makers only where they reduce the maker's
    /// position: carol (flat) is cancelled whatever her margin (REDUCE_ONLY_SESSION), bob (short
    /// 1000) buys back his short.
    function test_reduceOnly_restingMakersOnlyReduce() public {
        uint256 weak = _limit(carol, c, LONG, 25e6, 40, 1.079e18); // 2.5 % < the uplifted 6 %
        uint256 strong = _limit(carol, c, LONG, 200e6, 10, 1.078e18); // 10 % ≥ 6 %
        uint256 reducing = _limit(bob, b, LONG, 200e6, 10, 1.077e18);
        _session(REDUCE_ONLY);
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(uint256(_order(weak).status), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(uint256(_order(strong).status), uint256(IMarket.OrderStatus.CANCELLED));
        assertEq(_order(strong).filledQty, 0);
        assertEq(_pos(c).sizeQty, 0, "no position opened in the window");
        assertEq(_order(reducing).filledQty, 1_000e18);
        assertEq(_pos(b).sizeQty, 0);
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }

    // ─── CLOSED ──────────────────────────────────────────────────────────────────────────

    function test_closed_refusesOrdersClosesAndLiquidations() public {
        _limit(carol, c, LONG, 200e6, 10, 1.079e18);
        _session(REDUCE_ONLY);
        _session(CLOSED);
        assertTrue(_health(a).isLiquidatable);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketClosed.selector, EUR));
        _liquidate(a);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketClosed.selector, EUR));
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketClosed.selector, EUR));
        engine.placeOrder(_params(c, EUR, LONG, LMT, 10e6, 10, 1.07e18, bytes32(0)));
        // liquidateAccount skips the closed market and reports it
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketClosed.selector, EUR));
        engine.liquidateAccount(a);
        // other markets trade on
        vm.prank(carol);
        engine.placeOrder(_params(c, GBP, LONG, LMT, 10e6, 10, 1.26e18, bytes32(0)));
        _checkAll();
    }

    function test_closed_cancelsAndFreeMarginWithdrawalsWork() public {
        uint256 oid = _limit(carol, c, LONG, 200e6, 10, 1.079e18);
        _session(CLOSED);
        uint256 freeBefore = _acct(c).availableWad;
        bytes32 key = _keyOf(oid);
        vm.prank(carol);
        (, uint256 returned) = engine.cancelOrder(c, EUR, key);
        assertEq(returned, 200e18);
        assertEq(_acct(c).availableWad, freeBefore + 200e18 + ORDER_BOND_WAD); // the margin and the bond
        uint256 bal = token.balanceOf(carol);
        vm.prank(carol);
        engine.withdraw(c, 10_000e6);
        assertEq(token.balanceOf(carol), bal + 10_000e6);
        // alice's position margin stays committed: only free margin leaves
        uint256 free = _acct(a).availableWad;
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InsufficientMargin.selector, free, 100e18));
        engine.withdraw(a, 100e6);
        _checkAll();
    }

    /// Funding accrues up to the last accrual before the close (here a poke a second before it)
    /// and restarts at the reopening: the closed stretch pays none, poked or not.
    function test_closed_fundingDoesNotAccrue() public {
        _limit(carol, c, LONG, 500e6, 10, 1.07e18); // resting margined bid: a skew, a non-zero rate
        vm.warp(block.timestamp + 60);
        _setPrice(EUR, EUR_PX);
        engine.pokeFunding(EUR);
        assertTrue(market.funding().rateX18PerHour != 0, "setup: a rate");
        uint256[3] memory t = _testCalendar(EUR, 15, 48 * 60);
        vm.warp(t[1] - 1);
        _setPrice(EUR, EUR_PX);
        engine.pokeFunding(EUR);
        vm.warp(t[1]);
        IMarket.FundingView memory atClose = market.funding();
        assertEq(atClose.lastUpdate, t[1] - 1);
        // a weekend: fresh prices and pokes change nothing
        for (uint256 i; i < 3; ++i) {
            vm.warp(block.timestamp + 12 hours);
            _setPrice(EUR, EUR_PX * (1000 + i) / 1000);
            engine.pokeFunding(EUR);
            assertEq(market.funding().cumulativeIndexX18, atClose.cumulativeIndexX18, "accrued while closed");
            assertEq(market.funding().cumulativeIndexNowX18, atClose.cumulativeIndexX18, "view accrues while closed");
        }
        IMarket.PositionView memory p = _pos(a);
        assertEq(_health(a).pendingFundingWad, _pendingOf(p.sizeQty, atClose.cumulativeIndexX18 - p.lastFundingIndexX18));
        vm.warp(t[2]);
        _setPrice(EUR, EUR_PX);
        IMarket.FundingView memory f = market.funding();
        assertEq(f.cumulativeIndexNowX18, atClose.cumulativeIndexX18, "reopening accrues nothing of the break");
        // an hour after the reopening: exactly one hour of funding at the rate in force
        vm.warp(t[2] + 3600);
        _setPrice(EUR, EUR_PX);
        int256 rate = market.funding().rateX18PerHour;
        engine.pokeFunding(EUR);
        assertEq(
            market.funding().cumulativeIndexX18, atClose.cumulativeIndexX18 + rate * int256(EUR_PX) * 3600 / int256(3600 * 1e18)
        );
    }

    /// A margined cancel while closed works and marks the rate stale; nothing accrues until the
    /// reopening, and from the reopening the rate of the book after the cancel applies.
    function test_closed_cancelMarksRateStaleFromTheReopening() public {
        uint256 oid = _limit(carol, c, LONG, 500e6, 10, 1.07e18); // margined bid: a skew
        uint256[3] memory t = _testCalendar(EUR, 15, 48 * 60);
        vm.warp(t[1] - 1);
        _setPrice(EUR, EUR_PX);
        engine.pokeFunding(EUR);
        vm.warp(t[1]);
        IMarket.FundingView memory atClose = market.funding();
        vm.warp(block.timestamp + 12 hours);
        _setPrice(EUR, EUR_PX);
        bytes32 key = _keyOf(oid);
        vm.prank(carol);
        (, uint256 returned) = engine.cancelOrder(c, EUR, key);
        assertEq(returned, 500e18, "the cancel works while closed");
        IMarket.FundingView memory f = market.funding();
        assertEq(f.rateStaleSince, block.timestamp, "stale from the cancel");
        assertEq(f.cumulativeIndexNowX18, atClose.cumulativeIndexX18, "nothing accrues while closed");
        int256 rateAfter = f.rateNowX18PerHour;
        assertTrue(rateAfter != atClose.rateX18PerHour, "setup: the cancel changes the rate");
        vm.warp(t[2]);
        _setPrice(EUR, EUR_PX);
        assertEq(market.funding().cumulativeIndexNowX18, atClose.cumulativeIndexX18, "nothing of the break");
        vm.warp(t[2] + 3600);
        _setPrice(EUR, EUR_PX);
        int256 want = atClose.cumulativeIndexX18 + rateAfter * int256(EUR_PX) * 3600 / int256(3600 * 1e18);
        assertEq(market.funding().cumulativeIndexNowX18, want, "an hour at the rate after the cancel");
        engine.pokeFunding(EUR);
        assertEq(market.funding().cumulativeIndexX18, want);
        assertEq(market.funding().rateStaleSince, 0);
        _checkAll();
    }

    function _pendingOf(int256 size, int256 delta) internal pure returns (int256) {
        int256 x = size * delta;
        if (x > 0) return int256((uint256(x) - 1) / 1e18 + 1);
        return -int256(uint256(-x) / 1e18);
    }

    // ─── reopening ───────────────────────────────────────────────────────────────────────

    /// A gap at the reopening: liquidations resume (book within the bankruptcy price, then the
    /// backstop) once the market is OPEN again.
    function test_reopening_liquidationsResumeThroughBackstop() public {
        _testCalendar(EUR, 15, 72 * 60);
        _session(REDUCE_ONLY);
        _session(CLOSED);
        // the weekend: alice was not liquidated (no bids); the index gaps 3 % down
        vm.warp(block.timestamp + 2 days);
        _setPrice(EUR, 1.0476e18);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketClosed.selector, EUR));
        _liquidate(a);
        _session(OPEN);
        IMarket.HealthView memory h = _health(a);
        assertTrue(h.isLiquidatable);
        assertLt(h.equityWad, 0, "below bankruptcy after the gap");
        // the fund can carry it: the fund takes the position over at the bankruptcy price
        token.mint(address(this), 1_000e6);
        token.approve(address(engine), 1_000e6);
        engine.donateInsurance(1_000e6);
        assertEq(_liquidate(a), 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_pos(0).sizeQty, 1_000e18, "the fund holds it");
        assertEq(engine.badDebtWad(), 0);
        _checkAll();
    }

    /// Pause (the guardian) and the session are independent: a paused market in REDUCE_ONLY
    /// still closes; CLOSED refuses the close whatever the pause.
    function test_pausedReduceOnly_closesWork() public {
        _limit(bob, b, LONG, 200e6, 10, 1.079e18);
        engine.setMarketActive(EUR, false);
        _session(REDUCE_ONLY);
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketNotActive.selector, EUR));
        engine.placeOrder(_params(c, EUR, LONG, LMT, 10e6, 10, 1.07e18, bytes32(0)));
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 0);
    }
}
