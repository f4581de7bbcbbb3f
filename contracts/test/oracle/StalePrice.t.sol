// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// The stale-price policy (docs/CONTRACTS.md "Oracle, roles and governance"): past maxAgeSeconds
/// nothing that needs the index runs — opening orders, funding, and liquidation too; the first
/// fresh update (bounded by maxMoveBps) lets liquidation through again.
contract StalePriceTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;

    function setUp() public override {
        super.setUp();
        oracle.setConfig(60, 100); // the devnet oracle
        _setPrice(EUR, EUR_PX);
        a = _account(alice, 100e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 10_000e6);
        _limit(bob, b, SHORT, 216e6, 10, 1.08e18);
        _market(alice, a, LONG, 22.5e6, 48); // 1000 long at 48x (50x at the mark is below initial margin)
        _limit(carol, c, LONG, 214e6, 10, 1.07e18); // depth to liquidate into
    }

    function test_liquidation_waitsForAFreshPrice() public {
        (, uint256 at) = oracle.getPrice(EUR);
        vm.warp(at + 61);
        assertFalse(oracle.isFresh(EUR));
        vm.prank(keeper);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PriceStale.selector, EUR, at, uint256(60)));
        engine.liquidatePosition(a, EUR);

        // the index gapped 7 % while the feed was down: one update moves it 1 % (alice still
        // above maintenance), the next one, a second later, another 1 %: liquidatable
        oracle.setPrice(EUR, 1.0044e18);
        assertEq(oracle.getFreshPrice(EUR), 1.0692e18);
        assertFalse(_health(a).isLiquidatable);
        vm.warp(block.timestamp + 1);
        oracle.setPrice(EUR, 1.0044e18);
        assertEq(oracle.getFreshPrice(EUR), 1.058508e18);
        assertTrue(_health(a).isLiquidatable);
        vm.prank(keeper);
        uint256 closed = engine.liquidatePosition(a, EUR);
        assertGt(closed, 0);
    }

    function test_openingOrders_stopWhenStale() public {
        (, uint256 at) = oracle.getPrice(EUR);
        vm.warp(at + 61);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PriceStale.selector, EUR, at, uint256(60)));
        engine.placeOrder(_params(b, EUR, SHORT, LMT, 10e6, 2, 1.08e18, bytes32(0)));
    }
}
