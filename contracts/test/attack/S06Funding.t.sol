// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Issue 10, scenario 6: funding. (a) Funding owed beyond the margin is written off before PnL is
/// counted: a profitable position keeps its PnL while the shortfall becomes bad debt. The rate is
/// cheap to steer: (b) resting reduce-only size counts in the skew and needs no margin, (c) cancel
/// does not recompute the rate, (d) `pokeFunding` accrues on a stale price.
contract Scenario06FundingAttack is AttackBase {
    address internal bob_;
    address internal carol_;
    address internal alice_;
    uint256 internal b;
    uint256 internal c;
    uint256 internal a;

    function setUp() public override {
        super.setUp();
        (bob_, b) = _bystander("honest-maker", 100_000e6);
        (carol_, c) = _bystander("honest-depth", 100_000e6);
        (alice_, a) = _attacker("trader", 1_000e6);
    }

    function _rate(IMarket m) internal view returns (int256) {
        return m.funding().rateX18PerHour;
    }

    /// (a) A market with a steep funding clamp (1 %/h) so funding outgrows a 40x margin in hours.
    function test_attack_fundingBeyondMarginNettedAgainstPnl() public {
        IMarket.MarketParams memory p = _eurParams();
        p.symbol = "FUN/USD";
        p.maxFundingRateX18PerHour = 1e16;
        p.skewScaleX18PerHour = 1e16;
        bytes32 fun = keccak256("FUN/USD");
        oracle.setPrice(fun, EUR_PX);
        IMarket m = IMarket(factory.createMarket("FUN", "USD", p));
        _open(bob_, b, alice_, a, fun, LONG, EUR_PX, 27e6, 40); // long 1,000 @ 1.08
        // margined bids below (within the band): longs pay (skew)
        (bool ok,,) = _tryLimit(carol_, c, fun, LONG, 5_000e6, 10, 1.075e18, "deep bid");
        assertTrue(ok, "setup: deep bid");
        engine.pokeFunding(fun);
        assertGt(_rate(m), int256(0), "setup: longs pay");
        // time passes (fresh prices every minute), the index climbs: the long is profitable
        uint256 margin = m.getPosition(a).marginWad;
        for (uint256 i; i < 2_000; ++i) {
            if (lens.positionHealth(m, a).pendingFundingWad > int256(margin + 10e18)) break;
            vm.warp(block.timestamp + 60);
            vm.roll(block.number + 1);
            (uint256 px,) = oracle.getPrice(fun);
            _walkIndex(fun, px < 1.13e18 ? px + 2e14 : px);
            engine.pokeFunding(fun);
        }
        IMarket.HealthView memory h = lens.positionHealth(m, a);
        assertGt(h.pendingFundingWad, int256(margin + 10e18), "setup: funding owed beyond the margin");
        assertGt(h.equityWad, int256(h.maintenanceWad), "setup: still healthy (profitable)");
        // the long closes into a fresh bid at the index
        (uint256 index,) = oracle.getPrice(fun);
        (ok,,) = _tryLimit(bob_, b, fun, LONG, 200e6, 10, _onTick(index), "bid at the index");
        assertTrue(ok, "setup: bid at the index");
        uint256 bad = engine.badDebtWad();
        uint256 ins = engine.insuranceFundWad();
        assertTrue(_tryClose(alice_, a, fun, MKT, 0, "close"), "close refused");
        assertEq(m.getPosition(a).sizeQty, int256(0), "closed");
        assertEq(engine.badDebtWad(), bad, "funding written off as bad debt while the position had equity");
        assertGe(engine.insuranceFundWad(), ins, "insurance paid for a position with equity");
        _assertStrictSolvency();
    }

    function _twoSidedBookWithPosition() internal {
        _open(bob_, b, alice_, a, EUR, SHORT, EUR_PX, 27e6, 40); // alice short 1,000 @ 1.08
        (bool ok,,) = _tryLimit(carol_, c, EUR, LONG, 100e6, 10, 1.072e18, "bid");
        assertTrue(ok, "setup: bid");
        (ok,,) = _tryLimit(carol_, c, EUR, SHORT, 100e6, 10, 1.09e18, "ask");
        assertTrue(ok, "setup: ask");
        engine.pokeFunding(EUR);
    }

    /// (b) Margin-free reduce-only bids, below the best bid (no effect on the mark), move nothing.
    function test_attack_reduceOnlySizeSteersFunding() public {
        _twoSidedBookWithPosition();
        int256 r0 = _rate(market);
        for (uint256 i; i < 20; ++i) {
            assertTrue(_tryClose(alice_, a, EUR, LMT, 1.0719e18 - i * TICK, "reduce-only bid"), "setup: reduce-only bid");
        }
        engine.pokeFunding(EUR);
        assertEq(_rate(market), r0, "margin-free reduce-only size moved the funding rate");
    }

    function _placeAndCancelLargeBid() internal {
        int256 r0 = _rate(market);
        (bool ok, uint256 oid,) = _tryLimit(carol_, c, EUR, LONG, 50_000e6, 10, 1.071e18, "large bid");
        assertTrue(ok, "setup: large bid");
        assertTrue(_rate(market) != r0, "setup: the bid steers");
        bytes32 key = _keyOf(oid);
        vm.prank(carol_);
        engine.cancelOrder(c, EUR, key);
    }

    /// `dt` passes with the index refreshed at least every 30 minutes (one unbroken fresh run:
    /// funding accrues over all of it).
    function _warpFresh(uint256 dt) internal {
        for (uint256 t; t < dt; t += 30 minutes) {
            vm.warp(block.timestamp + (dt - t < 30 minutes ? dt - t : 30 minutes));
            vm.roll(block.number + 1);
            _refresh(EUR);
        }
    }

    /// (c) Place and cancel a large bid in one block: the rate in force must be what it was, and
    /// after the next accrual the index and the rate equal those of a market where it never
    /// happened (the cancel only marks the rate stale; the next accrual recomputes it).
    function test_attack_cancelLeavesSteeredRate() public {
        _twoSidedBookWithPosition();
        int256 r0 = _rate(market);
        uint256 snap = vm.snapshotState();
        _warpFresh(1 hours);
        engine.pokeFunding(EUR);
        IMarket.FundingView memory honest = market.funding();
        vm.revertToState(snap);
        _placeAndCancelLargeBid();
        assertEq(market.funding().rateNowX18PerHour, r0, "the rate of a cancelled order's skew survived the cancel");
        _warpFresh(1 hours);
        engine.pokeFunding(EUR);
        IMarket.FundingView memory f = market.funding();
        assertEq(f.rateX18PerHour, honest.rateX18PerHour, "rate after the next accrual");
        assertEq(f.cumulativeIndexX18, honest.cumulativeIndexX18, "funding accrued since the cancel");
    }

    /// (c) The bid rests a while, then is cancelled: its steered rate applies up to the cancel's
    /// second only, the rate of the book without it from there.
    function test_attack_cancelStopsSteeredRateAtItsSecond() public {
        _twoSidedBookWithPosition();
        int256 r0 = _rate(market);
        _warpFresh(10 minutes);
        (bool ok, uint256 oid,) = _tryLimit(carol_, c, EUR, LONG, 50_000e6, 10, 1.071e18, "large bid");
        assertTrue(ok, "setup: large bid");
        IMarket.FundingView memory f0 = market.funding();
        assertTrue(f0.rateX18PerHour != r0, "setup: the bid steers");
        _warpFresh(20 minutes);
        bytes32 key = _keyOf(oid);
        vm.prank(carol_);
        engine.cancelOrder(c, EUR, key);
        int256 rateAfter = market.funding().rateNowX18PerHour;
        _warpFresh(3 hours);
        engine.pokeFunding(EUR);
        int256 steered = f0.rateX18PerHour * int256(EUR_PX) * 20 minutes / int256(3600 * 1e18);
        int256 rest = rateAfter * int256(EUR_PX) * 3 hours / int256(3600 * 1e18);
        assertEq(market.funding().cumulativeIndexX18, f0.cumulativeIndexX18 + steered + rest, "steered only up to the cancel");
    }

    /// (d) With the index stale, a poke must not accrue funding for the stale stretch.
    function test_attack_pokeAccruesOnStalePrice() public {
        _twoSidedBookWithPosition();
        (bool ok,,) = _tryLimit(carol_, c, EUR, LONG, 5_000e6, 10, 1.071e18, "skew");
        assertTrue(ok, "setup: skew");
        engine.pokeFunding(EUR);
        assertTrue(_rate(market) != 0, "setup: a rate");
        IMarket.FundingView memory f0 = market.funding();
        (uint256 px, uint256 at) = oracle.getPrice(EUR);
        vm.warp(block.timestamp + oracle.maxAgeSeconds() + 1);
        vm.roll(block.number + 1);
        try oracle.getFreshPrice(EUR) {
            revert("setup: price not stale");
        } catch {}
        try engine.pokeFunding(EUR) {}
        catch (bytes memory r) {
            _requireVenueRefusal(r, "pokeFunding");
        }
        // up to the index's expiry at most (issue 26: the fresh seconds before it), nothing after
        int256 upToExpiry = f0.cumulativeIndexX18
            + f0.rateX18PerHour * int256(px) * int256(at + oracle.maxAgeSeconds() - f0.lastUpdate) / 3600e18;
        int256 got = market.funding().cumulativeIndexX18;
        assertTrue(got == f0.cumulativeIndexX18 || got == upToExpiry, "funding accrued on a stale price");
    }
}
