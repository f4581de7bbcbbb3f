// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {IEngine} from "./interfaces/IEngine.sol";
import {IOracle} from "./interfaces/IOracle.sol";
import {TickBitmap} from "./libraries/TickBitmap.sol";
import {VenueMath} from "./libraries/VenueMath.sol";

/// @notice One perpetual market (a clone per market). See IMarket and docs/CONTRACTS.md.
contract Market is IMarket, Initializable {
    using TickBitmap for TickBitmap.Bitmap;

    uint256 internal constant WAD = 1e18;
    uint256 internal constant BPS = 1e4;
    uint256 internal constant MAX_TICK = (1 << 24) - 1;

    /// Four slots: ids and flags, quantities, margin, client key.
    struct Order {
        uint64 accountId;
        uint64 next;
        uint64 prev;
        uint32 tick;        // price = tick × tickSize
        Side side;
        OrderStatus status;
        OrderType orderType;
        bool reduceOnly;
        uint128 originalQty;
        uint128 filledQty;
        uint128 marginAllocatedWad;
        uint128 marginRemainingWad;
        bytes32 clientKey;  // 0 when derived (not stored: see _keyOf)
    }

    struct Level {
        uint128 totalQty;
        uint64 head;
        uint64 tail;
        uint32 orderCount;
    }

    struct Position {
        int128 size;
        uint128 openNotional;
        uint128 margin;
        int128 lastFundingIndex;
        uint64 lastSettledAt;
        uint64 openBlock;
    }

    struct FundingState {
        int128 cumulativeIndex;
        int64 rate;
        uint64 lastUpdate;
    }

    struct FundingComponents {
        int64 premiumComponent;
        int64 skewComponent;
        int64 skew;
        int64 premium;
    }

    /// Running totals of one taker order's matching.
    struct Sweep {
        uint256 orderN;
        uint256 accountId;
        bool isBuy;
        bool reduceOnly;
        uint256 bound;       // worst price the taker accepts
        uint256 remaining;
        uint256 filledQty;
        uint256 notional;
        uint256 makerFees;
        uint256 fills;
        bool capped;
        bool liquidation;    // own resting orders are cancelled instead of reverting SelfTrade
    }

    IEngine internal _engine;
    IOracle internal _oracle;
    bytes32 public marketId;
    uint256 public marketIndex;
    MarketParams internal _params;
    bool public isActive;
    uint64 internal seq;
    uint64 internal _orderCount;

    mapping(uint256 => Order) internal orders; // by local n
    mapping(uint256 => mapping(bytes32 => uint256)) internal openByKey; // account → clientKey → n
    mapping(uint256 => Level) internal bidLevels; // by tick
    mapping(uint256 => Level) internal askLevels;
    TickBitmap.Bitmap internal bids;
    TickBitmap.Bitmap internal asks;
    uint128 internal restingBidQty;
    uint128 internal restingAskQty;
    uint128 internal longOI;
    uint128 internal shortOI;
    mapping(uint256 => Position) internal positions;
    FundingState internal fundingState;
    FundingComponents internal components;

    constructor() {
        _disableInitializers();
    }

    function initialize(address engine_, address oracle_, uint256 marketIndex_, MarketParams calldata p) external initializer {
        _engine = IEngine(engine_);
        _oracle = IOracle(oracle_);
        marketId = p.marketId;
        marketIndex = marketIndex_;
        _params = p;
        isActive = true;
        fundingState.lastUpdate = uint64(block.timestamp);
    }

    modifier onlyEngine() {
        if (msg.sender != address(_engine)) revert Unauthorized(msg.sender);
        _;
    }

    // ─── entry points ────────────────────────────────────────────────────────────────────

    function placeOrder(
        uint256 accountId, Side side, OrderType orderType, uint256 collateralWad, uint256 leverage,
        uint256 limitPriceX18, bytes32 clientKey
    ) external onlyEngine returns (uint256, bytes32, uint256, OrderStatus) {
        return _place(accountId, side, orderType, collateralWad, leverage, limitPriceX18, clientKey);
    }

    function closePosition(uint256 accountId, OrderType orderType, uint256 limitPriceX18, bytes32 clientKey)
        external onlyEngine returns (uint256 orderId, bytes32 key, Side closingSide, uint256 quantityQty)
    {
        int256 size = positions[accountId].size;
        if (size == 0) revert NoPosition(accountId, marketId);
        closingSide = size > 0 ? Side.SHORT : Side.LONG;
        (orderId, key, quantityQty,) = _place(accountId, closingSide, orderType, 0, 0, limitPriceX18, clientKey);
    }

    function cancelOrder(uint256 accountId, bytes32 clientKey)
        external onlyEngine returns (uint256 orderId, uint256 marginReturnedWad)
    {
        uint256 n = openByKey[accountId][clientKey];
        if (n == 0) revert OrderNotFound(accountId, clientKey);
        // no funding update here: the rate is recomputed on trades and pokes (keeps cancel cheap)
        Order storage o = orders[n];
        _unlinkFromLevel(n, o);
        marginReturnedWad = _closeOrder(n, o, OrderStatus.CANCELLED, CloseReason.USER_CANCEL);
        orderId = _orderId(n);
    }

    function liquidate(uint256 accountId, address liquidator) external onlyEngine returns (uint256 closedQty) {
        uint256 index = _oracle.getFreshPrice(marketId);
        _accrue(index);
        Position storage pos = positions[accountId];
        int256 size = pos.size;
        if (size == 0) revert NoPosition(accountId, marketId);
        uint256 mark = _mark(index);
        VenueMath.Health memory h = VenueMath.health(
            size, pos.openNotional, pos.margin, _pending(pos, fundingState.cumulativeIndex), mark, _params.maintenanceMarginBps
        );
        if (!h.isLiquidatable) revert NotLiquidatable(accountId, marketId);

        Side side = size > 0 ? Side.SHORT : Side.LONG;
        uint256 absSize = VenueMath.abs(size);
        uint256 n = _newOrder(accountId, side, OrderType.MARKET, true, mark, absSize, 0, bytes32(0));
        Sweep memory s = _sweep(n, accountId, side, true, _bandPrice(side == Side.LONG, mark), absSize, true);
        if (s.filledQty == 0) revert NoLiquidity(marketId);
        uint256 feeWad = Math.mulDiv(s.notional, _params.liquidationFeeBps, BPS, Math.Rounding.Ceil);
        (uint256 takenFee, uint256 shortfall) = _settle(accountId, side == Side.LONG, s.filledQty, s.notional, 0, feeWad, true, PositionReason.LIQUIDATION);
        _finishTaker(n, s, OrderType.MARKET);
        uint256 liquidatorFee = takenFee / 2;
        if (takenFee != 0) {
            _engine.payLiquidator(liquidator, liquidatorFee);
            _engine.collect(0, takenFee - liquidatorFee);
        }
        if (s.makerFees != 0) _engine.collect(s.makerFees, 0);
        _afterTrade(index);
        closedQty = s.filledQty;
        emit Liquidated(
            ++seq, accountId, liquidator, closedQty, s.notional, liquidatorFee, takenFee - liquidatorFee, shortfall,
            positions[accountId].size
        );
    }

    function setActive(bool active) external onlyEngine {
        isActive = active;
        emit ActiveSet(++seq, active);
    }

    function pokeFunding() external {
        (uint256 index,) = _oracle.getPrice(marketId);
        _accrue(index);
        _updateRate(index);
    }

    // ─── placing and matching ────────────────────────────────────────────────────────────

    function _place(
        uint256 accountId, Side side, OrderType orderType, uint256 collateralWad, uint256 leverage,
        uint256 limitPriceX18, bytes32 clientKey
    ) internal returns (uint256 orderId, bytes32 key, uint256 qty, OrderStatus status) {
        if (!isActive) revert MarketNotActive(marketId);
        uint256 index = _oracle.getFreshPrice(marketId);
        _accrue(index);
        bool isBuy = side == Side.LONG;
        bool reduceOnly = collateralWad == 0;
        if (!reduceOnly && (leverage == 0 || leverage > _params.maxLeverage)) {
            revert ExceedsMaxLeverage(leverage, _params.maxLeverage);
        }
        uint256 mark = _mark(index);
        uint256 band = _bandPrice(isBuy, mark);
        uint256 price;
        if (orderType == OrderType.LIMIT) {
            price = limitPriceX18;
            // both edges: mark × (1 ± band)
            if (
                price == 0 || price % _params.tickSizeX18 != 0 || price / _params.tickSizeX18 > MAX_TICK
                    || price > _bandPrice(true, mark) || price < _bandPrice(false, mark)
            ) revert InvalidPrice(price);
        } else {
            price = isBuy ? _best(false) : _best(true);
            if (price == 0) revert NoLiquidity(marketId);
        }
        if (reduceOnly) {
            int256 size = positions[accountId].size;
            if (size == 0 || (size > 0) == isBuy) revert NoPosition(accountId, marketId);
            qty = VenueMath.abs(size);
        } else {
            qty = Math.mulDiv(collateralWad * leverage, WAD, price);
            qty -= qty % _params.lotSizeQty;
            if (qty < _params.minOrderQty || qty == 0) revert OrderTooSmall(qty, _params.minOrderQty);
            _engine.applyMargin(accountId, -int256(collateralWad), int256(collateralWad), IEngine.MarginReason.ORDER_COMMIT);
        }
        uint256 n = _newOrder(accountId, side, orderType, reduceOnly, price, qty, collateralWad, clientKey);
        orderId = _orderId(n);
        key = _keyOf(n, orders[n]);
        Sweep memory s = _sweep(n, accountId, side, reduceOnly, orderType == OrderType.LIMIT ? price : band, qty, false);
        if (s.filledQty != 0) {
            Order storage o = orders[n];
            uint256 portion = s.filledQty == qty ? o.marginRemainingWad : o.marginRemainingWad * s.filledQty / qty;
            o.marginRemainingWad -= uint128(portion);
            uint256 fee = Math.mulDiv(s.notional, _params.takerFeeBps, BPS, Math.Rounding.Ceil);
            _settle(accountId, isBuy, s.filledQty, s.notional, portion, fee, false, PositionReason.TRADE);
            if (fee + s.makerFees != 0) _engine.collect(fee + s.makerFees, 0);
        }
        status = _finishTaker(n, s, orderType);
        _afterTrade(index);
    }

    function _newOrder(
        uint256 accountId, Side side, OrderType orderType, bool reduceOnly, uint256 price, uint256 qty,
        uint256 marginWad, bytes32 clientKey
    ) internal returns (uint256 n) {
        n = ++_orderCount;
        bool derived = clientKey == bytes32(0);
        if (derived) clientKey = keccak256(abi.encode(accountId, _orderId(n)));
        if (openByKey[accountId][clientKey] != 0) revert ClientKeyInUse(accountId, clientKey);
        openByKey[accountId][clientKey] = n;
        Order storage o = orders[n];
        o.accountId = uint64(accountId);
        o.side = side;
        o.status = OrderStatus.ACTIVE;
        o.orderType = orderType;
        o.reduceOnly = reduceOnly;
        o.originalQty = uint128(qty);
        o.marginAllocatedWad = uint128(marginWad);
        o.marginRemainingWad = uint128(marginWad);
        uint256 tick = price / _params.tickSizeX18; // liquidation orders: the mark, rounded down to the tick
        o.tick = uint32(tick);
        if (!derived) o.clientKey = clientKey;
        emit OrderPlaced(++seq, _orderId(n), accountId, clientKey, side, orderType, reduceOnly, tick * _params.tickSizeX18, qty, marginWad);
    }

    /// Matches a taker against the opposite book up to `bound`, the fill cap, and (reduce-only)
    /// the taker's position. Makers are settled per fill; the taker is settled by the caller.
    function _sweep(uint256 n, uint256 accountId, Side side, bool reduceOnly, uint256 bound, uint256 qty, bool liquidation)
        internal returns (Sweep memory s)
    {
        s.liquidation = liquidation;
        s.orderN = n;
        s.accountId = accountId;
        s.isBuy = side == Side.LONG;
        s.reduceOnly = reduceOnly;
        s.bound = bound;
        s.remaining = qty;
        TickBitmap.Bitmap storage book = s.isBuy ? asks : bids;
        uint256 cap = _params.maxFillsPerTx;
        while (s.remaining != 0) {
            if (s.fills >= cap) {
                s.capped = true;
                break;
            }
            uint256 tick = s.isBuy ? book.lowest() : book.highest();
            if (tick == TickBitmap.NONE) break;
            uint256 price = tick * _params.tickSizeX18;
            if (s.isBuy ? price > bound : price < bound) break;
            if (!_sweepLevel(s, tick, price)) break;
        }
    }

    /// Fills makers at one level FIFO; false when the taker must stop (reduce-only exhausted).
    function _sweepLevel(Sweep memory s, uint256 tick, uint256 price) internal returns (bool more) {
        mapping(uint256 => Level) storage levels = s.isBuy ? askLevels : bidLevels;
        Level storage level = levels[tick];
        uint256 m = level.head;
        uint256 cap = _params.maxFillsPerTx;
        more = true;
        while (m != 0 && s.remaining != 0 && s.fills < cap) {
            Order storage mo = orders[m];
            uint256 next = mo.next;
            uint256 makerRemaining = mo.originalQty - mo.filledQty;
            if (mo.accountId == s.accountId) {
                if (!s.liquidation) revert SelfTrade(s.accountId, _orderId(m));
                _dropMaker(s, level, mo, m, makerRemaining, CloseReason.LIQUIDATION);
                m = next;
                continue;
            }
            uint256 q = s.remaining;
            if (s.reduceOnly) {
                uint256 room = _reduceRoom(s.accountId, s.isBuy) - s.filledQty;
                if (room == 0) {
                    s.remaining = 0;
                    more = false;
                    break;
                }
                if (q > room) q = room;
            }
            if (q > makerRemaining) q = makerRemaining;
            if (mo.reduceOnly) {
                uint256 room = _reduceRoom(mo.accountId, !s.isBuy);
                if (room == 0) {
                    _dropMaker(s, level, mo, m, makerRemaining, CloseReason.REDUCE_ONLY_EXPIRED);
                    m = next;
                    continue;
                }
                if (q > room) q = room;
            }
            _fillMaker(s, level, m, mo, q, price);
            m = next;
        }
        _emitLevel(s.isBuy ? Side.SHORT : Side.LONG, tick, level);
        if (level.orderCount == 0) {
            (s.isBuy ? asks : bids).clear(tick);
            delete levels[tick];
        }
    }

    /// Cancels a resting maker met during a sweep (counts toward the fill cap).
    function _dropMaker(Sweep memory s, Level storage level, Order storage mo, uint256 m, uint256 makerRemaining, CloseReason reason)
        internal
    {
        level.totalQty -= uint128(makerRemaining);
        if (s.isBuy) restingAskQty -= uint128(makerRemaining);
        else restingBidQty -= uint128(makerRemaining);
        _removeAt(level, mo);
        _closeOrder(m, mo, OrderStatus.CANCELLED, reason);
        ++s.fills;
    }

    function _fillMaker(Sweep memory s, Level storage level, uint256 m, Order storage mo, uint256 q, uint256 price) internal {
        uint256 makerRemaining = mo.originalQty - mo.filledQty;
        uint256 portion = q == makerRemaining ? mo.marginRemainingWad : mo.marginRemainingWad * q / makerRemaining;
        mo.filledQty += uint128(q);
        mo.marginRemainingWad -= uint128(portion);
        level.totalQty -= uint128(q);
        if (s.isBuy) restingAskQty -= uint128(q);
        else restingBidQty -= uint128(q);
        uint256 notional = q * price / WAD;
        uint256 makerFee = Math.mulDiv(notional, _params.makerFeeBps, BPS, Math.Rounding.Ceil);
        (uint256 takenFee,) = _settle(mo.accountId, !s.isBuy, q, notional, portion, makerFee, false, PositionReason.TRADE);
        s.makerFees += takenFee;
        s.remaining -= q;
        s.filledQty += q;
        s.notional += notional;
        ++s.fills;
        Order storage t = orders[s.orderN];
        emit OrderFilled(
            ++seq, _orderId(m), _orderId(s.orderN), mo.accountId, s.accountId, s.isBuy ? Side.LONG : Side.SHORT, price, q,
            mo.filledQty, makerRemaining - q, s.filledQty, t.originalQty - s.filledQty, takenFee, 0
        );
        if (q == makerRemaining) {
            _removeAt(level, mo);
            _closeOrder(m, mo, OrderStatus.FILLED, CloseReason.FILLED);
        }
    }

    /// After matching: LIMIT rests its remainder (unless the fill cap stopped it while still
    /// crossing); MARKET and reduce-only leftovers beyond the position are cancelled.
    function _finishTaker(uint256 n, Sweep memory s, OrderType orderType) internal returns (OrderStatus) {
        Order storage o = orders[n];
        o.filledQty = uint128(s.filledQty);
        if (s.remaining == 0) {
            if (s.filledQty == o.originalQty) {
                _closeOrder(n, o, OrderStatus.FILLED, CloseReason.FILLED);
                return OrderStatus.FILLED;
            }
            _closeOrder(n, o, OrderStatus.CANCELLED, CloseReason.REDUCE_ONLY_EXPIRED);
            return OrderStatus.CANCELLED;
        }
        if (orderType == OrderType.MARKET) {
            _closeOrder(n, o, OrderStatus.CANCELLED, s.capped ? CloseReason.FILL_CAP : CloseReason.UNFILLED_MARKET);
            return OrderStatus.CANCELLED;
        }
        uint256 price = uint256(o.tick) * _params.tickSizeX18;
        uint256 opposite = s.isBuy ? _best(false) : _best(true);
        if (opposite != 0 && (s.isBuy ? opposite <= price : opposite >= price)) {
            _closeOrder(n, o, OrderStatus.CANCELLED, CloseReason.FILL_CAP);
            return OrderStatus.CANCELLED;
        }
        _rest(n, o, o.tick, s.remaining);
        return OrderStatus.ACTIVE;
    }

    function _rest(uint256 n, Order storage o, uint256 tick, uint256 qty) internal {
        bool isBid = o.side == Side.LONG;
        Level storage level = isBid ? bidLevels[tick] : askLevels[tick];
        uint256 tail = level.tail;
        if (tail == 0) {
            level.head = uint64(n);
            (isBid ? bids : asks).set(tick);
        } else {
            orders[tail].next = uint64(n);
            o.prev = uint64(tail);
        }
        level.tail = uint64(n);
        level.totalQty += uint128(qty);
        level.orderCount += 1;
        if (isBid) restingBidQty += uint128(qty);
        else restingAskQty += uint128(qty);
        _emitLevel(o.side, tick, level);
    }

    /// Takes a resting order out of its level (cancel).
    function _unlinkFromLevel(uint256 n, Order storage o) internal {
        uint256 tick = o.tick;
        bool isBid = o.side == Side.LONG;
        Level storage level = isBid ? bidLevels[tick] : askLevels[tick];
        uint256 remaining = o.originalQty - o.filledQty;
        level.totalQty -= uint128(remaining);
        if (isBid) restingBidQty -= uint128(remaining);
        else restingAskQty -= uint128(remaining);
        _removeAt(level, o);
        _emitLevel(o.side, tick, level);
        if (level.orderCount == 0) {
            (isBid ? bids : asks).clear(tick);
            if (isBid) delete bidLevels[tick];
            else delete askLevels[tick];
        }
    }

    /// Unlinks an order from its level's FIFO list (totals are the caller's).
    function _removeAt(Level storage level, Order storage o) internal {
        uint64 prev = o.prev;
        uint64 next = o.next;
        if (prev == 0) level.head = next;
        else orders[prev].next = next;
        if (next == 0) level.tail = prev;
        else orders[next].prev = prev;
        level.orderCount -= 1;
    }

    /// Marks an order closed, frees its client key, returns its remaining margin.
    function _closeOrder(uint256 n, Order storage o, OrderStatus status, CloseReason reason)
        internal returns (uint256 marginReturned)
    {
        o.status = status;
        o.next = 0;
        o.prev = 0;
        bytes32 key = _keyOf(n, o);
        delete openByKey[o.accountId][key];
        marginReturned = o.marginRemainingWad;
        if (marginReturned != 0) {
            o.marginRemainingWad = 0;
            _engine.applyMargin(o.accountId, int256(marginReturned), -int256(marginReturned), IEngine.MarginReason.ORDER_RELEASE);
        }
        uint256 cancelled = o.originalQty - o.filledQty;
        emit OrderClosed(++seq, _orderId(n), o.accountId, key, status, reason, o.filledQty, cancelled, marginReturned);
    }

    // ─── positions ───────────────────────────────────────────────────────────────────────

    /// Applies a fill of `q` base units worth `notional` WAD to an account's position: funding
    /// settles first, then the reduce part realizes PnL, then the increase part takes its share of
    /// `orderMargin`; one Engine call books the account's deltas. `capFee` (liquidation) limits the
    /// fee to the equity released. Returns the fee taken and any bad debt.
    function _settle(
        uint256 accountId, bool isBuy, uint256 q, uint256 notional, uint256 orderMargin, uint256 fee, bool capFee,
        PositionReason reason
    ) internal returns (uint256 feeTaken, uint256 shortfall) {
        Position storage pos = positions[accountId];
        int256 oldSize = pos.size;
        uint256 oldMargin = pos.margin;
        int256 funding = _pending(pos, fundingState.cumulativeIndex);
        int256 margin = int256(oldMargin) - funding;
        if (margin < 0) {
            shortfall = uint256(-margin);
            margin = 0;
        }
        (int256 size, uint256 on, int256 pnl, uint256 released, uint256 mInc) =
            _trade(oldSize, pos.openNotional, uint256(margin), isBuy, q, notional, orderMargin);
        margin = margin - int256(released) + int256(mInc);
        int256 toAvailable = int256(released) + pnl + int256(orderMargin - mInc);
        feeTaken = fee;
        if (capFee && feeTaken > (toAvailable > 0 ? uint256(toAvailable) : 0)) {
            feeTaken = toAvailable > 0 ? uint256(toAvailable) : 0;
        }
        toAvailable -= int256(feeTaken);
        if (toAvailable < 0) {
            // isolated margin: a loss beyond what is released comes out of the position's margin
            uint256 loss = uint256(-toAvailable);
            uint256 take = loss < uint256(margin) ? loss : uint256(margin);
            margin -= int256(take);
            shortfall += loss - take;
            toAvailable = 0;
        }
        if (size == 0 && margin != 0) {
            toAvailable += margin;
            margin = 0;
        }
        _updateOI(oldSize, size);
        if (size == 0) pos.openBlock = 0;
        else if (oldSize == 0 || (oldSize > 0) != (size > 0)) pos.openBlock = uint64(block.number);
        pos.size = int128(size);
        pos.openNotional = uint128(on);
        pos.margin = uint128(uint256(margin));
        pos.lastFundingIndex = fundingState.cumulativeIndex;
        pos.lastSettledAt = uint64(block.timestamp);
        _engine.applyMargin(
            accountId, toAvailable, margin - int256(oldMargin) - int256(orderMargin),
            reason == PositionReason.LIQUIDATION ? IEngine.MarginReason.LIQUIDATION : IEngine.MarginReason.TRADE_SETTLEMENT
        );
        if (shortfall != 0) _engine.coverBadDebt(shortfall);
        emit PositionUpdated(
            ++seq, accountId, reason, size, on, uint256(margin), pnl, funding, feeTaken, fundingState.cumulativeIndex
        );
    }

    /// The position arithmetic of one fill (docs/CONTRACTS.md "Positions"): new size and open
    /// notional, realized PnL and released margin of the reduce part, margin added by the increase part.
    function _trade(int256 size, uint256 on, uint256 margin, bool isBuy, uint256 q, uint256 notional, uint256 orderMargin)
        internal pure returns (int256 newSize, uint256 newOn, int256 pnl, uint256 released, uint256 mInc)
    {
        uint256 absSize = VenueMath.abs(size);
        uint256 r = (size != 0 && (size > 0) != isBuy) ? (q < absSize ? q : absSize) : 0;
        uint256 reducePart;
        if (r != 0) {
            uint256 basis;
            if (size > 0) {
                reducePart = r == q ? notional : notional * r / q;
                basis = Math.mulDiv(on, r, absSize, Math.Rounding.Ceil);
                pnl = int256(reducePart) - int256(basis);
            } else {
                reducePart = r == q ? notional : Math.mulDiv(notional, r, q, Math.Rounding.Ceil);
                basis = on * r / absSize;
                pnl = int256(basis) - int256(reducePart);
            }
            released = margin * r / absSize;
            on -= basis;
            size = size > 0 ? size - int256(r) : size + int256(r);
        }
        uint256 i = q - r;
        if (i != 0) {
            mInc = i == q ? orderMargin : orderMargin * i / q;
            on += notional - reducePart;
            size = isBuy ? size + int256(i) : size - int256(i);
        }
        if (size == 0) on = 0;
        return (size, on, pnl, released, mInc);
    }

    function _updateOI(int256 oldSize, int256 newSize) internal {
        if (oldSize == newSize) return;
        if (oldSize > 0) longOI -= uint128(uint256(oldSize));
        else if (oldSize < 0) shortOI -= uint128(uint256(-oldSize));
        if (newSize > 0) longOI += uint128(uint256(newSize));
        else if (newSize < 0) shortOI += uint128(uint256(-newSize));
    }

    /// Largest quantity a fill on side `isBuy` can reduce the account's position by.
    function _reduceRoom(uint256 accountId, bool isBuy) internal view returns (uint256) {
        int256 size = positions[accountId].size;
        if (size == 0 || (size > 0) == isBuy) return 0;
        return VenueMath.abs(size);
    }

    // ─── funding and prices ──────────────────────────────────────────────────────────────

    function _pending(Position storage pos, int256 cumulativeIndex) internal view returns (int256) {
        if (pos.size == 0) return 0;
        return VenueMath.pendingFunding(pos.size, cumulativeIndex - pos.lastFundingIndex);
    }

    function _accrue(uint256 index) internal {
        FundingState memory f = fundingState;
        if (block.timestamp == f.lastUpdate) return;
        fundingState = FundingState(
            int128(VenueMath.accrue(f.cumulativeIndex, f.rate, index, block.timestamp - f.lastUpdate)),
            f.rate,
            uint64(block.timestamp)
        );
    }

    function _cumulativeIndexNow(uint256 index) internal view returns (int256) {
        FundingState memory f = fundingState;
        return VenueMath.accrue(f.cumulativeIndex, f.rate, index, block.timestamp - f.lastUpdate);
    }

    function _updateRate(uint256 index) internal {
        uint256 mark = _mark(index);
        VenueMath.Rate memory r = VenueMath.fundingRate(
            index, mark, uint256(longOI) + restingBidQty, uint256(shortOI) + restingAskQty,
            _params.skewScaleX18PerHour, _params.maxFundingRateX18PerHour
        );
        fundingState.rate = int64(r.rate);
        components = FundingComponents(int64(r.premiumComponent), int64(r.skewComponent), int64(r.skew), int64(r.premium));
        emit FundingUpdated(
            ++seq, r.rate, r.premiumComponent, r.skewComponent, r.skew, r.premium, fundingState.cumulativeIndex, index,
            mark, block.timestamp
        );
    }

    function _afterTrade(uint256 index) internal {
        emit OpenInterestUpdated(++seq, longOI, shortOI);
        _updateRate(index);
    }

    function _mark(uint256 index) internal view returns (uint256) {
        return VenueMath.markPrice(index, _best(true), _best(false), _params.markClampBps);
    }

    /// Best bid (`bid`) or best ask price; 0 when that side is empty.
    function _best(bool bid) internal view returns (uint256) {
        uint256 tick = bid ? bids.highest() : asks.lowest();
        return tick == TickBitmap.NONE ? 0 : tick * _params.tickSizeX18;
    }

    /// The worst price a taker on this side may fill at: mark ± band.
    function _bandPrice(bool isBuy, uint256 mark) internal view returns (uint256) {
        uint256 band = _params.priceBandBps;
        return isBuy ? mark * (BPS + band) / BPS : mark * (BPS - band) / BPS;
    }

    /// A client key that was not supplied is derived, not stored (saves a slot per order).
    function _keyOf(uint256 n, Order storage o) internal view returns (bytes32 key) {
        key = o.clientKey;
        if (key == bytes32(0)) key = keccak256(abi.encode(uint256(o.accountId), _orderId(n)));
    }

    function _orderId(uint256 n) internal view returns (uint256) {
        return (marketIndex << 64) | n;
    }

    function _emitLevel(Side side, uint256 tick, Level storage level) internal {
        emit LevelUpdated(++seq, side, tick * _params.tickSizeX18, level.totalQty, level.orderCount);
    }

    // ─── views ───────────────────────────────────────────────────────────────────────────

    function engine() external view returns (address) {
        return address(_engine);
    }

    function oracle() external view returns (address) {
        return address(_oracle);
    }

    function orderCount() external view returns (uint256) {
        return _orderCount;
    }

    function params() external view returns (MarketParams memory) {
        return _params;
    }

    function getOrder(uint256 orderId) external view returns (OrderView memory v) {
        if (orderId >> 64 != marketIndex) return v;
        uint256 n = orderId & type(uint64).max;
        Order storage o = orders[n];
        if (o.status == OrderStatus.NONE) return v;
        v.orderId = orderId;
        v.accountId = o.accountId;
        v.clientKey = _keyOf(n, o);
        v.side = o.side;
        v.orderType = o.orderType;
        v.status = o.status;
        v.reduceOnly = o.reduceOnly;
        v.priceX18 = uint256(o.tick) * _params.tickSizeX18;
        v.originalQty = o.originalQty;
        v.filledQty = o.filledQty;
        v.remainingQty = o.status == OrderStatus.ACTIVE ? o.originalQty - o.filledQty : 0;
        v.marginAllocatedWad = o.marginAllocatedWad;
        v.marginRemainingWad = o.marginRemainingWad;
    }

    function orderIdOf(uint256 accountId, bytes32 clientKey) external view returns (uint256) {
        uint256 n = openByKey[accountId][clientKey];
        return n == 0 ? 0 : _orderId(n);
    }

    function getLevels(Side side, uint256 depth)
        external view returns (uint256[] memory pricesX18, uint256[] memory totalQty, uint256[] memory orderCounts)
    {
        bool isBid = side == Side.LONG;
        TickBitmap.Bitmap storage book = isBid ? bids : asks;
        pricesX18 = new uint256[](depth);
        totalQty = new uint256[](depth);
        orderCounts = new uint256[](depth);
        uint256 tick = isBid ? book.highest() : book.lowest();
        uint256 k;
        while (k < depth && tick != TickBitmap.NONE) {
            Level storage level = isBid ? bidLevels[tick] : askLevels[tick];
            pricesX18[k] = tick * _params.tickSizeX18;
            totalQty[k] = level.totalQty;
            orderCounts[k] = level.orderCount;
            ++k;
            tick = isBid ? book.nextBelow(tick) : book.nextAbove(tick);
        }
        assembly {
            mstore(pricesX18, k)
            mstore(totalQty, k)
            mstore(orderCounts, k)
        }
    }

    function getPosition(uint256 accountId) external view returns (PositionView memory v) {
        Position storage p = positions[accountId];
        v.sizeQty = p.size;
        v.openNotionalWad = p.openNotional;
        v.entryPriceX18 = p.size == 0 ? 0 : uint256(p.openNotional) * WAD / VenueMath.abs(p.size);
        v.marginWad = p.margin;
        v.lastFundingIndexX18 = p.lastFundingIndex;
        v.lastSettledAt = p.lastSettledAt;
        v.openBlock = p.openBlock;
    }

    function openInterest() external view returns (uint256 longQty, uint256 shortQty) {
        return (longOI, shortOI);
    }

    function restingQty() external view returns (uint256 bidQty, uint256 askQty) {
        return (restingBidQty, restingAskQty);
    }

    function markPrice() external view returns (uint256) {
        (uint256 index,) = _oracle.getPrice(marketId);
        return _mark(index);
    }

    function funding() external view returns (FundingView memory v) {
        FundingState memory f = fundingState;
        FundingComponents memory c = components;
        (uint256 index,) = _oracle.getPrice(marketId);
        v.rateX18PerHour = f.rate;
        v.premiumComponentX18 = c.premiumComponent;
        v.skewComponentX18 = c.skewComponent;
        v.skewX18 = c.skew;
        v.premiumX18 = c.premium;
        v.cumulativeIndexX18 = f.cumulativeIndex;
        v.cumulativeIndexNowX18 = _cumulativeIndexNow(index);
        v.lastUpdate = f.lastUpdate;
    }
}
