// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
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
        // (l − s) / (l + s) in WAD, truncated toward zero: the imbalance's sign wherever the
        // imbalance is at least 1e-18 of the open interest (below that it rounds to 0)
        int256 d = int256(l) - int256(s);
        assertEq(r.skew, l + s == 0 ? int256(0) : d * 1e18 / int256(l + s), "skew");
        if (d * 1e18 >= int256(l + s) && d > 0) assertGt(r.skew, 0);
        if (-d * 1e18 >= int256(l + s) && d < 0) assertLt(r.skew, 0);
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

    function _warpTo(uint256 dt, uint256 px) internal {
        vm.warp(block.timestamp + dt);
        vm.roll(block.number + 1);
        _setPrice(EUR, px);
    }

    uint256 internal fa;
    uint256 internal fc;
    uint256 internal fd;

    /// Alice long 5000 against bob; four margined orders of carol and dave on random sides,
    /// prices and sizes; after `dt1` the first and a random subset of the others are cancelled,
    /// some seconds apart.
    function _bookThenCancels(uint256 seed, uint256 dt1) internal {
        fa = _account(alice, 100_000e6);
        uint256 b = _account(bob, 100_000e6);
        fc = _account(carol, 100_000e6);
        fd = _account(dave, 100_000e6);
        _limit(bob, b, SHORT, 540e6, 10, 1.08e18);
        _market(alice, fa, LONG, 540e6, 10); // 5000 each side, book empty
        uint256[4] memory oids;
        for (uint256 i; i < 4; ++i) {
            bool bid = (seed >> i) & 1 == 0;
            uint256 k = (seed >> (8 + 8 * i)) % 80;
            uint256 px = bid ? 1.0795e18 - k * 1e14 : 1.0805e18 + k * 1e14;
            uint256 coll = 2e6 + (seed >> (48 + 16 * i)) % 2_000e6;
            (address who, uint256 id) = i % 2 == 0 ? (carol, fc) : (dave, fd);
            oids[i] = _limit(who, id, bid ? LONG : SHORT, coll, 10, px);
        }
        _warpTo(bound(dt1, 0, 2 hours), 1.08e18);
        for (uint256 i; i < 4; ++i) {
            if (i != 0 && (seed >> (120 + i)) & 1 == 0) continue;
            bytes32 key = _keyOf(oids[i]);
            (address who, uint256 id) = i % 2 == 0 ? (carol, fc) : (dave, fd);
            vm.prank(who);
            engine.cancelOrder(id, EUR, key);
            if ((seed >> (130 + i)) & 1 == 1) _warpTo(1 + (seed >> (140 + 8 * i)) % 600, 1.08e18);
        }
    }

    /// A random book, random margined cancels at random seconds, a moved index: what the views
    /// say (cumulativeIndexNow, mark, pending funding) is what the next accrual (a poke or a
    /// placement) writes, and the stale rate is cleared by it (docs/CONTRACTS.md "Funding").
    function test_fuzz_funding_viewsEqualTheNextAccrual(uint256 seed, uint256 dt1, uint256 dt2, int256 moveBps, bool byPlacement)
        public
    {
        _bookThenCancels(seed, dt1);
        assertGt(market.funding().rateStaleSince, 0, "a margined cancel marks the rate stale");
        _warpTo(bound(dt2, 0, 2 hours), uint256(int256(1.08e18) * (10_000 + bound(moveBps, -40, 40)) / 10_000) / TICK * TICK);
        IMarket.FundingView memory v = market.funding();
        uint256 mark = market.markPrice();
        int256 pending = lens.positionHealth(market, fa).pendingFundingWad;
        _nextSeq(address(market)); // drains the recorded logs
        if (byPlacement) _limit(dave, fd, LONG, 10e6, 10, mark * 9_950 / 10_000 / TICK * TICK);
        else engine.pokeFunding(EUR);
        Vm.Log[] memory ups = _logs(vm.getRecordedLogs(), address(market), IMarket.FundingUpdated.selector);
        assertEq(ups.length, 1);
        (,,,,,,,, int256 cum,, uint256 upMark, uint256 ts) = abi.decode(
            ups[0].data, (uint64, int256, int256, int256, int256, int256, uint256, uint256, int256, uint256, uint256, uint256)
        );
        assertEq(cum, v.cumulativeIndexNowX18, "cumulativeIndexNow is what the next accrual writes");
        assertEq(upMark, mark, "markPrice is the next accrual's mark");
        assertEq(ts, block.timestamp);
        IMarket.FundingView memory f = market.funding();
        assertEq(f.cumulativeIndexX18, v.cumulativeIndexNowX18);
        assertEq(f.rateStaleSince, 0, "the stale rate is cleared");
        assertEq(f.rateNowX18PerHour, f.rateX18PerHour);
        int256 x = _pos(fa).sizeQty * (f.cumulativeIndexX18 - _pos(fa).lastFundingIndexX18);
        assertEq(pending, x > 0 ? (x - 1) / 1e18 + 1 : -(-x / 1e18), "pending funding before = after");
    }
}
