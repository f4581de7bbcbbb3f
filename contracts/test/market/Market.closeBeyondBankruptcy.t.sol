// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {RiskChecks} from "../utils/RiskChecks.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// A user's own close never fills beyond the position's bankruptcy price: such a fill would
/// realize a loss beyond the position's margin (a shortfall), paid by the pool, while the
/// counterparty keeps the gain (found by the issue-10 invariant, now in invariant_venue: "a pool hides a deficit").
/// Two accounts of one attacker could otherwise move money out of everyone's deposits: A long at
/// 40×, a reduce-only ask below A's bankruptcy price, B buys it.
/// A resting maker whose fill would leave a shortfall is cancelled (MARGIN); a taker reverts
/// BelowInitialMargin. Liquidations keep their own path (bounded by the bankruptcy price, backstop).
contract MarketCloseBeyondBankruptcyTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;
    uint256 internal constant BEYOND = 1.05e18; // below alice's bankruptcy (~1.0535), inside the band of 1.055

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 1_000e6);
        // alice long 500 @ 1.08 at 40× from bob: margin 13.5 − taker fee
        _limit(bob, b, SHORT, 13.5e6, 40, 1.08e18);
        _market(alice, a, LONG, 13.5e6, 40);
        assertEq(_pos(a).sizeQty, 500e18);
        // the band (94 bps < maintenance) keeps a healthy position's bankruptcy price out of reach:
        // the index falls to 1.055 (alice liquidatable, nobody liquidating) so that it is within
        _setPrice(EUR, 1.055e18);
        IMarket.HealthView memory h = _health(a);
        assertLt(BEYOND, h.insolvencyPriceX18, "the test price is beyond bankruptcy");
        assertGe(BEYOND, h.markPriceX18 * (1e4 - market.params().priceBandBps) / 1e4, "and inside the band");
    }

    function test_reduceOnlyMakerBeyondBankruptcy_isCancelledNotFilled() public {
        vm.prank(alice);
        (uint256 oid,,,) = engine.closePosition(a, EUR, LMT, BEYOND, bytes32(0));
        assertEq(uint256(_order(oid).status), uint256(IMarket.OrderStatus.ACTIVE), "rests");
        int256 value0 = int256(RiskChecks.accountValueWad(engine, lens, a) + RiskChecks.accountValueWad(engine, lens, c));
        _market(carol, c, LONG, 52.5e6, 10); // 500 @ 1.05 if it filled
        assertEq(uint256(_order(oid).status), uint256(IMarket.OrderStatus.CANCELLED), "cancelled, not filled");
        assertEq(_pos(a).sizeQty, 500e18, "alice still long");
        assertEq(_pos(c).sizeQty, 0, "carol bought nothing");
        assertEq(engine.badDebtWad(), 0, "no bad debt");
        int256 value1 = int256(RiskChecks.accountValueWad(engine, lens, a) + RiskChecks.accountValueWad(engine, lens, c));
        assertLe(value1, value0, "alice and carol together gained nothing");
        assertGe(RiskChecks.surplusSignedWad(engine, lens, token), int256(0), "no pool hides a deficit");
        _checkAll();
    }

    function test_closeMarketBeyondBankruptcy_reverts() public {
        uint256 bid = _limit(carol, c, LONG, 52.5e6, 10, BEYOND); // 500 @ 1.05
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BelowInitialMargin.selector, a, EUR));
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 500e18, "alice still long");
        assertEq(uint256(_order(bid).status), uint256(IMarket.OrderStatus.ACTIVE), "carol's bid untouched");
        assertEq(engine.badDebtWad(), 0, "no bad debt");
        assertGe(RiskChecks.surplusSignedWad(engine, lens, token), int256(0), "no pool hides a deficit");
        _checkAll();
    }

    function test_closeLimitCrossingBeyondBankruptcy_reverts() public {
        _limit(carol, c, LONG, 52.5e6, 10, BEYOND);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.BelowInitialMargin.selector, a, EUR));
        engine.closePosition(a, EUR, LMT, BEYOND, bytes32(0));
    }

    /// Within the bankruptcy price the close works as before (the loss is the position's).
    function test_closeWithinBankruptcy_fills() public {
        _limit(carol, c, LONG, 53e6, 10, 1.06e18); // 500 @ 1.06 (above bankruptcy)
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 0);
        assertEq(engine.badDebtWad(), 0);
        assertGe(RiskChecks.surplusSignedWad(engine, lens, token), int256(0));
        _checkAll();
    }
}
