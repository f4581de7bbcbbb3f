// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Issue 26, "unfillable orders never count in the mark's best bid or ask". The mark is the index
/// times one plus a time-weighted premium, sampled from the best bid and ask. An attacker rests J
/// bids that can never fill between the honest bid and the honest ask: reduce-only bids whose
/// short is gone, or maximum-leverage bids above the mark (their own fill would leave them below
/// initial margin). Before, the top of the bitmap was the sample: the wall pulled the mark up to
/// the ask for the price of one bond or a margin it gets back. Property, for J = 1, 3, 4, 10 and
/// 100 on EUR/USD 50× and GBP/USD 25×: over ten minutes of pokes the mark with the wall never lies
/// beyond the honest book's mark (measured on the same chain without the wall) nor on the other
/// side of the index; with fewer walled orders than the sample probes (MarketBase.MARK_PROBES = 4)
/// it equals the honest mark, and a deeper wall only silences the side (the premium decays
/// towards the index, where no order can take it).
contract Scenario14MarkWallAttack is AttackBase {
    uint256 internal constant MARK_PROBES = 4;
    uint256 internal constant STEPS = 20; // 20 × 30 s: twice MARK_PERIOD

    enum Kind { REDUCE_ONLY_LEFTOVER, UNDER_MARGINED }

    address internal carol_;
    uint256 internal c;
    IMarket internal m;
    bytes32 internal mid;
    uint256 internal index;
    uint256 internal bidPx;
    uint256 internal askPx;

    function setUp() public override {
        super.setUp();
        (carol_, c) = _bystander("honest-maker", 1_000_000e6);
    }

    /// An honest 10× bid 5 ticks above the index (a premium the mark follows) and an ask 40 ticks above it.
    function _book(bytes32 mid_) internal {
        mid = mid_;
        m = IMarket(engine.marketOf(mid_));
        (index,) = oracle.getPrice(mid_);
        bidPx = _onTick(index) + 5 * TICK;
        askPx = _onTick(index) + 40 * TICK;
        (bool ok,,) = _tryLimit(carol_, c, mid, LONG, 20_000e6, 10, bidPx, "honest bid");
        assertTrue(ok, "setup: honest bid");
        (ok,,) = _tryLimit(carol_, c, mid, SHORT, 20_000e6, 10, askPx, "honest ask");
        assertTrue(ok, "setup: honest ask");
    }

    /// The mark after STEPS pokes 30 s apart (the index refreshed at the same value each time).
    function _markAfterPokes() internal returns (uint256) {
        for (uint256 i; i < STEPS; ++i) {
            vm.warp(block.timestamp + 30);
            vm.roll(block.number + 1);
            _refresh(mid);
            m.pokeFunding();
        }
        return m.markPrice();
    }

    /// `j` unfillable bids on the ticks from one below the ask downwards, 100 at most per account.
    function _wall(Kind kind, uint256 j) internal {
        uint256 lev = m.params().maxLeverage;
        uint256 accounts = (j + 99) / 100;
        for (uint256 k; k < accounts; ++k) {
            (address g, uint256 gid) = _attacker(string.concat("wall-", vm.toString(k)), 10_000e6);
            if (kind == Kind.REDUCE_ONLY_LEFTOVER) {
                _tryMarket(g, gid, mid, SHORT, _minColl6(bidPx, 10), 10, "griefer short");
                assertLt(m.getPosition(gid).sizeQty, int256(0), "setup: griefer short");
            }
            for (uint256 i = k * 100; i < j && i < (k + 1) * 100; ++i) {
                uint256 px = askPx - (1 + i % 30) * TICK;
                bool ok;
                if (kind == Kind.REDUCE_ONLY_LEFTOVER) ok = _tryClose(g, gid, mid, LMT, px, "reduce-only bid");
                else (ok,,) = _tryLimit(g, gid, mid, LONG, _minColl6(px, lev), lev, px, "max-leverage bid");
                assertTrue(ok, "setup: a wall bid rests");
            }
            if (kind == Kind.REDUCE_ONLY_LEFTOVER) {
                // the griefer buys its short back from the honest ask, leaving its bids behind
                _tryClose(g, gid, mid, MKT, 0, "griefer closes");
                assertEq(m.getPosition(gid).sizeQty, 0, "setup: griefer flat");
            }
        }
        (uint256[] memory levels,,) = m.getLevels(LONG, 1);
        assertGt(levels[0], bidPx, "setup: the wall rests above the honest bid");
    }

    function _run(bytes32 mid_, Kind kind, uint256 j) internal {
        _book(mid_);
        uint256 snap = vm.snapshotState();
        uint256 honest = _markAfterPokes();
        assertGt(honest, index, "setup: the honest book gives a premium");
        vm.revertToState(snap);
        _wall(kind, j);
        uint256 walled = _markAfterPokes();
        emit log_named_uint("index", index);
        emit log_named_uint("honest mark", honest);
        emit log_named_uint("mark with the wall", walled);
        assertLe(walled, honest, "the wall pushed the mark beyond the honest book's");
        assertGe(walled, index * 9_999 / 10_000, "the wall pushed the mark across the index");
        if (j < MARK_PROBES) assertEq(walled, honest, "a wall shallower than the probes changed the mark");
        _exitAttackers();
        _assertNoAttackerProfit();
    }

    event log_named_uint(string key, uint256 val);

    function test_attack_reduceOnlyWall_EUR_1() public {
        _run(EUR, Kind.REDUCE_ONLY_LEFTOVER, 1);
    }

    function test_attack_reduceOnlyWall_EUR_4() public {
        _run(EUR, Kind.REDUCE_ONLY_LEFTOVER, 4);
    }

    function test_attack_reduceOnlyWall_GBP_3() public {
        _run(GBP, Kind.REDUCE_ONLY_LEFTOVER, 3);
    }

    function test_attack_reduceOnlyWall_GBP_100() public {
        _run(GBP, Kind.REDUCE_ONLY_LEFTOVER, 100);
    }

    function test_attack_underMarginedWall_EUR_3() public {
        _run(EUR, Kind.UNDER_MARGINED, 3);
    }

    function test_attack_underMarginedWall_EUR_10() public {
        _run(EUR, Kind.UNDER_MARGINED, 10);
    }

    function test_attack_underMarginedWall_GBP_1() public {
        _run(GBP, Kind.UNDER_MARGINED, 1);
    }

    function test_attack_underMarginedWall_GBP_100() public {
        _run(GBP, Kind.UNDER_MARGINED, 100);
    }
}
