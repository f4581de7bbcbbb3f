// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IPriceFeed} from "../interfaces/IPriceFeed.sol";

/// @notice The part of Chainlink's AggregatorV3Interface the adapter reads.
interface IChainlinkAggregator {
    function decimals() external view returns (uint8);
    function latestRoundData()
        external view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
}

/// @notice Serves one Chainlink-style aggregator as an IPriceFeed (18 decimals). Route a market to
/// it with `Oracle.setFeed(marketId, adapter)` (PARAMS_ROLE, behind the timelock); the Oracle's
/// staleness bound then applies to the aggregator's `updatedAt`. A non-positive answer, an
/// unfinished round or a reverting aggregator read as (0, 0): the market sees a stale price.
contract ChainlinkFeedAdapter is IPriceFeed {
    IChainlinkAggregator public immutable aggregator;
    uint256 internal immutable scaleUp;   // 10^(18 - decimals) when decimals <= 18
    uint256 internal immutable scaleDown; // 10^(decimals - 18) when decimals > 18

    constructor(address aggregator_) {
        aggregator = IChainlinkAggregator(aggregator_);
        uint8 d = aggregator.decimals();
        if (d > 36) revert UnsupportedDecimals(d);
        scaleUp = d <= 18 ? 10 ** (18 - uint256(d)) : 1;
        scaleDown = d > 18 ? 10 ** (uint256(d) - 18) : 1;
    }

    error UnsupportedDecimals(uint8 decimals);

    function latestPrice() external view returns (uint256 priceX18, uint256 updatedAt) {
        try aggregator.latestRoundData() returns (uint80 roundId, int256 answer, uint256, uint256 at, uint80 answeredInRound) {
            if (answer <= 0 || at == 0 || answeredInRound < roundId) return (0, 0);
            uint256 px = uint256(answer);
            if (px > type(uint256).max / scaleUp) return (0, 0);
            return (px * scaleUp / scaleDown, at);
        } catch {
            return (0, 0);
        }
    }
}
