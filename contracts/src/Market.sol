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
import {OrderOptions} from "./libraries/OrderOptions.sol";

/// @notice One perpetual market (per market, a copy of this code with its args: MarketFactory). See IMarket and docs/CONTRACTS.md.
/// Trading entry points live here; liquidation and the bulky views live in `MarketExtension`,
/// which this implementation deploys once and reaches by delegatecall (same storage, and the
/// market's address emits its events); what is seldom called (initialize, the calendar, the
/// close uplift and session, the funding view) goes on from the extension to `MarketBackstop`
/// the same way, so all three contracts keep room under EIP-170.
contract Market is MarketBase, Initializable {
    /// The extension (an immutable of the implementation: every market's copy of the code holds it).
    address public immutable extension;
    /// MarketOrders: order management off the placing path (several cancels, modify, expired orders' removal).
    address public immutable orderModule;

    /// `backstop_`: the deployed MarketBackstop the extension delegates to; `orders_`: the
    /// deployed MarketOrders (both apart: the implementation's creation code stays under EIP-3860).
    constructor(address backstop_, address orders_) {
        extension = address(new MarketExtension(backstop_));
        orderModule = orders_;
        _disableInitializers();
    }

    modifier onlyEngine() {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        _;
    }

    // ─── entry points ────────────────────────────────────────────────────────────────────

    function placeOrder(
        uint256 accountId, IMarket.Side side, IMarket.OrderType orderType, uint256 collateralWad, uint256 leverage,
        uint256 limitPriceX18, bytes32 clientKey, uint256 options
    ) external onlyEngine returns (uint256, bytes32, uint256, IMarket.OrderStatus, uint256) {
        return _place(accountId, side, orderType, collateralWad, leverage, limitPriceX18, clientKey, options);
    }

    /// The engine's, or the market's own for the fund (MarketBackstop.reduceFundPosition).
    function closePosition(uint256 accountId, IMarket.OrderType orderType, uint256 limitPriceX18, bytes32 clientKey, uint256 operatorBandBps)
        external returns (uint256 orderId, bytes32 key, IMarket.Side closingSide, uint256 quantityQty, uint256 chargeWad)
    {
        if (msg.sender != address(_engine()) && msg.sender != address(this)) revert Unauthorized(msg.sender);
        int256 size = positions[accountId].size;
        if (size == 0) revert NoPosition(accountId, _marketId());
        closingSide = size > 0 ? IMarket.Side.SHORT : IMarket.Side.LONG;
        (orderId, key, quantityQty,, chargeWad) =
            _place(accountId, closingSide, orderType, 0, 0, limitPriceX18, clientKey, OrderOptions.pack(IMarket.TimeInForce.GTC, true, 0, operatorBandBps));
    }

    /// Works while paused, closed and on a stale price. The skew counts resting size that carries
    /// itself, which a place-then-cancel must not leave behind: cancelling such size marks the rate stale
    /// from this second (no oracle read, no recompute); the next accrual applies it.
    function cancelOrder(uint256 accountId, bytes32 ref, bool byId)
        external onlyEngine returns (uint256, uint256, uint256, uint256)
    {
        uint256 n = byId ? _localOf(uint256(ref)) : _keyed(accountId, ref);
        uint256 a = _openWord(accountId, n);
        if (a == 0) revert OrderNotFound(accountId, ref);
        return _cancelOne(accountId, n, a);
    }

    /// The margin and bond go back through the Engine's own entry point (`refundWad`), not by a call
    /// into it. One event, OrderCancelled, and no write to the `seq` word. `a`: the order's first word (`_openWord`).
    function _cancelOne(uint256 accountId, uint256 n, uint256 a)
        internal returns (uint256 orderId, uint256 marginReturnedWad, uint256 releaseWad, uint256 refundWad)
    {
        (uint256 margin, uint256 release, bool counted, uint256 b, uint256 w) =
            _cancel(n, a, IMarket.CloseReason.USER_CANCEL, BOND_REFUND | MARGIN_DEFERRED | QUIET);
        (marginReturnedWad, releaseWad, refundWad) = (margin, release, margin + ORDER_BOND_WAD);
        orderId = _orderId(n);
        (uint256 since, uint256 l, uint256 s) = _staleSince(counted);
        // the order's quantities (`b`: its second word) and its level's after (`w`: 0 when deleted)
        emit IMarket.OrderCancelled(orderId, accountId, uint96(b), uint96(b >> 96), margin, uint96(w), uint32(w >> 176), since, l, s);
    }

    // ─── placing ─────────────────────────────────────────────────────────────────────────

    function _place(
        uint256 accountId, IMarket.Side side, IMarket.OrderType orderType, uint256 collateralWad, uint256 leverage,
        uint256 limitPriceX18, bytes32 clientKey, uint256 options
    ) internal returns (uint256 orderId, bytes32 key, uint256 qty, IMarket.OrderStatus status, uint256 charge) {
        Sweep memory s;
        s.accountId = accountId;
        s.isBuy = side == IMarket.Side.LONG;
        s.orderType = orderType;
        s.expiresAt = OrderOptions.expiresAt(options);
        uint256 index = _admit(s, collateralWad, leverage, options);
        uint256 price = _orderPrice(s, limitPriceX18, options);
        qty = _sizeAndCommit(accountId, s.isBuy, orderType, collateralWad, leverage, price, options);
        // a reduce-only order commits nothing (its collateral only sized it)
        if (s.reduceOnly) collateralWad = 0;
        // the order's id: its key (supplied, or derived from that id) first
        s.orderN = _reserve();
        key = _claimKey(accountId, s.orderN, clientKey);
        _newOrder(s.orderN, accountId, side, orderType, s.reduceOnly, price, qty, collateralWad, key, s.tif, s.expiresAt);
        orderId = _orderId(s.orderN);
        s.qty = qty;
        if (orderType == IMarket.OrderType.LIMIT) s.bound = price;
        s.margin = collateralWad;
        s.marginLeft = collateralWad;
        // a post-only order does not cross (`_orderPrice`): nothing to match
        if (s.tif == uint256(IMarket.TimeInForce.POST_ONLY)) s.remaining = qty;
        else _sweep(s, qty);
        if (s.tif == uint256(IMarket.TimeInForce.FOK) && s.filledQty != qty) revert FillOrKillUnfilled(s.filledQty, qty);
        if (s.filledQty != 0) {
            uint256 portion = _portion(collateralWad / MICRO, s.filledQty, qty);
            s.marginLeft -= portion;
            Settlement memory st = _computeSettle(accountId, s.isBuy, s.filledQty, s.notional, portion, s.takerFees, false);
            if (!_meetsInitialMargin(st, s.mark)) {
                _checkPositionCap(accountId, 0, st.size > 0, VenueMath.abs(st.size));
                revert BelowInitialMargin(accountId, _marketId());
            }
            _writeSettle(accountId, st, portion, IMarket.PositionReason.TRADE);
            if (s.takerFees + s.makerFees != 0) _engine().collect(s.takerFees + s.makerFees, 0);
        }
        status = _finishTaker(s.orderN, s);
        // charged at placement (a MARKET order: what filled, at the band edge): maker fills cost nothing more
        if (s.band != 0) {
            charge = _operatorCharge(s.isBuy, s.mark, s.bound, orderType == IMarket.OrderType.LIMIT ? qty : s.filledQty, true);
        }
        // long and short open interest are equal; only a fill where both sides open grows them
        if (s.filledQty != 0 && longOI > MarketArgs.get(MarketArgs.MAX_OPEN_INTEREST)) revert OpenInterestCapExceeded(longOI, MarketArgs.get(MarketArgs.MAX_OPEN_INTEREST));
        _afterPlace(index, s);
    }

    /// `_afterTrade`, but for an item of Engine.batch (`s.deferRate`) the rate waits for the batch's
    /// end: every item runs in this second, so no rate set between them ever applies to any time,
    /// and the batch's end sets the one its book gives (`settleRate`).
    function _afterPlace(uint256 index, Sweep memory s) internal {
        _emitOpenInterest(s.filledQty != 0);
        if (s.deferRate) _rateDue = index + 1;
        else _updateRate(index);
    }

    /// Whether the order may be placed now (its options, the session, the leverage); the index
    /// (fresh, funding accrued to now) and, in `s`, the mark, time in force and reduce-only flag.
    function _admit(Sweep memory s, uint256 collateralWad, uint256 leverage, uint256 options) internal returns (uint256 index) {
        s.tif = _checkOptions(s.orderType, options);
        s.deferRate = OrderOptions.deferRate(options);
        bool reduceOnly = collateralWad == 0 || OrderOptions.reduceOnly(options);
        s.reduceOnly = reduceOnly;
        // reduce-only closes keep working while the market is paused and before a close
        _checkStatus(reduceOnly, s.tif == uint256(IMarket.TimeInForce.POST_ONLY));
        index = _accrueFresh();
        uint256 maxLeverage = MarketArgs.get(MarketArgs.MAX_LEVERAGE);
        if (collateralWad != 0 && (leverage == 0 || leverage > maxLeverage)) revert ExceedsMaxLeverage(leverage, maxLeverage);
        s.mark = _mark(index);
    }

    /// The order's price (a LIMIT's limit, checked; a MARKET's sizing price: the best opposite)
    /// and, in `s`, a MARKET's bound and an operator's band.
    function _orderPrice(Sweep memory s, uint256 limitPriceX18, uint256 options) internal view returns (uint256 price) {
        uint256 mark = s.mark;
        if (s.orderType == IMarket.OrderType.LIMIT) {
            price = limitPriceX18;
            _checkLimitPrice(price, mark);
            if (positions[s.accountId].openOrders >= MAX_OPEN_ORDERS) revert TooManyOrders(s.accountId, MAX_OPEN_ORDERS);
            if (s.tif == uint256(IMarket.TimeInForce.POST_ONLY)) _checkPostOnly(s.isBuy, price);
        } else {
            price = _best(!s.isBuy);
            if (price == 0) revert NoLiquidity(_marketId());
        }
        // an operator (the relayer) may not price an account's order far from the mark: its owner's
        // band for it, at most the market's operator band; fills of its order stay within that band
        // once it rests (_sweepLevel)
        uint256 bandBps = MarketArgs.get(MarketArgs.PRICE_BAND_BPS);
        uint256 operatorBand = OrderOptions.bandBps(options);
        if (operatorBand != 0) s.band = bandBps = _operatorBand(operatorBand, price, mark);
        if (s.orderType == IMarket.OrderType.MARKET) s.bound = _bandPrice(s.isBuy, mark, bandBps);
    }

    /// The time in force (a MARKET order's GTC is IOC), after the combinations that do not exist
    /// (docs/CONTRACTS.md "Time in force") and an expiry not after now.
    function _checkOptions(IMarket.OrderType orderType, uint256 options) internal view returns (uint256 tif) {
        tif = OrderOptions.timeInForce(options);
        uint256 expiresAt = OrderOptions.expiresAt(options);
        if (orderType == IMarket.OrderType.MARKET && tif == uint256(IMarket.TimeInForce.GTC)) tif = uint256(IMarket.TimeInForce.IOC);
        if (
            tif > uint256(IMarket.TimeInForce.POST_ONLY) || (orderType == IMarket.OrderType.MARKET && tif == uint256(IMarket.TimeInForce.POST_ONLY))
                || (expiresAt != 0 && (tif == uint256(IMarket.TimeInForce.IOC) || tif == uint256(IMarket.TimeInForce.FOK)))
        ) revert InvalidOrderOptions(tif, expiresAt);
        if (expiresAt != 0 && expiresAt <= block.timestamp) revert InvalidExpiry(expiresAt, block.timestamp);
    }

    /// The order's quantity (a reduce-only order: the whole position, or what its collateral and
    /// leverage size up to the position), and its margin and bond committed (a LIMIT commits its
    /// bond with its margin; back when it closes without resting: _finishTaker). `collateralWad`
    /// 0: reduce-only.
    function _sizeAndCommit(
        uint256 accountId, bool isBuy, IMarket.OrderType orderType, uint256 collateralWad, uint256 leverage, uint256 price, uint256 options
    ) internal returns (uint256 qty) {
        int256 size = positions[accountId].size;
        bool reduceOnly = collateralWad == 0 || OrderOptions.reduceOnly(options);
        if (reduceOnly && (size == 0 || (size > 0) == isBuy)) revert NoPosition(accountId, _marketId());
        if (collateralWad == 0) return VenueMath.abs(size);
        qty = VenueMath.orderQty(collateralWad, leverage, price, MarketArgs.get(MarketArgs.LOT_SIZE));
        uint256 minOrder = MarketArgs.get(MarketArgs.MIN_ORDER);
        if (qty < minOrder || qty == 0) revert OrderTooSmall(qty, minOrder);
        if (reduceOnly) {
            uint256 room = VenueMath.abs(size);
            if (qty > room) {
                if (OrderOptions.timeInForce(options) == uint256(IMarket.TimeInForce.FOK)) revert ReduceOnlyExceedsPosition(qty, room);
                qty = room;
            }
            return qty;
        }
        _checkPositionCap(accountId, size, isBuy, qty);
        uint256 commit = orderType == IMarket.OrderType.LIMIT ? collateralWad + ORDER_BOND_WAD : collateralWad;
        _margin(accountId, -int256(commit), int256(commit), IEngine.MarginReason.ORDER_COMMIT);
    }

    /// Everything else IMarket declares: several cancels, modify, expired orders' removal and
    /// the fillable depth view in MarketOrders; liquidation, isolated margin, funding pokes and the batch's rate in the
    /// extension; the calendar, pause, the fund's reduction, initialize and every other view in the
    /// extension or, through it, the backstop.
    /// The same call runs there on this market's storage.
    fallback() external {
        bytes4 s = msg.sig;
        _delegate(
            s == IMarket.modifyOrder.selector || s == IMarket.cancelOrders.selector || s == IMarket.removeExpired.selector
                || s == IMarket.getFillableLevels.selector
                ? orderModule
                : extension
        );
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

    /// Runs the same call in `module` (the extension or MarketOrders) and returns (or reverts) with its result.
    function _delegate(address module) internal {
        address ext = module;
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), ext, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
