// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {IEngine} from "./interfaces/IEngine.sol";
import {IOracle} from "./interfaces/IOracle.sol";
import {VenueMath} from "./libraries/VenueMath.sol";
import {MarketBase} from "./MarketBase.sol";
import {MarketArgs} from "./libraries/MarketArgs.sol";
import {MarketExtension} from "./MarketExtension.sol";

/// @notice One perpetual market (a clone per market). See IMarket and docs/CONTRACTS.md.
/// Trading entry points live here; liquidation and the bulky views live in `MarketExtension`,
/// which this implementation deploys once and reaches by delegatecall (same storage, and the
/// clone's address emits its events); what is seldom called (initialize, the calendar, the
/// close uplift and session, the funding view) goes on from the extension to `MarketBackstop`
/// the same way, so all three contracts keep room under EIP-170.
contract Market is IMarket, MarketBase, Initializable {
    /// The extension (an immutable of the implementation: every clone reads it from the code).
    address public immutable extension;

    /// `backstop_`: the deployed MarketBackstop the extension delegates to.
    constructor(address backstop_) {
        extension = address(new MarketExtension(backstop_));
        _disableInitializers();
    }

    /// Served by the backstop (through the extension): storing the parameters is bulky code.
    function initialize(MarketParams calldata) external {
        _delegate();
    }

    modifier onlyEngine() {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        _;
    }

    // ─── entry points ────────────────────────────────────────────────────────────────────

    function placeOrder(
        uint256 accountId, Side side, OrderType orderType, uint256 collateralWad, uint256 leverage,
        uint256 limitPriceX18, bytes32 clientKey, uint256 operatorBandBps
    ) external onlyEngine returns (uint256, bytes32, uint256, OrderStatus, uint256) {
        return _place(accountId, side, orderType, collateralWad, leverage, limitPriceX18, clientKey, operatorBandBps);
    }

    /// The engine's, or the market's own for the fund (MarketBackstop.reduceFundPosition).
    function closePosition(uint256 accountId, OrderType orderType, uint256 limitPriceX18, bytes32 clientKey, uint256 operatorBandBps)
        external returns (uint256 orderId, bytes32 key, Side closingSide, uint256 quantityQty, uint256 chargeWad)
    {
        if (msg.sender != address(_engine()) && msg.sender != address(this)) revert Unauthorized(msg.sender);
        int256 size = positions[accountId].size;
        if (size == 0) revert NoPosition(accountId, _marketId());
        closingSide = size > 0 ? Side.SHORT : Side.LONG;
        (orderId, key, quantityQty,, chargeWad) =
            _place(accountId, closingSide, orderType, 0, 0, limitPriceX18, clientKey, operatorBandBps);
    }

    /// Works while paused, closed and on a stale price. The skew counts resting size that carries
    /// itself, which a place-then-cancel must not leave behind: cancelling such size marks the rate stale
    /// from this second (no oracle read, no recompute); the next accrual applies it.
    function cancelOrder(uint256 accountId, bytes32 clientKey)
        external onlyEngine returns (uint256, uint256, uint256)
    {
        uint256 n = openByKey[accountId][clientKey];
        if (!_isOpen(accountId, n)) revert OrderNotFound(accountId, clientKey);
        return _cancel(n);
    }

    /// The same by order id (an id of another market, or of an order not open, is not found).
    function cancelOrderById(uint256 accountId, uint256 orderId)
        external onlyEngine returns (uint256, uint256, uint256)
    {
        uint256 n = orderId >> 64 == _marketIndex() ? uint64(orderId) : 0;
        if (!_isOpen(accountId, n)) revert OrderNotFound(accountId, bytes32(orderId));
        return _cancel(n);
    }

    function _isOpen(uint256 accountId, uint256 n) internal view returns (bool) {
        Order storage o = orders[n];
        return n != 0 && o.status == OrderStatus.ACTIVE && o.accountId == accountId;
    }

    function _cancel(uint256 n) internal returns (uint256 orderId, uint256 marginReturnedWad, uint256 releaseWad) {
        Order storage o = orders[n];
        // an operator's order gives back the taker fee its unfilled quantity was charged
        if (o.operatorBandBps != 0) {
            releaseWad = _operatorCharge(false, 0, uint256(o.tick) * MarketArgs.get(MarketArgs.TICK_SIZE), o.originalQty - o.filledQty, false);
        }
        bool counted = _unlinkFromLevel(o);
        marginReturnedWad = _closeOrder(n, o, OrderStatus.CANCELLED, CloseReason.USER_CANCEL, BOND_REFUND);
        orderId = _orderId(n);
        if (counted) {
            uint64 since = _rateStaleSince;
            if (since == 0) _rateStaleSince = since = uint64(block.timestamp);
            (uint256 l, uint256 s) = _marginedQty();
            emit FundingRateStale(++seq, since, l, s);
        }
    }

    function setActive(bool active) external onlyEngine {
        _isActive = active;
        emit ActiveSet(++seq, active);
    }

    function liquidate(uint256, address, uint256[] calldata) external returns (uint256) {
        _delegate();
    }

    /// Isolated margin, served by the extension.
    function adjustMargin(uint256, int256) external returns (uint256, uint256) {
        _delegate();
    }

    /// The calendar and the close uplift are served by the backstop (through the extension).
    function scheduleCalendar(Calendar calldata, uint256) external {
        _delegate();
    }

    function setCloseUplift(uint256) external {
        _delegate();
    }

    /// Anyone: accrue funding to now and recompute the rate (the extension's `_poke`).
    function pokeFunding() external {
        _delegate();
    }

    /// Anyone: the fund's reduction (served by the backstop, through the extension).
    function reduceFundPosition() external returns (uint256) {
        _delegate();
    }

    // ─── placing ─────────────────────────────────────────────────────────────────────────

    function _place(
        uint256 accountId, Side side, OrderType orderType, uint256 collateralWad, uint256 leverage,
        uint256 limitPriceX18, bytes32 clientKey, uint256 operatorBandBps
    ) internal returns (uint256 orderId, bytes32 key, uint256 qty, OrderStatus status, uint256 charge) {
        bool reduceOnly = collateralWad == 0;
        // reduce-only closes keep working while the market is paused and before a close
        Session session_ = _sessionNow();
        if (session_ == Session.CLOSED) revert MarketClosed(_marketId());
        if (!reduceOnly) {
            if (!_isActive) revert MarketNotActive(_marketId());
            if (session_ != Session.OPEN) revert MarketReduceOnly(_marketId());
        }
        uint256 index = _accrueFresh();
        bool isBuy = side == Side.LONG;
        if (!reduceOnly && (leverage == 0 || leverage > MarketArgs.get(MarketArgs.MAX_LEVERAGE))) {
            revert ExceedsMaxLeverage(leverage, MarketArgs.get(MarketArgs.MAX_LEVERAGE));
        }
        uint256 mark = _mark(index);
        uint256 price;
        if (orderType == OrderType.LIMIT) {
            price = limitPriceX18;
            // both edges: mark × (1 ± band)
            if (
                price == 0 || price % MarketArgs.get(MarketArgs.TICK_SIZE) != 0 || price / MarketArgs.get(MarketArgs.TICK_SIZE) > MAX_TICK
                    || price > _bandPrice(true, mark) || price < _bandPrice(false, mark)
            ) revert InvalidPrice(price);
            if (positions[accountId].openOrders >= MAX_OPEN_ORDERS) revert TooManyOrders(accountId, MAX_OPEN_ORDERS);
        } else {
            price = isBuy ? _best(false) : _best(true);
            if (price == 0) revert NoLiquidity(_marketId());
        }
        // an operator (the relayer) may not price an account's order far from the mark: its owner's
        // band for it, at most the market's operator band
        uint256 bandBps = MarketArgs.get(MarketArgs.PRICE_BAND_BPS);
        if (operatorBandBps != 0) {
            bandBps = MarketArgs.get(MarketArgs.OPERATOR_BAND_BPS);
            if (operatorBandBps < bandBps) bandBps = operatorBandBps;
            _checkOperatorPrice(price, mark, bandBps);
        }
        qty = _sizeAndCommit(accountId, isBuy, orderType, collateralWad, leverage, price);
        // the order's id is the next: its key (supplied, or derived from that id) first
        key = _claimKey(accountId, _orderCount + 1, clientKey);
        uint256 n = _newOrder(accountId, side, orderType, reduceOnly, price, qty, collateralWad, key);
        orderId = _orderId(n);
        Sweep memory s;
        // fills of an operator's order stay within its band once it rests (_sweepLevel)
        if (operatorBandBps != 0) s.band = bandBps;
        s.orderType = orderType;
        s.qty = qty;
        s.orderN = n;
        s.accountId = accountId;
        s.isBuy = isBuy;
        s.reduceOnly = reduceOnly;
        s.bound = orderType == OrderType.LIMIT ? price : _bandPrice(isBuy, mark, bandBps);
        s.mark = mark;
        s.margin = collateralWad;
        s.marginLeft = collateralWad;
        _sweep(s, qty);
        if (s.filledQty != 0) {
            uint256 portion = _portion(collateralWad / MICRO, s.filledQty, qty);
            s.marginLeft -= portion;
            Settlement memory st = _computeSettle(accountId, isBuy, s.filledQty, s.notional, portion, s.takerFees, false);
            if (!_meetsInitialMargin(st, mark)) {
                _checkPositionCap(accountId, 0, st.size > 0, VenueMath.abs(st.size));
                revert BelowInitialMargin(accountId, _marketId());
            }
            _writeSettle(accountId, st, portion, PositionReason.TRADE);
            if (s.takerFees + s.makerFees != 0) _engine().collect(s.takerFees + s.makerFees, 0);
        }
        status = _finishTaker(n, s);
        // charged at placement (a MARKET order: what filled, at the band edge): maker fills cost nothing more
        if (operatorBandBps != 0) {
            charge = _operatorCharge(isBuy, mark, s.bound, orderType == OrderType.LIMIT ? qty : s.filledQty, true);
        }
        // long and short open interest are equal; only a fill where both sides open grows them
        if (longOI > MarketArgs.get(MarketArgs.MAX_OPEN_INTEREST)) revert OpenInterestCapExceeded(longOI, MarketArgs.get(MarketArgs.MAX_OPEN_INTEREST));
        _afterTrade(index, s.filledQty != 0);
    }

    /// The order's quantity (a reduce-only order: the whole position), and its margin and bond
    /// committed (a LIMIT commits its bond with its margin; back when it closes without resting:
    /// _finishTaker). `collateralWad` 0: reduce-only.
    function _sizeAndCommit(uint256 accountId, bool isBuy, OrderType orderType, uint256 collateralWad, uint256 leverage, uint256 price)
        internal returns (uint256 qty)
    {
        int256 size = positions[accountId].size;
        if (collateralWad == 0) {
            if (size == 0 || (size > 0) == isBuy) revert NoPosition(accountId, _marketId());
            return VenueMath.abs(size);
        }
        qty = VenueMath.orderQty(collateralWad, leverage, price, MarketArgs.get(MarketArgs.LOT_SIZE));
        if (qty < MarketArgs.get(MarketArgs.MIN_ORDER) || qty == 0) revert OrderTooSmall(qty, MarketArgs.get(MarketArgs.MIN_ORDER));
        _checkPositionCap(accountId, size, isBuy, qty);
        uint256 commit = orderType == OrderType.LIMIT ? collateralWad + ORDER_BOND_WAD : collateralWad;
        _margin(accountId, -int256(commit), int256(commit), IEngine.MarginReason.ORDER_COMMIT);
    }

    /// What an operator's order of `qty` at `price` may cost its owner: the taker fee at `price`
    /// and, when `isCharge`, the distance from `mark` on the side that costs the owner (a charge is
    /// rounded up, a release of the unfilled quantity's fee down: never more than was charged).
    function _operatorCharge(bool isBuy, uint256 mark, uint256 price, uint256 qty, bool isCharge) internal view returns (uint256) {
        uint256 perUnit = (price * MarketArgs.get(MarketArgs.TAKER_FEE_BPS) + BPS - 1) / BPS;
        if (!isCharge) return qty * perUnit / WAD;
        if (isBuy ? price > mark : mark > price) perUnit += isBuy ? price - mark : mark - price;
        return qty * perUnit / WAD + 1;
    }

    // ─── views (served by the extension) ─────────────────────────────────────────────────

    function marketId() external view returns (bytes32) {
        _delegateView();
    }

    function marketIndex() external view returns (uint256) {
        _delegateView();
    }

    function isActive() external view returns (bool) {
        return _isActive;
    }

    function session() external view returns (Session, uint256, uint256) {
        _delegateView();
    }

    function calendar() external view returns (Calendar memory, Calendar memory next, uint256 startsAt) {
        _delegateView();
    }

    function engine() external view returns (address) {
        _delegateView();
    }

    function oracle() external view returns (address) {
        _delegateView();
    }

    function orderCount() external view returns (uint256) {
        _delegateView();
    }

    function params() external view returns (MarketParams memory) {
        _delegateView();
    }

    function openInterest() external view returns (uint256 longQty, uint256 shortQty) {
        _delegateView();
    }

    function restingQty() external view returns (uint256 bidQty, uint256 askQty) {
        _delegateView();
    }

    function orderIdOf(uint256 accountId, bytes32 clientKey) external view returns (uint256) {
        _delegateView();
    }

    function getOrder(uint256) external view returns (OrderView memory) {
        _delegateView();
    }

    function getLevels(Side, uint256) external view returns (uint256[] memory, uint256[] memory, uint256[] memory) {
        _delegateView();
    }

    function getFillableLevels(Side, uint256) external view returns (uint256[] memory, uint256[] memory, uint256[] memory) {
        _delegateView();
    }

    function getPosition(uint256) external view returns (PositionView memory) {
        _delegateView();
    }

    function markPrice() external view returns (uint256) {
        _delegateView();
    }

    function funding() external view returns (FundingView memory) {
        _delegateView();
    }

    // ─── delegation ──────────────────────────────────────────────────────────────────────

    /// The fillable top of the book from the extension (`MarketExtension.fillableTop`): one
    /// delegatecall, only when a side of the book lies beyond the index (`_sampleNow`).
    function _fillableTop(uint256 mark) internal view override returns (uint256, uint256) {
        function(uint256) internal returns (uint256, uint256) f = _fillableTopInExtension;
        function(uint256) internal view returns (uint256, uint256) g;
        assembly {
            g := f
        }
        return g(mark);
    }

    function _fillableTopInExtension(uint256 mark) internal returns (uint256 bid, uint256 ask) {
        address ext = extension;
        bytes4 selector = MarketExtension.fillableTop.selector;
        assembly ("memory-safe") {
            let p := mload(0x40)
            mstore(p, selector)
            mstore(add(p, 4), mark)
            if iszero(delegatecall(gas(), ext, p, 36, 0, 64)) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
            bid := mload(0)
            ask := mload(32)
        }
    }

    /// Runs the same call in the extension and returns (or reverts) with its result.
    function _delegate() internal {
        address ext = extension;
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), ext, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }

    /// `_delegate` for views: the extension's views only read (a delegatecall cannot be typed view).
    function _delegateView() internal view {
        function() internal f = _delegate;
        function() internal view g;
        assembly {
            g := f
        }
        g();
    }
}
