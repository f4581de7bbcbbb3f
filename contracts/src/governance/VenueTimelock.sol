// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {TimelockController} from "@openzeppelin/contracts/governance/TimelockController.sol";

/// @notice OpenZeppelin's TimelockController, deployed as the holder of DEFAULT_ADMIN_ROLE and
/// PARAMS_ROLE on the Oracle and the MarketFactory: adding an updater, changing the staleness
/// bound, the price-move bound, a price feed or creating a market is scheduled and runs after
/// `getMinDelay()` seconds (devnet 3600). `admin` 0 makes the timelock its own admin.
contract VenueTimelock is TimelockController {
    constructor(uint256 minDelay, address[] memory proposers, address[] memory executors, address admin)
        TimelockController(minDelay, proposers, executors, admin)
    {}
}
