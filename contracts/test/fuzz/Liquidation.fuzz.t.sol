// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Liquidation threshold and outcome for any index between the entry and the resting bid below it.
contract LiquidationFuzzTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 100e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 10_000e6);
        _limit(bob, b, SHORT, 216e6, 10, 1.08e18); // 2000 @ 1.08 (1000 remain after alice)
        _market(alice, a, LONG, 22.5e6, 48); // alice +1000 @ 1.08
        // 3000 bid @ 1.06, placed within the band of a 1.07 index; the index walks back to 1.08
        _setPrice(EUR, 1.07e18);
        _limit(carol, c, LONG, 318e6, 10, 1.06e18);
        _setPrice(EUR, 1.08e18);
    }

    function test_fuzz_liquidate_thresholdMatchesFormula(uint256 priceSeed) public {
        uint256 p = bound(priceSeed, 1.06e18 / TICK, 1.08e18 / TICK) * TICK;
        _setPrice(EUR, p);
        // two-sided book 1.06 / 1.08 around the index: mark = median = index
        assertEq(market.markPrice(), p);
        IMarket.PositionView memory pos = _pos(a);
        // the price walks took seconds: funding is pending
        int256 owed = _health(a).pendingFundingWad;
        int256 equity = int256(pos.marginWad) + int256(1_000e18 * p / 1e18) - int256(pos.openNotionalWad) - owed;
        uint256 maintenance = (1_000e18 * p / 1e18) * 100 / 1e4;
        bool expected = equity < int256(maintenance);
        assertEq(_health(a).isLiquidatable, expected, "health view = docs formula");
        uint256 insBefore = engine.insuranceFundWad();
        uint256 badBefore = engine.badDebtWad();
        if (!expected) {
            vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NotLiquidatable.selector, a, EUR));
            vm.prank(keeper);
            engine.liquidatePosition(a, EUR);
            return;
        }
        vm.prank(keeper);
        uint256 closed = engine.liquidatePosition(a, EUR);
        assertEq(closed, 1_000e18);
        assertEq(_pos(a).sizeQty, 0);
        // closed at carol's 1.06, above the bankruptcy price: the account keeps margin + pnl − fee
        int256 released = int256(pos.marginWad) + 1_060e18 - int256(pos.openNotionalWad) - owed;
        assertGe(released, 0, "1.06 is above the bankruptcy price");
        uint256 feeCap = _ceilDiv(1_060e18 * 50, 1e4);
        uint256 fee = released <= 0 ? 0 : uint256(released) < feeCap ? uint256(released) : feeCap;
        assertEq(token.balanceOf(keeper), fee / 2 / TO_WAD, "liquidator half, in tokens");
        assertEq(engine.insuranceFundWad() + (fee / 2 / TO_WAD) * TO_WAD, insBefore + fee);
        assertEq(engine.badDebtWad(), badBefore);
        _checkAll();
    }
}
