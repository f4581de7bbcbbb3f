// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Issue 10, scenario 2: dust moves the mark. Two one-unit orders (a bid at index × 1.01, an ask
/// one tick above) pin the mark at the clamp in one transaction; a fresh 50x short becomes
/// liquidatable and is liquidated into the attacker's ask at mark × 1.05 (about 44 of bad debt).
contract Scenario02DustMarkAttack is AttackBase {
    address internal carol_;
    address internal victim;
    address internal att;
    uint256 internal c;
    uint256 internal v;
    uint256 internal x;

    function setUp() public override {
        super.setUp();
        (carol_, c) = _bystander("honest-bidder", 100_000e6);
        (victim, v) = _bystander("victim-short", 1_000e6);
        (att, x) = _attacker("attacker", 1_000e6);
        (bool ok,,) = _tryLimit(carol_, c, EUR, LONG, 1_000e6, 25, EUR_PX, "honest bid");
        assertTrue(ok, "setup: honest bid");
        // the victim: the most levered short of 1,000 at 1.08 the venue accepts (50x today)
        uint256 maxLev = market.params().maxLeverage;
        for (uint256 lev = maxLev; lev > 0 && _pos(v).sizeQty == 0; --lev) {
            _tryMarket(victim, v, EUR, SHORT, 1_080e6 / lev + 1, lev, "victim short");
        }
        assertLt(_pos(v).sizeQty, int256(0), "setup: the victim's short");
    }

    function test_attack_dustPinsMarkAndLiquidatesFreshShort() public {
        uint256 markBefore = market.markPrice();
        (uint256 index,) = oracle.getPrice(EUR);
        uint256 bidPx = _onTick(index * (1e4 + market.params().markClampBps) / 1e4);
        uint256 lev = market.params().maxLeverage;
        // two one-unit orders at the clamp
        _tryLimit(att, x, EUR, LONG, _minColl6(bidPx, lev), lev, bidPx, "dust bid");
        _tryLimit(att, x, EUR, SHORT, _minColl6(bidPx + TICK, lev), lev, bidPx + TICK, "dust ask");
        uint256 markAfter = market.markPrice();
        // a deep ask at the top of the band, then the keeper liquidates the victim if it can
        uint256 top = _onTick(market.markPrice() * (1e4 + _bandBps()) / 1e4);
        _tryLimit(att, x, EUR, SHORT, 100e6, lev, top, "ask at the band");
        if (_health(v).isLiquidatable) _assertLiquidationWorks(v, market);
        _exitAttackers();
        _assertAttackFailed();
        assertApproxEqAbs(markAfter, markBefore, index / 1e4, "two dust orders moved the mark by more than 1 bp");
    }
}
