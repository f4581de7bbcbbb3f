// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IMarket} from "../interfaces/IMarket.sol";
import {IVenueErrors} from "../interfaces/IVenueErrors.sol";

/// @notice An order's options in the one word `Market.placeOrder` takes (the engine packs them):
/// time in force (bits 0–7), reduce-only (bit 8), expiry in seconds (bits 16–55), the operator
/// band in bps (bits 64–79; 0 = the owner places it), and bit 128 (`DEFER_RATE`): an item of
/// `Engine.batch`, whose rate update waits for the batch's end (`IMarket.settleRate`).
library OrderOptions {
    uint256 internal constant DEFER_RATE = 1 << 128;

    function pack(IMarket.TimeInForce tif, bool isReduceOnly, uint256 expiry, uint256 band) internal view returns (uint256) {
        if (expiry > type(uint40).max) revert IVenueErrors.InvalidExpiry(expiry, block.timestamp);
        return uint256(tif) | (isReduceOnly ? 1 << 8 : 0) | uint256(uint40(expiry)) << 16 | uint256(uint16(band)) << 64;
    }

    function timeInForce(uint256 options) internal pure returns (uint256) {
        return uint8(options);
    }

    function reduceOnly(uint256 options) internal pure returns (bool) {
        return options >> 8 & 1 == 1;
    }

    function expiresAt(uint256 options) internal pure returns (uint256) {
        return uint40(options >> 16);
    }

    function bandBps(uint256 options) internal pure returns (uint256) {
        return uint16(options >> 64);
    }

    function deferRate(uint256 options) internal pure returns (bool) {
        return options & DEFER_RATE != 0;
    }
}
