// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {openPolicy, approvalStructHash} from "../utils/OperatorPolicies.sol";

contract EngineWithdrawTest is VenueFixture {
    uint256 internal id;

    function setUp() public override {
        super.setUp();
        id = _account(alice, 500e6);
    }

    function test_withdraw_paysOwnerAndDebitsAvailable() public {
        vm.prank(alice);
        engine.withdraw(id, 200e6);
        assertEq(token.balanceOf(alice), 200e6);
        assertEq(engine.getAccount(id).availableWad, 300e18);
        assertEq(token.balanceOf(address(engine)), 300e6);
        _checkSolvency();
    }

    function test_withdraw_emitsMarginUpdated() public {
        uint64 seq = _nextSeq(address(engine));
        vm.expectEmit(true, true, true, true, address(engine));
        emit IEngine.MarginUpdated(seq, id, bytes32(0), IEngine.MarginReason.WITHDRAW, -200e18, 0, 200e6, 300e18, 0);
        vm.prank(alice);
        engine.withdraw(id, 200e6);
    }

    function test_withdraw_byOperatorStillPaysOwner() public {
        vm.prank(alice);
        engine.setOperator(bob, uint64(block.timestamp + 1 days), openPolicy());
        vm.prank(bob);
        engine.withdraw(id, 50e6);
        assertEq(token.balanceOf(alice), 50e6, "owner paid");
        assertEq(token.balanceOf(bob), 0, "operator never paid");
    }

    function test_withdraw_wholeBalance() public {
        vm.prank(alice);
        engine.withdraw(id, 500e6);
        assertEq(engine.getAccount(id).totalWad, 0);
        assertEq(token.balanceOf(address(engine)), 0);
    }

    function test_withdraw_revertsInsufficientMargin() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InsufficientMargin.selector, uint256(500e18), uint256(501e18)));
        engine.withdraw(id, 501e6);
    }

    function test_withdraw_revertsInsufficientMarginWhenCommitted() public {
        _limit(alice, id, LONG, 400e6, 10, 1.07e18);
        vm.prank(alice);
        // the resting order's margin and its bond are committed
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InsufficientMargin.selector, 100e18 - ORDER_BOND_WAD, uint256(101e18)));
        engine.withdraw(id, 101e6);
    }

    function test_withdraw_revertsInvalidAmountOnZero() public {
        vm.prank(alice);
        vm.expectRevert(IVenueErrors.InvalidAmount.selector);
        engine.withdraw(id, 0);
    }

    function test_withdraw_revertsOperatorNotApproved() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        engine.withdraw(id, 1e6);
    }

    function test_withdraw_revertsAccountNotFound() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.AccountNotFound.selector, uint256(42)));
        engine.withdraw(42, 1e6);
    }
}
