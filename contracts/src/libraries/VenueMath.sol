// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @notice The venue's formulas (docs/CONTRACTS.md), pure. `core/math/` mirrors each one.
library VenueMath {
    uint256 internal constant WAD = 1e18;
    uint256 internal constant BPS = 1e4;

    function abs(int256 x) internal pure returns (uint256) {
        return x < 0 ? uint256(-x) : uint256(x);
    }

    function median3(uint256 a, uint256 b, uint256 c) internal pure returns (uint256) {
        if (a > b) (a, b) = (b, a);
        if (b > c) b = c;
        return a > b ? a : b;
    }

    /// Order size: floor(collateral × leverage × 1e18 / price), rounded down to the lot.
    function orderQty(uint256 collateralWad, uint256 leverage, uint256 price, uint256 lot) internal pure returns (uint256 qty) {
        qty = Math.mulDiv(collateralWad * leverage, WAD, price);
        qty -= qty % lot;
    }

    /// The book's premium now: (median(index, bid, ask) − index) × 1e18 / index when both sides
    /// exist (else 0), the median clamped to index ± clamp first.
    function premiumSample(uint256 index, uint256 bestBid, uint256 bestAsk, uint256 clampBps) internal pure returns (int256) {
        if (index == 0 || bestBid == 0 || bestAsk == 0) return 0;
        uint256 mark = median3(index, bestBid, bestAsk);
        uint256 lo = index * (BPS - clampBps) / BPS;
        uint256 hi = index * (BPS + clampBps) / BPS;
        if (mark < lo) mark = lo;
        if (mark > hi) mark = hi;
        return (int256(mark) - int256(index)) * int256(WAD) / int256(index);
    }

    /// Time-weighted premium: ema + (sample − ema) × min(dt, period) / period (truncating).
    function premiumEma(int256 ema, int256 sample, uint256 dt, uint256 period) internal pure returns (int256) {
        if (dt > period) dt = period;
        return ema + (sample - ema) * int256(dt) / int256(period);
    }

    /// mark = index × (1e18 + premium) / 1e18 (floor).
    function markFromPremium(uint256 index, int256 premium) internal pure returns (uint256) {
        return index * uint256(int256(WAD) + premium) / WAD;
    }

    struct Rate {
        int256 rate;
        int256 premiumComponent;
        int256 skewComponent;
        int256 skew;
    }

    /// rate = clamp(premium / 24 + skew × skewScale / 1e18, ±max), skew = (L − S) / (L + S).
    function fundingRate(
        int256 premium, uint256 longInterest, uint256 shortInterest, uint256 skewScaleX18PerHour, uint256 maxRateX18PerHour
    ) internal pure returns (Rate memory r) {
        r.premiumComponent = premium / 24;
        uint256 total = longInterest + shortInterest;
        if (total != 0) r.skew = (int256(longInterest) - int256(shortInterest)) * int256(WAD) / int256(total);
        r.skewComponent = r.skew * int256(skewScaleX18PerHour) / int256(WAD);
        int256 rate = r.premiumComponent + r.skewComponent;
        int256 cap = int256(maxRateX18PerHour);
        r.rate = rate > cap ? cap : rate < -cap ? -cap : rate;
    }

    /// cumulativeIndex += rate × index × dt / (3600 × 1e18)
    function accrue(int256 cumulativeIndex, int256 rate, uint256 index, uint256 dtSeconds) internal pure returns (int256) {
        return cumulativeIndex + rate * int256(index) * int256(dtSeconds) / int256(3600 * WAD);
    }

    /// size × Δindex / 1e18; paying rounded up, receiving rounded down. > 0: the position pays.
    function pendingFunding(int256 size, int256 deltaIndex) internal pure returns (int256) {
        int256 x = size * deltaIndex;
        if (x > 0) return int256((uint256(x) - 1) / WAD + 1);
        return -int256(uint256(-x) / WAD);
    }

    struct Health {
        uint256 positionValue;
        int256 unrealizedPnl;
        int256 equity;
        uint256 maintenance;
        uint256 marginRatioBps;
        uint256 liquidationPrice;
        uint256 insolvencyPrice;
        bool isLiquidatable;
    }

    function health(int256 size, uint256 openNotional, uint256 margin, int256 pending, uint256 mark, uint256 mmBps)
        internal pure returns (Health memory h)
    {
        if (size == 0) return h;
        uint256 absSize = abs(size);
        h.positionValue = absSize * mark / WAD;
        h.unrealizedPnl = size > 0
            ? int256(h.positionValue) - int256(openNotional)
            : int256(openNotional) - int256(h.positionValue);
        h.equity = int256(margin) + h.unrealizedPnl - pending;
        h.maintenance = h.positionValue * mmBps / BPS;
        h.marginRatioBps = h.equity > 0 && h.positionValue != 0 ? uint256(h.equity) * BPS / h.positionValue : 0;
        h.isLiquidatable = h.equity < int256(h.maintenance);
        int256 e0 = int256(margin) - pending;
        h.liquidationPrice = liquidationPrice(size, openNotional, e0, mmBps);
        h.insolvencyPrice = liquidationPrice(size, openNotional, e0, 0);
    }

    /// The mark at which equity equals maintenance (mmBps = 0: the insolvency price); ≥ 0.
    function liquidationPrice(int256 size, uint256 openNotional, int256 e0, uint256 mmBps) internal pure returns (uint256) {
        uint256 absSize = abs(size);
        int256 num = size > 0 ? int256(openNotional) - e0 : int256(openNotional) + e0;
        if (num <= 0) return 0;
        uint256 den = absSize * (size > 0 ? BPS - mmBps : BPS + mmBps);
        return Math.mulDiv(uint256(num), WAD * BPS, den);
    }
}
