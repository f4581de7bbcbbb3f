// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "./utils/Test.sol";

contract Counter {
    uint256 public n;
    function inc(uint256 by) external { n += by % 10; }
}

contract HarnessTest is Test {
    Counter c;
    function setUp() public {
        c = new Counter();
        targetContract(address(c));
    }
    function test_harness_warpAndExpectRevert() public {
        vm.warp(1000);
        assertEq(block.timestamp, 1000);
        vm.expectRevert(bytes("bound: lo > hi"));
        this.boundExt(1, 2, 1);
    }
    function boundExt(uint256 x, uint256 a, uint256 b) external pure returns (uint256) { return bound(x, a, b); }
    function test_fuzz_bound_staysInRange(uint256 x) public pure {
        uint256 y = bound(x, 5, 10);
        assertGe(y, 5); assertLe(y, 10);
    }
    function invariant_counterSmall() public view { assertLe(c.n(), type(uint128).max); }
}
