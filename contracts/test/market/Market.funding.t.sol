// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Funding rate, accrual and settlement against the formulas of docs/CONTRACTS.md "Funding".
contract MarketFundingTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;
    uint256 internal d;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 1_000e6);
        d = _account(dave, 1_000e6);
        _limit(bob, b, SHORT, 54e6, 10, 1.08e18);
        _market(alice, a, LONG, 54e6, 10); // alice +500, bob -500, book empty
    }

    /// The docs' rate from the market's current state.
    function _expectedRate() internal view returns (int256 rate, int256 premium, int256 skew) {
        premium = market.funding().premiumX18; // the stored time-weighted premium
        (uint256 lo, uint256 sh) = market.openInterest();
        (uint256 rb, uint256 ra) = market.restingQty();
        int256 l = int256(lo + rb);
        int256 s = int256(sh + ra);
        skew = l + s == 0 ? int256(0) : (l - s) * 1e18 / (l + s);
        rate = premium / 24 + skew * 1e14 / 1e18;
        if (rate > 1e15) rate = 1e15;
        if (rate < -1e15) rate = -1e15;
    }

    function test_funding_zeroWhenBalancedAndMarkIsIndex() public view {
        IMarket.FundingView memory f = market.funding();
        assertEq(f.rateX18PerHour, 0);
        assertEq(f.skewX18, 0);
        assertEq(f.premiumX18, 0);
    }

    function test_funding_skewFromRestingOrders() public {
        _limit(carol, c, LONG, 10.7e6, 10, 1.07e18); // +100 resting bid
        IMarket.FundingView memory f = market.funding();
        assertEq(f.skewX18, int256(100e18) * 1e18 / int256(1_100e18));
        assertEq(f.skewComponentX18, f.skewX18 * 1e14 / 1e18);
        assertEq(f.premiumX18, 0, "one-sided book: mark = index");
        assertEq(f.rateX18PerHour, 9_090_909_090_909);
        (int256 rate,,) = _expectedRate();
        assertEq(f.rateX18PerHour, rate);
    }

    /// The mark is index × (1 + time-weighted premium): orders placed now do not move it in
    /// this block; it reaches the book's median over MARK_PERIOD (300 s).
    function test_funding_premiumFromTwoSidedBook() public {
        _limit(carol, c, LONG, 10.85e6, 10, 1.085e18);
        _limit(dave, d, SHORT, 10.9e6, 10, 1.09e18);
        assertEq(market.markPrice(), 1.08e18, "unchanged in the same block");
        int256 sample = int256(0.005e18) * 1e18 / int256(1.08e18);
        _warpFresh(150);
        assertEq(market.markPrice(), _markOf(sample * 150 / 300), "half way after 150 s");
        engine.pokeFunding(EUR);
        _warpFresh(300);
        int256 ema = sample * 150 / 300;
        ema = ema + (sample - ema); // a full period later: the sample
        assertEq(market.markPrice(), _markOf(ema));
        engine.pokeFunding(EUR);
        IMarket.FundingView memory f = market.funding();
        assertEq(f.premiumX18, ema);
        assertEq(f.premiumComponentX18, f.premiumX18 / 24);
        (int256 rate,, int256 skew) = _expectedRate();
        assertEq(f.skewX18, skew);
        assertEq(f.rateX18PerHour, rate);
    }

    /// The update stores the bid and ask it sampled, not a premium: an index that moves before
    /// the next update moves the sample with it. A book above the index (bid 1.0850, ask 1.0900)
    /// samples +0.46 %; the index then rises to 1.0870, past the bid, and nobody trades or pokes:
    /// the sample is the index itself (premium 0), not the old +0.46 % over the new index.
    function test_funding_indexMoveAfterTheUpdateMovesTheSample() public {
        _limit(carol, c, LONG, 10.85e6, 10, 1.085e18);
        _limit(dave, d, SHORT, 10.9e6, 10, 1.09e18);
        IMarket.FundingView memory f = market.funding();
        assertEq(f.sampleBidX18, 1.085e18, "the update sampled the bid beyond the index");
        assertEq(f.sampleAskX18, 1.09e18);
        assertEq(f.premiumSampleX18, int256(0.005e18) * 1e18 / int256(1.08e18));
        vm.warp(block.timestamp + 1 hours);
        _setPrice(EUR, 1.087e18);
        f = market.funding();
        assertEq(f.premiumSampleX18, 0, "median(1.087, 1.085, 1.090) is the index");
        assertEq(f.sampleBidX18, 1.085e18, "the stored bid and ask stay until the next update");
        // the premium average reaches the sample a period after the update, whatever it was
        assertEq(market.markPrice(), 1.087e18, "the mark is the new index, not 0.46 % above it");
        // and a fall of the index below the book samples the stored bid against the new index
        vm.warp(block.timestamp + 1 hours);
        _setPrice(EUR, 1.083e18);
        f = market.funding();
        assertEq(f.premiumSampleX18, int256(0.002e18) * 1e18 / int256(1.083e18), "median is the bid 1.085");
        assertEq(market.markPrice(), 1.083e18 * uint256(1e18 + f.premiumSampleX18) / 1e18);
    }

    /// A book around the index samples none (premium 0): the update stores no bid or ask.
    function test_funding_bookAroundTheIndexSamplesNone() public {
        _limit(carol, c, LONG, 10.75e6, 10, 1.075e18);
        _limit(dave, d, SHORT, 10.85e6, 10, 1.085e18);
        IMarket.FundingView memory f = market.funding();
        assertEq(f.sampleBidX18, 0);
        assertEq(f.sampleAskX18, 0);
        assertEq(f.premiumSampleX18, 0);
    }

    /// Dust cannot pin the mark: the sample is clamped to index ± markClampBps (≤ maintenance / 2).
    function test_funding_markClampedNearIndex() public {
        // a book inside the band (1.08 ± 0.94 %) whose mid sits 0.88 % above the index
        _limit(carol, c, LONG, 10.89e6, 10, 1.089e18);
        _limit(dave, d, SHORT, 10.9e6, 10, 1.09e18);
        _warpFresh(1 hours);
        int256 sample = int256(1.08e18 * 10_050 / 10_000 - 1.08e18) * 1e18 / int256(1.08e18);
        assertEq(market.markPrice(), _markOf(sample), "clamped to index + 0.5 %");
    }

    /// A poke on a stale index accrues up to the index's expiry and nothing over the stale
    /// stretch (issue 26), and closes the interval.
    function test_funding_noAccrualOnStalePrice() public {
        _limit(carol, c, LONG, 10.7e6, 10, 1.07e18);
        engine.pokeFunding(EUR);
        IMarket.FundingView memory f0 = market.funding();
        assertTrue(f0.rateX18PerHour != 0);
        (, uint256 at) = oracle.getPrice(EUR);
        vm.warp(block.timestamp + MAX_AGE + 10);
        engine.pokeFunding(EUR);
        IMarket.FundingView memory f1 = market.funding();
        assertEq(
            f1.cumulativeIndexX18, _accrued(f0.cumulativeIndexX18, f0.rateX18PerHour, at + MAX_AGE - f0.lastUpdate),
            "accrued up to the index's expiry, nothing on the stale index"
        );
        assertEq(f1.lastUpdate, block.timestamp, "the stale interval is closed");
    }

    function _warpFresh(uint256 dt) internal {
        vm.warp(block.timestamp + dt);
        _setPrice(EUR, 1.08e18);
    }

    /// `dt` passes with an index update every 30 minutes (within MAX_AGE: funding accrues over
    /// all of it; a longer silence would be a stale stretch, which is not charged).
    function _warpFreshBy(uint256 dt) internal {
        for (uint256 t; t < dt; t += 30 minutes) _warpFresh(dt - t < 30 minutes ? dt - t : 30 minutes);
    }

    function _markOf(int256 premium) internal pure returns (uint256) {
        return 1.08e18 * uint256(1e18 + premium) / 1e18;
    }

    function test_funding_accruesContinuously() public {
        _limit(carol, c, LONG, 10.7e6, 10, 1.07e18);
        IMarket.FundingView memory f0 = market.funding();
        int256 rate = f0.rateX18PerHour;
        vm.warp(block.timestamp + 1 hours);
        _setPrice(EUR, 1.08e18); // keep the index fresh, same price
        int256 step = rate * int256(1.08e18) * 3600 / int256(3600 * 1e18);
        IMarket.FundingView memory f1 = market.funding();
        assertEq(f1.cumulativeIndexNowX18, f0.cumulativeIndexX18 + step, "view accrues to now");
        assertEq(f1.cumulativeIndexX18, f0.cumulativeIndexX18, "storage untouched until a state change");
        // pending funding: longs pay rounded up, shorts receive rounded down
        int256 x = int256(500e18) * step;
        int256 pay = (x - 1) / 1e18 + 1;
        assertEq(lens.positionHealth(market, a).pendingFundingWad, pay);
        assertEq(lens.positionHealth(market, b).pendingFundingWad, -(x / 1e18));
        // a poke stores it and emits FundingUpdated
        vm.recordLogs();
        engine.pokeFunding(EUR);
        Vm.Log[] memory ups = _logs(vm.getRecordedLogs(), address(market), IMarket.FundingUpdated.selector);
        assertEq(ups.length, 1);
        (, int256 r,,,,,,, int256 cum, uint256 idx,, uint256 ts) = abi.decode(
            ups[0].data, (uint64, int256, int256, int256, int256, int256, uint256, uint256, int256, uint256, uint256, uint256)
        );
        assertEq(cum, f0.cumulativeIndexX18 + step);
        assertEq(r, rate, "same state, same rate");
        assertEq(idx, 1.08e18);
        assertEq(ts, block.timestamp);
        assertEq(market.funding().lastUpdate, block.timestamp);
    }

    function test_funding_accrualIsPathIndependentForConstantRate() public {
        _limit(carol, c, LONG, 10.7e6, 10, 1.07e18);
        IMarket.FundingView memory f0 = market.funding();
        uint256 snap = vm.snapshotState();
        // the feed keeps the index fresh (an update every 30 minutes: one unbroken run), nobody accrues
        _warpFreshBy(2 hours);
        int256 once = market.funding().cumulativeIndexNowX18;
        vm.revertToState(snap);
        for (uint256 i; i < 4; ++i) {
            vm.warp(block.timestamp + 30 minutes);
            _setPrice(EUR, 1.08e18);
            engine.pokeFunding(EUR);
        }
        int256 stepwise = market.funding().cumulativeIndexX18;
        assertApproxEqAbs(stepwise, once, 4, "truncation per step only");
        assertGt(once, f0.cumulativeIndexX18);
    }

    function test_funding_settlesWhenPositionChanges() public {
        _limit(carol, c, LONG, 10.7e6, 10, 1.07e18);
        _warpFreshBy(3 hours);
        int256 pending = lens.positionHealth(market, a).pendingFundingWad;
        assertGt(pending, 0, "longs pay on a long skew");
        uint256 marginBefore = _pos(a).marginWad;
        vm.recordLogs();
        _place(alice, a, SHORT, MKT, 0, 0, 0); // reduce-only: sells 100 into carol's bid
        Vm.Log[] memory ups = _logs(vm.getRecordedLogs(), address(market), IMarket.PositionUpdated.selector);
        bool seen;
        for (uint256 i; i < ups.length; ++i) {
            if (uint256(ups[i].topics[1]) != a) continue;
            (,, int256 size,, uint256 margin,, int256 paid,, int256 idx) = abi.decode(
                ups[i].data, (uint64, IMarket.PositionReason, int256, uint256, uint256, int256, int256, uint256, int256)
            );
            assertEq(paid, pending, "pending funding settled first");
            assertEq(size, 400e18);
            // margin: funding out, then 100/500 released
            uint256 afterFunding = marginBefore - uint256(pending);
            assertEq(margin, afterFunding - afterFunding * 100 / 500);
            assertEq(idx, market.funding().cumulativeIndexX18);
            seen = true;
        }
        assertTrue(seen);
        assertEq(_pos(a).lastFundingIndexX18, market.funding().cumulativeIndexX18);
        assertEq(lens.positionHealth(market, a).pendingFundingWad, 0);
        _checkAll();
    }

    function test_funding_negativeRateWhenShortHeavy() public {
        _limit(dave, d, SHORT, 10.9e6, 10, 1.09e18); // resting ask: S > L
        IMarket.FundingView memory f = market.funding();
        assertLt(f.rateX18PerHour, 0);
        vm.warp(block.timestamp + 1 hours);
        assertLt(lens.positionHealth(market, a).pendingFundingWad, 0, "longs receive");
        assertGt(lens.positionHealth(market, b).pendingFundingWad, 0, "shorts pay");
    }

    // ─── a cancel marks the rate stale (docs/CONTRACTS.md "Funding") ─────────────────────

    /// The docs' rate of the stored premium and margined sizes `l`, `s` (EUR/USD: skew scale
    /// 1e14, clamp 1e15 per hour).
    function _rateOf(uint256 l, uint256 s) internal view returns (int256 rate) {
        int256 skew = l + s == 0 ? int256(0) : (int256(l) - int256(s)) * 1e18 / int256(l + s);
        rate = market.funding().premiumX18 / 24 + skew * 1e14 / 1e18;
        if (rate > 1e15) rate = 1e15;
        if (rate < -1e15) rate = -1e15;
    }

    function _accrued(int256 c, int256 rate, uint256 dt) internal pure returns (int256) {
        return c + rate * int256(EUR_PX) * int256(dt) / int256(3600 * 1e18);
    }

    function _cancel(address who, uint256 id, uint256 oid) internal {
        bytes32 key = _keyOf(oid);
        vm.prank(who);
        engine.cancelOrder(id, EUR, key);
    }

    /// The cancel writes only the stale second and an event; the views and the next accrual use
    /// the stored rate up to that second and the rate of the book after the cancel from it.
    function test_funding_cancelMarksRateStaleAndNextAccrualSplits() public {
        _limit(dave, d, LONG, 21.4e6, 10, 1.07e18); // +200 resting bid, stays
        uint256 oid = _limit(carol, c, LONG, 10.7e6, 10, 1.07e18); // +100, cancelled below
        IMarket.FundingView memory f0 = market.funding();
        int256 steered = f0.rateX18PerHour;
        assertEq(steered, _rateOf(800e18, 500e18));
        assertEq(f0.rateStaleSince, 0, "a placement leaves the rate current");
        assertEq(f0.rateNowX18PerHour, steered);
        _warpFresh(1 hours);
        uint256 t1 = block.timestamp;
        vm.expectEmit(address(market));
        emit IMarket.OrderCancelled(oid, c, 100e18, 0, 10.7e18, 200e18, 1, t1, 700e18, 500e18);
        _cancel(carol, c, oid);
        IMarket.FundingView memory f1 = market.funding();
        assertEq(f1.rateX18PerHour, steered, "the stored rate is not rewritten");
        assertEq(f1.lastUpdate, f0.lastUpdate, "nothing accrued");
        assertEq(f1.cumulativeIndexX18, f0.cumulativeIndexX18);
        assertEq(f1.rateStaleSince, t1);
        int256 after_ = _rateOf(700e18, 500e18);
        assertEq(f1.rateNowX18PerHour, after_, "the rate in force: the book after the cancel");
        int256 atCancel = _accrued(f0.cumulativeIndexX18, steered, 1 hours);
        assertEq(f1.cumulativeIndexNowX18, atCancel, "the stored rate up to the cancel's second");
        _warpFresh(30 minutes);
        int256 want = _accrued(atCancel, after_, 30 minutes);
        assertEq(market.funding().cumulativeIndexNowX18, want, "the rate after the cancel from its second");
        int256 x = int256(500e18) * (want - _pos(a).lastFundingIndexX18);
        assertEq(lens.positionHealth(market, a).pendingFundingWad, (x - 1) / 1e18 + 1, "pending funding follows the view");
        engine.pokeFunding(EUR);
        IMarket.FundingView memory f2 = market.funding();
        assertEq(f2.cumulativeIndexX18, want, "the next accrual writes what the view said");
        assertEq(f2.rateStaleSince, 0, "cleared");
        assertEq(f2.rateX18PerHour, after_);
        assertEq(f2.lastUpdate, block.timestamp);
    }

    /// Several cancels: the first one's second stays; the rate after it is the book's after the last.
    function test_funding_laterCancelsKeepTheFirstStaleSecond() public {
        _limit(dave, d, LONG, 21.4e6, 10, 1.07e18); // +200, stays
        uint256 o1 = _limit(carol, c, LONG, 10.7e6, 10, 1.07e18); // +100
        uint256 o2 = _limit(alice, a, LONG, 10.7e6, 10, 1.07e18); // +100
        IMarket.FundingView memory f0 = market.funding();
        _warpFresh(10 minutes);
        uint256 t1 = block.timestamp;
        _cancel(carol, c, o1);
        _warpFresh(10 minutes);
        vm.recordLogs();
        _cancel(alice, a, o2);
        Vm.Log[] memory st = _logs(vm.getRecordedLogs(), address(market), IMarket.OrderCancelled.selector);
        assertEq(st.length, 1);
        (,,,,, uint256 since, uint256 l, uint256 sh) = abi.decode(st[0].data, (uint256, uint256, uint256, uint256, uint256, uint256, uint256, uint256));
        assertEq(since, t1, "the first cancel's second");
        assertEq(l, 700e18);
        assertEq(sh, 500e18);
        _warpFresh(10 minutes);
        int256 want = _accrued(_accrued(f0.cumulativeIndexX18, f0.rateX18PerHour, 10 minutes), _rateOf(700e18, 500e18), 20 minutes);
        assertEq(market.funding().cumulativeIndexNowX18, want);
        engine.pokeFunding(EUR);
        assertEq(market.funding().cumulativeIndexX18, want);
    }

    /// A placement is an accrual too: it applies the split before its own rate change.
    function test_funding_placementAfterCancelAppliesTheSplit() public {
        uint256 oid = _limit(carol, c, LONG, 10.7e6, 10, 1.07e18);
        IMarket.FundingView memory f0 = market.funding();
        _warpFresh(20 minutes);
        _cancel(carol, c, oid);
        _warpFresh(40 minutes);
        int256 want = _accrued(_accrued(f0.cumulativeIndexX18, f0.rateX18PerHour, 20 minutes), _rateOf(500e18, 500e18), 40 minutes);
        assertEq(market.funding().cumulativeIndexNowX18, want);
        _limit(dave, d, SHORT, 10.9e6, 10, 1.09e18);
        IMarket.FundingView memory f1 = market.funding();
        assertEq(f1.cumulativeIndexX18, want);
        assertEq(f1.rateStaleSince, 0);
        assertEq(f1.rateX18PerHour, _rateOf(500e18, 600e18), "the placement's own book");
    }

    /// Reduce-only orders carry no margin and are not in the skew: their cancel leaves the rate current.
    function test_funding_reduceOnlyCancelLeavesTheRateCurrent() public {
        vm.prank(alice);
        (uint256 oid,,,) = engine.closePosition(a, EUR, LMT, 1.09e18, bytes32(0));
        _warpFresh(10 minutes);
        vm.recordLogs();
        _cancel(alice, a, oid);
        Vm.Log[] memory ev = _logs(vm.getRecordedLogs(), address(market), IMarket.OrderCancelled.selector);
        assertEq(ev.length, 1);
        (,,,,, uint256 since,,) = abi.decode(ev[0].data, (uint256, uint256, uint256, uint256, uint256, uint256, uint256, uint256));
        assertEq(since, 0, "no stale second: the skew did not count it");
        assertEq(market.funding().rateStaleSince, 0);
    }

    /// A stale index at the next accrual: both parts accrue up to the index's expiry, nothing over
    /// the stale stretch (issue 26), and the rate is recomputed.
    function test_funding_staleIndexAfterCancelAccruesNothing() public {
        uint256 oid = _limit(carol, c, LONG, 10.7e6, 10, 1.07e18);
        IMarket.FundingView memory f0 = market.funding();
        _warpFresh(10 minutes);
        _cancel(carol, c, oid);
        IMarket.FundingView memory fs = market.funding();
        vm.warp(block.timestamp + MAX_AGE + 10);
        engine.pokeFunding(EUR);
        IMarket.FundingView memory f1 = market.funding();
        int256 atCancel = _accrued(f0.cumulativeIndexX18, f0.rateX18PerHour, 10 minutes);
        assertEq(
            f1.cumulativeIndexX18, _accrued(atCancel, fs.rateNowX18PerHour, MAX_AGE),
            "the stored rate up to the cancel, the stale one up to the index's expiry, nothing after"
        );
        assertEq(f1.lastUpdate, block.timestamp);
        assertEq(f1.rateStaleSince, 0);
        assertEq(f1.rateX18PerHour, _rateOf(500e18, 500e18));
    }
}
