// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IEngine} from "./interfaces/IEngine.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {IOracle} from "./interfaces/IOracle.sol";
import {VenueMath} from "./libraries/VenueMath.sol";

/// @notice Batched reads in one eth_call: what a client without the indexer needs, and what the
/// reconciliation tests compare the indexed API with.
contract VenueLens {
    struct MarketState {
        address market;
        bytes32 marketId;
        IMarket.MarketParams params;
        bool isActive;
        uint256 longOI;
        uint256 shortOI;
        uint256 indexPriceX18;
        uint256 indexUpdatedAt;
        uint256 markPriceX18;
        IMarket.FundingView funding;
        IMarket.Session session;
        uint256 marginUpliftBps; // multiplier of initial and maintenance margin now (1e4 = none)
        uint256 closeUpliftBps; // what REDUCE_ONLY and CLOSED apply
    }

    struct PositionState {
        bytes32 marketId;
        IMarket.PositionView position;
        IMarket.HealthView health;
    }

    /// The venue's own pots (docs/CONTRACTS.md "Risk model").
    struct Pots {
        uint256 insuranceFundWad;
        uint256 feesWad;
        uint256 badDebtWad;
    }

    struct Book {
        uint256[] bidPrices;
        uint256[] bidQty;
        uint256[] bidCounts;
        uint256[] askPrices;
        uint256[] askQty;
        uint256[] askCounts;
    }

    function marketState(IMarket m) public view returns (MarketState memory s) {
        s.market = address(m);
        s.marketId = m.marketId();
        s.params = m.params();
        s.isActive = m.isActive();
        (s.longOI, s.shortOI) = m.openInterest();
        (s.indexPriceX18, s.indexUpdatedAt) = IOracle(m.oracle()).getPrice(s.marketId);
        s.markPriceX18 = m.markPrice();
        s.funding = m.funding();
        (s.session, s.marginUpliftBps, s.closeUpliftBps) = m.session();
    }

    function markets(IEngine engine) external view returns (MarketState[] memory out) {
        bytes32[] memory ids = engine.marketIds();
        out = new MarketState[](ids.length);
        for (uint256 i; i < ids.length; ++i) out[i] = marketState(IMarket(engine.marketOf(ids[i])));
    }

    function pots(IEngine engine) external view returns (Pots memory p) {
        p.insuranceFundWad = engine.insuranceFundWad();
        p.feesWad = engine.feesWad();
        p.badDebtWad = engine.badDebtWad();
    }

    function book(IMarket m, uint256 depth) external view returns (Book memory b) {
        (b.bidPrices, b.bidQty, b.bidCounts) = m.getLevels(IMarket.Side.LONG, depth);
        (b.askPrices, b.askQty, b.askCounts) = m.getLevels(IMarket.Side.SHORT, depth);
    }

    /// Best bid and ask (0 when a side is empty).
    function bestPrices(IMarket m) external view returns (uint256 bidX18, uint256 askX18) {
        (uint256[] memory b,,) = m.getLevels(IMarket.Side.LONG, 1);
        (uint256[] memory a,,) = m.getLevels(IMarket.Side.SHORT, 1);
        if (b.length != 0) bidX18 = b[0];
        if (a.length != 0) askX18 = a[0];
    }

    /// Health of a position at the current mark and funding (docs/CONTRACTS.md "Health").
    function positionHealth(IMarket m, uint256 accountId) public view returns (IMarket.HealthView memory v) {
        IMarket.PositionView memory p = m.getPosition(accountId);
        if (p.sizeQty == 0) return v;
        v.markPriceX18 = m.markPrice();
        v.pendingFundingWad = VenueMath.pendingFunding(p.sizeQty, m.funding().cumulativeIndexNowX18 - p.lastFundingIndexX18);
        (, uint256 uplift,) = m.session();
        VenueMath.Health memory h = VenueMath.health(
            p.sizeQty, p.openNotionalWad, p.marginWad, v.pendingFundingWad, v.markPriceX18,
            uint256(m.params().maintenanceMarginBps) * uplift / 1e4
        );
        v.positionValueWad = h.positionValue;
        v.unrealizedPnlWad = h.unrealizedPnl;
        v.equityWad = h.equity;
        v.maintenanceWad = h.maintenance;
        v.marginRatioBps = h.marginRatioBps;
        v.liquidationPriceX18 = h.liquidationPrice;
        v.insolvencyPriceX18 = h.insolvencyPrice;
        v.isLiquidatable = h.isLiquidatable;
    }

    function positions(IEngine engine, uint256 accountId) external view returns (PositionState[] memory out) {
        bytes32[] memory ids = engine.marketIds();
        out = new PositionState[](ids.length);
        for (uint256 i; i < ids.length; ++i) {
            IMarket m = IMarket(engine.marketOf(ids[i]));
            out[i] = PositionState(ids[i], m.getPosition(accountId), positionHealth(m, accountId));
        }
    }

    /// The orders storage slots `fromSlot`..`toSlot` hold (1..m.orderSlots(): every resting order
    /// is in one; a closed one until its slot is reused; docs/CONTRACTS.md "Order ids and slots").
    function orders(IMarket m, uint256 fromSlot, uint256 toSlot) external view returns (IMarket.OrderView[] memory out) {
        out = new IMarket.OrderView[](toSlot - fromSlot + 1);
        for (uint256 s = fromSlot; s <= toSlot; ++s) out[s - fromSlot] = m.getOrder(m.orderIdAt(s));
    }
}
