// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {OrderScan} from "../utils/OrderScan.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// An FX weekend (issue 10 "FX weekends and gaps", docs/CONTRACTS.md "Weekends and gaps") as a
/// property: traders at any leverage, the pre-close window (reduce-only, margin × 3), the close,
/// an index gap of up to 3 % either way, the reopening. Steps may be refused; what must hold:
/// no liquidation is ever blocked, and after the reopening's liquidations no bad debt beyond
/// the insurance fund (the engine's uncovered counter stays 0) and strict solvency.
contract WeekendGapAttack is AttackBase {
    uint256 internal constant UPLIFT = 30_000;
    uint256 internal constant TRADERS = 6;

    address internal mm;
    uint256 internal mmId;
    address[] internal traders;
    uint256[] internal traderIds;

    function setUp() public override {
        super.setUp();
        engine.setMarketCloseUplift(EUR, UPLIFT);
        address donor = address(0xD0A0);
        token.mint(donor, 2_000e6);
        vm.startPrank(donor);
        token.approve(address(engine), 2_000e6);
        engine.donateInsurance(2_000e6);
        vm.stopPrank();
        (mm, mmId) = _bystander("market-maker", 1_000_000e6);
        _quote(EUR_PX);
        for (uint256 i; i < TRADERS; ++i) {
            (address who, uint256 id) = _attacker(string.concat("trader-", vm.toString(i)), 2_000e6);
            traders.push(who);
            traderIds.push(id);
        }
    }

    /// Three levels a side around `px`, 10× (deep enough for every trader).
    function _quote(uint256 px) internal {
        for (uint256 k = 1; k <= 3; ++k) {
            (bool ok,,) = _tryLimit(mm, mmId, EUR, LONG, 20_000e6, 10, _onTick(px * (10_000 - 5 * k) / 10_000), "mm bid");
            assertTrue(ok, "setup: mm bid");
            (ok,,) = _tryLimit(mm, mmId, EUR, SHORT, 20_000e6, 10, _onTick(px * (10_000 + 5 * k) / 10_000) + TICK, "mm ask");
            assertTrue(ok, "setup: mm ask");
        }
    }

    function _cancelQuotes() internal {
        uint256[] memory all = OrderScan.ids(market);
        for (uint256 j; j < all.length; ++j) {
            IMarket.OrderView memory o = market.getOrder(all[j]);
            if (o.accountId != mmId || o.status != IMarket.OrderStatus.ACTIVE) continue;
            vm.prank(mm);
            engine.cancelOrderById(mmId, EUR, all[j]); // cancels work while CLOSED
        }
    }

    /// Time moves into the session under EUR/USD's calendar (VenueFixture._toSession).
    function _session(IMarket.Session s) internal {
        _toSession(EUR, s);
    }

    /// A close in the window is never refused, except for want of a counterparty: resting makers
    /// may only reduce there (REDUCE_ONLY_SESSION), so the book may hold nothing it can fill.
    function _closeInWindow(uint256 i) internal {
        vm.prank(traders[i]);
        try engine.closePosition(traderIds[i], EUR, MKT, 0, bytes32(0)) {}
        catch (bytes memory r) {
            _requireVenueRefusal(r, "close in the window");
            assertEq(bytes4(r), IVenueErrors.NoLiquidity.selector, "a close was refused");
        }
    }

    /// forge-config: default.fuzz.runs = 64
    function test_fuzz_attack_weekendGap(uint256 seed, uint16 gapBps, bool up, bool mmPullsQuotes) public {
        gapBps = uint16(bound(gapBps, 0, 300));
        _testCalendar(EUR, 60, 50 * 60); // a one-hour window, a 50-hour weekend
        // Friday: positions at any leverage up to the maximum, either side
        for (uint256 i; i < TRADERS; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            uint256 lev = 5 + r % 46; // 5..50
            uint256 coll6 = 100e6 + (r >> 8) % 900e6;
            _tryMarket(traders[i], traderIds[i], EUR, (r >> 16) % 2 == 0 ? LONG : SHORT, coll6, lev, "open");
        }
        _refresh(EUR);

        // the pre-close window: closes only, margin × 3; what would not survive the gap goes now
        _session(IMarket.Session.REDUCE_ONLY);
        (bool ok,,) = _tryMarket(traders[0], traderIds[0], EUR, LONG, 100e6, 5, "open in the window");
        assertFalse(ok, "an opening order passed the reduce-only window");
        for (uint256 i; i < TRADERS; ++i) {
            if (uint256(keccak256(abi.encode(seed, i, "close"))) % 4 == 0 && _pos(traderIds[i]).sizeQty != 0) {
                _closeInWindow(i);
            }
        }
        _liquidateEverything();
        for (uint256 i; i < TRADERS; ++i) {
            if (_pos(traderIds[i]).sizeQty != 0) assertFalse(_health(traderIds[i]).isLiquidatable, "closed with a weak position");
        }

        // the weekend: no orders, no liquidation, no funding; the index gaps
        _session(IMarket.Session.CLOSED);
        if (mmPullsQuotes) _cancelQuotes();
        vm.warp(block.timestamp + 2 days);
        uint256 gapped = _onTick(up ? EUR_PX * (10_000 + gapBps) / 10_000 : EUR_PX * (10_000 - gapBps) / 10_000);
        _walkIndex(EUR, gapped); // in oracle-bounded updates (1 % each), all while closed
        _refresh(EUR); // a fresh price also when there was no gap
        for (uint256 i; i < TRADERS; ++i) {
            if (_pos(traderIds[i]).sizeQty == 0) continue;
            (bool liq, bytes memory reason) = _tryLiquidate(traderIds[i], EUR);
            assertFalse(liq, "liquidated while closed");
            assertEq(bytes4(reason), IVenueErrors.MarketClosed.selector);
        }

        // the reopening: liquidations resume through the book and the backstop
        _session(IMarket.Session.OPEN);
        if (mmPullsQuotes) _quote(gapped);
        _liquidateEverything();
        assertEq(engine.badDebtWad(), 0, "bad debt beyond the insurance fund");
        _assertStrictSolvency();
        _checkAll();
    }

    /// The uplift is what keeps the fund out of it: the same book and a 3 % gap with the uplift
    /// at 1× leaves a 45× long below its bankruptcy price at the reopening.
    function test_attack_weekendGapWithoutUpliftReachesTheBackstop() public {
        engine.setMarketCloseUplift(EUR, 10_000);
        _testCalendar(EUR, 60, 50 * 60);
        _tryMarket(traders[0], traderIds[0], EUR, LONG, 1_000e6, 45, "open");
        _session(IMarket.Session.REDUCE_ONLY);
        _liquidateEverything();
        assertTrue(_pos(traderIds[0]).sizeQty != 0, "1x uplift: the 45x long survives the window");
        _session(IMarket.Session.CLOSED);
        _cancelQuotes();
        vm.warp(block.timestamp + 2 days);
        _walkIndex(EUR, _onTick(EUR_PX * 9_700 / 10_000)); // in oracle-bounded updates, while closed
        _session(IMarket.Session.OPEN);
        assertLt(_health(traderIds[0]).equityWad, 0, "below bankruptcy at the reopening");
        _quote(EUR_PX * 9_700 / 10_000);
        uint256 fundBefore = engine.insuranceFundWad();
        _liquidateEverything();
        assertEq(_pos(traderIds[0]).sizeQty, 0);
        assertLt(engine.insuranceFundWad(), fundBefore, "the fund paid for the gap");
        assertEq(engine.badDebtWad(), 0);
        _assertStrictSolvency();
    }
}
