// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IEngine} from "./interfaces/IEngine.sol";
import {IOracle} from "./interfaces/IOracle.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {VenueMath} from "./libraries/VenueMath.sol";
import {MarketCalendar} from "./libraries/MarketCalendar.sol";
import {MarketBase} from "./MarketBase.sol";
import {MarketArgs} from "./libraries/MarketArgs.sol";
import {TickBitmap} from "./libraries/TickBitmap.sol";

/// @notice The liquidation backstop of a market (docs/CONTRACTS.md "Backstop"): insurance fund
/// takeover and auto-deleveraging at the bankruptcy price. Also serves what a market seldom runs
/// (initialize, the calendar, the close uplift and session, the funding view; the extension's
/// fallback forwards them). Reached only by delegatecall from `MarketExtension` (so it runs on
/// the market's storage, MarketBase layout); called directly it works on its own empty
/// storage and changes nothing of the venue's (and cannot be initialized).
contract MarketBackstop is MarketBase, Initializable {
    using TickBitmap for TickBitmap.Bitmap;

    /// Counterparties one liquidation may rank and deleverage (bounds its work: no on-chain
    /// scan of all holders, which many small positions could make too costly to run).
    uint256 internal constant MAX_ADL_CANDIDATES = 64;
    /// Without a supplied list: the accounts the default scan reads, 0 (the fund) .. 256.
    uint256 internal constant DEFAULT_ADL_SCAN = 256;
    /// Seconds between two reductions of the fund's position (the mark's period: makers re-quote
    /// and the mark settles between steps).
    uint256 internal constant FUND_REDUCE_INTERVAL = 300;

    constructor() {
        _disableInitializers();
    }

    // ─── seldom called (through Market and the extension's fallback) ─────────────────────

    /// The engine's pause and resume (Engine.setMarketActive).
    function setActive(bool active) external {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        _isActive = active;
        emit IMarket.ActiveSet(++seq, active);
    }

    function isActive() external view returns (bool) {
        return _isActive;
    }

    /// The engine, oracle, id, index and numbers are args in the market's code (MarketFactory); the rest here.
    function initialize(IMarket.MarketParams calldata p) external initializer {
        _names = MarketNames(p.symbol, p.baseFxToken, p.quoteFxToken);
        (_maxLeverage, _makerFeeBps) = (p.maxLeverage, p.makerFeeBps);
        _isActive = true;
        fundingState.lastUpdate = uint64(block.timestamp);
    }

    /// Who the market is (IMarket views): args in its code.
    function marketId() external view returns (bytes32) {
        return _marketId();
    }

    function marketIndex() external view returns (uint256) {
        return _marketIndex();
    }

    /// Counters and the client-key map (IMarket views).
    function orderCount() external view returns (uint256) {
        return _orderCount;
    }

    function orderSlots() external view returns (uint256) {
        return _slotCount;
    }

    function orderIdAt(uint256 slot) external view returns (uint256) {
        if (slot == 0 || slot > _slotCount) return 0;
        return _idAt(slot, orders[slot]);
    }

    function openInterest() external view returns (uint256 longQty, uint256 shortQty) {
        return (longOI, shortOI);
    }

    function restingQty() external view returns (uint256 bidQty, uint256 askQty) {
        return (marginedLongQty - longOI + restingUncountedBidQty, marginedShortQty - shortOI + restingUncountedAskQty);
    }

    function orderIdOf(uint256 accountId, bytes32 clientKey) external view returns (uint256) {
        uint256 n = _keyed(accountId, clientKey);
        return _isLive(n, orders[n & SLOT_MASK]) ? _orderId(n) : 0;
    }

    function engine() external view returns (address) {
        return address(_engine());
    }

    function oracle() external view returns (address) {
        return address(_oracle());
    }

    /// The parameters (IMarket.params): the names from storage, the numbers from the args in its code.
    function params() external view returns (IMarket.MarketParams memory p) {
        (p.marketId, p.symbol, p.baseFxToken, p.quoteFxToken) = (_marketId(), _names.symbol, _names.baseFxToken, _names.quoteFxToken);
        MarketArgs.fill(p);
    }

    /// A calendar change (IMarket.scheduleCalendar; the engine checks the delay): the start is
    /// OPEN under the new calendar, so no change enters, extends or joins a close.
    function scheduleCalendar(IMarket.Calendar calldata next, uint256 startsAt) external {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        uint256 w = _calendar;
        uint256 pending = uint40(w >> 96);
        // the next calendar already in force becomes the current one; one not yet in force is replaced
        if (pending != 0 && block.timestamp >= pending) w >>= 48;
        w &= type(uint48).max;
        if (
            !MarketCalendar.isValid(next) || startsAt < block.timestamp || startsAt > type(uint40).max
                || MarketCalendar.sessionAt(next, startsAt) != IMarket.Session.OPEN
        ) revert InvalidParameters();
        _calendar = uint136(w | MarketCalendar.pack(next) << 48 | startsAt << 96);
        emit IMarket.MarketCalendarScheduled(++seq, MarketCalendar.unpack(w), next, startsAt);
    }

    function calendar() external view returns (IMarket.Calendar memory, IMarket.Calendar memory next, uint256 startsAt) {
        uint256 w = _calendar;
        startsAt = uint40(w >> 96);
        next = MarketCalendar.unpack(w >> 48);
        return (MarketCalendar.at(w, block.timestamp), next, startsAt);
    }

    // ─── session (docs/CONTRACTS.md "Weekends and gaps") ─────────────────────────────────

    /// The uplift covers a typical gap; it may not push maintenance to 100 % nor initial margin past it.
    function setCloseUplift(uint256 upliftBps) external {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        if (
            upliftBps < BPS || upliftBps > type(uint16).max || upliftBps > uint256(MarketArgs.get(MarketArgs.MAX_LEVERAGE)) * BPS
                || upliftBps * MarketArgs.get(MarketArgs.MAINTENANCE_BPS) >= BPS * BPS
        ) revert InvalidParameters();
        _closeUpliftBps = uint16(upliftBps);
        _emitSession();
    }

    function setStatus(IMarket.MarketStatus status_) external {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        if (uint256(status_) > uint256(IMarket.MarketStatus.REDUCE_ONLY)) revert InvalidParameters();
        _mode = uint8(status_);
        emit IMarket.MarketStatusSet(++seq, status_);
    }

    function status() external view returns (IMarket.MarketStatus) {
        IMarket.Session s = _sessionNow();
        if (s == IMarket.Session.CLOSED) return IMarket.MarketStatus.CLOSED;
        if (!_isActive) return IMarket.MarketStatus.PAUSED;
        IMarket.MarketStatus mode = IMarket.MarketStatus(_mode);
        if (s == IMarket.Session.REDUCE_ONLY && mode != IMarket.MarketStatus.CANCEL_ONLY) return IMarket.MarketStatus.REDUCE_ONLY;
        return mode;
    }

    function _emitSession() internal {
        (IMarket.Session s, uint256 now_, uint256 close) = session();
        emit IMarket.MarketSessionChanged(++seq, s, now_, close);
    }

    function session() public view returns (IMarket.Session, uint256, uint256) {
        uint256 u = _closeUpliftBps;
        return (_sessionNow(), _upliftBps(), u == 0 ? BPS : u);
    }

    function funding() external view returns (IMarket.FundingView memory v) {
        FundingState memory f = fundingState;
        FundingComponents memory c = components;
        (uint256 index, uint256 since, uint256 until) = _oracle().priceWindow(_marketId());
        v.rateX18PerHour = f.rate;
        v.premiumComponentX18 = c.premiumComponent;
        v.skewComponentX18 = c.skewComponent;
        v.skewX18 = c.skew;
        v.premiumX18 = c.premium;
        v.cumulativeIndexX18 = f.cumulativeIndex;
        // nothing accrues while closed
        uint256 reopen = _lastReopen();
        if (f.lastUpdate < reopen) f.lastUpdate = uint64(reopen);
        v.cumulativeIndexNowX18 = _sessionNow() == IMarket.Session.CLOSED ? f.cumulativeIndex : _indexNow(f, index, since, until);
        v.lastUpdate = f.lastUpdate;
        v.rateStaleSince = _rateStaleSince;
        v.rateNowX18PerHour = v.rateStaleSince == 0 ? int256(f.rate) : _rateOf(c.premium).rate;
        v.premiumSampleX18 = _sampleAt(index);
        uint256 ts = MarketArgs.get(MarketArgs.TICK_SIZE);
        (v.sampleBidX18, v.sampleAskX18) = (_sampleBidTick * ts, _sampleAskTick * ts);
    }

    // ─── the fund's own position (docs/CONTRACTS.md "Backstop") ─────────────────────────

    /// Anyone, once per FUND_REDUCE_INTERVAL: the fund closes its position against the book as a
    /// reduce-only MARKET order (`Market.closePosition` for account 0, called by the market
    /// itself): within the price band of the mark, paying the taker fee, makers it cannot fill
    /// cancelled as for any taker. Given depth within the band the position is gone in one call;
    /// else each call takes what the band holds (docs/CONTRACTS.md "Backstop"). A call that closes
    /// nothing leaves the interval unused.
    function reduceFundPosition() external returns (uint256 closedQty) {
        uint256 next = _fundReducedAt + FUND_REDUCE_INTERVAL;
        if (block.timestamp < next) revert FundReductionNotDue(next);
        // the keeper reads the fund's size (getPosition(0)) and the next second (the last
        // FundPositionReduced, or this error's `nextAt`)
        int256 size = positions[FUND].size;
        if (size == 0) revert NoPosition(FUND, _marketId());
        (bool ok, bytes memory ret) =
            address(this).call(abi.encodeCall(IMarket.closePosition, (FUND, IMarket.OrderType.MARKET, 0, bytes32(0), 0)));
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 32), mload(ret))
            }
        }
        // a reduce-only close never grows nor flips the position
        int256 left = positions[FUND].size;
        closedQty = uint256(size > 0 ? size - left : left - size);
        if (closedQty == 0) return 0;
        _fundReducedAt = uint40(block.timestamp);
        emit IMarket.FundPositionReduced(++seq, closedQty, left, block.timestamp + FUND_REDUCE_INTERVAL);
    }

    /// Closes the rest of the position at the mark when it is solvent there (equity > 0; the
    /// liquidation fee to the fund), else at its bankruptcy price: the insurance fund takes it over
    /// when it can carry all of it (its position's equity at the mark reaches maintenance with
    /// the fund's balance), else auto-deleveraging against opposite positions: `candidates`
    /// (the liquidator's list, any account ids) or, when empty, accounts 0 .. 256.
    function backstop(uint256 accountId, uint256 mark, uint256[] calldata candidates)
        external returns (uint256 qty, uint256 notional, uint256 shortfall)
    {
        Position storage pos = positions[accountId];
        int256 size = pos.size;
        bool long = size > 0;
        VenueMath.Health memory h = _healthOf(pos, mark);
        // a solvent rest closes at the mark (the owner keeps its equity less the liquidation fee,
        // which goes to the fund; the counterparty gets nothing for being chosen); only a bankrupt
        // rest goes at the bankruptcy price
        uint256 feeBps = h.equity > 0 ? MarketArgs.get(MarketArgs.LIQUIDATION_FEE_BPS) : 0;
        uint256 price = feeBps != 0 ? mark : _bankruptcyPrice(size, h);
        uint256 absSize = VenueMath.abs(size);
        if (accountId != FUND) {
            notional = Math.mulDiv(absSize, price, WAD, long ? Math.Rounding.Ceil : Math.Rounding.Floor);
            Settlement memory f = _computeSettle(FUND, long, absSize, notional, 0, 0, false);
            uint256 topUp = _fundTopUp(f, mark);
            if (f.shortfall == 0 && topUp <= _engine().insuranceFundWad()) {
                if (topUp != 0) f = _computeSettle(FUND, long, absSize, notional, topUp, 0, false);
                _closeAt(accountId, absSize, notional, feeBps);
                _writeSettle(FUND, f, topUp, IMarket.PositionReason.LIQUIDATION);
                Position storage fp = positions[FUND];
                emit IMarket.InsuranceTakeover(
                    ++seq, accountId, absSize, price, notional, topUp, fp.size, fp.openNotional, fp.margin,
                    _engine().insuranceFundWad()
                );
                return (absSize, notional, 0);
            }
        }
        (qty, notional) = _deleverage(accountId, long, absSize, price, mark, _candidates(candidates));
        if (qty != 0) shortfall = _closeAt(accountId, qty, notional, feeBps);
    }

    /// Margin the fund must add so its position after `f` has equity ≥ maintenance at the mark.
    function _fundTopUp(Settlement memory f, uint256 mark) internal view returns (uint256) {
        if (f.size == 0) return 0;
        uint256 value = VenueMath.abs(f.size) * mark / WAD;
        int256 upnl = f.size > 0 ? int256(value) - int256(f.openNotional) : int256(f.openNotional) - int256(value);
        int256 gap = int256(value * _maintenanceBps() / BPS) - f.margin - upnl;
        return gap > 0 ? uint256(gap) : 0;
    }

    /// Closes `q` of the liquidated position at `notional` (the backstop's price); a solvent
    /// rest (at the mark) pays the liquidation fee on it, capped at the equity released, all of
    /// it to the insurance fund (none to the liquidator nor to the counterparty).
    function _closeAt(uint256 accountId, uint256 q, uint256 notional, uint256 feeBps) internal returns (uint256) {
        uint256 fee = Math.mulDiv(notional, feeBps, BPS, Math.Rounding.Ceil);
        Settlement memory st = _computeSettle(accountId, positions[accountId].size < 0, q, notional, 0, fee, true);
        _writeSettle(accountId, st, 0, IMarket.PositionReason.LIQUIDATION);
        if (st.feeTaken != 0) _engine().collect(0, st.feeTaken);
        return st.shortfall;
    }

    /// The supplied list (at most MAX_ADL_CANDIDATES), or accounts 0 .. min(256, accountCount).
    function _candidates(uint256[] calldata supplied) internal view returns (uint256[] memory ids) {
        uint256 n = supplied.length;
        if (n > MAX_ADL_CANDIDATES) revert TooManyAdlCandidates(n, MAX_ADL_CANDIDATES);
        if (n != 0) return supplied;
        n = _engine().accountCount();
        if (n > DEFAULT_ADL_SCAN) n = DEFAULT_ADL_SCAN;
        ids = new uint256[](n + 1);
        for (uint256 i = 1; i <= n; ++i) ids[i] = i;
    }

    /// Auto-deleveraging: ranks the candidates' opposite positions in profit at the mark (uPnL
    /// net of funding) by profit × leverage (profit × value ÷ equity) and closes them, best first,
    /// against the liquidated one at `price`; a candidate that is not such a position (same side,
    /// flat, not in profit, the liquidated account, a repeat) is passed over, and so is one that
    /// would end below zero at that price. The ranking is the contract's, whatever the list's
    /// order (docs/CONTRACTS.md "Backstop"). Returns the quantity closed and its notional.
    function _deleverage(uint256 accountId, bool long, uint256 absSize, uint256 price, uint256 mark, uint256[] memory cands)
        internal returns (uint256 qty, uint256 notional)
    {
        (uint256[] memory ids, uint256 k) = _ranked(accountId, long, mark, cands);
        // what each one in profit gained (into its available balance), for the gap below
        uint256[] memory gains = new uint256[](k);
        for (uint256 r; r < k && qty < absSize; ++r) {
            (uint256 q, uint256 cn, uint256 g) = _deleverageOne(accountId, ids[r], long, absSize - qty, price, r + 1);
            qty += q;
            notional += cn;
            gains[r] = g;
        }
        // the last resort: with no fund to take it and not enough in profit, the rest closes
        // against the candidates' other opposite positions (in loss: after every one in profit),
        // at the same price, in the list's order (rank 0): a bankrupt rest's deficit is borne by
        // the opposite side, as with those in profit, never left open nor to the pool. One that
        // would end below zero at that price bears what it has instead: it closes at its own
        // bankruptcy price (a tick inside it, never beyond the mark), its equity to about zero;
        // the gap to `price` is borne by the gains of those in profit closed above, best ranked
        // first, out of their available balances (BUGS.md #12), and only what they cannot bear
        // goes to the fund, then to bad debt (the book, the fund and the opposite side all
        // exhausted). One already below zero is passed over (its own liquidation's business).
        for (uint256 x; x < cands.length && qty < absSize; ++x) {
            uint256 c = cands[x];
            Position storage p = positions[c];
            if (c == accountId || p.size == 0 || (p.size > 0) == long) continue;
            (uint256 q, uint256 cn,) = _deleverageOne(accountId, c, long, absSize - qty, price, 0);
            if (q == 0) {
                VenueMath.Health memory h = _healthOf(p, mark);
                if (h.equity <= 0) continue;
                uint256 tick = MarketArgs.get(MarketArgs.TICK_SIZE);
                uint256 ins = h.insolvencyPrice;
                // `long`: the counterparty is short and buys back (lower is better for it)
                uint256 pc = long ? (ins > mark + tick ? ins - tick : mark) : (ins + tick < mark ? ins + tick : mark);
                (q, cn,) = _deleverageOne(accountId, c, long, absSize - qty, pc, 0);
                cn = _bearGap(long, q, cn, price, ids, gains);
            }
            qty += q;
            notional += cn;
        }
    }

    /// `cn`, the notional of `q` closed at a price the counterparty could bear instead of `price`,
    /// moved towards `price`'s by what the gains of those in profit closed before it bear (best
    /// ranked first, each at most its gain, out of its available balance): the liquidated one
    /// gets it (a long sells: more; a short buys back: less), and the gap left is its shortfall.
    function _bearGap(bool long, uint256 q, uint256 cn, uint256 price, uint256[] memory ids, uint256[] memory gains)
        internal returns (uint256)
    {
        uint256 atPrice = Math.mulDiv(q, price, WAD, long ? Math.Rounding.Ceil : Math.Rounding.Floor);
        uint256 gap = long ? (atPrice > cn ? atPrice - cn : 0) : (cn > atPrice ? cn - atPrice : 0);
        for (uint256 r; r < gains.length && gap != 0; ++r) {
            uint256 t = gains[r] < gap ? gains[r] : gap;
            if (t == 0) continue;
            gains[r] -= t;
            gap -= t;
            _margin(ids[r], -int256(t), 0, IEngine.MarginReason.LIQUIDATION);
            cn = long ? cn + t : cn - t;
        }
        return cn;
    }

    /// The candidates' opposite positions in profit, best score first (`_deleverage`); `k` of them.
    function _ranked(uint256 accountId, bool long, uint256 mark, uint256[] memory cands)
        internal view returns (uint256[] memory ids, uint256 k)
    {
        uint256 n = cands.length;
        ids = new uint256[](n);
        uint256[] memory scores = new uint256[](n);
        for (uint256 x; x < n; ++x) {
            uint256 i = cands[x];
            Position storage p = positions[i];
            if (i == accountId || p.size == 0 || (p.size > 0) == long) continue;
            VenueMath.Health memory h = _healthOf(p, mark);
            // profit: uPnL net of funding owed or due
            int256 profit = h.equity - int256(uint256(p.margin));
            if (profit <= 0) continue;
            uint256 score = Math.mulDiv(uint256(profit), h.positionValue, uint256(h.equity));
            if (_listed(ids, k, i)) continue;
            uint256 j = k++;
            while (j != 0 && scores[j - 1] < score) {
                ids[j] = ids[j - 1];
                scores[j] = scores[j - 1];
                --j;
            }
            ids[j] = i;
            scores[j] = score;
        }
    }

    /// Closes up to `room` of counterparty `c`'s opposite position against the liquidated one at
    /// `price` (`rank`: its place in the ranking, 0 for the last resort); nothing when that would
    /// leave it below zero. The counterparty pays the rounding: a short buys back (ceil), a long
    /// sells (floor). `gain`: what its realized PnL put into its available balance (0 for a loss,
    /// and for the fund, whose wallet is the insurance fund).
    function _deleverageOne(uint256 accountId, uint256 c, bool long, uint256 room, uint256 price, uint256 rank)
        internal returns (uint256 q, uint256 cn, uint256 gain)
    {
        q = VenueMath.abs(positions[c].size);
        if (q > room) q = room;
        cn = Math.mulDiv(q, price, WAD, long ? Math.Rounding.Ceil : Math.Rounding.Floor);
        Settlement memory st = _computeSettle(c, long, q, cn, 0, 0, false);
        if (st.shortfall != 0) return (0, 0, 0);
        // the fund's gain goes to the insurance fund, which covers a shortfall after the others' gains
        if (c != FUND && st.pnl > 0 && st.toAvailable > 0) gain = uint256(st.pnl < st.toAvailable ? st.pnl : st.toAvailable);
        _writeSettle(c, st, 0, IMarket.PositionReason.DELEVERAGE);
        emit IMarket.Deleveraged(++seq, accountId, c, q, price, cn, st.size, st.pnl, rank);
    }

    // ─── views ───────────────────────────────────────────────────────────────────────────

    // served here for the extension's size (EIP-170)

    /// Served here: its string-carrying struct encoding is bulky, and only views and the factory read it.
    function getOrder(uint256 orderId) external view returns (IMarket.OrderView memory v) {
        if (orderId >> 64 != _marketIndex()) return v;
        uint256 n = orderId & type(uint64).max;
        Order storage o = orders[n & SLOT_MASK];
        // its slot holds a later order once reused: the indexer keeps its history
        if (n & SLOT_MASK == 0 || o.number != n >> SLOT_BITS || o.status == IMarket.OrderStatus.NONE) return v;
        v.orderId = orderId;
        v.accountId = o.accountId;
        v.side = o.side;
        v.orderType = o.orderType;
        v.status = o.status;
        v.reduceOnly = o.reduceOnly;
        v.priceX18 = uint256(o.tick) * MarketArgs.get(MarketArgs.TICK_SIZE);
        v.originalQty = o.originalQty;
        // a FILLED order's second slot is left as it was before its last fill (MarketBase._fillMaker)
        v.filledQty = o.status == IMarket.OrderStatus.FILLED ? o.originalQty : o.filledQty;
        v.remainingQty = o.status == IMarket.OrderStatus.ACTIVE ? o.originalQty - o.filledQty : 0;
        // a closed order's stored margin is stale (MarketBase._closeOrder): none remains
        if (o.status == IMarket.OrderStatus.ACTIVE) v.marginRemainingWad = uint256(o.margin6) * MICRO;
        v.expiresAt = o.expiresAt;
    }

    function getLevels(IMarket.Side side, uint256 depth)
        external view returns (uint256[] memory pricesX18, uint256[] memory totalQty, uint256[] memory orderCounts)
    {
        bool isBid = side == IMarket.Side.LONG;
        TickBitmap.Bitmap storage book = isBid ? bids : asks;
        pricesX18 = new uint256[](depth);
        totalQty = new uint256[](depth);
        orderCounts = new uint256[](depth);
        // from the best tick the market keeps (`_bookSet`): what its sweep starts from
        uint256 tick = isBid ? _bestBidTick : _bestAskTick;
        if (tick == 0) tick = TickBitmap.NONE;
        uint256 k;
        while (k < depth && tick != TickBitmap.NONE) {
            Level storage level = isBid ? bidLevels[tick] : askLevels[tick];
            pricesX18[k] = tick * MarketArgs.get(MarketArgs.TICK_SIZE);
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

    function getPosition(uint256 accountId) external view returns (IMarket.PositionView memory v) {
        Position storage p = positions[accountId];
        v.sizeQty = p.size;
        v.openNotionalWad = p.openNotional;
        v.entryPriceX18 = p.size == 0 ? 0 : uint256(p.openNotional) * WAD / VenueMath.abs(p.size);
        v.marginWad = p.margin;
        v.lastFundingIndexX18 = p.lastFundingIndex;
        v.lastSettledAt = p.lastSettledAt;
        v.openBlock = p.openBlock;
    }

    function markPrice() external view returns (uint256) {
        (uint256 index,) = _oracle().getPrice(_marketId());
        return _markNow(index);
    }

    function _listed(uint256[] memory ids, uint256 k, uint256 id) internal pure returns (bool) {
        for (uint256 j; j < k; ++j) if (ids[j] == id) return true;
        return false;
    }

}
