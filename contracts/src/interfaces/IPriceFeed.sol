// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice The adapter seam: one external price source for one market, read by the Oracle when
/// `Oracle.setFeed(marketId, feed)` routes the market to it (instead of pushed prices).
/// Adapters never revert on bad data: they answer (0, 0), which the Oracle reports as stale.
interface IPriceFeed {
    /// Price with 18 decimals (USD per base unit) and the second it was observed.
    function latestPrice() external view returns (uint256 priceX18, uint256 updatedAt);
}
