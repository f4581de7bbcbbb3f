// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IPriceFeed} from "../interfaces/IPriceFeed.sol";

/// @notice The part of Pyth's IPyth the adapter reads (pull oracle: someone posts the update
/// data with `updatePriceFeeds` first; the keeper would, outside the local profile).
interface IPythLike {
    struct Price {
        int64 price;
        uint64 conf;
        int32 expo;
        uint256 publishTime;
    }

    function getPriceUnsafe(bytes32 id) external view returns (Price memory);
}

/// @notice Serves one Pyth price id as an IPriceFeed (18 decimals). Staleness is the Oracle's
/// (`publishTime` is the observation time); a non-positive price, a confidence interval wider
/// than `maxConfBps` of the price, or a reverting Pyth contract read as (0, 0): stale.
contract PythFeedAdapter is IPriceFeed {
    IPythLike public immutable pyth;
    bytes32 public immutable priceId;
    uint256 public immutable maxConfBps;

    constructor(address pyth_, bytes32 priceId_, uint256 maxConfBps_) {
        (pyth, priceId, maxConfBps) = (IPythLike(pyth_), priceId_, maxConfBps_);
    }

    function latestPrice() external view returns (uint256 priceX18, uint256 updatedAt) {
        try pyth.getPriceUnsafe(priceId) returns (IPythLike.Price memory p) {
            if (p.price <= 0 || p.publishTime == 0 || p.expo < -36 || p.expo > 18) return (0, 0);
            uint256 px = uint256(uint64(p.price));
            if (uint256(p.conf) * 1e4 > px * maxConfBps) return (0, 0);
            int256 shift = int256(p.expo) + 18; // in [-18, 36]
            priceX18 = shift >= 0 ? px * 10 ** uint256(shift) : px / 10 ** uint256(-shift);
            return priceX18 == 0 ? (0, 0) : (priceX18, p.publishTime);
        } catch {
            return (0, 0);
        }
    }
}
