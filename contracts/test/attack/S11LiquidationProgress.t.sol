// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";

interface VmCool {
    /// Marks an address's account and storage cold (a keeper's call is its own transaction).
    function cool(address target) external;
}

/// Issue 26, finding 1: J unfillable bids ahead of honest depth (reduce-only leftovers of flat
/// griefers, maximum-leverage bids that the fall left above the mark, honest 25× bids failing the
/// window's raised initial margin) may not stall a long's liquidation. Property: the position
/// closes within 1 + ⌈J / 100⌉ keeper calls, each under 15M gas (measured with the market, the
/// engine and the oracle cold, as in a transaction of its own); a call that only cancelled does
/// not revert and its cancellations stick; the owner (an attacker: it gains from a stall) ends
/// with no profit and the venue stays strictly solvent. Sizes: J = 100, 150, 300; EUR/USD 50×
/// and GBP/USD 25×; OPEN and the REDUCE_ONLY window.
contract Scenario11LiquidationProgressAttack is AttackBase {
    VmCool internal constant vmc = VmCool(address(uint160(uint256(keccak256("hevm cheat code")))));
    uint256 internal constant MAX_SKIPS = 100;
    uint256 internal constant CALL_GAS_CAP = 15_000_000;
    uint256 internal constant UPLIFT = 25_000; // the window: margins × 2.5 (25× needs 10 %)

    event log_named_uint(string key, uint256 val);

    enum Kind { REDUCE_ONLY_LEFTOVER, UNDER_MARGINED, WINDOW_25X, EXPIRED_GTT }

    address internal bob_;
    uint256 internal b;
    address internal carol_;
    uint256 internal c;
    address internal owner_;
    uint256 internal o;
    IMarket internal m;
    bytes32 internal mid;
    uint256 internal depthPx;
    uint256 internal nearPx;

    function setUp() public override {
        super.setUp();
        (bob_, b) = _bystander("honest-short", 100_000e6);
        (carol_, c) = _bystander("honest-depth", 1_000_000e6);
        (owner_, o) = _attacker("stalling-long", 1_000e6);
    }

    /// The owner's long of 1,000 (EUR 40×, GBP 20×), honest depth between its bankruptcy and
    /// liquidation prices (enough for all of it) and an ask; the index 0.9 band above the depth.
    function _setUpMarket(bytes32 mid_) internal {
        mid = mid_;
        m = IMarket(engine.marketOf(mid_));
        bool eur = mid_ == EUR;
        uint256 px = eur ? EUR_PX : GBP_PX;
        if (eur) _open(bob_, b, owner_, o, mid, LONG, px, 27e6, 40);
        else _open(bob_, b, owner_, o, mid, LONG, px, 63.5e6, 20);
        IMarket.HealthView memory h = lens.positionHealth(m, o);
        depthPx = _onTick((h.insolvencyPriceX18 + h.liquidationPriceX18) / 2);
        uint256 band = m.params().priceBandBps;
        nearPx = _onTick(depthPx * 10_000 / (10_000 - band + 4));
        _walkIndex(mid, nearPx);
        assertFalse(lens.positionHealth(m, o).isLiquidatable, "setup: healthy before the push");
        (bool ok,,) = _tryLimit(carol_, c, mid, LONG, 20_000e6, 10, depthPx, "depth");
        assertTrue(ok, "setup: depth bid");
        (ok,,) = _tryLimit(carol_, c, mid, SHORT, 1_000e6, 10, _onTick(nearPx * (10_000 + band - 4) / 10_000), "ask");
        assertTrue(ok, "setup: ask");
    }

    /// `j` bids that can never fill a liquidation, on the ticks from just below the index down
    /// (all above the depth and, after the fall, above the mark), at most 100 per account.
    function _unfillable(Kind kind, uint256 j) internal {
        uint256 top = _onTick(nearPx) - TICK;
        uint256 lev = kind == Kind.WINDOW_25X ? 25 : m.params().maxLeverage;
        uint256 n = (j + 99) / 100;
        address[] memory gs = new address[](n);
        uint256[] memory ids = new uint256[](n);
        // every account first: a griefer's short sold later would meet the bids of the earlier ones
        for (uint256 k; k < n; ++k) (gs[k], ids[k]) = _newGriefer(kind, k);
        for (uint256 i; i < j; ++i) {
            (address g, uint256 gid) = (gs[i / 100], ids[i / 100]);
            uint256 px = top - i * TICK;
            if (kind == Kind.REDUCE_ONLY_LEFTOVER) _tryClose(g, gid, mid, LMT, px, "reduce-only bid");
            else if (kind == Kind.EXPIRED_GTT) _expiringBid(g, gid, px);
            else _tryLimit(g, gid, mid, LONG, _minColl6(px, lev) * 3, lev, px, "bid");
        }
        // good-til-time bids, well margined: only their expiry keeps them from filling
        if (kind == Kind.EXPIRED_GTT) {
            vm.warp(block.timestamp + 2);
            _refreshPrices();
        }
        // the reduce-only griefers close their shorts, leaving their bids behind
        if (kind == Kind.REDUCE_ONLY_LEFTOVER) for (uint256 k; k < n; ++k) _flatten(gs[k], ids[k]);
        (uint256[] memory levels,,) = m.getLevels(LONG, 1_000);
        assertGe(levels.length, j, "setup: the unfillable bids rest");
    }

    function _expiringBid(address g, uint256 gid, uint256 px) internal {
        IEngine.PlaceOrderParams memory p = _params(gid, mid, LONG, LMT, _minColl6(px, 10) * 3, 10, px, bytes32(0));
        p.expiresAt = uint64(block.timestamp + 1);
        (bool ok,,) = _tryPlace(g, p, "good-til-time bid");
        assertTrue(ok, "setup: good-til-time bid");
    }

    function _newGriefer(Kind kind, uint256 k) internal returns (address g, uint256 gid) {
        string memory suffix = vm.toString(k);
        // the window's bids are an honest market maker's
        if (kind == Kind.WINDOW_25X) return _bystander(string.concat("honest-25x-", suffix), 100_000e6);
        (g, gid) = _attacker(string.concat("griefer-", suffix), 10_000e6);
        if (kind == Kind.REDUCE_ONLY_LEFTOVER) {
            // a short of the minimum size into the depth: its reduce-only bids may rest
            _tryMarket(g, gid, mid, SHORT, _minColl6(depthPx, 10), 10, "griefer short");
            assertLt(m.getPosition(gid).sizeQty, int256(0), "setup: griefer short");
        }
    }

    /// The griefer buys its short back (reduce-only market) from an ask placed for it.
    function _flatten(address g, uint256 gid) internal {
        (bool ok,,) = _tryLimit(carol_, c, mid, SHORT, 100e6, 10, _onTick(nearPx) + 10 * TICK, "ask for the griefer");
        assertTrue(ok, "setup: ask for the griefer");
        _tryClose(g, gid, mid, MKT, 0, "griefer closes");
        assertEq(m.getPosition(gid).sizeQty, 0, "setup: griefer flat");
    }

    /// Keeper calls until the position is closed; returns how many it took (each measured cold).
    function _liquidateUntilClosed(uint256 bound) internal returns (uint256 calls) {
        for (calls = 1; calls <= bound + 2; ++calls) {
            vmc.cool(address(m));
            vmc.cool(address(engine));
            vmc.cool(address(oracle));
            uint256 g0 = gasleft();
            (bool ok, bytes memory reason) = _tryLiquidate(o, mid);
            uint256 used = g0 - gasleft();
            emit log_named_uint("liquidation call gas (cold)", used);
            assertLt(used, CALL_GAS_CAP, "a liquidation call over 15M gas");
            assertTrue(ok, string.concat("a liquidation call reverted: ", vm.toString(reason)));
            if (m.getPosition(o).sizeQty == 0) return calls;
        }
        revert("the position survived the call bound");
    }

    function _run(bytes32 mid_, Kind kind, uint256 j) internal {
        _setUpMarket(mid_);
        if (kind == Kind.WINDOW_25X) {
            engine.setMarketCloseUplift(mid, UPLIFT);
            _unfillable(kind, j);
            // the window under the market's calendar (12 h: the steps below fit inside it)
            _testCalendar(mid, 12 * 60, 15);
            _toSession(mid, IMarket.Session.REDUCE_ONLY);
        } else {
            _unfillable(kind, j);
        }
        _pushUntilLiquidatable(m, o);
        assertGt(_onTick(m.markPrice()), depthPx, "setup: depth below the mark");
        uint256 bound = 1 + (j + MAX_SKIPS - 1) / MAX_SKIPS;
        uint256 calls = _liquidateUntilClosed(bound);
        assertLe(calls, bound, "more keeper calls than 1 + ceil(J / 100)");
        if (kind == Kind.WINDOW_25X) {
            _toSession(mid, IMarket.Session.OPEN);
        }
        _exitAttackers();
        _assertAttackFailed();
    }

    // ─── reduce-only leftovers of flat griefers ─────────────────────────────────────────

    function test_attack_reduceOnlyLeftovers_EUR_100() public {
        _run(EUR, Kind.REDUCE_ONLY_LEFTOVER, 100);
    }

    function test_attack_reduceOnlyLeftovers_EUR_150() public {
        _run(EUR, Kind.REDUCE_ONLY_LEFTOVER, 150);
    }

    function test_attack_reduceOnlyLeftovers_EUR_300() public {
        _run(EUR, Kind.REDUCE_ONLY_LEFTOVER, 300);
    }

    function test_attack_reduceOnlyLeftovers_GBP_150() public {
        _run(GBP, Kind.REDUCE_ONLY_LEFTOVER, 150);
    }

    // ─── maximum-leverage bids the fall left above the mark ─────────────────────────────

    function test_attack_underMargined_EUR_150() public {
        _run(EUR, Kind.UNDER_MARGINED, 150);
    }

    function test_attack_underMargined_GBP_100() public {
        _run(GBP, Kind.UNDER_MARGINED, 100);
    }

    function test_attack_underMargined_GBP_300() public {
        _run(GBP, Kind.UNDER_MARGINED, 300);
    }

    // ─── good-til-time bids past their expiry (Market v2): never liquidity ───────────────

    function test_attack_expiredBids_EUR_100() public {
        _run(EUR, Kind.EXPIRED_GTT, 100);
    }

    function test_attack_expiredBids_EUR_250() public {
        _run(EUR, Kind.EXPIRED_GTT, 250);
    }

    function test_attack_expiredBids_GBP_150() public {
        _run(GBP, Kind.EXPIRED_GTT, 150);
    }

    // ─── the REDUCE_ONLY window: honest 25× bids fail the raised initial margin ─────────

    function test_attack_window25xBids_EUR_150() public {
        _run(EUR, Kind.WINDOW_25X, 150);
    }

    function test_attack_window25xBids_GBP_100() public {
        _run(GBP, Kind.WINDOW_25X, 100);
    }

    function test_attack_window25xBids_EUR_300() public {
        _run(EUR, Kind.WINDOW_25X, 300);
    }

    /// The order bond (docs/CONTRACTS.md "Order bond"): the 100 reduce-only bids a cancel-only
    /// call clears cost their placer 100 bonds (0.50 each), paid to the keeper; a bond is worth
    /// more than the keeper's gas for clearing its order, taken as the whole cold call's gas ÷ 100
    /// (its fixed part included), at 1 gwei with ether at 4,000 USD (a gas unit = 4e-6 USD).
    function test_bond_clearingCostsThePlacerMoreThanTheKeeper() public {
        _setUpMarket(EUR);
        _unfillable(Kind.REDUCE_ONLY_LEFTOVER, 100);
        _pushUntilLiquidatable(m, o);
        uint256 committed0 = engine.getAccount(attackerIds[1]).committedWad;
        uint256 keeper0 = token.balanceOf(keeper);
        vmc.cool(address(m));
        vmc.cool(address(engine));
        vmc.cool(address(oracle));
        uint256 g0 = gasleft();
        vm.prank(keeper);
        uint256 closed = engine.liquidatePosition(o, mid);
        uint256 used = g0 - gasleft();
        assertEq(closed, 0, "the call only cleared the 100 bids");
        uint256 perOrderGas = used / 100;
        uint256 bond = 0.5e18;
        emit log_named_uint("cancel-only call gas (cold, 100 cleared)", used);
        emit log_named_uint("keeper gas per cleared order (upper bound)", perOrderGas);
        // 1 gwei × 4,000 USD/ETH: 4e-6 USD a gas unit = 4e12 WAD
        emit log_named_uint("keeper cost per order, WAD at 1 gwei and 4,000 USD/ETH", perOrderGas * 4e12);
        emit log_named_uint("placer's loss per order, WAD (the bond)", bond);
        assertGt(bond, perOrderGas * 4e12, "a bond worth less than the keeper's gas to clear it");
        // the griefer's 100 bids forfeited their bonds; the keeper received them
        assertEq(committed0 - engine.getAccount(attackerIds[1]).committedWad, 100 * bond, "the placer lost 100 bonds");
        assertEq(token.balanceOf(keeper) - keeper0, 100 * bond / TO_WAD, "the keeper got 100 bonds");
        _exitAttackers();
        _assertAttackFailed();
    }

    /// A call that meets only unfillable makers returns 0 closed, and its cancellations stick
    /// (the next call does not meet them again).
    function test_cancelOnlyCallKeepsItsCancellations() public {
        _setUpMarket(EUR);
        _unfillable(Kind.REDUCE_ONLY_LEFTOVER, 200);
        _pushUntilLiquidatable(m, o);
        (uint256 bidQty0,) = m.restingQty();
        vm.prank(keeper);
        uint256 closed = engine.liquidatePosition(o, mid);
        assertEq(closed, 0, "only cancellations: 0 closed");
        (uint256 bidQty1,) = m.restingQty();
        assertGt(bidQty0, bidQty1, "cancelled, and still cancelled after the call");
        assertTrue(lens.positionHealth(m, o).isLiquidatable);
        vm.prank(keeper);
        assertEq(engine.liquidatePosition(o, mid), 0, "the next 100");
        uint256 size = uint256(m.getPosition(o).sizeQty);
        vm.prank(keeper);
        assertEq(engine.liquidatePosition(o, mid), size, "then the depth closes all of it");
    }

    // ─── the profit variant: the stalling long's owner liquidates itself ────────────────

    /// The review's profit variant: an attacker's long survives the fall while keeper calls fail,
    /// then the attacker liquidates it itself (collecting its own griefers' bonds and the
    /// liquidator's fee) against the honest depth. Now the attacker's own calls are the keeper's:
    /// each clears up to 100 unfillable bids for good and the position closes within
    /// 1 + ⌈J / 100⌉ calls; what it collects as liquidator is its own money (its griefers'
    /// bonds, a fee out of its own position), so it ends without profit and the venue solvent.
    function _selfLiquidationRun(bytes32 mid_, uint256 j) internal {
        _setUpMarket(mid_);
        _unfillable(Kind.REDUCE_ONLY_LEFTOVER, j);
        _pushUntilLiquidatable(m, o);
        uint256 bound = 1 + (j + MAX_SKIPS - 1) / MAX_SKIPS;
        uint256 calls;
        for (calls = 1; calls <= bound && m.getPosition(o).sizeQty != 0; ++calls) {
            vm.prank(owner_); // the attacker as its own liquidator
            try engine.liquidatePosition(o, mid) {}
            catch (bytes memory r) {
                revert(string.concat("a self-liquidation call reverted: ", vm.toString(r)));
            }
        }
        assertEq(m.getPosition(o).sizeQty, int256(0), "the position survived 1 + ceil(J / 100) calls");
        _exitAttackers();
        _assertAttackFailed();
    }

    function test_attack_selfLiquidationAfterStall_EUR_100() public {
        _selfLiquidationRun(EUR, 100);
    }

    function test_attack_selfLiquidationAfterStall_EUR_300() public {
        _selfLiquidationRun(EUR, 300);
    }

    function test_attack_selfLiquidationAfterStall_GBP_150() public {
        _selfLiquidationRun(GBP, 150);
    }
}
