// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Vm} from "./Vm.sol";

/// @notice Minimal test base: the cheatcode handle, short assertion helpers, `bound()`, and the
/// target lists forge reads for invariant tests.
abstract contract Test {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    address[] private _targetContracts;
    FuzzSelector[] private _targetSelectors;
    address[] private _targetSenders;

    // ─── invariant targets (forge calls these views) ─────────────────────────────────────
    function targetContracts() public view returns (address[] memory) {
        return _targetContracts;
    }

    function targetSelectors() public view returns (FuzzSelector[] memory) {
        return _targetSelectors;
    }

    function targetSenders() public view returns (address[] memory) {
        return _targetSenders;
    }

    function targetContract(address a) internal {
        _targetContracts.push(a);
    }

    function targetSelector(FuzzSelector memory s) internal {
        _targetSelectors.push(s);
    }

    function targetSender(address a) internal {
        _targetSenders.push(a);
    }

    // ─── fuzz helpers ────────────────────────────────────────────────────────────────────
    /// Maps x into [lo, hi] (inclusive), keeping in-range values as they are so that forge's
    /// dictionary values (edges) still land on the edges.
    function bound(uint256 x, uint256 lo, uint256 hi) internal pure returns (uint256) {
        require(lo <= hi, "bound: lo > hi");
        if (x >= lo && x <= hi) return x;
        uint256 span = hi - lo;
        if (span == type(uint256).max) return x;
        return lo + (x % (span + 1));
    }

    function bound(int256 x, int256 lo, int256 hi) internal pure returns (int256) {
        require(lo <= hi, "bound: lo > hi");
        if (x >= lo && x <= hi) return x;
        uint256 span = uint256(hi - lo);
        uint256 off = uint256(x) % (span + 1);
        return lo + int256(off);
    }

    // ─── assertions ──────────────────────────────────────────────────────────────────────
    function assertTrue(bool c) internal pure { vm.assertTrue(c, ""); }
    function assertTrue(bool c, string memory m) internal pure { vm.assertTrue(c, m); }
    function assertFalse(bool c) internal pure { vm.assertFalse(c, ""); }
    function assertFalse(bool c, string memory m) internal pure { vm.assertFalse(c, m); }
    function assertEq(bool a, bool b) internal pure { vm.assertEq(a, b, ""); }
    function assertEq(bool a, bool b, string memory m) internal pure { vm.assertEq(a, b, m); }
    function assertEq(uint256 a, uint256 b) internal pure { vm.assertEq(a, b, ""); }
    function assertEq(uint256 a, uint256 b, string memory m) internal pure { vm.assertEq(a, b, m); }
    function assertEq(int256 a, int256 b) internal pure { vm.assertEq(a, b, ""); }
    function assertEq(int256 a, int256 b, string memory m) internal pure { vm.assertEq(a, b, m); }
    function assertEq(address a, address b) internal pure { vm.assertEq(a, b, ""); }
    function assertEq(address a, address b, string memory m) internal pure { vm.assertEq(a, b, m); }
    function assertEq(bytes32 a, bytes32 b) internal pure { vm.assertEq(a, b, ""); }
    function assertEq(bytes32 a, bytes32 b, string memory m) internal pure { vm.assertEq(a, b, m); }
    function assertEq(string memory a, string memory b) internal pure { vm.assertEq(a, b, ""); }
    function assertLe(uint256 a, uint256 b) internal pure { vm.assertLe(a, b, ""); }
    function assertLe(uint256 a, uint256 b, string memory m) internal pure { vm.assertLe(a, b, m); }
    function assertLt(uint256 a, uint256 b) internal pure { vm.assertLt(a, b, ""); }
    function assertLt(uint256 a, uint256 b, string memory m) internal pure { vm.assertLt(a, b, m); }
    function assertGe(uint256 a, uint256 b) internal pure { vm.assertGe(a, b, ""); }
    function assertGe(uint256 a, uint256 b, string memory m) internal pure { vm.assertGe(a, b, m); }
    function assertGt(uint256 a, uint256 b) internal pure { vm.assertGt(a, b, ""); }
    function assertGt(uint256 a, uint256 b, string memory m) internal pure { vm.assertGt(a, b, m); }
    function assertLt(int256 a, int256 b) internal pure { vm.assertLt(a, b, ""); }
    function assertGt(int256 a, int256 b) internal pure { vm.assertGt(a, b, ""); }
    function assertLe(int256 a, int256 b) internal pure { vm.assertLe(a, b, ""); }
    function assertGe(int256 a, int256 b) internal pure { vm.assertGe(a, b, ""); }
    function assertLt(int256 a, int256 b, string memory m) internal pure { vm.assertLt(a, b, m); }
    function assertGt(int256 a, int256 b, string memory m) internal pure { vm.assertGt(a, b, m); }
    function assertLe(int256 a, int256 b, string memory m) internal pure { vm.assertLe(a, b, m); }
    function assertGe(int256 a, int256 b, string memory m) internal pure { vm.assertGe(a, b, m); }
    function assertApproxEqAbs(uint256 a, uint256 b, uint256 d, string memory m) internal pure {
        vm.assertApproxEqAbs(a, b, d, m);
    }
    function assertApproxEqAbs(int256 a, int256 b, uint256 d, string memory m) internal pure {
        vm.assertApproxEqAbs(a, b, d, m);
    }
}
