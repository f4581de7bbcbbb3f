// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// The calendar is on chain and cannot be pulled (issue 26, finding 4; docs/CONTRACTS.md
/// "Weekends and gaps"): sessions follow block.timestamp and the stored calendar, a close lasts
/// at most MAX_CLOSED (96 h), a change is validated and never starts, extends or joins a close,
/// the guardian still pauses at once and a paused market still liquidates.
contract MarketCalendarTest is VenueFixture {
    IMarket.Session internal constant OPEN = IMarket.Session.OPEN;
    IMarket.Session internal constant REDUCE_ONLY = IMarket.Session.REDUCE_ONLY;
    IMarket.Session internal constant CLOSED = IMarket.Session.CLOSED;
    uint16 internal constant MAX_CLOSED_MIN = 96 * 60;

    uint256 internal a;
    uint256 internal b;
    uint256 internal c;

    function setUp() public virtual override {
        super.setUp();
        a = _account(alice, 100e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 10_000e6);
        // alice long 1000 @ 1.08 at 45x (equity ≈ 2.2 % of value: healthy at 1 %, not at 3 %)
        _limit(bob, b, SHORT, 216e6, 10, 1.08e18);
        _market(alice, a, LONG, 24e6, 45);
        engine.setMarketCloseUplift(EUR, 30_000);
    }

    function _sessionOf(IMarket m) internal view returns (IMarket.Session s) {
        (s,,) = m.session();
    }

    /// A close at the week minute `min` minutes from now (rounded up).
    function _closeIn(uint256 min) internal view returns (uint16) {
        uint256 pos = (block.timestamp + 3 days) % 7 days;
        return uint16(((pos + min * 60 + 59) / 60) % (7 days / 60));
    }

    function _refused(IMarket.Calendar memory cal, uint256 startsAt) internal {
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        engine.scheduleMarketCalendar(EUR, cal, startsAt);
    }

    function test_calendar_validated() public {
        uint16 at = _closeIn(24 * 60);
        _refused(IMarket.Calendar(at, 15, MAX_CLOSED_MIN + 1), 0); // closed beyond MAX_CLOSED
        _refused(IMarket.Calendar(at, 14, 60), 0); // window under 15 minutes
        _refused(IMarket.Calendar(at, 12 * 60 + 1, 60), 0); // window beyond 12 hours
        _refused(IMarket.Calendar(7 * 1440, 15, 60), 0); // not a minute of the week
        _refused(IMarket.Calendar(0, 15, 0), 0); // a window with no close
        _refused(IMarket.Calendar(at, 15, 60), block.timestamp - 1); // in the past
        // a calendar never starts inside its own window or close
        _refused(IMarket.Calendar(_closeIn(10), 15, 60), 0);
        _refused(IMarket.Calendar(_closeIn(0) == 0 ? 7 * 1440 - 1 : _closeIn(0) - 1, 15, 60), 0);
        engine.scheduleMarketCalendar(EUR, IMarket.Calendar(at, 12 * 60, MAX_CLOSED_MIN), 0);
        (IMarket.Calendar memory cur,, uint256 startsAt) = market.calendar();
        assertEq(cur.closedMin, MAX_CLOSED_MIN);
        assertEq(startsAt, block.timestamp);
    }

    /// Liquidations resume when the close ends, at most MAX_CLOSED after it began.
    function test_closed_endsAtMaxClosed_liquidationsResume() public {
        uint256[3] memory t = _testCalendar(EUR, 15, MAX_CLOSED_MIN);
        vm.warp(t[1]);
        assertEq(uint256(_sessionOf(market)), uint256(CLOSED));
        _refreshPrices();
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketClosed.selector, EUR));
        engine.liquidatePosition(a, EUR);
        vm.warp(t[1] + 96 hours - 1);
        assertEq(uint256(_sessionOf(market)), uint256(CLOSED));
        vm.warp(t[1] + 96 hours);
        assertEq(uint256(_sessionOf(market)), uint256(OPEN), "CLOSED beyond MAX_CLOSED");
        // the index moved 1.5 % down over the close: alice is below maintenance, and the liquidation runs
        _setPrice(EUR, 1.0638e18);
        carolBid(1.06e18);
        vm.prank(stranger);
        assertEq(engine.liquidatePosition(a, EUR), 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
    }

    function carolBid(uint256 px) internal {
        _limit(carol, c, LONG, 500e6, 10, px);
    }

    /// A change in a close may only end it: a calendar CLOSED at its start is refused (no
    /// extension, no close joined to another); one OPEN at its start cuts the close short.
    function test_change_neverExtendsACloseMayCutIt() public {
        uint256[3] memory t = _testCalendar(EUR, 15, 60);
        vm.warp(t[1] + 30 minutes);
        assertEq(uint256(_sessionOf(market)), uint256(CLOSED));
        // the same close, longer: CLOSED at its start
        (IMarket.Calendar memory cur,,) = market.calendar();
        _refused(IMarket.Calendar(cur.closeAtMin, 15, MAX_CLOSED_MIN), 0);
        // a close starting now: CLOSED at its start
        _refused(IMarket.Calendar(_closeIn(0), 15, MAX_CLOSED_MIN), 0);
        // a window starting now: REDUCE_ONLY at its start
        _refused(IMarket.Calendar(_closeIn(10), 15, 60), 0);
        // no close: OPEN at once
        engine.scheduleMarketCalendar(EUR, IMarket.Calendar(0, 0, 0), 0);
        assertEq(uint256(_sessionOf(market)), uint256(OPEN));
        _refreshPrices();
        carolBid(1.079e18);
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 0, "trading again once the close was cut");
    }

    /// The guardian pauses at once, in any session; a paused market still liquidates (here in
    /// the window, at the raised maintenance).
    function test_pausedMarketStillLiquidates() public {
        carolBid(1.079e18);
        _toSession(EUR, REDUCE_ONLY);
        engine.setMarketActive(EUR, false); // the fixture's admin holds GUARDIAN_ROLE
        assertFalse(market.isActive());
        assertTrue(_health(a).isLiquidatable);
        vm.prank(stranger);
        assertEq(engine.liquidatePosition(a, EUR), 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }
}

