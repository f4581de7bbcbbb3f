// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Auto-deleveraging's candidates (docs/CONTRACTS.md "Backstop"): the liquidator may name the
/// counterparties (any account ids, at most 64); the market ranks them itself by profit ×
/// leverage, so the list's order does not matter and ineligible names are passed over.
contract MarketAdlTest is VenueFixture {
    event GasUsed(string what, uint256 gas); // shown with -vvvv
    uint256 internal a;
    uint256 internal mm;
    address internal mmWho = address(0x3A3A);

    function setUp() public override {
        super.setUp();
        a = _account(alice, 100e6);
        mm = _account(mmWho, 100_000e6);
    }

    /// `n` accounts with 1 USDV each (to push the next ids past the default scan).
    function _fillers(uint256 n) internal {
        for (uint256 i; i < n; ++i) _account(address(uint160(0x100000 + i)), 0);
    }

    function _liquidateRanked(uint256 id, uint256[] memory cands) internal returns (uint256) {
        vm.prank(keeper);
        return engine.liquidatePositionRanked(id, EUR, cands);
    }

    /// Alice long 1,000 at 1.08 (48×) against two shorts of 500 each: `lo` at 5×, `hi` at 20×
    /// (both account ids above 256); the index falls to 1.066: alice is liquidatable, both shorts
    /// are in profit, the book has no bid and the fund is empty.
    function _twoShorts() internal returns (uint256 lo, uint256 hi) {
        _fillers(260);
        lo = _account(bob, 1_000e6);
        hi = _account(carol, 1_000e6);
        assertGt(lo, 256);
        _limit(bob, lo, SHORT, 108e6, 5, 1.08e18); // 500
        _limit(carol, hi, SHORT, 27e6, 20, 1.08e18); // 500
        _market(alice, a, LONG, 22.5e6, 48);
        assertEq(_pos(a).sizeQty, 1_000e18);
        assertEq(_pos(lo).sizeQty, -500e18);
        assertEq(_pos(hi).sizeQty, -500e18);
        _setPrice(EUR, 1.066e18);
        assertTrue(_health(a).isLiquidatable);
        assertEq(engine.insuranceFundWad(), 0);
    }

    /// Before: the default scan (accounts 0 .. 256) sees no counterparty, so nothing closes.
    /// With the list, deleveraging reaches accounts above 256, best score first whatever the
    /// list's order; the event carries the notional.
    function test_adl_reachesAccountsAbove256_rankedByTheMarket() public {
        (uint256 lo, uint256 hi) = _twoShorts();
        vm.prank(keeper);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoLiquidity.selector, EUR));
        engine.liquidatePosition(a, EUR);

        // the list in the wrong order, with names that are passed over: alice herself, a flat
        // account, the fund (flat), a repeat
        uint256[] memory cands = new uint256[](6);
        (cands[0], cands[1], cands[2], cands[3], cands[4], cands[5]) = (lo, a, mm, 0, hi, lo);
        // alice is still solvent at the mark (equity ≈ 8.5 > 0): the rest closes at the mark,
        // not at the bankruptcy price (issue 26: being chosen is worth nothing)
        assertGt(_health(a).equityWad, int256(0));
        uint256 mark = market.markPrice();
        assertGt(mark, _health(a).insolvencyPriceX18 + 1);
        vm.recordLogs();
        assertEq(_liquidateRanked(a, cands), 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(_pos(lo).sizeQty, 0);
        assertEq(_pos(hi).sizeQty, 0);
        assertEq(engine.badDebtWad(), 0);
        Vm.Log[] memory dl = _logs(vm.getRecordedLogs(), address(market), IMarket.Deleveraged.selector);
        assertEq(dl.length, 2, "one event per counterparty");
        // hi (20×) scores above lo (5×): same profit, more leverage
        assertEq(uint256(dl[0].topics[2]), hi);
        assertEq(uint256(dl[1].topics[2]), lo);
        for (uint256 r; r < 2; ++r) {
            assertEq(uint256(dl[r].topics[1]), a);
            (, uint256 q, uint256 px, uint256 notional,,, uint256 rank) =
                abi.decode(dl[r].data, (uint64, uint256, uint256, uint256, int256, int256, uint256));
            assertEq(q, 500e18);
            assertEq(px, mark);
            assertEq(notional, _ceilDiv(q * px, 1e18), "notional: the short buys back, rounded up");
            assertEq(rank, r + 1);
        }
        _checkAll();
    }

    /// The liquidator's list is bounded (the work of one call): 65 names revert.
    function test_adl_listBounded() public {
        _twoShorts();
        uint256[] memory cands = new uint256[](65);
        vm.prank(keeper);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.TooManyAdlCandidates.selector, 65, 64));
        engine.liquidatePositionRanked(a, EUR, cands);
    }

    /// Many small positions do not block a liquidation: 300 dust shorts (the minimum size, all in
    /// profit) fill the default scan and are deleveraged a bounded number per call; the honest
    /// short above them is reached by the list. Each call's gas stays well under a block.
    function test_adl_dustFloodDoesNotBlock() public {
        // the market maker's bid takes 300 minimum-size sells (the dust shorts)
        uint256 bid = _limit(mmWho, mm, LONG, 10_000e6, 10, 1.08e18);
        uint256 first;
        uint256 last;
        for (uint256 i; i < 300; ++i) {
            address who = address(uint160(0x200000 + i));
            uint256 id = _account(who, 1e6);
            if (i == 0) first = id;
            last = id;
            vm.prank(who);
            engine.placeOrder(_params(id, EUR, SHORT, MKT, 0.12e6, 10, 0, bytes32(0)));
        }
        vm.prank(mmWho);
        engine.cancelOrderById(mm, EUR, bid);
        uint256 dustQty = VenueAbs.abs(_pos(first).sizeQty);
        assertGe(dustQty, MIN_QTY);
        // alice's long against an honest short far above the default scan
        uint256 honest = _account(bob, 1_000e6);
        _limit(bob, honest, SHORT, 108e6, 10, 1.08e18); // 1,000
        _market(alice, a, LONG, 22.5e6, 48);
        _setPrice(EUR, 1.066e18);
        assertTrue(_health(a).isLiquidatable);

        // the default scan: bounded (accounts 0 .. 256), closes some dust, never reverts for it
        uint256 g = gasleft();
        vm.prank(keeper);
        uint256 closed = engine.liquidatePosition(a, EUR);
        uint256 used = g - gasleft();
        emit GasUsed("default scan over 256 accounts", used);
        assertEq(closed, 254 * dustQty, "dust accounts 3 .. 256");
        assertLt(used, 30_000_000, "one call fits a block");

        // a list of 64 dust names (ids 239 .. 302: those up to 256 were closed by the scan and are
        // passed over, 46 remain): bounded the same way
        assertEq(last, 302);
        uint256[] memory cands = new uint256[](64);
        for (uint256 i; i < 64; ++i) cands[i] = last - i;
        g = gasleft();
        closed = _liquidateRanked(a, cands);
        used = g - gasleft();
        emit GasUsed("64 supplied candidates", used);
        assertEq(closed, 46 * dustQty);
        assertLt(used, 10_000_000);

        // the honest short is reached by name and the liquidation completes
        cands = new uint256[](1);
        cands[0] = honest;
        _liquidateRanked(a, cands);
        assertEq(_pos(a).sizeQty, 0);
        assertEq(engine.badDebtWad(), 0);
        _checkAll();
    }
}

library VenueAbs {
    function abs(int256 x) internal pure returns (uint256) {
        return x < 0 ? uint256(-x) : uint256(x);
    }
}
