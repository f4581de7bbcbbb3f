// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {TickBitmap} from "./libraries/TickBitmap.sol";
import {VenueMath} from "./libraries/VenueMath.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {IEngine} from "./interfaces/IEngine.sol";
import {MarketBase} from "./MarketBase.sol";
import {MarketArgs} from "./libraries/MarketArgs.sol";
import {MarketBackstop} from "./MarketBackstop.sol";

/// @notice Liquidation and the bulky views of a market. Never called directly:
/// `Market` delegatecalls it, so it runs on the market's storage (MarketBase layout).
contract MarketExtension is MarketBase {
    using TickBitmap for TickBitmap.Bitmap;

    /// The backstop (insurance takeover and deleveraging), reached by delegatecall like this
    /// contract itself (same storage): it would not fit here under EIP-170 with 2 KB to spare.
    address internal immutable backstop;

    constructor(address backstop_) {
        backstop = backstop_;
    }

    /// Closes a liquidatable position (docs/CONTRACTS.md "Liquidation" and "Backstop"): through
    /// the book as a reduce-only taker, never beyond the bankruptcy price (nor the band); what the
    /// book cannot absorb is taken over by the insurance fund at the bankruptcy price when the fund
    /// can carry it, else closed against the most profitable × levered opposite positions (ADL).
    /// The account's own resting orders met on the way are cancelled and not counted; the
    /// liquidation order never enters the client-key map. Makers that cannot fill are cancelled
    /// (at most MAX_SKIPS a call) and those cancellations stick even when nothing closed: with J
    /// such orders ahead of depth the position closes within 1 + ⌈J / MAX_SKIPS⌉ calls.
    function liquidate(uint256 accountId, address liquidator, uint256[] calldata adlCandidates) external returns (uint256 closedQty) {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        // closed: the index is the last price before the close; liquidations resume at reopening
        if (_sessionNow() == IMarket.Session.CLOSED) revert MarketClosed(_marketId());
        uint256 index = _accrueFresh();
        Position storage pos = positions[accountId];
        int256 size = pos.size;
        if (size == 0) revert NoPosition(accountId, _marketId());
        uint256 mark = _mark(index);
        VenueMath.Health memory h = _healthOf(pos, mark);
        if (!h.isLiquidatable) revert NotLiquidatable(accountId, _marketId());
        if (accountId == FUND && _topUpFund(pos, h)) {
            _afterTrade(index, false);
            return 0;
        }

        Sweep memory s;
        s.isBuy = size < 0;
        {
            uint256 absSize = VenueMath.abs(size);
            uint256 bankrupt = _bankruptcyPrice(size, h);
            uint256 band = _bandPrice(s.isBuy, mark);
            s.orderN = _reserve();
            _newOrder(
                s.orderN, accountId, s.isBuy ? IMarket.Side.LONG : IMarket.Side.SHORT, IMarket.OrderType.MARKET, true, mark, absSize, 0,
                bytes32(0), uint256(IMarket.TimeInForce.IOC), 0
            );
            s.accountId = accountId;
            s.reduceOnly = true;
            s.liquidation = true;
            s.qty = absSize;
            s.orderType = IMarket.OrderType.MARKET;
            // a long never sells below its bankruptcy price, a short never buys above it
            s.bound = s.isBuy ? (bankrupt < band ? bankrupt : band) : (bankrupt > band ? bankrupt : band);
            s.mark = mark;
            _sweep(s, absSize);
        }
        uint256 takenFee;
        uint256 shortfall;
        if (s.filledQty != 0) {
            uint256 feeWad = Math.mulDiv(s.notional, MarketArgs.get(MarketArgs.LIQUIDATION_FEE_BPS), BPS, Math.Rounding.Ceil);
            Settlement memory st = _computeSettle(accountId, s.isBuy, s.filledQty, s.notional, 0, feeWad, true);
            _writeSettle(accountId, st, 0, IMarket.PositionReason.LIQUIDATION);
            takenFee = st.feeTaken;
            shortfall = st.shortfall;
        }
        _finishTaker(s.orderN, s);
        closedQty = s.filledQty;
        uint256 notional = s.notional;
        // the backstop takes what the book could not (not when the fill cap or skip budget stopped it)
        if (!s.capped && positions[accountId].size != 0) {
            (bool ok, bytes memory ret) = backstop.delegatecall(abi.encodeCall(MarketBackstop.backstop, (accountId, mark, adlCandidates)));
            if (!ok) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
            (uint256 q, uint256 n, uint256 sf) = abi.decode(ret, (uint256, uint256, uint256));
            closedQty += q;
            notional += n;
            shortfall += sf;
        }
        // a call that only cancelled makers it could not fill (skip budget) does not revert: the
        // cancellations stick, the next call meets the depth behind them (Liquidated with 0 closed)
        if (closedQty == 0 && s.skips == 0) revert NoLiquidity(_marketId());
        uint256 liquidatorFee = takenFee / 2;
        // the bonds of the makers it cleared as unable to fill go to the liquidator with its fee
        if (liquidatorFee + s.bonds != 0) _engine().payLiquidator(liquidator, liquidatorFee + s.bonds);
        if (takenFee != 0) _engine().collect(0, takenFee - liquidatorFee);
        if (s.makerFees != 0) _engine().collect(s.makerFees, 0);
        _afterTrade(index, true);
        emit IMarket.Liquidated(
            ++seq, accountId, liquidator, closedQty, notional, liquidatorFee, takenFee - liquidatorFee, shortfall,
            positions[accountId].size
        );
    }

    /// The fund's own position below maintenance: the fund tops its margin up from its balance
    /// (false when the balance cannot: the position is then liquidated like any other, without
    /// the takeover step).
    function _topUpFund(Position storage pos, VenueMath.Health memory h) internal returns (bool) {
        uint256 need = uint256(int256(h.maintenance) - h.equity);
        if (need > _engine().insuranceFundWad()) return false;
        pos.margin = SafeCast.toUint96(pos.margin + need);
        _engine().settleInsurance(-int256(need), int256(need));
        emit IMarket.PositionUpdated(
            ++seq, FUND, IMarket.PositionReason.LIQUIDATION, pos.size, pos.openNotional, pos.margin, 0, 0, 0, pos.lastFundingIndex
        );
        return true;
    }

    /// Anyone (through Market.pokeFunding): accrue funding to now and recompute the rate.
    /// The fillable top of the book (`_fillableTop`) for Market's premium sample, on the market's
    /// storage through its delegatecall (called on this contract itself it reads an empty book).
    function fillableTop(uint256 mark) external view returns (uint256, uint256) {
        return _fillableTop(mark);
    }

    function pokeFunding() external {
        _poke();
    }

    /// The engine, at the end of a batch whose placements deferred the rate (OrderOptions.DEFER_RATE):
    /// the rate update they left, once, from the book as the batch leaves it.
    function settleRate() external {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        uint256 due = _rateDue;
        if (due == 0) return;
        _rateDue = 0;
        _updateRate(due - 1);
    }

    // ─── views ───────────────────────────────────────────────────────────────────────────

    /// Isolated margin (IMarket.adjustMargin; docs/CONTRACTS.md "Position margin"): what a
    /// trade needs (not CLOSED, a fresh index; a removal also an active market), pending funding
    /// settled, and a removal leaves at least initial margin at the mark with the session's
    /// uplift, a loss counted and a profit not (a profit is paid on the close that realizes it,
    /// never against a mark that may move back).
    function adjustMargin(uint256 accountId, int256 deltaWad) external returns (uint256 marginWad, uint256 valueWad) {
        if (msg.sender != address(_engine())) revert Unauthorized(msg.sender);
        if (_sessionNow() == IMarket.Session.CLOSED) revert MarketClosed(_marketId());
        if (deltaWad < 0 && !_isActive) revert MarketNotActive(_marketId());
        uint256 index = _accrueFresh();
        Position storage pos = positions[accountId];
        int256 size = pos.size;
        if (size == 0) revert NoPosition(accountId, _marketId());
        int256 funding = _pending(pos, fundingState.cumulativeIndex);
        int256 margin = int256(uint256(pos.margin)) - funding + deltaWad;
        uint256 open = pos.openNotional;
        if (deltaWad < 0) {
            valueWad = VenueMath.abs(size) * _mark(index) / WAD;
            int256 upnl = size > 0 ? int256(valueWad) - int256(open) : int256(open) - int256(valueWad);
            if (upnl < 0) upnl += margin;
            else upnl = margin;
            if (upnl < 0 || uint256(upnl) < Math.ceilDiv(valueWad * _upliftBps(), MarketArgs.get(MarketArgs.MAX_LEVERAGE) * BPS)) {
                revert BelowInitialMargin(accountId, _marketId());
            }
        }
        // funding owed beyond the margin and what is added: the position is for liquidation
        if (margin < 0) revert BelowInitialMargin(accountId, _marketId());
        _margin(accountId, -deltaWad, margin - int256(uint256(pos.margin)), IEngine.MarginReason.POSITION_MARGIN);
        pos.margin = SafeCast.toUint96(uint256(margin));
        pos.lastFundingIndex = fundingState.cumulativeIndex;
        pos.lastSettledAt = uint40(block.timestamp);
        emit IMarket.PositionUpdated(
            ++seq, accountId, IMarket.PositionReason.MARGIN, size, open, uint256(margin), 0, funding, 0, fundingState.cumulativeIndex
        );
        // every accrual is followed by the rate's recompute (it clears the stale flag: `_accrue`)
        _updateRate(index);
        marginWad = uint256(margin);
    }

    /// Every other call (initialize, the calendar, the close uplift and session, the funding
    /// view: off the trading path) runs in the backstop, reached the same way (same storage).
    fallback() external {
        address b = backstop;
        assembly ("memory-safe") {
            let p := mload(0x40)
            calldatacopy(p, 0, calldatasize())
            let ok := delegatecall(gas(), b, p, calldatasize(), 0, 0)
            returndatacopy(p, 0, returndatasize())
            if iszero(ok) { revert(p, returndatasize()) }
            return(p, returndatasize())
        }
    }
}
