// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Issue 10, scenario 4: liquidations that can be blocked while ample depth sits inside the
/// bankruptcy price. (a) the owner's own 50 dust bids at the top of the book use up the fill
/// cap; (b) a third party's zero-margin reduce-only bids, left behind when its position closed,
/// do the same for every long; (c) an order whose client key equals the liquidation order's
/// derived key makes it revert ClientKeyInUse; (d) `liquidateAccount` reverts when one market
/// has no liquidity, shielding the positions in liquid markets.
contract Scenario04BlockedLiquidationAttack is AttackBase {
    address internal bob_;
    address internal carol_;
    address internal alice_;
    uint256 internal b;
    uint256 internal c;
    uint256 internal a;
    uint256 internal depthPx;

    function setUp() public override {
        super.setUp();
        (bob_, b) = _bystander("honest-short", 10_000e6);
        (carol_, c) = _bystander("honest-depth", 100_000e6);
        (alice_, a) = _attacker("long-40x", 1_000e6); // in (a) and (c) the owner is the attacker
        _open(bob_, b, alice_, a, EUR, LONG, EUR_PX, 27e6, 40); // long 1,000 @ 1.08
        // ample depth between the bankruptcy and the liquidation price, and an ask above
        IMarket.HealthView memory h = _health(a);
        depthPx = _onTick((h.insolvencyPriceX18 + h.liquidationPriceX18) / 2);
        // orders rest within mark ± band (94 bps): the index first walks down to 90 bps above
        // the depth (alice still healthy there)
        uint256 near = _onTick(depthPx * 10_000 / 9_910);
        _walkIndex(EUR, near);
        assertFalse(_health(a).isLiquidatable, "setup: healthy before the push");
        (bool ok,,) = _tryLimit(carol_, c, EUR, LONG, 1_000e6, 10, depthPx, "depth");
        assertTrue(ok, "setup: depth bid");
        (ok,,) = _tryLimit(carol_, c, EUR, SHORT, 100e6, 10, _onTick(near * 10_090 / 10_000), "ask");
        assertTrue(ok, "setup: ask");
    }

    /// `n` bids of the minimum size from `who` on consecutive ticks from `top` down; `reduceOnly`
    /// places them with closePosition (zero margin).
    function _dustBids(address who, uint256 id, uint256 top, uint256 n, bool reduceOnly) internal {
        uint256 lev = market.params().maxLeverage;
        for (uint256 i; i < n; ++i) {
            uint256 px = top - i * TICK;
            if (reduceOnly) _tryClose(who, id, EUR, LMT, px, "reduce-only bid");
            else _tryLimit(who, id, EUR, LONG, _minColl6(px, lev), lev, px, "dust bid");
        }
    }

    function _liquidatableWithDepth() internal {
        _pushUntilLiquidatable(market, a);
        assertGt(_onTick(market.markPrice()), depthPx, "setup: depth below the mark");
    }

    function test_attack_ownDustBidsUseUpTheFillCap() public {
        _liquidatableWithDepth();
        _dustBids(alice_, a, _onTick(market.markPrice()) - TICK, market.params().maxFillsPerTx, false);
        _assertLiquidationWorks(a, market);
        _assertStrictSolvency();
    }

    function test_attack_leftoverReduceOnlyBidsUseUpTheFillCap() public {
        (address griefer, uint256 g) = _attacker("griefer", 1_000e6);
        // a one-unit short into the depth, reduce-only bids for it at the top, then closed
        _tryMarket(griefer, g, EUR, SHORT, _minColl6(depthPx, 10), 10, "griefer short");
        assertLt(_pos(g).sizeQty, int256(0), "setup: griefer short");
        _liquidatableWithDepth();
        _dustBids(griefer, g, _onTick(market.markPrice()) - TICK, market.params().maxFillsPerTx, true);
        _tryClose(griefer, g, EUR, MKT, 0, "griefer closes");
        _assertLiquidationWorks(a, market);
        _exitAttackers();
        _assertAttackFailed();
    }

    function test_attack_clientKeyEqualToLiquidationOrderKey() public {
        _liquidatableWithDepth();
        uint256 px = depthPx - 10 * TICK;
        // this order comes first, the liquidation's next: its id, from a run reverted after
        _drainLogs();
        uint256 snap = vm.snapshotState();
        _tryPlace(alice_, _params(a, EUR, LONG, LMT, 10e6, 10, px, bytes32(uint256(7))), "order with another key");
        _tryLiquidate(a, EUR);
        uint256 nextLiq = _lastPlacedIdOf(a);
        vm.revertToState(snap);
        bytes32 key = keccak256(abi.encode(a, nextLiq));
        _tryPlace(alice_, _params(a, EUR, LONG, LMT, 10e6, 10, px, key), "order with the predicted key");
        _assertLiquidationWorks(a, market);
        _assertStrictSolvency();
    }

    function test_attack_illiquidMarketShieldsLiquidOne() public {
        // a GBP long too, in a book with no bid at all
        _open(bob_, b, alice_, a, GBP, LONG, GBP_PX, 63.5e6, 20);
        _pushUntilLiquidatable(gbp, a);
        _liquidatableWithDepth();
        _refresh(GBP);
        assertTrue(lens.positionHealth(gbp, a).isLiquidatable, "setup: GBP liquidatable");
        int256 eurBefore = _pos(a).sizeQty;
        vm.prank(keeper);
        try engine.liquidateAccount(a) {}
        catch (bytes memory r) {
            _requireVenueRefusal(r, "liquidateAccount");
        }
        assertLt(_abs(_pos(a).sizeQty), _abs(eurBefore), "the EUR position (depth inside bankruptcy) was not reduced");
        _assertStrictSolvency();
    }
}
