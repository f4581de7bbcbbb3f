// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IMarket} from "../interfaces/IMarket.sol";

/// @notice A market's numeric parameters, which never change, in the market's own code: each
/// market is a copy of the Market implementation's runtime code with these args at `OFFSET`
/// (MarketFactory `_deploy`; zeros between), one 32-byte word each, in the order below; so are its
/// engine, oracle, id and index. Reading one costs an EXTCODECOPY of the market's own (warm) code,
/// about 120 gas, where a cold storage slot costs 2,100: the trading path reads fourteen of them.
library MarketArgs {
    uint256 internal constant TICK_SIZE = 0;
    uint256 internal constant LOT_SIZE = 1;
    uint256 internal constant MIN_ORDER = 2;
    uint256 internal constant MAX_LEVERAGE = 3;
    uint256 internal constant MAINTENANCE_BPS = 4;
    uint256 internal constant LIQUIDATION_FEE_BPS = 5;
    uint256 internal constant MAKER_FEE_BPS = 6;
    uint256 internal constant TAKER_FEE_BPS = 7;
    uint256 internal constant PRICE_BAND_BPS = 8;
    uint256 internal constant MARK_CLAMP_BPS = 9;
    uint256 internal constant MAX_FILLS = 10;
    uint256 internal constant MAX_FUNDING_RATE = 11;
    uint256 internal constant SKEW_SCALE = 12;
    uint256 internal constant OPERATOR_BAND_BPS = 13;
    uint256 internal constant MAX_OPEN_INTEREST = 14;
    uint256 internal constant MAX_POSITION = 15;
    /// and who the market is: its engine and oracle, its id and its index (order ids' high bits)
    uint256 internal constant ENGINE = 16;
    uint256 internal constant ORACLE = 17;
    uint256 internal constant MARKET_ID = 18;
    uint256 internal constant MARKET_INDEX = 19;
    uint256 internal constant COUNT = 20;
    /// Where the args start in a market's code: they end at EIP-170's limit (24,576 bytes), so the
    /// implementation's runtime code must fit below (MarketFactory checks it).
    uint256 internal constant OFFSET = 23_936; // 24,576 − COUNT × 32 (assembly takes a number)

    /// The args of a market (`COUNT` words).
    function encode(IMarket.MarketParams memory p, address engine, address oracle, uint256 marketIndex)
        internal pure returns (bytes memory)
    {
        return bytes.concat(
            abi.encode(p.tickSizeX18, p.lotSizeQty, p.minOrderQty, p.maxLeverage, p.maintenanceMarginBps, p.liquidationFeeBps, p.makerFeeBps, p.takerFeeBps),
            abi.encode(
                p.priceBandBps, p.markClampBps, p.maxFillsPerTx, p.maxFundingRateX18PerHour, p.skewScaleX18PerHour, p.operatorBandBps,
                p.maxOpenInterestQty, p.maxPositionQty
            ),
            abi.encode(engine, oracle, p.marketId, marketIndex)
        );
    }

    /// Word `i` of the running market's args (called in the market's own context: Market, and
    /// MarketExtension / MarketBackstop / MarketOrders by delegatecall).
    function get(uint256 i) internal view returns (uint256 v) {
        assembly ("memory-safe") {
            extcodecopy(address(), 0x00, add(OFFSET, shl(5, i)), 0x20)
            v := mload(0x00)
        }
    }

    /// The numbers of `p` from the running market's args (the rest of `p` as given).
    function fill(IMarket.MarketParams memory p) internal view {
        p.tickSizeX18 = get(TICK_SIZE);
        p.lotSizeQty = get(LOT_SIZE);
        p.minOrderQty = get(MIN_ORDER);
        p.maxLeverage = uint16(get(MAX_LEVERAGE));
        p.maintenanceMarginBps = uint16(get(MAINTENANCE_BPS));
        p.liquidationFeeBps = uint16(get(LIQUIDATION_FEE_BPS));
        p.makerFeeBps = uint16(get(MAKER_FEE_BPS));
        p.takerFeeBps = uint16(get(TAKER_FEE_BPS));
        p.priceBandBps = uint16(get(PRICE_BAND_BPS));
        p.markClampBps = uint16(get(MARK_CLAMP_BPS));
        p.maxFillsPerTx = uint16(get(MAX_FILLS));
        p.maxFundingRateX18PerHour = get(MAX_FUNDING_RATE);
        p.skewScaleX18PerHour = get(SKEW_SCALE);
        p.operatorBandBps = uint16(get(OPERATOR_BAND_BPS));
        p.maxOpenInterestQty = get(MAX_OPEN_INTEREST);
        p.maxPositionQty = get(MAX_POSITION);
    }
}
