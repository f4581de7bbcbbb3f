// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Liquidation (docs/CONTRACTS.md "Health and liquidation").
contract MarketLiquidateTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;
    uint256 internal d;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 100e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 10_000e6);
        d = _account(dave, 100e6);
        // alice long 1000 @ 1.08 at 48x (margin 22.5 before the fee: 50x would be below initial margin)
        _limit(bob, b, SHORT, 216e6, 10, 1.08e18); // 2000
        _market(alice, a, LONG, 22.5e6, 48);
        assertEq(_pos(a).sizeQty, 1_000e18);
    }

    function _donate(uint256 amount6) internal {
        address donor = address(0xD0A0);
        token.mint(donor, amount6);
        vm.startPrank(donor);
        token.approve(address(engine), amount6);
        engine.donateInsurance(amount6);
        vm.stopPrank();
    }

    function _liquidate(uint256 id) internal returns (uint256 closed) {
        vm.prank(keeper);
        closed = engine.liquidatePosition(id, EUR);
    }

    function test_health_matchesFormulas() public {
        _setPrice(EUR, 1.07e18);
        IMarket.PositionView memory p = _pos(a);
        IMarket.HealthView memory h = _health(a);
        // the book holds bob's ask only: mark = index
        assertEq(h.markPriceX18, 1.07e18);
        assertEq(h.positionValueWad, 1_070e18);
        assertEq(h.unrealizedPnlWad, -10e18);
        assertEq(h.equityWad, int256(p.marginWad) - 10e18 - h.pendingFundingWad);
        assertEq(h.maintenanceWad, 10.7e18);
        int256 e0 = int256(p.marginWad) - h.pendingFundingWad;
        assertEq(h.liquidationPriceX18, uint256(1_080e18 - e0) * 1e18 * 1e4 / (1_000e18 * 9_900));
        assertEq(h.insolvencyPriceX18, uint256(1_080e18 - e0) * 1e18 / 1_000e18);
        assertEq(h.isLiquidatable, h.equityWad < int256(h.maintenanceWad));
    }

    function test_liquidate_revertsNotLiquidatableWhenHealthy() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NotLiquidatable.selector, a, EUR));
        _liquidate(a);
    }

    function test_liquidate_revertsNoPosition() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoPosition.selector, d, EUR));
        _liquidate(d);
    }

    function test_liquidate_revertsPriceStale() public {
        (, uint256 updatedAt) = oracle.getPrice(EUR);
        vm.warp(updatedAt + MAX_AGE + 1);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PriceStale.selector, EUR, updatedAt, MAX_AGE));
        _liquidate(a);
    }

    /// Fund-only: no bid at all and a funded insurance fund: the fund takes the whole position
    /// over at the bankruptcy price (account 0 holds it), topping its margin up to maintenance.
    function test_liquidate_emptyBookFundTakesOver() public {
        _donate(1_000e6);
        _setPrice(EUR, 1.066e18);
        assertTrue(_health(a).isLiquidatable);
        uint256 ins0 = engine.insuranceFundWad();
        vm.recordLogs();
        assertEq(_liquidate(a), 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(market.getPosition(0).sizeQty, 1_000e18, "the fund holds the long");
        assertEq(_pos(b).sizeQty, -1_000e18, "nobody deleveraged");
        assertEq(engine.badDebtWad(), 0);
        Vm.Log[] memory t = _logs(vm.getRecordedLogs(), address(market), IMarket.InsuranceTakeover.selector);
        assertEq(t.length, 1);
        (, uint256 q,,, uint256 added,,, uint256 fundMargin, uint256 insAfter) =
            abi.decode(t[0].data, (uint64, uint256, uint256, uint256, uint256, int256, uint256, uint256, uint256));
        assertEq(q, 1_000e18);
        assertEq(fundMargin, added);
        // alice is still solvent at the mark: the fund takes the long at the mark 1.066 and the
        // liquidation fee on it (50 bps of 1,066) goes to the fund (issue 26)
        uint256 fee = 1_066e18 * 50 / 10_000;
        assertEq(insAfter, ins0 + fee - added);
        assertEq(engine.insuranceFundWad(), ins0 + fee - added);
        _checkAll();
    }

    /// Fund + ADL: no bid and an empty fund: the position is deleveraged against bob (the only
    /// opposite position, in profit) at the bankruptcy price.
    function test_liquidate_emptyBookEmptyFundDeleverages() public {
        _setPrice(EUR, 1.066e18);
        assertEq(engine.insuranceFundWad(), 0);
        vm.recordLogs();
        assertEq(_liquidate(a), 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_pos(b).sizeQty, -1_000e18 + 1_000e18, "bob's short closed against alice's long");
        assertEq(engine.badDebtWad(), 0);
        Vm.Log[] memory dl = _logs(vm.getRecordedLogs(), address(market), IMarket.Deleveraged.selector);
        assertEq(dl.length, 1, "one event per counterparty");
        assertEq(uint256(dl[0].topics[1]), a);
        assertEq(uint256(dl[0].topics[2]), b);
        _checkAll();
    }

    function test_liquidate_closesThroughBookAndSplitsFee() public {
        _setPrice(EUR, 1.066e18);
        _limit(carol, c, LONG, 213e6, 10, 1.065e18); // 2000 bid @ 1.065 (within the band of the new mark)
        assertTrue(_health(a).isLiquidatable, "equity below 1 % maintenance");
        uint256 m0 = _pos(a).marginWad;
        uint256 totalBefore = _acct(a).totalWad;
        uint256 closedNotional = 1_065e18;
        // margin + pnl − the funding settled first (the price walk took a second)
        int256 released = int256(m0) + int256(closedNotional) - 1_080e18 - _health(a).pendingFundingWad;
        uint256 fee = _ceilDiv(closedNotional * 50, 1e4);
        if (int256(fee) > released) fee = released > 0 ? uint256(released) : 0;
        uint256 toLiquidator = fee / 2;
        vm.recordLogs();
        uint256 closed = _liquidate(a);
        assertEq(closed, 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_pos(c).sizeQty, 1_000e18);
        assertEq(token.balanceOf(keeper), toLiquidator / TO_WAD, "half the fee to the liquidator, in tokens");
        assertEq(engine.insuranceFundWad(), fee - (toLiquidator / TO_WAD) * TO_WAD, "rest to insurance");
        assertEq(engine.badDebtWad(), 0);
        assertEq(_acct(a).totalWad, totalBefore - m0 + uint256(released) - fee);
        assertEq(_acct(a).committedWad, 0);
        Vm.Log[] memory liq = _logs(vm.getRecordedLogs(), address(market), IMarket.Liquidated.selector);
        assertEq(liq.length, 1);
        assertEq(uint256(liq[0].topics[1]), a);
        assertEq(address(uint160(uint256(liq[0].topics[2]))), keeper);
        (, uint256 q, uint256 notional, uint256 lf, uint256 inf, uint256 bad, int256 remaining) =
            abi.decode(liq[0].data, (uint64, uint256, uint256, uint256, uint256, uint256, int256));
        assertEq(q, 1_000e18);
        assertEq(notional, closedNotional);
        assertEq(lf, toLiquidator);
        assertEq(inf, fee - toLiquidator);
        assertEq(bad, 0);
        assertEq(remaining, 0);
        _checkAll();
    }

    /// The skew's sides are 96-bit totals (open interest + resting size the skew counts, kept in one
    /// slot with the stale second and the free list's head). A side at its top never stops a
    /// liquidation through the book: a maker's fill takes its resting size off the side before
    /// its position adds it, and the liquidated position only shrinks its side.
    function test_liquidate_skewSideAtItsTopStillLiquidates() public {
        _setPrice(EUR, 1.066e18);
        _limit(carol, c, LONG, 213e6, 10, 1.065e18); // 2000 bid @ 1.065
        // long: alice's 1000 + carol's bid 2000; short: bob's 1000 + his 1000 left resting
        uint256 slot = _skewSlot(3_000e18, 2_000e18);
        bytes32 w = vm.load(address(market), bytes32(slot));
        uint256 top = type(uint96).max - 1;
        vm.store(address(market), bytes32(slot), bytes32(uint256(w) >> 96 << 96 | top));
        assertEq(_liquidate(a), 1_000e18);
        assertEq(_pos(c).sizeQty, 1_000e18);
        assertEq(uint256(vm.load(address(market), bytes32(slot))) & type(uint96).max, top - 1_000e18, "alice's 1000 off the side, carol's moved from resting to open");
    }

    /// The market's slot holding the skew's sides `long` (low 96 bits) and `short` (the next 96).
    function _skewSlot(uint256 long, uint256 short) internal view returns (uint256) {
        for (uint256 i; i < 64; ++i) {
            uint256 w = uint256(vm.load(address(market), bytes32(i)));
            if (w & type(uint96).max == long && (w >> 96) & type(uint96).max == short) return i;
        }
        revert("no skew slot");
    }

    /// Book + backstop: 400 through the book, the other 600 deleveraged (the fund is empty).
    function test_liquidate_thinBookThenBackstop() public {
        _setPrice(EUR, 1.066e18);
        _limit(carol, c, LONG, 42.6e6, 10, 1.065e18); // 400
        uint256 closed = _liquidate(a);
        assertEq(closed, 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_pos(c).sizeQty, 400e18, "the book took 400");
        assertEq(engine.badDebtWad(), 0);
        _checkAll();
    }

    /// A gap through the bankruptcy price: carol's bid below it is never filled; with an empty
    /// fund bob (in profit) is deleveraged at the bankruptcy price; no bad debt anywhere.
    function test_liquidate_gapIsDeleveragedNotBadDebt() public {
        _setPrice(EUR, 1.055e18);
        _limit(carol, c, LONG, 210e6, 10, 1.05e18); // 2000 bid @ 1.05, within the band of 1.055
        _setPrice(EUR, 1.0e18); // walked down in oracle-bounded steps, nobody liquidating meanwhile
        uint256 bankrupt = _health(a).insolvencyPriceX18;
        assertGt(bankrupt, 1.05e18, "the price gapped through the insolvency price");
        _liquidate(a);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_pos(c).sizeQty, 0, "no fill below the bankruptcy price");
        assertEq(engine.badDebtWad(), 0);
        assertEq(token.balanceOf(keeper), 0, "no fee out of nothing");
        _checkAll();
    }

    /// ADL ordering: two opposite positions in profit; the higher profit × leverage goes first.
    function test_liquidate_deleveragesBestScoreFirst() public {
        // dave: short 100 at 1.079 at 10x into carol's bid; bob: short 1000 at 1.08 at 10x, more
        // profit for about the same leverage
        _limit(carol, c, LONG, 10.79e6, 10, 1.079e18);
        vm.prank(dave);
        engine.placeOrder(_params(d, EUR, SHORT, MKT, 10.8e6, 10, 0, bytes32(0)));
        assertLt(_pos(d).sizeQty, 0);
        _setPrice(EUR, 1.066e18);
        vm.recordLogs();
        _liquidate(a);
        assertEq(_pos(a).sizeQty, 0);
        Vm.Log[] memory dl = _logs(vm.getRecordedLogs(), address(market), IMarket.Deleveraged.selector);
        assertGe(dl.length, 1);
        assertEq(uint256(dl[0].topics[2]), b, "bob (higher profit x leverage) first");
        assertEq(engine.badDebtWad(), 0);
        _checkAll();
    }

    function test_liquidateAccount_liquidatesEveryUnhealthyPosition() public {
        // alice also long 250 GBP at 20x
        vm.prank(bob);
        engine.placeOrder(_params(b, GBP, SHORT, LMT, 127e6, 10, 1.27e18, bytes32(0)));
        vm.prank(alice);
        engine.placeOrder(_params(a, GBP, LONG, MKT, 15.875e6, 20, 0, bytes32(0)));
        assertEq(gbp.getPosition(a).sizeQty, 250e18);
        _setPrice(EUR, 1.066e18);
        _setPrice(GBP, 1.23e18);
        vm.prank(carol);
        engine.placeOrder(_params(c, GBP, LONG, LMT, 123e6, 10, 1.23e18, bytes32(0)));
        _limit(carol, c, LONG, 213e6, 10, 1.065e18);
        assertTrue(_health(a).isLiquidatable);
        assertTrue(lens.positionHealth(gbp, a).isLiquidatable);
        vm.prank(keeper);
        uint256 n = engine.liquidateAccount(a);
        assertEq(n, 2);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(gbp.getPosition(a).sizeQty, 0);
        _checkAll();
    }

    function test_liquidateAccount_revertsNotLiquidatable() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NotLiquidatable.selector, a, bytes32(0)));
        engine.liquidateAccount(a);
    }

    function test_liquidateAccount_revertsAccountNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.AccountNotFound.selector, uint256(999)));
        engine.liquidateAccount(999);
    }

    /// An account must not be able to shield its position with its own resting order at the top
    /// of the book. BUGS.md #3: the liquidation sweep meets the owner's bid and reverts SelfTrade.
    function test_liquidate_ownRestingOrderDoesNotBlock() public {
        _limit(alice, a, LONG, 10.7e6, 1, 1.07e18); // 10 @ 1.07, best bid
        _setPrice(EUR, 1.066e18);
        _limit(carol, c, LONG, 213e6, 10, 1.065e18);
        assertTrue(_health(a).isLiquidatable);
        _liquidate(a);
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }

    function test_liquidate_worksWhilePaused() public {
        _setPrice(EUR, 1.066e18);
        _limit(carol, c, LONG, 213e6, 10, 1.065e18);
        engine.setMarketActive(EUR, false);
        _liquidate(a);
        assertEq(_pos(a).sizeQty, 0);
    }

    /// Funding alone (no price move) erodes a 50x long on a long-heavy book until it is
    /// liquidatable; the liquidation settles the funding first.
    function test_liquidate_afterFundingErodesMargin() public {
        _limit(carol, c, LONG, 5_350e6, 20, 1.07e18); // 100k resting bid: L >> S, longs pay
        assertGt(market.funding().rateX18PerHour, 0);
        assertFalse(_health(a).isLiquidatable);
        // same index, kept fresh (an update every 30 minutes: funding accrues over all of it; a
        // silence beyond maxAge would be a stale stretch, which is not charged)
        for (uint256 i; i < 240; ++i) {
            vm.warp(block.timestamp + 30 minutes);
            _setPrice(EUR, EUR_PX);
        }
        IMarket.HealthView memory h = _health(a);
        assertGt(h.pendingFundingWad, 0);
        assertEq(h.unrealizedPnlWad, 0, "mark unchanged");
        assertTrue(h.isLiquidatable, "funding pushed equity below maintenance");
        vm.recordLogs();
        _liquidate(a);
        Vm.Log[] memory ups = _logs(vm.getRecordedLogs(), address(market), IMarket.PositionUpdated.selector);
        bool seen;
        for (uint256 i; i < ups.length; ++i) {
            if (uint256(ups[i].topics[1]) != a) continue;
            (, IMarket.PositionReason reason,,,,, int256 paid,,) = abi.decode(
                ups[i].data, (uint64, IMarket.PositionReason, int256, uint256, uint256, int256, int256, uint256, int256)
            );
            assertEq(uint256(reason), uint256(IMarket.PositionReason.LIQUIDATION));
            assertEq(paid, h.pendingFundingWad, "funding settled by the liquidation");
            seen = true;
        }
        assertTrue(seen);
        assertEq(_pos(a).sizeQty, 0);
        _checkAll();
    }
}
