// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IOracle} from "./interfaces/IOracle.sol";

/// @notice Index prices (X18) per market, pushed by updaters; stale after `maxAgeSeconds`.
contract Oracle is IOracle, Ownable {
    struct Price {
        uint192 priceX18;
        uint64 updatedAt;
    }

    uint256 public immutable maxAgeSeconds;
    uint64 internal seq;
    mapping(bytes32 => Price) internal prices;
    mapping(address => bool) public isUpdater;

    constructor(address owner_, uint256 maxAgeSeconds_) Ownable(owner_) {
        maxAgeSeconds = maxAgeSeconds_;
        isUpdater[owner_] = true;
        emit UpdaterSet(owner_, true);
    }

    function setUpdater(address updater, bool allowed) external onlyOwner {
        isUpdater[updater] = allowed;
        emit UpdaterSet(updater, allowed);
    }

    function setPrice(bytes32 marketId, uint256 priceX18) public {
        if (!isUpdater[msg.sender]) revert Unauthorized(msg.sender);
        if (priceX18 == 0 || priceX18 > type(uint192).max) revert InvalidPrice(priceX18);
        prices[marketId] = Price(uint192(priceX18), uint64(block.timestamp));
        emit IndexPriceUpdated(++seq, marketId, priceX18, block.timestamp);
    }

    function setPrices(bytes32[] calldata marketIds, uint256[] calldata pricesX18) external {
        if (marketIds.length != pricesX18.length) revert InvalidParameters();
        for (uint256 i; i < marketIds.length; ++i) setPrice(marketIds[i], pricesX18[i]);
    }

    function getPrice(bytes32 marketId) external view returns (uint256 priceX18, uint256 updatedAt) {
        Price memory p = prices[marketId];
        return (p.priceX18, p.updatedAt);
    }

    function getFreshPrice(bytes32 marketId) external view returns (uint256) {
        Price memory p = prices[marketId];
        if (p.updatedAt == 0 || block.timestamp - p.updatedAt > maxAgeSeconds) {
            revert PriceStale(marketId, p.updatedAt, maxAgeSeconds);
        }
        return p.priceX18;
    }
}
