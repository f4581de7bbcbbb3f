// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "./Test.sol";
import {Vm} from "./Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {OrderScan} from "./OrderScan.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IMarketFactory} from "../../src/interfaces/IMarketFactory.sol";
import {IOracle} from "../../src/interfaces/IOracle.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {ITriggerBook} from "../../src/interfaces/ITriggerBook.sol";

/// Admin and token functions the interfaces do not declare.
interface IEngineAdmin {
    function setFactory(address factory) external;
}

interface IDepositToken {
    function mint(address to, uint256 amount6) external;
    function approve(address spender, uint256 amount) external returns (bool);
    function balanceOf(address who) external view returns (uint256);
    function allowance(address owner, address spender) external view returns (uint256);
    function decimals() external view returns (uint8);
}

/// The lens views the tests read (bests and health moved out of the Market for its size).
interface ILens {
    function bestPrices(IMarket m) external view returns (uint256 bidX18, uint256 askX18);
    function positionHealth(IMarket m, uint256 accountId) external view returns (IMarket.HealthView memory);
    function orders(IMarket m, uint256 fromSlot, uint256 toSlot) external view returns (IMarket.OrderView[] memory);
}

interface IMarginAccount {
    function info() external view returns (address engine, uint256 accountId, address owner);
}

/// @notice Deploys the venue as docs/CONTRACTS.md "Deployment" describes (contracts by artifact,
/// so the tests only depend on the interfaces) with the devnet EUR/USD and GBP/USD parameters,
/// and offers helpers for accounts, orders and the global accounting checks.
abstract contract VenueFixture is Test {
    bytes32 internal constant EUR = keccak256("EUR/USD");
    bytes32 internal constant GBP = keccak256("GBP/USD");
    uint256 internal constant EUR_PX = 1.08e18;
    uint256 internal constant GBP_PX = 1.27e18;
    uint256 internal constant TICK = 1e13; // 0.00001
    uint256 internal constant LOT = 1e16; // 0.01
    uint256 internal constant MIN_QTY = 1e18;
    uint256 internal constant MAX_AGE = 3600;
    /// The oracle's per-update bound (scripts/deploy.ts ORACLE_MAX_MOVE_BPS): ≤ 1/L − maintenance
    /// of every market it prices (EUR/USD: 2 % − 1 %), which MarketFactory checks.
    uint256 internal constant MAX_MOVE_BPS = 100;
    uint256 internal constant TO_WAD = 1e12;

    IMarket.Side internal constant LONG = IMarket.Side.LONG;
    IMarket.Side internal constant SHORT = IMarket.Side.SHORT;
    IMarket.OrderType internal constant MKT = IMarket.OrderType.MARKET;
    IMarket.OrderType internal constant LMT = IMarket.OrderType.LIMIT;

    address internal admin;
    IDepositToken internal token;
    IOracle internal oracle;
    IEngine internal engine;
    IMarketFactory internal factory;
    ITriggerBook internal triggers;
    address internal marketImpl;
    IMarket internal market; // EUR/USD
    IMarket internal gbp; // GBP/USD
    ILens internal lens;

    uint256 internal constant ALICE_PK = 0xA11CE;
    uint256 internal constant BOB_PK = 0xB0B;
    uint256 internal constant CAROL_PK = 0xCA201;
    uint256 internal constant DAVE_PK = 0xDA7E;
    address internal alice;
    address internal bob;
    address internal carol;
    address internal dave;
    address internal keeper = address(0x4EE9E2);
    address internal stranger = address(0x5742A);

    function setUp() public virtual {
        vm.warp(1_750_000_000);
        vm.roll(100);
        admin = address(this);
        alice = vm.addr(ALICE_PK);
        bob = vm.addr(BOB_PK);
        carol = vm.addr(CAROL_PK);
        dave = vm.addr(DAVE_PK);
        vm.label(alice, "alice");
        vm.label(bob, "bob");
        vm.label(carol, "carol");
        vm.label(dave, "dave");
        vm.recordLogs();
        _deployVenue();
    }

    function _deployVenue() internal {
        token = IDepositToken(vm.deployCode("DepositToken.sol:DepositToken", abi.encode(admin)));
        oracle = IOracle(vm.deployCode("Oracle.sol:Oracle", abi.encode(admin, MAX_AGE)));
        engine = IEngine(vm.deployCode("Engine.sol:Engine", abi.encode(address(token), address(oracle), admin, _calendarDelay())));
        marketImpl = vm.deployCode(
            "Market.sol:Market", abi.encode(vm.deployCode("MarketBackstop.sol:MarketBackstop"), vm.deployCode("MarketOrders.sol:MarketOrders"))
        );
        factory = IMarketFactory(
            vm.deployCode("MarketFactory.sol:MarketFactory", abi.encode(address(engine), marketImpl, admin))
        );
        IEngineAdmin(address(engine)).setFactory(address(factory));
        triggers = ITriggerBook(vm.deployCode("TriggerBook.sol:TriggerBook", abi.encode(address(engine))));
        engine.setTriggerBook(address(triggers));
        oracle.setMarketFactory(address(factory));
        oracle.setConfig(MAX_AGE, MAX_MOVE_BPS);
        oracle.setPrice(EUR, EUR_PX);
        oracle.setPrice(GBP, GBP_PX);
        market = IMarket(factory.createMarket("EUR", "USD", _eurParams()));
        gbp = IMarket(factory.createMarket("GBP", "USD", _gbpParams()));
        lens = ILens(vm.deployCode("VenueLens.sol:VenueLens"));
        vm.label(address(engine), "engine");
        vm.label(address(market), "EUR/USD");
        vm.label(address(gbp), "GBP/USD");
    }

    /// The engine's calendar delay: none, as on the local chain (forge runs on 31337).
    function _calendarDelay() internal view virtual returns (uint256) {
        return 0;
    }

    function _eurParams() internal pure returns (IMarket.MarketParams memory p) {
        p.symbol = "EUR/USD";
        p.tickSizeX18 = TICK;
        p.lotSizeQty = LOT;
        p.minOrderQty = MIN_QTY;
        p.maxLeverage = 50;
        p.maintenanceMarginBps = 100;
        p.liquidationFeeBps = 50;
        p.makerFeeBps = 1;
        p.takerFeeBps = 5;
        p.priceBandBps = 94; // (band + maintenance + taker fee) × L < 1: (94 + 100 + 5) × 50 = 9,950 bps
        p.markClampBps = 50; // ≤ maintenance / 2
        p.maxFillsPerTx = 50;
        p.maxFundingRateX18PerHour = 1e15; // 0.1 %/h
        p.skewScaleX18PerHour = 1e14; // 0.01 %/h
        p.operatorBandBps = 90; // operators (the relayer) price within mark ± 0.9 % (≤ band)
        // no caps here (the fuzz tests trade any size): Market.orders.t.sol tests them on its own market
        p.maxPositionQty = type(uint128).max;
        p.maxOpenInterestQty = type(uint128).max;
    }

    function _gbpParams() internal pure virtual returns (IMarket.MarketParams memory p) {
        p = _eurParams();
        p.symbol = "GBP/USD";
        p.maxLeverage = 25;
        p.maintenanceMarginBps = 200;
        p.priceBandBps = 150; // (150 + 200 + 5) × 25 = 8,875 bps < 1
    }

    // ─── accounts ────────────────────────────────────────────────────────────────────────

    /// Creates an account for `who` and deposits `amount6` (minted and approved first).
    function _account(address who, uint256 amount6) internal returns (uint256 id) {
        (id,) = engine.createAccount(who);
        if (amount6 != 0) _fund(who, id, amount6);
    }

    function _fund(address who, uint256 id, uint256 amount6) internal {
        token.mint(who, amount6);
        vm.prank(who);
        token.approve(address(engine), amount6);
        vm.prank(who);
        engine.deposit(id, amount6);
    }

    function _acct(uint256 id) internal view returns (IEngine.AccountView memory) {
        return engine.getAccount(id);
    }

    // ─── orders ──────────────────────────────────────────────────────────────────────────

    function _params(uint256 id, bytes32 mid, IMarket.Side side, IMarket.OrderType t, uint256 coll6, uint256 lev, uint256 px, bytes32 key)
        internal
        pure
        returns (IEngine.PlaceOrderParams memory)
    {
        return IEngine.PlaceOrderParams(id, mid, side, t, coll6, lev, px, key, IMarket.TimeInForce.GTC, false, 0);
    }

    function _place(address who, uint256 id, IMarket.Side side, IMarket.OrderType t, uint256 coll6, uint256 lev, uint256 px)
        internal
        returns (uint256 orderId, uint256 qty, IMarket.OrderStatus status)
    {
        vm.prank(who);
        (orderId,, qty, status) = engine.placeOrder(_params(id, EUR, side, t, coll6, lev, px, bytes32(0)));
    }

    function _limit(address who, uint256 id, IMarket.Side side, uint256 coll6, uint256 lev, uint256 px)
        internal
        returns (uint256 orderId)
    {
        (orderId,,) = _place(who, id, side, LMT, coll6, lev, px);
    }

    function _market(address who, uint256 id, IMarket.Side side, uint256 coll6, uint256 lev)
        internal
        returns (uint256 orderId)
    {
        (orderId,,) = _place(who, id, side, MKT, coll6, lev, 0);
    }

    function _order(uint256 orderId) internal view returns (IMarket.OrderView memory) {
        return market.getOrder(orderId);
    }

    /// The client key of an EUR order placed without one (MarketBase._keyFor: keccak256(accountId, orderId)).
    function _keyOf(uint256 orderId) internal view returns (bytes32) {
        return keccak256(abi.encode(market.getOrder(orderId).accountId, orderId));
    }

    function _bestBid() internal view returns (uint256 b) {
        (b,) = lens.bestPrices(market);
    }

    function _bestAsk() internal view returns (uint256 a) {
        (, a) = lens.bestPrices(market);
    }

    function _health(uint256 id) internal view returns (IMarket.HealthView memory) {
        return lens.positionHealth(market, id);
    }

    function _pos(uint256 id) internal view returns (IMarket.PositionView memory) {
        return market.getPosition(id);
    }

    /// docs/CONTRACTS.md sizing: floor(collateralWad × leverage × 1e18 / price / lot) × lot.
    function _qty(uint256 coll6, uint256 lev, uint256 px) internal pure returns (uint256) {
        return (coll6 * TO_WAD * lev * 1e18 / px / LOT) * LOT;
    }

    function _ceilDiv(uint256 a, uint256 b) internal pure returns (uint256) {
        return a == 0 ? 0 : (a - 1) / b + 1;
    }

    function _takerFee(uint256 q, uint256 px) internal pure returns (uint256) {
        return _ceilDiv(q * px / 1e18 * 5, 1e4);
    }

    function _makerFee(uint256 q, uint256 px) internal pure returns (uint256) {
        return _ceilDiv(q * px / 1e18 * 1, 1e4);
    }

    // ─── the calendar (docs/CONTRACTS.md "Weekends and gaps") ─────────────────────────────

    uint16 internal constant TEST_WINDOW_MIN = 15;
    uint16 internal constant TEST_CLOSED_MIN = 15;
    /// Per market id: the REDUCE_ONLY start, the close and the reopening of the test calendar.
    mapping(bytes32 => uint256[3]) internal calendarTimes;

    /// Schedules on `mid` (at once: the fixture's engine has no calendar delay, as on the local
    /// chain) a calendar whose REDUCE_ONLY window starts 1–2 minutes from now and lasts
    /// TEST_WINDOW_MIN, closed TEST_CLOSED_MIN after it; returns the three instants.
    function _testCalendar(bytes32 mid) internal returns (uint256[3] memory t) {
        return _testCalendar(mid, TEST_WINDOW_MIN, TEST_CLOSED_MIN);
    }

    function _testCalendar(bytes32 mid, uint16 windowMin, uint16 closedMin) internal returns (uint256[3] memory t) {
        uint256 pos = (block.timestamp + 3 days) % 7 days;
        uint256 closeAt = (pos + 60 + uint256(windowMin) * 60 + 59) / 60; // minutes, ≥ 1 min of OPEN first
        uint256 closeStart = block.timestamp - pos + closeAt * 60;
        closeAt %= 7 days / 60;
        engine.scheduleMarketCalendar(mid, IMarket.Calendar(uint16(closeAt), windowMin, closedMin), block.timestamp);
        t = [closeStart - uint256(windowMin) * 60, closeStart, closeStart + uint256(closedMin) * 60];
        calendarTimes[mid] = t;
    }

    /// Moves time to the next start of `s` under `mid`'s test calendar (scheduled on first use);
    /// OPEN: the reopening. The index is pushed again at the new time (the same price).
    function _toSession(bytes32 mid, IMarket.Session s) internal {
        uint256[3] memory t = calendarTimes[mid];
        if (t[0] == 0 || block.timestamp >= t[2]) t = _testCalendar(mid);
        uint256 to = t[uint256(s) == 0 ? 2 : uint256(s) - 1];
        if (to > block.timestamp) {
            vm.roll(block.number + 1);
            vm.warp(to);
        }
        _refreshPrices();
    }

    function _refreshPrices() internal virtual {
        (uint256 e,) = oracle.getPrice(EUR);
        (uint256 g,) = oracle.getPrice(GBP);
        oracle.setPrice(EUR, e);
        oracle.setPrice(GBP, g);
    }

    /// Sets the index to `px`, walking one oracle-bounded update per second when the move is
    /// larger than the oracle's per-update bound (MAX_MOVE_BPS).
    function _setPrice(bytes32 mid, uint256 px) internal {
        for (uint256 i; i < 1_000; ++i) {
            oracle.setPrice(mid, px);
            (uint256 p,) = oracle.getPrice(mid);
            if (p == px) return;
            vm.warp(block.timestamp + 1);
            vm.roll(block.number + 1);
        }
        revert("_setPrice: the oracle never reached the price");
    }

    // ─── global checks (the invariants of DESIGN.md, usable after any unit step) ─────────

    /// balanceOf(engine) × 1e12 == Σ account totals + insurance + fees + Σ pools + Σ fund positions' margin.
    function _checkSolvency() internal view {
        int256 rhs = int256(engine.insuranceFundWad() + engine.feesWad());
        uint256 n = engine.accountCount();
        for (uint256 i = 1; i <= n; ++i) {
            IEngine.AccountView memory a = engine.getAccount(i);
            assertEq(a.totalWad, a.availableWad + a.committedWad, "total != available + committed");
            rhs += int256(a.totalWad);
        }
        bytes32[] memory ids = engine.marketIds();
        // the insurance fund's positions (account 0) hold margin taken out of the fund
        for (uint256 i; i < ids.length; ++i) {
            rhs += engine.marketPoolWad(ids[i]) + int256(IMarket(engine.marketOf(ids[i])).getPosition(0).marginWad);
        }
        assertEq(int256(token.balanceOf(address(engine)) * TO_WAD), rhs, "engine balance != books");
    }

    /// Long OI == short OI == Σ position sizes per side.
    function _checkOpenInterest(IMarket m) internal view {
        (uint256 longQty, uint256 shortQty) = m.openInterest();
        assertEq(longQty, shortQty, "long OI != short OI");
        uint256 sumLong;
        uint256 sumShort;
        uint256 n = engine.accountCount();
        for (uint256 i = 0; i <= n; ++i) { // 0: the insurance fund's position
            int256 s = m.getPosition(i).sizeQty;
            if (s > 0) sumLong += uint256(s);
            else sumShort += uint256(-s);
        }
        assertEq(sumLong, longQty, "sum of longs != long OI");
        assertEq(sumShort, shortQty, "sum of shorts != short OI");
    }

    /// Every order: filled ≤ original, filled + remaining == original while active; every book
    /// level: total and count == Σ of its active orders.
    function _checkBook(IMarket m) internal view {
        uint256[] memory all = OrderScan.ids(m);
        uint256 n = all.length;
        IMarket.OrderView[] memory active = new IMarket.OrderView[](n);
        uint256 k;
        uint256 restingBid;
        uint256 restingAsk;
        for (uint256 i; i < n; ++i) {
            IMarket.OrderView memory o = m.getOrder(all[i]);
            assertLe(o.filledQty, o.originalQty, "filled > original");
            if (o.status == IMarket.OrderStatus.ACTIVE) {
                assertEq(o.filledQty + o.remainingQty, o.originalQty, "filled + remaining != original");
                assertGt(o.remainingQty, 0, "active order with nothing remaining");
                active[k++] = o;
                if (o.side == IMarket.Side.LONG) restingBid += o.remainingQty;
                else restingAsk += o.remainingQty;
            } else {
                assertEq(o.remainingQty, 0, "closed order with remaining");
                assertEq(o.marginRemainingWad, 0, "closed order holds margin");
            }
        }
        (uint256 rb, uint256 ra) = m.restingQty();
        assertEq(rb, restingBid, "resting bid qty");
        assertEq(ra, restingAsk, "resting ask qty");
        (uint256 bb, uint256 ba) = lens.bestPrices(m);
        if (bb != 0 && ba != 0) assertLt(bb, ba, "book crossed");
        _checkLevels(m, IMarket.Side.LONG, active, k);
        _checkLevels(m, IMarket.Side.SHORT, active, k);
    }

    function _checkLevels(IMarket m, IMarket.Side side, IMarket.OrderView[] memory active, uint256 k) internal view {
        (uint256[] memory prices, uint256[] memory totals, uint256[] memory counts) = m.getLevels(side, 1000);
        uint256 seen;
        for (uint256 l; l < prices.length; ++l) {
            if (l > 0) {
                // best first: bids descending, asks ascending
                if (side == IMarket.Side.LONG) assertLt(prices[l], prices[l - 1], "bids not descending");
                else assertGt(prices[l], prices[l - 1], "asks not ascending");
            }
            uint256 sum;
            uint256 cnt;
            for (uint256 i; i < k; ++i) {
                if (active[i].side == side && active[i].priceX18 == prices[l]) {
                    sum += active[i].remainingQty;
                    ++cnt;
                }
            }
            assertEq(totals[l], sum, "level total != sum of its orders");
            assertEq(counts[l], cnt, "level count != number of its orders");
            assertGt(cnt, 0, "empty level listed");
            seen += cnt;
        }
        uint256 expected;
        for (uint256 i; i < k; ++i) if (active[i].side == side) ++expected;
        assertEq(seen, expected, "active order on no level");
    }

    /// Bond of every resting order (MarketBase.ORDER_BOND_WAD; docs/CONTRACTS.md "Order bond").
    uint256 internal constant ORDER_BOND_WAD = 0.5e18;

    /// docs/CONTRACTS.md: committed = margin of open orders and their bonds + isolated margin of
    /// positions, per account across every market.
    function _checkCommitted() internal view {
        uint256 n = engine.accountCount();
        uint256[] memory expected = new uint256[](n + 1);
        bytes32[] memory ids = engine.marketIds();
        for (uint256 k; k < ids.length; ++k) {
            IMarket m = IMarket(engine.marketOf(ids[k]));
            for (uint256 i = 1; i <= n; ++i) expected[i] += m.getPosition(i).marginWad;
            uint256[] memory all = OrderScan.ids(m);
            for (uint256 j; j < all.length; ++j) {
                IMarket.OrderView memory o = m.getOrder(all[j]);
                // a resting order also holds its bond (MarketBase.ORDER_BOND_WAD)
                if (o.status == IMarket.OrderStatus.ACTIVE) expected[o.accountId] += o.marginRemainingWad + ORDER_BOND_WAD;
            }
        }
        for (uint256 i = 1; i <= n; ++i) {
            assertEq(engine.getAccount(i).committedWad, expected[i], "committed != open orders + positions");
        }
    }

    /// Rounding favours the venue. A market's pool pays realized PnL before the other side has
    /// realized its loss, so the pool alone may be negative; closing every position at any common
    /// price P (long OI == short OI) pays Σ_short openNotional − Σ_long openNotional whatever P
    /// is, and the positions still owe their pending funding. Hence
    ///   Σ pools + Σ_long openNotional − Σ_short openNotional + Σ pendingFunding + badDebt ≥ 0
    /// (the dust the venue kept), and it only drops below zero by bad debt recorded as such.
    function _checkVenueKeepsDust() internal view {
        int256 sum = int256(engine.badDebtWad());
        bytes32[] memory ids = engine.marketIds();
        uint256 n = engine.accountCount();
        for (uint256 k; k < ids.length; ++k) {
            IMarket m = IMarket(engine.marketOf(ids[k]));
            sum += engine.marketPoolWad(ids[k]);
            for (uint256 i = 0; i <= n; ++i) { // 0: the insurance fund's position
                IMarket.PositionView memory p = m.getPosition(i);
                if (p.sizeQty == 0) continue;
                sum += p.sizeQty > 0 ? int256(p.openNotionalWad) : -int256(p.openNotionalWad);
                sum += lens.positionHealth(m, i).pendingFundingWad;
            }
        }
        assertGe(sum, int256(0), "venue lost money it did not record as bad debt");
    }

    function _checkAll() internal view {
        _checkVenueKeepsDust();
        _checkCommitted();
        _checkSolvency();
        _checkOpenInterest(market);
        _checkOpenInterest(gbp);
        _checkBook(market);
        _checkBook(gbp);
    }

    // ─── events ──────────────────────────────────────────────────────────────────────────

    /// Logs of `emitter` with topic0 `sig`, in order, from recorded logs.
    function _logs(Vm.Log[] memory all, address emitter, bytes32 sig) internal pure returns (Vm.Log[] memory out) {
        uint256 n;
        for (uint256 i; i < all.length; ++i) if (all[i].emitter == emitter && all[i].topics[0] == sig) ++n;
        out = new Vm.Log[](n);
        n = 0;
        for (uint256 i; i < all.length; ++i) if (all[i].emitter == emitter && all[i].topics[0] == sig) out[n++] = all[i];
    }

    mapping(address => uint64) internal seqOf;

    /// The `seq` the next event of `emitter` will carry (every venue event starts with `uint64
    /// seq`, per emitter from 1). Consumes the recorded logs: tests that read logs themselves
    /// call this before they start recording their own.
    function _nextSeq(address emitter) internal returns (uint64) {
        _drainLogs();
        return seqOf[emitter] + 1;
    }

    /// Orders as their OrderPlaced and OrderClosed told them (`_orderEnd`: those that closed without resting).
    mapping(uint256 => IMarket.OrderView) internal endedTakers;

    /// The id of the last order placed for `accountId` among the logs recorded since the last
    /// `_drainLogs` (consumes them: call it around a run that is reverted).
    function _lastPlacedIdOf(uint256 accountId) internal returns (uint256 orderId) {
        Vm.Log[] memory all = vm.getRecordedLogs();
        for (uint256 i; i < all.length; ++i) {
            if (all[i].topics.length > 2 && all[i].topics[0] == IMarket.OrderPlaced.selector && uint256(all[i].topics[2]) == accountId) {
                orderId = uint256(all[i].topics[1]);
            }
        }
    }

    /// Reads the recorded logs (consumes them): each emitter's last seq, each order placed or closed.
    function _drainLogs() internal {
        Vm.Log[] memory all = vm.getRecordedLogs();
        for (uint256 i; i < all.length; ++i) {
            if (all[i].data.length < 32 || all[i].topics.length == 0) continue;
            // events without a seq: OpenZeppelin's Initialized(uint64), the oracle's UpdaterSet, a single cancel's OrderCancelled
            if (
                all[i].topics[0] == keccak256("Initialized(uint64)") || all[i].topics[0] == IOracle.UpdaterSet.selector
                    || all[i].topics[0] == IMarket.OrderCancelled.selector
            ) {
                continue;
            }
            uint256 s = abi.decode(all[i].data, (uint256));
            if (s > seqOf[all[i].emitter] && s < 1 << 64) seqOf[all[i].emitter] = uint64(s);
            if (all[i].topics[0] == IMarket.OrderPlaced.selector) {
                (, uint8 side, uint8 orderType, bool reduceOnly, uint256 price, uint256 qty,) =
                    abi.decode(all[i].data, (uint64, uint8, uint8, bool, uint256, uint256, uint256));
                IMarket.OrderView storage p = endedTakers[uint256(all[i].topics[1])];
                (p.side, p.orderType, p.reduceOnly, p.priceX18, p.originalQty) =
                    (IMarket.Side(side), IMarket.OrderType(orderType), reduceOnly, price, qty);
            }
            if (all[i].topics[0] == IMarket.OrderClosed.selector) {
                (, uint8 status,, uint256 filled, uint256 cancelled,) =
                    abi.decode(all[i].data, (uint64, uint8, uint8, uint256, uint256, uint256));
                IMarket.OrderView storage v = endedTakers[uint256(all[i].topics[1])];
                v.orderId = uint256(all[i].topics[1]);
                v.accountId = uint256(all[i].topics[2]);
                v.status = IMarket.OrderStatus(status);
                v.originalQty = filled + cancelled;
                v.filledQty = filled;
            }
        }
    }

    /// The filled quantity OrderClosed gave order `orderId` in `all` (0: not closed there).
    function _closedFilled(Vm.Log[] memory all, uint256 orderId) internal pure returns (uint256 filled) {
        for (uint256 i; i < all.length; ++i) {
            if (all[i].topics.length < 2 || all[i].topics[0] != IMarket.OrderClosed.selector || uint256(all[i].topics[1]) != orderId) continue;
            (,,, filled,,) = abi.decode(all[i].data, (uint64, uint8, uint8, uint256, uint256, uint256));
        }
    }

    /// An EUR order as `getOrder` shows it; a taker that closed without resting is not stored
    /// (MarketBase._finishTaker): then its id, account, status and quantities as its OrderClosed
    /// told them (consumes the recorded logs, as `_nextSeq`).
    function _orderEnd(uint256 orderId) internal returns (IMarket.OrderView memory v) {
        v = market.getOrder(orderId);
        if (v.status != IMarket.OrderStatus.NONE) return v;
        _drainLogs();
        return endedTakers[orderId];
    }

    /// The `seq` (first data word) of the last seq-carrying event of `emitter` in `all`.
    function _lastSeq(Vm.Log[] memory all, address emitter) internal pure returns (uint64 s) {
        for (uint256 i; i < all.length; ++i) {
            if (all[i].emitter == emitter && all[i].data.length >= 32) s = abi.decode(all[i].data, (uint64));
        }
    }
}
