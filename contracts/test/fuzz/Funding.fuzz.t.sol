// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {VenueMath} from "../../src/libraries/VenueMath.sol";

/// Funding math: rounding direction, clamping, and on-chain accrual against the docs' formula.
contract FundingFuzzTest is VenueFixture {
    function test_fuzz_pendingFunding_payerRoundsUpReceiverDown(int256 size, int256 delta) public pure {
        size = bound(size, -1e30, 1e30);
        delta = bound(delta, -1e30, 1e30);
        int256 pay = VenueMath.pendingFunding(size, delta);
        int256 mirror = VenueMath.pendingFunding(-size, delta);
        int256 exact = size * delta; // WAD × 1e18
        // |pay × 1e18 − exact| < 1e18, rounding against the position
        assertGe(pay * 1e18, exact, "never less than owed");
        assertLt(pay * 1e18 - exact, 1e18);
        // the venue never pays out more than it collects
        assertGe(pay + mirror, 0);
        assertLe(pay + mirror, 1);
    }

    function test_fuzz_fundingRate_clampedAndSigned(uint256 index, uint256 mark, uint256 l, uint256 s) public pure {
        index = bound(index, 1e15, 1e24);
        mark = bound(mark, index / 2, index * 2);
        l = bound(l, 0, 1e30);
        s = bound(s, 0, 1e30);
        VenueMath.Rate memory r = VenueMath.fundingRate(VenueMath.premiumSample(index, mark, mark, 1e4 - 1), l, s, 1e14, 1e15);
        assertLe(r.rate, 1e15);
        assertGe(r.rate, -1e15);
        if (l > s) assertGt(r.skew, 0);
        if (l < s) assertLt(r.skew, 0);
        if (l == s) assertEq(r.skew, 0);
        assertLe(r.skew, 1e18);
        assertGe(r.skew, -1e18);
        if (mark > index) assertGe(r.premiumComponent, 0);
        if (mark < index) assertLe(r.premiumComponent, 0);
        int256 raw = r.premiumComponent + r.skewComponent;
        if (raw <= 1e15 && raw >= -1e15) assertEq(r.rate, raw, "unclamped inside the bounds");
    }

    function test_fuzz_funding_onChainAccrualMatchesDocs(uint256 restSeed, uint256 dt) public {
        uint256 a = _account(alice, 10_000e6);
        uint256 b = _account(bob, 10_000e6);
        uint256 c = _account(carol, 10_000e6);
        _limit(bob, b, SHORT, 540e6, 10, 1.08e18);
        _market(alice, a, LONG, 540e6, 10); // 5000 each side
        uint256 coll = bound(restSeed, 1e6, 5_000e6);
        if (_qty(coll, 10, 1.07e18) >= MIN_QTY) _limit(carol, c, LONG, coll, 10, 1.07e18);
        IMarket.FundingView memory f0 = market.funding();
        dt = bound(dt, 1, 3_600);
        vm.warp(block.timestamp + dt);
        (uint256 index,) = oracle.getPrice(EUR);
        int256 expected = f0.cumulativeIndexX18 + f0.rateX18PerHour * int256(index) * int256(dt) / int256(3600 * 1e18);
        assertEq(market.funding().cumulativeIndexNowX18, expected);
        int256 x = _pos(a).sizeQty * (expected - _pos(a).lastFundingIndexX18);
        int256 want = x > 0 ? (x - 1) / 1e18 + 1 : -(-x / 1e18);
        assertEq(lens.positionHealth(market, a).pendingFundingWad, want);
    }
}
