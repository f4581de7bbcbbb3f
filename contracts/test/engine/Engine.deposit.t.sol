// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {openPolicy, approvalStructHash} from "../utils/OperatorPolicies.sol";

contract EngineDepositTest is VenueFixture {
    uint256 internal id;

    function setUp() public override {
        super.setUp();
        (id,) = engine.createAccount(alice);
        token.mint(alice, 1_000e6);
    }

    function test_deposit_creditsAvailableInWad() public {
        vm.prank(alice);
        token.approve(address(engine), 250e6);
        vm.prank(alice);
        engine.deposit(id, 250e6);
        IEngine.AccountView memory v = engine.getAccount(id);
        assertEq(v.availableWad, 250e18);
        assertEq(v.committedWad, 0);
        assertEq(v.totalWad, 250e18);
        assertEq(token.balanceOf(address(engine)), 250e6);
        assertEq(token.balanceOf(alice), 750e6);
        _checkSolvency();
    }

    function test_deposit_emitsMarginUpdated() public {
        vm.prank(alice);
        token.approve(address(engine), 250e6);
        uint64 seq = _nextSeq(address(engine));
        vm.expectEmit(true, true, true, true, address(engine));
        emit IEngine.MarginUpdated(seq, id, bytes32(0), IEngine.MarginReason.DEPOSIT, 250e18, 0, 250e6, 250e18, 0);
        vm.prank(alice);
        engine.deposit(id, 250e6);
    }

    function test_deposit_operatorPullsOwnersTokens() public {
        vm.prank(alice);
        engine.setOperator(bob, uint64(block.timestamp + 1 days), openPolicy());
        vm.prank(alice);
        token.approve(address(engine), 100e6);
        token.mint(bob, 500e6);
        vm.prank(bob);
        engine.deposit(id, 100e6);
        assertEq(token.balanceOf(alice), 900e6, "pulled from the owner");
        assertEq(token.balanceOf(bob), 500e6, "operator's tokens untouched");
        assertEq(engine.getAccount(id).availableWad, 100e18);
    }

    function test_deposit_revertsInvalidAmountOnZero() public {
        vm.prank(alice);
        vm.expectRevert(IVenueErrors.InvalidAmount.selector);
        engine.deposit(id, 0);
    }

    function test_deposit_revertsInsufficientBalance() public {
        vm.prank(alice);
        token.approve(address(engine), type(uint256).max);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InsufficientBalance.selector, uint256(1_000e6), uint256(1_001e6)));
        engine.deposit(id, 1_001e6);
    }

    function test_deposit_revertsInsufficientAllowance() public {
        vm.prank(alice);
        token.approve(address(engine), 10e6);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InsufficientAllowance.selector, uint256(10e6), uint256(11e6)));
        engine.deposit(id, 11e6);
    }

    function test_deposit_revertsAccountNotFound() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.AccountNotFound.selector, uint256(99)));
        engine.deposit(99, 1e6);
    }

    function test_deposit_revertsOperatorNotApprovedForStranger() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, stranger));
        engine.deposit(id, 1e6);
    }

    function test_deposit_revertsOperatorNotApprovedAfterExpiry() public {
        vm.prank(alice);
        engine.setOperator(bob, uint64(block.timestamp + 100), openPolicy());
        vm.prank(alice);
        token.approve(address(engine), 2e6);
        vm.prank(bob);
        engine.deposit(id, 1e6);
        vm.warp(block.timestamp + 100);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, bob));
        engine.deposit(id, 1e6);
    }
}
