// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IEngine} from "../../src/interfaces/IEngine.sol";

/// A policy that leaves an operator as free as before policies existed (tests about something
/// else): any leverage the market allows, the market's operator band, a budget of the whole
/// account per 24 h.
function openPolicy() pure returns (IEngine.OperatorPolicy memory) {
    return IEngine.OperatorPolicy(type(uint16).max, 10_000, 10_000);
}

/// The EIP-712 struct hash of Engine's OperatorApproval.
function approvalStructHash(
    bytes32 typehash, address owner, address operator, uint64 expiry, IEngine.OperatorPolicy memory p, uint256 nonce,
    uint256 deadline
) pure returns (bytes32) {
    return keccak256(abi.encode(typehash, owner, operator, expiry, p.maxLeverage, p.bandBps, p.budgetBps, nonce, deadline));
}
