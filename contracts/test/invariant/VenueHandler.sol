// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "../utils/Test.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IOracle} from "../../src/interfaces/IOracle.sol";
import {IDepositToken, ILens} from "../utils/VenueFixture.sol";

/// Random walks over the venue for the invariant tests: several actors deposit, withdraw, place
/// limit and market orders, cancel, close; the index moves (inside the band) and time passes;
/// a keeper liquidates. Inputs are bounded so that most calls succeed; the rest revert and are
/// counted by forge. Ghost counters record what actually happened.
contract VenueHandler is Test {
    bytes32 internal constant EUR = keccak256("EUR/USD");
    uint256 internal constant TICK = 1e13;
    uint256 internal constant MIN_QTY = 1e18;

    IEngine internal immutable engine;
    IMarket internal immutable market;
    IOracle internal immutable oracle;
    IDepositToken internal immutable token;
    ILens internal immutable lens;
    address internal immutable admin;
    address internal constant KEEPER = address(0x4EE9E2);

    address[] internal actors;
    uint256[] internal accountIds;
    uint256 public indexPrice;

    // ghosts
    uint256 public calls;
    uint256 public placed;
    uint256 public fills;
    uint256 public cancels;
    uint256 public closes;
    uint256 public liquidations;
    uint256 public deposits;
    uint256 public withdrawals;
    /// Set if fees or recorded bad debt ever went down (both only accumulate).
    bool public venueBalanceDecreased;
    uint256 internal lastFees;
    uint256 internal lastBadDebt;

    /// Counts the call and checks the monotonic venue balances after it.
    modifier step() {
        ++calls;
        _;
        uint256 fees = engine.feesWad();
        uint256 bad = engine.badDebtWad();
        if (fees < lastFees || bad < lastBadDebt) venueBalanceDecreased = true;
        lastFees = fees;
        lastBadDebt = bad;
    }

    constructor(IEngine e, IMarket m, IOracle o, IDepositToken t, ILens l, address admin_, uint256 nActors) {
        engine = e;
        market = m;
        oracle = o;
        token = t;
        lens = l;
        admin = admin_;
        (indexPrice,) = o.getPrice(EUR);
        for (uint256 i; i < nActors; ++i) {
            address who = address(uint160(0xAC7000 + i));
            actors.push(who);
            vm.prank(admin);
            (uint256 id,) = e.createAccount(who);
            accountIds.push(id);
        }
    }

    function actorCount() external view returns (uint256) {
        return actors.length;
    }

    function _actor(uint256 seed) internal view returns (address who, uint256 id) {
        uint256 i = seed % actors.length;
        return (actors[i], accountIds[i]);
    }

    function _refresh() internal {
        vm.prank(admin);
        oracle.setPrice(EUR, indexPrice);
    }

    // ─── money ──────────────────────────────────────────────────────────────────────────

    function deposit(uint256 actorSeed, uint256 amount6) external step {
        (address who, uint256 id) = _actor(actorSeed);
        amount6 = bound(amount6, 1e6, 20_000e6);
        vm.prank(admin);
        token.mint(who, amount6);
        vm.prank(who);
        token.approve(address(engine), amount6);
        vm.prank(who);
        engine.deposit(id, amount6);
        ++deposits;
    }

    function withdraw(uint256 actorSeed, uint256 amount6) external step {
        (address who, uint256 id) = _actor(actorSeed);
        uint256 avail6 = engine.getAccount(id).availableWad / 1e12;
        if (avail6 == 0) return;
        amount6 = bound(amount6, 1, avail6);
        vm.prank(who);
        engine.withdraw(id, amount6);
        ++withdrawals;
    }

    // ─── orders ─────────────────────────────────────────────────────────────────────────

    function _collateral(uint256 id, uint256 seed) internal view returns (uint256) {
        uint256 avail6 = engine.getAccount(id).availableWad / 1e12;
        if (avail6 < 1e6) return 0;
        uint256 cap = avail6 < 2_000e6 ? avail6 : 2_000e6;
        return bound(seed, 1e6, cap);
    }

    function placeLimit(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev, int256 offsetBps) external step {
        (address who, uint256 id) = _actor(actorSeed);
        uint256 coll6 = _collateral(id, collSeed);
        if (coll6 == 0) return;
        lev = bound(lev, 1, 50);
        // within 4 % of the mark, on the tick: inside the 5 % band
        int256 off = bound(offsetBps, -400, 400);
        uint256 mark = market.markPrice();
        uint256 px = uint256(int256(mark) * (10_000 + off) / 10_000) / TICK * TICK;
        if (coll6 * 1e12 * lev * 1e18 / px < MIN_QTY) return;
        vm.prank(who);
        (,,, IMarket.OrderStatus st) = engine.placeOrder(
            IEngine.PlaceOrderParams(id, EUR, long ? IMarket.Side.LONG : IMarket.Side.SHORT, IMarket.OrderType.LIMIT, coll6, lev, px, bytes32(0))
        );
        ++placed;
        if (st == IMarket.OrderStatus.FILLED) ++fills;
    }

    function placeMarket(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev) external step {
        (address who, uint256 id) = _actor(actorSeed);
        uint256 coll6 = _collateral(id, collSeed);
        if (coll6 == 0) return;
        lev = bound(lev, 1, 50);
        (uint256 bid, uint256 ask) = lens.bestPrices(market);
        uint256 px = long ? ask : bid;
        if (px == 0 || coll6 * 1e12 * lev * 1e18 / px < MIN_QTY) return;
        vm.prank(who);
        engine.placeOrder(
            IEngine.PlaceOrderParams(id, EUR, long ? IMarket.Side.LONG : IMarket.Side.SHORT, IMarket.OrderType.MARKET, coll6, lev, 0, bytes32(0))
        );
        ++placed;
    }

    function cancel(uint256 actorSeed, uint256 orderSeed) external step {
        (address who, uint256 id) = _actor(actorSeed);
        uint256 n = market.orderCount();
        if (n == 0) return;
        uint256 base = market.marketIndex() << 64;
        uint256 start = 1 + orderSeed % n;
        for (uint256 k; k < n; ++k) {
            uint256 i = 1 + (start - 1 + k) % n;
            IMarket.OrderView memory o = market.getOrder(base | i);
            if (o.accountId == id && o.status == IMarket.OrderStatus.ACTIVE) {
                vm.prank(who);
                engine.cancelOrder(id, EUR, o.clientKey);
                ++cancels;
                return;
            }
        }
    }

    function close(uint256 actorSeed, bool asLimit, int256 offsetBps) external step {
        (address who, uint256 id) = _actor(actorSeed);
        int256 size = market.getPosition(id).sizeQty;
        if (size == 0) return;
        uint256 px;
        if (asLimit) {
            int256 off = bound(offsetBps, -300, 300);
            px = uint256(int256(market.markPrice()) * (10_000 + off) / 10_000) / TICK * TICK;
        }
        vm.prank(who);
        engine.closePosition(id, EUR, asLimit ? IMarket.OrderType.LIMIT : IMarket.OrderType.MARKET, px, bytes32(0));
        ++closes;
    }

    // ─── the world ──────────────────────────────────────────────────────────────────────

    /// The index moves up to ±3 % per step, kept within [0.9, 1.3].
    function movePrice(int256 bps) external step {
        int256 step = bound(bps, -300, 300);
        uint256 next = uint256(int256(indexPrice) * (10_000 + step) / 10_000);
        if (next < 0.9e18 || next > 1.3e18) next = 1.08e18;
        indexPrice = next;
        _refresh();
    }

    /// Time passes (funding accrues); the feed keeps the index fresh.
    function warp(uint256 secondsSeed) external step {
        vm.warp(block.timestamp + bound(secondsSeed, 1, 2 hours));
        vm.roll(block.number + 1);
        _refresh();
    }

    function pokeFunding() external step {
        engine.pokeFunding(EUR);
    }

    function liquidate(uint256 actorSeed) external step {
        (, uint256 id) = _actor(actorSeed);
        if (market.getPosition(id).sizeQty == 0) return;
        if (!lens.positionHealth(market, id).isLiquidatable) return;
        vm.prank(KEEPER);
        engine.liquidatePosition(id, EUR);
        ++liquidations;
    }
}