/// Off the local chain the engine's calendar delay is at least MarketCalendar.MIN_DELAY (12 h,
/// the longest window): a calendar is in force that long after it was scheduled at the earliest.
contract MarketCalendarDelayTest is VenueFixture {
    uint256 internal constant DELAY = 12 hours;

    function setUp() public override {
        vm.chainId(1);
        super.setUp();
    }

    function _calendarDelay() internal pure override returns (uint256) {
        return DELAY;
    }

    function test_engineRefusesAShorterDelayOffTheLocalChain() public {
        bytes memory init = abi.encodePacked(vm.getCode("Engine.sol:Engine"), abi.encode(address(token), address(oracle), admin, DELAY - 1));
        address deployed;
        assembly {
            deployed := create(0, add(init, 32), mload(init))
        }
        assertEq(deployed, address(0), "an engine with less than 12 h of calendar delay off the local chain");
        assertEq(engine.calendarDelay(), DELAY);
    }

    function test_calendarStartsNoSoonerThanTheDelay() public {
        // a window starting in 13 h: scheduled now, in force 12 h from now
        uint256 pos = (block.timestamp + 3 days) % 7 days;
        uint16 closeAt = uint16(((pos + 13 hours + 15 minutes + 59) / 60) % (7 days / 60));
        IMarket.Calendar memory cal = IMarket.Calendar(closeAt, 15, 60);
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        engine.scheduleMarketCalendar(EUR, cal, 0);
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        engine.scheduleMarketCalendar(EUR, cal, block.timestamp + DELAY - 1);
        engine.scheduleMarketCalendar(EUR, cal, block.timestamp + DELAY);
        (IMarket.Calendar memory cur, IMarket.Calendar memory next, uint256 startsAt) = market.calendar();
        assertEq(cur.closedMin, 0, "in force before its start");
        assertEq(next.closeAtMin, closeAt);
        assertEq(startsAt, block.timestamp + DELAY);
        vm.warp(block.timestamp + DELAY);
        (cur,,) = market.calendar();
        assertEq(cur.closeAtMin, closeAt);
    }
}
