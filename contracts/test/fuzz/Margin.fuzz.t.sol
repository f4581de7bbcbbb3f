// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Deposits and withdrawals: exact WAD accounting and token round trips.
contract MarginFuzzTest is VenueFixture {
    uint256 internal a;

    function setUp() public override {
        super.setUp();
        (a,) = engine.createAccount(alice);
    }

    function test_fuzz_depositWithdraw_roundTrip(uint256 dep, uint256 wd) public {
        dep = bound(dep, 1, 1e15); // up to a billion USDV
        wd = bound(wd, 1, dep);
        _fund(alice, a, dep);
        assertEq(_acct(a).availableWad, dep * TO_WAD);
        vm.prank(alice);
        engine.withdraw(a, wd);
        assertEq(_acct(a).availableWad, (dep - wd) * TO_WAD);
        assertEq(token.balanceOf(alice), wd);
        assertEq(token.balanceOf(address(engine)), dep - wd);
        _checkSolvency();
        if (dep > wd) {
            vm.prank(alice);
            engine.withdraw(a, dep - wd);
        }
        assertEq(_acct(a).totalWad, 0);
        assertEq(token.balanceOf(alice), dep, "every unit back");
    }

    function test_fuzz_withdraw_beyondAvailableReverts(uint256 dep, uint256 extra) public {
        dep = bound(dep, 1, 1e15);
        extra = bound(extra, 1, 1e15);
        _fund(alice, a, dep);
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(IVenueErrors.InsufficientMargin.selector, dep * TO_WAD, (dep + extra) * TO_WAD)
        );
        engine.withdraw(a, dep + extra);
    }

    function test_fuzz_orderCommitAndCancel_restoresAvailable(uint256 dep, uint256 coll6, uint256 lev) public {
        dep = bound(dep, 10e6, 1e12);
        coll6 = bound(coll6, 1e6, dep - 1e6); // a resting order also commits its bond
        lev = bound(lev, 1, 50);
        vm.assume(_qty(coll6, lev, 1.07e18) >= MIN_QTY);
        _fund(alice, a, dep);
        uint256 oid = _limit(alice, a, LONG, coll6, lev, 1.07e18);
        assertEq(_acct(a).availableWad, (dep - coll6) * TO_WAD - ORDER_BOND_WAD);
        assertEq(_acct(a).committedWad, coll6 * TO_WAD + ORDER_BOND_WAD);
        bytes32 key = _keyOf(oid);
        vm.prank(alice);
        engine.cancelOrder(a, EUR, key);
        assertEq(_acct(a).availableWad, dep * TO_WAD);
        assertEq(_acct(a).committedWad, 0);
        _checkSolvency();
    }
}
