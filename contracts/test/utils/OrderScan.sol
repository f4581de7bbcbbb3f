// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IMarket} from "../../src/interfaces/IMarket.sol";

/// @notice The orders a market's storage holds, for tests' checks: orders live in reused slots
/// (docs/CONTRACTS.md "Order ids and slots"), so every resting order is found by its slot, and a
/// closed one until its slot is reused.
library OrderScan {
    /// The id of the market's k-th order held in `slot`.
    function id(IMarket m, uint256 k, uint256 slot) internal view returns (uint256) {
        return m.marketIndex() << 64 | k << 24 | slot;
    }

    /// The ids the market's slots hold, in slot order (every resting order among them).
    function ids(IMarket m) internal view returns (uint256[] memory out) {
        uint256 n = m.orderSlots();
        out = new uint256[](n);
        for (uint256 s = 1; s <= n; ++s) out[s - 1] = m.orderIdAt(s);
    }

    /// The ids the market's slots hold, newest first.
    function newestFirst(IMarket m) internal view returns (uint256[] memory out) {
        out = ids(m);
        // insertion sort, descending (ids grow with each order)
        for (uint256 i = 1; i < out.length; ++i) {
            uint256 v = out[i];
            uint256 j = i;
            for (; j > 0 && out[j - 1] < v; --j) out[j] = out[j - 1];
            out[j] = v;
        }
    }
}
