// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Issue 10, scenario 1: positions born insolvent. One attacker, two accounts: B rests an ask at
/// the top of the band (mark × 1.05 = 1.134), A buys 44,091.71 there with 1,000 USDV at 50x
/// (equity about −1,406 at birth), A is liquidated into an honest bid at 1.08 (1,405.95 of bad
/// debt), B closes near 1.08 and withdraws. Attacker in: 11,000; out: about 12,350.
/// And the same with the roles swapped (the maker's order is the position born insolvent).
contract Scenario01BornInsolventAttack is AttackBase {
    address internal carol_;
    address internal dave_;
    uint256 internal c;
    uint256 internal d;
    address internal attA;
    address internal attB;
    uint256 internal a;
    uint256 internal b;

    function setUp() public override {
        super.setUp();
        (carol_, c) = _bystander("honest-bidder", 100_000e6);
        (dave_, d) = _bystander("honest-asker", 100_000e6);
        (attA, a) = _attacker("attacker-A", 1_000e6);
        (attB, b) = _attacker("attacker-B", 10_000e6);
        // an honest bid at the index, deep enough for A's whole position
        (bool ok,,) = _tryLimit(carol_, c, EUR, LONG, 2_000e6, 25, EUR_PX, "honest bid");
        assertTrue(ok, "setup: honest bid");
    }

    function _bandTop() internal view returns (uint256) {
        return _onTick(market.markPrice() * (1e4 + _bandBps()) / 1e4);
    }

    /// After the self-deal: A liquidated if it can be, an honest ask for B to close into, both
    /// accounts emptied; then the three properties.
    function _finish() internal {
        if (_pos(a).sizeQty != 0 && _health(a).isLiquidatable) _assertLiquidationWorks(a, market);
        _tryLimit(dave_, d, EUR, SHORT, 2_000e6, 25, EUR_PX + TICK, "honest ask");
        _exitAttackers();
        _assertAttackFailed();
    }

    /// The taker is born insolvent: B's ask at the band, A's MARKET buy with 1,000 at 50x.
    function test_attack_selfDeal_takerBornInsolvent() public {
        _tryLimit(attB, b, EUR, SHORT, 1_000e6, 50, _bandTop(), "B rests an ask at the band");
        _tryMarket(attA, a, EUR, LONG, 1_000e6, 50, "A buys into it");
        _finish();
    }

    /// The same money through a close (found by the invariant suite): A long at 40× from an honest
    /// ask, A's reduce-only ask at the band's bottom (below A's bankruptcy price), B buys it. A
    /// would lose its margin only, B would keep the whole gap: the rest, bad debt in the pool.
    function test_attack_selfDeal_closeBeyondBankruptcy() public {
        _exit(carol_, c); // no bid above the attackers' price
        _tryLimit(dave_, d, EUR, SHORT, 2_000e6, 25, EUR_PX, "honest ask");
        _tryMarket(attA, a, EUR, LONG, 1_000e6, 40, "A buys at 40x");
        uint256 bottom = _onTick(market.markPrice() * (1e4 - _bandBps()) / 1e4) + TICK;
        _tryClose(attA, a, EUR, LMT, bottom, "A's reduce-only ask below its bankruptcy price");
        _tryMarket(attB, b, EUR, LONG, 1_000e6, 40, "B buys it");
        _tryLimit(dave_, d, EUR, LONG, 2_000e6, 25, EUR_PX - TICK, "honest bid");
        _exitAttackers();
        _assertAttackFailed();
    }

    /// The maker is born insolvent: A's bid at the band, B's MARKET sell into it.
    function test_attack_selfDeal_makerBornInsolvent() public {
        _tryLimit(attA, a, EUR, LONG, 1_000e6, 50, _bandTop(), "A rests a bid at the band");
        _tryMarket(attB, b, EUR, SHORT, 1_000e6, 50, "B sells into it");
        _finish();
    }
}

/// The checking version of `test_fuzz_placeOrder_marketSizedAtBestOpposite` (fuzz/Sizing): a
/// MARKET order at any collateral and leverage against a deep ask anywhere in the band must
/// not leave the taker's position below initial margin (value at the mark ÷ max leverage),
/// and the maker's neither.
contract Scenario01BornInsolventFuzzAttack is AttackBase {
    uint256 internal a;
    uint256 internal b;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000_000e6);
        b = _account(bob, 1_000_000e6);
    }

    function _assertAboveInitialMargin(uint256 id, string memory who) internal view {
        if (_pos(id).sizeQty == 0) return;
        IMarket.HealthView memory h = _health(id);
        assertGe(h.equityWad, int256(h.positionValueWad / market.params().maxLeverage), who);
    }

    function test_fuzz_attack_marketSizedAtBestOpposite_bornAboveInitialMargin(uint256 coll6, uint256 lev, uint256 priceSeed)
        public
    {
        uint256 px = bound(priceSeed, 1.026e18 / TICK, 1.134e18 / TICK) * TICK;
        coll6 = bound(coll6, 1e6, 100_000e6);
        lev = bound(lev, 1, market.params().maxLeverage);
        vm.assume(_qty(coll6, lev, px) >= MIN_QTY);
        _tryLimit(bob, b, EUR, SHORT, 500_000e6, 50, px, "deep ask"); // may be refused
        _tryMarket(alice, a, EUR, LONG, coll6, lev, "market buy");
        _assertAboveInitialMargin(a, "taker born below initial margin");
        _assertAboveInitialMargin(b, "maker born below initial margin");
        _checkAll();
    }
}
