// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IVenueErrors} from "./IVenueErrors.sol";

/// @notice Index prices per market, pushed by role-gated updaters; reads carry their age.
interface IOracle is IVenueErrors {
    event IndexPriceUpdated(uint64 seq, bytes32 indexed marketId, uint256 priceX18, uint256 timestamp);
    event UpdaterSet(address indexed updater, bool allowed);

    function setPrice(bytes32 marketId, uint256 priceX18) external;
    function setPrices(bytes32[] calldata marketIds, uint256[] calldata pricesX18) external;
    function setUpdater(address updater, bool allowed) external;

    /// Price and the second it was set; (0, 0) if never set.
    function getPrice(bytes32 marketId) external view returns (uint256 priceX18, uint256 updatedAt);
    /// Reverts PriceStale when never set or older than maxAgeSeconds.
    function getFreshPrice(bytes32 marketId) external view returns (uint256 priceX18);
    function maxAgeSeconds() external view returns (uint256);
    function isUpdater(address who) external view returns (bool);
}
