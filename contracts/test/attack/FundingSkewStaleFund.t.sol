// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {Vm} from "../utils/Vm.sol";

/// Issue 26, finding 5. (a) Margined resting size that can never fill (a bid at the maximum
/// leverage at or above the mark fails the maker check; reduce-only bids left when the position
/// went flat) counted in the funding skew, so funding could be steered almost for free up to its
/// clamp. (b) Funding across a stale-index period was charged when nobody poked during it.
/// (c) The insurance fund's own position was never reduced unless liquidated.
contract FundingSkewStaleFundAttack is AttackBase {
    address internal bob_;
    address internal carol_;
    address internal dave_;
    address internal alice_;
    address internal mallory_;
    uint256 internal b;
    uint256 internal c;
    uint256 internal d;
    uint256 internal a;
    uint256 internal m_;

    /// 1 % of the funding clamp (both markets: 0.1 %/h).
    int256 internal constant ONE_PCT_OF_CLAMP = 1e13;

    function setUp() public override {
        super.setUp();
        (bob_, b) = _bystander("honest-long", 100_000e6);
        (carol_, c) = _bystander("honest-depth", 100_000e6);
        (dave_, d) = _bystander("honest-bidder", 100_000e6);
        (alice_, a) = _bystander("short", 10_000e6);
        (mallory_, m_) = _attacker("steerer", 10_000e6);
    }

    function _m(bytes32 mid) internal view returns (IMarket) {
        return mid == EUR ? market : gbp;
    }

    function _px(bytes32 mid) internal pure returns (uint256) {
        return mid == EUR ? EUR_PX : GBP_PX;
    }

    /// A short of 1,000 against a long, margined (fillable) depth either side ±0.7 %, a poke.
    function _book(bytes32 mid, address shortOwner, uint256 shortId) internal {
        uint256 px = _px(mid);
        _open(bob_, b, shortOwner, shortId, mid, SHORT, px, px * 1_000 / 20 / 1e12, 20);
        (bool ok,,) = _tryLimit(carol_, c, mid, LONG, 100e6, 10, _onTick(px * 993 / 1_000), "bid");
        assertTrue(ok, "setup: bid");
        (ok,,) = _tryLimit(carol_, c, mid, SHORT, 100e6, 10, _onTick(px * 1_007 / 1_000), "ask");
        assertTrue(ok, "setup: ask");
        engine.pokeFunding(mid);
    }

    /// `qty` of bids at the market's maximum leverage at `px` (at or above the mark: each fails
    /// the maker check there), in orders of at most 1,000. A venue may refuse them (they never
    /// rest, which is as good): each placement may be refused.
    function _maxLeverageBids(bytes32 mid, uint256 qty, uint256 px) internal {
        uint256 lev = _m(mid).params().maxLeverage;
        for (uint256 left = qty; left != 0;) {
            uint256 q = left > 1_000e18 ? 1_000e18 : left;
            // collateral for exactly q at px and lev (6 decimals, rounded up: q stays q)
            uint256 coll6 = (q * px / 1e18 / lev + TO_WAD - 1) / TO_WAD;
            _tryLimit(mallory_, m_, mid, LONG, coll6, lev, px, "max-leverage bid");
            left -= q;
        }
    }

    /// `qty` of reduce-only bids left resting after the position they closed went flat.
    function _flatReduceOnlyBids(bytes32 mid, uint256 qty) internal {
        uint256 px = _px(mid);
        // a short of qty / 4, four reduce-only bids of it below the book, then flat at market
        _open(dave_, d, mallory_, m_, mid, SHORT, px, px * (qty / 4) / 10 / 1e30, 10);
        for (uint256 i; i < 4; ++i) {
            _tryClose(mallory_, m_, mid, LMT, _onTick(px * 992 / 1_000) - i * TICK, "reduce-only bid");
        }
        assertTrue(_tryClose(mallory_, m_, mid, MKT, 0, "flat"), "setup: flat");
        assertEq(_m(mid).getPosition(m_).sizeQty, int256(0), "setup: flat");
    }

    /// `kind` 0: maximum-leverage bids at the mark; 1: above it (below the best ask); 2: reduce-only
    /// bids without a position. Returns the move of the rate and of its skew component.
    function _unfillable(bytes32 mid, uint256 kind, uint256 qty) internal returns (int256 dRate, int256 dSkew) {
        _book(mid, alice_, a);
        IMarket mk = _m(mid);
        if (kind == 2) _flatReduceOnlyBids(mid, qty);
        engine.pokeFunding(mid);
        IMarket.FundingView memory f0 = mk.funding();
        uint256 mark = mk.markPrice();
        if (kind == 0) _maxLeverageBids(mid, qty, _onTick(mark));
        else if (kind == 1) _maxLeverageBids(mid, qty, _onTick(mark * 1_003 / 1_000));
        engine.pokeFunding(mid);
        IMarket.FundingView memory f1 = mk.funding();
        dSkew = f1.skewComponentX18 - f0.skewComponentX18;
        dRate = f1.rateX18PerHour - f0.rateX18PerHour;
        if (kind == 2) {
            // compare with the book before the leftovers: the same book without them
            dSkew = f1.skewComponentX18 - _skewWithout(mid);
            dRate = dSkew;
        }
    }

    /// The skew component of the same book with no leftovers (OI and the honest depth only).
    function _skewWithout(bytes32 mid) internal view returns (int256) {
        IMarket mk = _m(mid);
        (uint256 l, uint256 s) = mk.openInterest();
        // honest depth: carol's bid and ask (10× each, fillable)
        (uint256[] memory bp, uint256[] memory bq,) = mk.getLevels(LONG, 50);
        (, uint256[] memory aq,) = mk.getLevels(SHORT, 50);
        uint256 px = _px(mid);
        for (uint256 i; i < bp.length; ++i) if (bp[i] == _onTick(px * 993 / 1_000)) l += bq[i];
        for (uint256 i; i < aq.length; ++i) s += aq[i];
        int256 skew = (int256(l) - int256(s)) * 1e18 / int256(l + s);
        return skew * int256(mk.params().skewScaleX18PerHour) / 1e18;
    }

    function _assertNoSteer(bytes32 mid, uint256 kind, uint256 qty) internal {
        (int256 dRate, int256 dSkew) = _unfillable(mid, kind, qty);
        assertLt(_abs(dSkew), uint256(ONE_PCT_OF_CLAMP), "never-fillable size moved the skew by 1 % of the clamp");
        // the poke is in the same second: the premium average does not move, only the skew could
        assertLt(_abs(dRate), uint256(ONE_PCT_OF_CLAMP), "never-fillable size moved the rate by 1 % of the clamp");
    }

    function test_attack_maxLeverageBidsAtMarkDoNotSteer_EUR() public {
        _assertNoSteer(EUR, 0, 1_000e18);
    }

    function test_attack_maxLeverageBidsAtMarkDoNotSteer_EUR_5000() public {
        _assertNoSteer(EUR, 0, 5_000e18);
    }

    function test_attack_maxLeverageBidsAtMarkDoNotSteer_GBP() public {
        _assertNoSteer(GBP, 0, 1_000e18);
    }

    function test_attack_maxLeverageBidsAboveMarkDoNotSteer_EUR() public {
        _assertNoSteer(EUR, 1, 1_000e18);
    }

    function test_attack_maxLeverageBidsAboveMarkDoNotSteer_GBP() public {
        _assertNoSteer(GBP, 1, 2_500e18);
    }

    function test_attack_flatReduceOnlyBidsDoNotSteer_EUR() public {
        _assertNoSteer(EUR, 2, 1_000e18);
    }

    function test_attack_flatReduceOnlyBidsDoNotSteer_GBP() public {
        _assertNoSteer(GBP, 2, 1_000e18);
    }

    /// The control: the same 1,000 at 10× (bids that can fill) does move the skew, by more than
    /// 1 % of the clamp (the measure above can see a steer).
    function test_fillableBidsStillCount() public {
        _book(EUR, alice_, a);
        IMarket.FundingView memory f0 = market.funding();
        uint256 mark = market.markPrice();
        (bool ok,,) = _tryLimit(mallory_, m_, EUR, LONG, 1_000 * mark / 10 / 1e12 + 1, 10, _onTick(mark), "10x bid");
        assertTrue(ok, "setup: 10x bid");
        engine.pokeFunding(EUR);
        assertGt(market.funding().skewComponentX18 - f0.skewComponentX18, ONE_PCT_OF_CLAMP, "fillable size counts");
    }

    /// The steering attack, priced: the attacker is short 1,000 (shorts receive while longs pay)
    /// and rests J of maximum-leverage bids at the mark for 8 hours. What its short receives must
    /// not exceed what it receives without them.
    function _steerProfit(bytes32 mid, uint256 j) internal returns (int256 gain) {
        _book(mid, mallory_, m_);
        uint256 snap = vm.snapshotState();
        int256 honest = _fundingOver8h(mid);
        vm.revertToState(snap);
        _maxLeverageBids(mid, j, _onTick(_m(mid).markPrice()));
        int256 steered = _fundingOver8h(mid);
        // pending funding > 0: paid; received = −pending
        gain = honest - steered;
    }

    function _fundingOver8h(bytes32 mid) internal returns (int256) {
        for (uint256 h; h < 8; ++h) {
            vm.warp(block.timestamp + 1 hours);
            vm.roll(block.number + 1);
            _refresh(mid);
            engine.pokeFunding(mid);
        }
        return lens.positionHealth(_m(mid), m_).pendingFundingWad;
    }

    function test_attack_steeringWithUnfillableSizeEarnsNothing() public {
        uint256[3] memory js = [uint256(1_000e18), 10_000e18, 50_000e18];
        bytes32[2] memory mids = [EUR, GBP];
        for (uint256 k; k < 2; ++k) {
            for (uint256 i; i < 3; ++i) {
                uint256 snap = vm.snapshotState();
                assertLe(_steerProfit(mids[k], js[i]), int256(0), "steering with never-fillable size paid the attacker");
                vm.revertToState(snap);
            }
        }
    }

    // ─── (b) stale-index periods ─────────────────────────────────────────────────────────

    /// A position and a non-zero rate; at t0 a fresh update and a poke. The index then goes
    /// stale for `gap` seconds past its expiry, a fresh update follows, 30 minutes pass with
    /// updates, a poke. Charged: the maxAge seconds the t0 update covered and the 30 minutes,
    /// nothing of the gap; with a poke in the middle of the gap, the same.
    function _staleCase(bytes32 mid, bool pokeDuring, uint256 gap) internal {
        IMarket mk = _m(mid);
        _book(mid, alice_, a);
        (bool ok,,) = _tryLimit(dave_, d, mid, LONG, 5_000e6, 10, _onTick(_px(mid) * 992 / 1_000), "skew");
        assertTrue(ok, "setup: skew");
        vm.warp(block.timestamp + 1);
        _refresh(mid);
        engine.pokeFunding(mid);
        IMarket.FundingView memory f0 = mk.funding();
        assertTrue(f0.rateX18PerHour != 0, "setup: a rate");
        uint256 t0 = block.timestamp;
        uint256 maxAge = oracle.maxAgeSeconds();
        if (pokeDuring) {
            vm.warp(t0 + maxAge + gap / 2);
            vm.roll(block.number + 1);
            engine.pokeFunding(mid);
            assertEq(mk.funding().rateX18PerHour, f0.rateX18PerHour, "a stale poke kept the rate");
        }
        vm.warp(t0 + maxAge + gap);
        vm.roll(block.number + 1);
        _refresh(mid);
        for (uint256 i; i < 6; ++i) {
            vm.warp(block.timestamp + 5 minutes);
            vm.roll(block.number + 1);
            _refresh(mid);
        }
        IMarket.FundingView memory v = mk.funding();
        engine.pokeFunding(mid);
        IMarket.FundingView memory f1 = mk.funding();
        assertEq(f1.cumulativeIndexX18, v.cumulativeIndexNowX18, "the view said what the poke wrote");
        int256 r = f0.rateX18PerHour;
        int256 px = int256(_px(mid));
        // poked during the gap: the t0 update's maxAge seconds (up to its expiry), then the run
        // after the gap. Not poked: nobody accrued between t0 and the gap, and the oracle keeps
        // only the run in force, so only the run after the gap is charged (never the gap)
        int256 expected = pokeDuring
            ? f0.cumulativeIndexX18 + r * px * int256(maxAge) / 3600e18 + r * px * 30 minutes / 3600e18
            : f0.cumulativeIndexX18 + r * px * 30 minutes / 3600e18;
        assertEq(f1.cumulativeIndexX18, expected, "funding charged over a stale-index period");
        int256 overGap = r * px * int256(gap) / 3600e18;
        assertLt(_abs(f1.cumulativeIndexX18 - f0.cumulativeIndexX18), _abs(overGap), "the gap was charged");
    }

    function test_stale_notPokedDuring_EUR() public {
        _staleCase(EUR, false, 6 hours);
    }

    function test_stale_pokedDuring_EUR() public {
        _staleCase(EUR, true, 6 hours);
    }

    function test_stale_notPokedDuring_GBP() public {
        _staleCase(GBP, false, 3 hours);
    }

    function test_stale_pokedDuring_GBP() public {
        _staleCase(GBP, true, 3 hours);
    }

    /// Without a gap, sparse accruals charge every second: updates within maxAge of each other
    /// form one run however long, whoever accrues and when.
    function test_stale_unbrokenRunChargedInFull() public {
        _book(EUR, alice_, a);
        (bool ok,,) = _tryLimit(dave_, d, EUR, LONG, 5_000e6, 10, _onTick(EUR_PX * 992 / 1_000), "skew");
        assertTrue(ok, "setup: skew");
        engine.pokeFunding(EUR);
        IMarket.FundingView memory f0 = market.funding();
        for (uint256 i; i < 12; ++i) {
            vm.warp(block.timestamp + 30 minutes); // within the fixture's maxAge (1 h)
            vm.roll(block.number + 1);
            _refresh(EUR);
        }
        engine.pokeFunding(EUR);
        int256 expected = f0.cumulativeIndexX18 + f0.rateX18PerHour * int256(EUR_PX) * 6 hours / 3600e18;
        assertEq(market.funding().cumulativeIndexX18, expected, "an unbroken run is charged in full");
    }

    // ─── (c) the insurance fund's own position ───────────────────────────────────────────

    /// alice's long of 1,000 at 40× is taken over by the fund (no bid, a donated fund).
    function _fundTakesOver(bytes32 mid) internal returns (IMarket mk) {
        mk = _m(mid);
        uint256 px = _px(mid);
        uint256 lev = mid == EUR ? 40 : 20;
        token.mint(stranger, 5_000e6);
        vm.startPrank(stranger);
        token.approve(address(engine), 5_000e6);
        engine.donateInsurance(5_000e6);
        vm.stopPrank();
        _open(bob_, b, alice_, a, mid, LONG, px, px * 1_000 / lev / 1e12, lev);
        _pushUntilLiquidatable(mk, a);
        (bool ok,) = _tryLiquidate(a, mid);
        assertTrue(ok, "setup: liquidation");
        assertGt(mk.getPosition(0).sizeQty, int256(0), "setup: the fund holds the long");
    }

    function _reduce(IMarket mk) internal returns (bool ok, uint256 closed, bytes memory reason) {
        vm.prank(stranger);
        try mk.reduceFundPosition() returns (uint256 q) {
            return (true, q, "");
        } catch (bytes memory r) {
            return (false, 0, r);
        }
    }

    /// Bids of `qty` within the band, in lots of 100 (several makers' worth of depth).
    function _depth(IMarket mk, uint256 qty) internal {
        uint256 mark = mk.markPrice();
        uint256 px = _onTick(mark * 9_980 / 10_000);
        for (uint256 left = qty; left != 0;) {
            uint256 q = left > 100e18 ? 100e18 : left;
            (bool ok,,) = _tryLimit(dave_, d, mk.marketId(), LONG, q * px / 10 / 1e30 + 1, 10, px, "depth");
            assertTrue(ok, "setup: depth");
            left -= q;
        }
    }

    function _fundReduced(bytes32 mid, uint256 depthPerInterval) internal {
        IMarket mk = _fundTakesOver(mid);
        uint256 q0 = uint256(mk.getPosition(0).sizeQty);
        (bool ok,, bytes memory r) = _reduce(mk);
        assertFalse(ok, "no depth: nothing to do");
        assertEq(bytes4(r), IVenueErrors.NoLiquidity.selector, "no depth: NoLiquidity");
        uint256 calls;
        // the stated time: ⌈Q / depth⌉ calls, one per 300 s
        uint256 bound = (q0 + depthPerInterval - 1) / depthPerInterval;
        while (mk.getPosition(0).sizeQty != 0 && calls < bound + 2) {
            _depth(mk, depthPerInterval);
            vm.recordLogs();
            uint256 before = uint256(mk.getPosition(0).sizeQty);
            uint256 closed;
            (ok, closed,) = _reduce(mk);
            assertTrue(ok, "a reduction with depth within the band");
            ++calls;
            assertEq(closed, before - uint256(mk.getPosition(0).sizeQty), "reported what it closed");
            Vm.Log[] memory logs = _logs(vm.getRecordedLogs(), address(mk), IMarket.FundPositionReduced.selector);
            assertEq(logs.length, 1, "FundPositionReduced");
            // again at once: not due
            (ok,, r) = _reduce(mk);
            if (mk.getPosition(0).sizeQty != 0) {
                assertFalse(ok, "at most one reduction per interval");
                assertEq(bytes4(r), IVenueErrors.FundReductionNotDue.selector, "FundReductionNotDue");
            }
            (,,, uint256 nextAt) = abi.decode(logs[0].data, (uint64, uint256, int256, uint256));
            assertEq(nextAt, block.timestamp + 300, "next reduction in 300 s");
            vm.warp(nextAt);
            vm.roll(block.number + 1);
            _refresh(mid);
        }
        assertEq(mk.getPosition(0).sizeQty, int256(0), "the fund's position is gone");
        assertLe(calls, bound, "within the stated number of calls");
        _assertStrictSolvency();
        _checkAll();
    }

    function test_fund_reducedWithinStatedTime_EUR_allDepth() public {
        _fundReduced(EUR, 1_000e18);
    }

    function test_fund_reducedWithinStatedTime_EUR_thinDepth() public {
        _fundReduced(EUR, 300e18);
    }

    function test_fund_reducedWithinStatedTime_GBP() public {
        _fundReduced(GBP, 400e18);
    }

    function test_fund_noPosition() public {
        (bool ok,, bytes memory r) = _reduce(market);
        assertFalse(ok);
        assertEq(bytes4(r), IVenueErrors.NoPosition.selector);
    }

    /// closePosition for account 0 is the market's own call: nobody else may make it.
    function test_fund_closeOnlyByTheMarket() public {
        IMarket mk = _fundTakesOver(EUR);
        _depth(mk, 1_000e18);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        mk.closePosition(0, MKT, 0, bytes32(0), 0);
    }
}
