// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IMarket} from "../interfaces/IMarket.sol";
import {IMarketFactory} from "../interfaces/IMarketFactory.sol";

/// @notice The rules MarketFactory checks before it creates a market: each parameter sane on its
/// own and the parameters consistent with each other. Each failure names its rule
/// (`InvalidMarketParams(rule)`); docs/CONTRACTS.md "Market parameter rules" explains them.
library MarketParamRules {
    uint256 internal constant BPS = 1e4;
    /// Market stores a price as `tick × tickSize` with a 24-bit tick (Market.MAX_TICK).
    uint256 internal constant MAX_TICK = (1 << 24) - 1;
    uint256 internal constant MAX_FILLS_PER_TX = 100;
    /// A tick may be at most this fraction of the index (bps): 10 bps keeps prices meaningful.
    uint256 internal constant MAX_TICK_BPS_OF_PRICE = 10;

    /// Every rule. `indexX18` 0 (no price yet) skips the two that need the market's price level;
    /// `oracleMaxMoveBps` is the oracle's per-update bound (`IOracle.maxMoveBps`, 0 = unbounded).
    function check(IMarket.MarketParams memory p, uint256 indexX18, uint256 oracleMaxMoveBps) internal pure {
        checkEach(p, indexX18);
        checkBand(p);
        checkOracleBound(p, oracleMaxMoveBps);
    }

    /// One oracle update moves the index at most `maxMove`: a position opened at initial margin
    /// (1/L) must still be above maintenance after it, so maxMove + maintenance ≤ 1/L; an
    /// unbounded oracle (0) is refused.
    function checkOracleBound(IMarket.MarketParams memory p, uint256 maxMove) internal pure {
        _require(maxMove != 0 && (maxMove + p.maintenanceMarginBps) * p.maxLeverage <= BPS, "0<oracleMaxMove<=1/leverage-maintenance");
    }

    /// The price band and the mark clamp against leverage and maintenance.
    function checkBand(IMarket.MarketParams memory p) internal pure {
        uint256 lev = p.maxLeverage;
        uint256 mm = p.maintenanceMarginBps;
        // A taker at max leverage filling at the band edge and paying the taker fee still has
        // equity above maintenance: band + maintenance + takerFee < 1/L.
        _require((uint256(p.priceBandBps) + mm + p.takerFeeBps) * lev < BPS, "band+maintenance+takerFee<1/leverage");
        _require(p.priceBandBps != 0, "band>0");
        // The mark may sit up to the clamp away from the index: at most half the maintenance
        // margin, so that mark noise alone never liquidates a position with half its buffer left.
        _require(uint256(p.markClampBps) * 2 <= mm, "markClamp<=maintenance/2");
    }

    /// Sizes, margins, fees, the fill cap, funding types and the tick range.
    function checkEach(IMarket.MarketParams memory p, uint256 indexX18) internal pure {
        uint256 lev = p.maxLeverage;
        uint256 mm = p.maintenanceMarginBps;
        _require(p.tickSizeX18 != 0 && p.tickSizeX18 <= type(uint128).max, "0<tickSize<2^128");
        _require(p.lotSizeQty != 0, "lotSize>0");
        _require(p.minOrderQty >= p.lotSizeQty && p.minOrderQty % p.lotSizeQty == 0, "minOrder=k*lot");
        _require(p.minOrderQty <= type(uint128).max, "minOrder fits uint128");
        _require(lev >= 1, "maxLeverage>=1");
        _require(mm != 0, "maintenance>0");
        // Initial margin (1/L) must exceed maintenance, or a fresh position is born liquidatable.
        _require(lev * mm < BPS, "leverage*maintenance<1");
        _require(p.liquidationFeeBps <= mm, "liquidationFee<=maintenance");
        _require(p.maxFillsPerTx >= 1 && p.maxFillsPerTx <= MAX_FILLS_PER_TX, "1<=maxFillsPerTx<=100");
        // Market stores the funding rate and its components as int64.
        _require(
            p.maxFundingRateX18PerHour != 0 && p.maxFundingRateX18PerHour <= uint256(uint64(type(int64).max)),
            "fundingClamp fits int64"
        );
        _require(p.skewScaleX18PerHour <= uint256(uint64(type(int64).max)), "skewScale fits int64");
        // An operator's orders stay nearer the mark than anyone's (0 would forbid operators).
        _require(p.operatorBandBps != 0 && p.operatorBandBps <= p.priceBandBps, "0<operatorBand<=band");
        // Caps: one minimum order fits a position, a full position fits the open interest, and
        // the open interest fits the market's uint128 counters.
        _require(p.maxPositionQty >= p.minOrderQty, "maxPosition>=minOrder");
        _require(p.maxOpenInterestQty >= p.maxPositionQty, "maxOpenInterest>=maxPosition");
        _require(p.maxOpenInterestQty <= type(uint128).max, "maxOpenInterest fits uint128");
        if (indexX18 != 0) {
            // Room for the price to double, and a tick fine enough to quote it.
            _require(p.tickSizeX18 * MAX_TICK >= indexX18 * 2, "maxPrice>=2*index");
            _require(p.tickSizeX18 * BPS <= indexX18 * MAX_TICK_BPS_OF_PRICE, "tick<=0.1%*index");
        }
    }

    function _require(bool ok, string memory rule) private pure {
        if (!ok) revert IMarketFactory.InvalidMarketParams(rule);
    }
}
