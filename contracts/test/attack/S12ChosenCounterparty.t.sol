// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {RiskChecks} from "../utils/RiskChecks.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Issue 26, finding 2: being chosen by the backstop is worth nothing. A liquidatable but still
/// solvent long, no bid inside the band, an empty insurance fund: a liquidator names its own short
/// (`liquidatePositionRanked`) as the deleveraging counterparty. Properties: the liquidator's
/// wallet + account value does not grow by the call (it was closed at the mark, no fee to it),
/// and the owner keeps its equity less the liquidation fee on the closed notional. Sizes: EUR 45×
/// in the REDUCE_ONLY window (raised maintenance), EUR 40× and GBP 20× after a fall in OPEN.
contract Scenario12ChosenCounterpartyAttack is AttackBase {
    uint256 internal constant UPLIFT = 25_000;

    address internal owner_;
    uint256 internal o;
    address internal liq;
    uint256 internal l;

    function setUp() public override {
        super.setUp();
        (owner_, o) = _bystander("solvent-long", 10_000e6);
        (liq, l) = _attacker("liquidator-short", 100_000e6);
    }

    function _value(address who, uint256 id) internal view returns (int256) {
        return int256(token.balanceOf(who) * TO_WAD + RiskChecks.accountValueWad(engine, lens, id));
    }

    /// The liquidator names its own account; returns what the call gained it (WAD, ≤ 0 required).
    function _liquidateNamingItself(IMarket m) internal returns (int256 gain) {
        bytes32 mid = m.marketId();
        assertTrue(lens.positionHealth(m, o).isLiquidatable, "setup: liquidatable");
        int256 equity = RiskChecks.equityWad(m, lens, o);
        assertGt(equity, int256(0), "setup: solvent at the mark");
        uint256 mark = m.markPrice();
        uint256 size = uint256(m.getPosition(o).sizeQty);
        (uint256 bid,) = lens.bestPrices(m);
        assertTrue(bid == 0, "setup: no bid");
        int256 ownerBefore = _value(owner_, o);
        int256 before = _value(liq, l);
        uint256[] memory names = new uint256[](1);
        names[0] = l;
        vm.prank(liq);
        try engine.liquidatePositionRanked(o, mid, names) {}
        catch (bytes memory r) {
            _requireVenueRefusal(r, "liquidatePositionRanked");
        }
        gain = _value(liq, l) - before;
        assertLe(gain, int256(0), "the liquidator gained by naming itself");
        assertEq(m.getPosition(o).sizeQty, 0, "the backstop closed the rest");
        {
            // the owner keeps its equity less the fee (ceil) on the closed notional at the mark
            uint256 fee = (size * mark / 1e18 * m.params().liquidationFeeBps + 9_999) / 10_000 + 1;
            assertGe(_value(owner_, o), ownerBefore - int256(fee), "the owner lost more than the fee");
            assertEq(m.getPosition(l).sizeQty, 0, "the liquidator's short was the counterparty");
        }
        _assertStrictSolvency();
    }

    function test_attack_nameItself_window_EUR_45x() public {
        engine.setMarketCloseUplift(EUR, UPLIFT);
        _open(liq, l, owner_, o, EUR, LONG, EUR_PX, 24e6, 45); // long 1,000
        // a small fall: the liquidator's short is in profit (a deleveraging candidate), the long
        // still healthy in OPEN, liquidatable at the window's raised maintenance
        _walkIndex(EUR, _onTick(EUR_PX * 9_975 / 10_000));
        assertFalse(lens.positionHealth(market, o).isLiquidatable, "setup: healthy while OPEN");
        _testCalendar(EUR, 12 * 60, 15); // the window under EUR/USD's calendar
        _toSession(EUR, IMarket.Session.REDUCE_ONLY);
        _liquidateNamingItself(market);
    }

    function test_attack_nameItself_open_EUR_40x() public {
        _open(liq, l, owner_, o, EUR, LONG, EUR_PX, 27e6, 40);
        _pushUntilLiquidatable(market, o);
        _liquidateNamingItself(market);
    }

    function test_attack_nameItself_open_GBP_20x() public {
        _open(liq, l, owner_, o, GBP, LONG, GBP_PX, 63.5e6, 20);
        _pushUntilLiquidatable(gbp, o);
        _liquidateNamingItself(gbp);
    }
}
