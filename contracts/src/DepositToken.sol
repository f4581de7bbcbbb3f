// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice The venue's 6-decimal stablecoin (a test token: its owner mints on local chains).
contract DepositToken is ERC20, Ownable {
    constructor(address owner_) ERC20("Venue USD", "USDV") Ownable(owner_) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount6) external onlyOwner {
        _mint(to, amount6);
    }
}
