// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";

/// @notice The on-chain address of a margin account: a minimal clone created by the Engine at a
/// CREATE2 address derived from the owner, carrying (engine, accountId, owner) as immutable
/// args. It holds nothing; the Engine keeps the margin.
contract MarginAccount {
    function info() external view returns (address engine, uint256 accountId, address owner) {
        return abi.decode(Clones.fetchCloneArgs(address(this)), (address, uint256, address));
    }
}
