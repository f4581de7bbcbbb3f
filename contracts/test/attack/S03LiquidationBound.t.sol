// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Issue 10, scenario 3: liquidation fills are bounded by the price band, not by the bankruptcy
/// price (a bid far below it turns the position's margin into bad debt), and a liquidation that
/// fills nothing reverts NoLiquidity: there is no backstop. Properties: the liquidation reduces
/// the position in both cases, and nobody's deposit pays for it (strict solvency).
contract Scenario03LiquidationBoundAttack is AttackBase {
    address internal bob_;
    address internal carol_;
    address internal alice_;
    uint256 internal b;
    uint256 internal c;
    uint256 internal a;

    function setUp() public override {
        super.setUp();
        (bob_, b) = _bystander("honest-short", 10_000e6);
        (carol_, c) = _bystander("low-bidder", 100_000e6);
        (alice_, a) = _bystander("long-40x", 1_000e6);
        _open(bob_, b, alice_, a, EUR, LONG, EUR_PX, 27e6, 40); // long 1,000 @ 1.08
    }

    function _liquidateAndCheck() internal {
        _pushUntilLiquidatable(market, a);
        int256 before = _pos(a).sizeQty;
        (bool ok, bytes memory reason) = _tryLiquidate(a, EUR);
        assertTrue(ok, string.concat("liquidation refused: ", vm.toString(reason)));
        assertLt(_abs(_pos(a).sizeQty), _abs(before), "liquidation did not reduce the position");
        _assertStrictSolvency();
    }

    /// The only bid sits near the bottom of the band, below the bankruptcy price. The band (94
    /// bps < 1/L − maintenance) keeps it above bankruptcy while the position is just liquidatable,
    /// so the index keeps falling (nobody liquidates) until the band reaches below bankruptcy.
    function test_attack_liquidationFillsBelowBankruptcy() public {
        _pushUntilLiquidatable(market, a);
        uint256 low;
        for (uint256 i; i < 100; ++i) {
            low = _onTick(market.markPrice() * (1e4 - _bandBps()) / 1e4) + TICK;
            if (low < _health(a).insolvencyPriceX18) break;
            (uint256 p,) = oracle.getPrice(EUR);
            _walkIndex(EUR, p * 9_990 / 10_000);
        }
        assertLt(low, _health(a).insolvencyPriceX18, "setup: bid below bankruptcy");
        (bool ok,,) = _tryLimit(carol_, c, EUR, LONG, 1_000e6, 10, low, "low bid");
        assertTrue(ok, "setup: low bid");
        _liquidateAndCheck();
    }

    /// No bid at all: the backstop (insurance fund, then deleveraging) takes the position.
    function test_attack_liquidationWithEmptyBook() public {
        _liquidateAndCheck();
    }
}
