// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "../utils/Test.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IOracle} from "../../src/interfaces/IOracle.sol";
import {IDepositToken, ILens} from "../utils/VenueFixture.sol";

/// Random walks over the venue for the invariant tests: several actors deposit, withdraw, place
/// limit and market orders, cancel, close in two markets; the index prices move and time passes;
/// a keeper liquidates positions and accounts. Inputs are bounded so that most calls succeed;
/// the rest revert and are counted by forge. Ghost counters record what actually happened.
/// The market of an action is chosen by bit 8 of its actor seed (`_pick`).
contract VenueHandler is Test {
    uint256 internal constant TICK = 1e13;
    uint256 internal constant MIN_QTY = 1e18;
    address internal constant KEEPER = address(0x4EE9E2);

    IEngine internal immutable engine;
    IOracle internal immutable oracle;
    IDepositToken internal immutable token;
    ILens internal immutable lens;
    address internal immutable admin;

    IMarket[2] internal markets;
    bytes32[2] internal ids;
    uint256[2] internal initialPrice;
    uint256[2] public indexPrice;
    address[] internal actors;
    uint256[] internal accountIds;

    // ghosts
    uint256 public calls;
    uint256 public placed;
    uint256 public fills;
    uint256 public cancels;
    uint256 public closes;
    uint256 public liquidations;
    uint256 public accountLiquidations;
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

    constructor(IEngine e, IMarket[2] memory m, IOracle o, IDepositToken t, ILens l, address admin_, uint256 nActors) {
        engine = e;
        oracle = o;
        token = t;
        lens = l;
        admin = admin_;
        for (uint256 k; k < 2; ++k) {
            markets[k] = m[k];
            ids[k] = m[k].marketId();
            (initialPrice[k],) = o.getPrice(ids[k]);
            indexPrice[k] = initialPrice[k];
        }
        for (uint256 i; i < nActors; ++i) {
            address who = address(uint160(0xAC7000 + i));
            actors.push(who);
            vm.prank(admin);
            (uint256 id,) = e.createAccount(who);
            accountIds.push(id);
        }
    }

    function _pick(uint256 seed) internal view returns (address who, uint256 id, uint256 k) {
        uint256 i = seed % actors.length;
        return (actors[i], accountIds[i], (seed >> 8) & 1);
    }

    function _refresh(uint256 k) internal {
        vm.prank(admin);
        oracle.setPrice(ids[k], indexPrice[k]);
    }

    function _side(bool long) internal pure returns (IMarket.Side) {
        return long ? IMarket.Side.LONG : IMarket.Side.SHORT;
    }

    // ─── money ──────────────────────────────────────────────────────────────────────────

    function deposit(uint256 actorSeed, uint256 amount6) external step {
        (address who, uint256 id,) = _pick(actorSeed);
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
        (address who, uint256 id,) = _pick(actorSeed);
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

    /// A tick price within `maxBps` of the market's mark (inside its 5 % band).
    function _nearMark(uint256 k, int256 offsetBps, int256 maxBps) internal view returns (uint256) {
        int256 off = bound(offsetBps, -maxBps, maxBps);
        return uint256(int256(markets[k].markPrice()) * (10_000 + off) / 10_000) / TICK * TICK;
    }

    function placeLimit(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev, int256 offsetBps) external step {
        (address who, uint256 id, uint256 k) = _pick(actorSeed);
        uint256 coll6 = _collateral(id, collSeed);
        if (coll6 == 0) return;
        lev = bound(lev, 1, markets[k].params().maxLeverage);
        uint256 px = _nearMark(k, offsetBps, 400);
        if (coll6 * 1e12 * lev * 1e18 / px < MIN_QTY) return;
        vm.prank(who);
        (,,, IMarket.OrderStatus st) = engine.placeOrder(
            IEngine.PlaceOrderParams(id, ids[k], _side(long), IMarket.OrderType.LIMIT, coll6, lev, px, bytes32(0))
        );
        ++placed;
        if (st == IMarket.OrderStatus.FILLED) ++fills;
    }

    function placeMarket(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev) external step {
        (address who, uint256 id, uint256 k) = _pick(actorSeed);
        uint256 coll6 = _collateral(id, collSeed);
        if (coll6 == 0) return;
        lev = bound(lev, 1, markets[k].params().maxLeverage);
        (uint256 bid, uint256 ask) = lens.bestPrices(markets[k]);
        uint256 px = long ? ask : bid;
        if (px == 0 || coll6 * 1e12 * lev * 1e18 / px < MIN_QTY) return;
        vm.prank(who);
        engine.placeOrder(
            IEngine.PlaceOrderParams(id, ids[k], _side(long), IMarket.OrderType.MARKET, coll6, lev, 0, bytes32(0))
        );
        ++placed;
    }

    function cancel(uint256 actorSeed, uint256 orderSeed) external step {
        (address who, uint256 id, uint256 k) = _pick(actorSeed);
        IMarket m = markets[k];
        uint256 n = m.orderCount();
        if (n == 0) return;
        uint256 base = m.marketIndex() << 64;
        uint256 start = orderSeed % n;
        for (uint256 j; j < n; ++j) {
            IMarket.OrderView memory o = m.getOrder(base | (1 + (start + j) % n));
            if (o.accountId == id && o.status == IMarket.OrderStatus.ACTIVE) {
                vm.prank(who);
                engine.cancelOrder(id, ids[k], o.clientKey);
                ++cancels;
                return;
            }
        }
    }

    function close(uint256 actorSeed, bool asLimit, int256 offsetBps) external step {
        (address who, uint256 id, uint256 k) = _pick(actorSeed);
        if (markets[k].getPosition(id).sizeQty == 0) return;
        uint256 px = asLimit ? _nearMark(k, offsetBps, 300) : 0;
        vm.prank(who);
        engine.closePosition(id, ids[k], asLimit ? IMarket.OrderType.LIMIT : IMarket.OrderType.MARKET, px, bytes32(0));
        ++closes;
    }

    // ─── the world ──────────────────────────────────────────────────────────────────────

    /// One index moves up to ±3 % per step, kept within ±20 % of where it started.
    function movePrice(uint256 marketSeed, int256 bps) external step {
        uint256 k = marketSeed & 1;
        int256 stepBps = bound(bps, -300, 300);
        uint256 next = uint256(int256(indexPrice[k]) * (10_000 + stepBps) / 10_000);
        if (next < initialPrice[k] * 8 / 10 || next > initialPrice[k] * 12 / 10) next = initialPrice[k];
        indexPrice[k] = next;
        _refresh(k);
    }

    /// Time passes (funding accrues); the feed keeps both indexes fresh.
    function warp(uint256 secondsSeed) external step {
        vm.warp(block.timestamp + bound(secondsSeed, 1, 2 hours));
        vm.roll(block.number + 1);
        _refresh(0);
        _refresh(1);
    }

    function pokeFunding(uint256 marketSeed) external step {
        engine.pokeFunding(ids[marketSeed & 1]);
    }

    /// A keeper liquidates one position, or (odd seeds) every liquidatable position of the account.
    function liquidate(uint256 actorSeed) external step {
        (, uint256 id, uint256 k) = _pick(actorSeed);
        if (actorSeed & (1 << 16) != 0) {
            bool any;
            for (uint256 j; j < 2; ++j) {
                if (markets[j].getPosition(id).sizeQty != 0 && lens.positionHealth(markets[j], id).isLiquidatable) any = true;
            }
            if (!any) return;
            vm.prank(KEEPER);
            engine.liquidateAccount(id);
            ++accountLiquidations;
            return;
        }
        if (markets[k].getPosition(id).sizeQty == 0) return;
        if (!lens.positionHealth(markets[k], id).isLiquidatable) return;
        vm.prank(KEEPER);
        engine.liquidatePosition(id, ids[k]);
        ++liquidations;
    }
}
