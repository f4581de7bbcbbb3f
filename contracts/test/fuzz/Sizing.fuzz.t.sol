// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Order sizing: qty = floor(collateral × leverage / price to the lot), the whole collateral committed.
contract SizingFuzzTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000_000e6);
        b = _account(bob, 1_000_000e6);
    }

    /// A price on the tick inside the band around 1.08 (94 bps: both edges 1.06985 .. 1.09015).
    function _bandPrice(uint256 seed) internal pure returns (uint256) {
        return bound(seed, 1.06985e18 / TICK, 1.09015e18 / TICK) * TICK;
    }

    function test_fuzz_placeOrder_limitSizing(uint256 coll6, uint256 lev, uint256 priceSeed, bool long) public {
        coll6 = bound(coll6, 1, 500_000e6);
        lev = bound(lev, 1, 50);
        uint256 px = _bandPrice(priceSeed);
        uint256 want = _qty(coll6, lev, px);
        IMarket.Side side = long ? LONG : SHORT;
        if (want < MIN_QTY) {
            vm.prank(alice);
            vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderTooSmall.selector, want, MIN_QTY));
            engine.placeOrder(_params(a, EUR, side, LMT, coll6, lev, px, bytes32(0)));
            return;
        }
        (uint256 oid, uint256 qty,) = _place(alice, a, side, LMT, coll6, lev, px);
        assertEq(qty, want);
        assertEq(qty % LOT, 0, "multiple of the lot");
        // rounding down: one more lot would need more collateral than given
        assertLe(qty * px / 1e18, coll6 * TO_WAD * lev, "notional within collateral x leverage");
        assertGt((qty + LOT) * px, coll6 * TO_WAD * lev * 1e18, "largest lot multiple");
        assertEq(_orderEnd(oid).marginRemainingWad, coll6 * TO_WAD);
        assertEq(_acct(a).committedWad, coll6 * TO_WAD + ORDER_BOND_WAD); // the resting order's margin and bond
        _checkAll();
    }

    function test_fuzz_placeOrder_marketSizedAtBestOpposite(uint256 coll6, uint256 lev, uint256 priceSeed) public {
        uint256 px = _bandPrice(priceSeed);
        _limit(bob, b, SHORT, 500_000e6, 10, px); // deep ask
        coll6 = bound(coll6, 1e6, 100_000e6);
        lev = bound(lev, 1, 50);
        uint256 want = _qty(coll6, lev, px);
        vm.assume(want >= MIN_QTY);
        vm.prank(alice);
        try engine.placeOrder(_params(a, EUR, LONG, MKT, coll6, lev, 0, bytes32(0))) returns (
            uint256 oid, bytes32, uint256 qty, IMarket.OrderStatus st
        ) {
            _checkFilled(oid, qty, st, want, px);
        } catch (bytes memory reason) {
            // a fill that would leave the position below initial margin does not happen
            assertEq(bytes4(reason), IVenueErrors.BelowInitialMargin.selector);
            assertEq(_pos(a).sizeQty, 0);
        }
    }

    function _checkFilled(uint256 oid, uint256 qty, IMarket.OrderStatus st, uint256 want, uint256 px) internal {
        assertEq(qty, want);
        assertEq(uint256(st), uint256(IMarket.OrderStatus.FILLED));
        assertEq(_orderEnd(oid).priceX18, px, "sizing price = best ask");
        assertEq(_pos(a).sizeQty, int256(want));
        IMarket.HealthView memory h = _health(a);
        assertGe(h.equityWad * 50, int256(h.positionValueWad), "born at or above initial margin");
        _checkAll();
    }

    function test_fuzz_placeOrder_offTickReverts(uint256 priceSeed, uint256 off) public {
        uint256 px = _bandPrice(priceSeed) + bound(off, 1, TICK - 1);
        vm.assume(px <= 1.09015e18);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, px));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 100e6, 5, px, bytes32(0)));
    }
}
