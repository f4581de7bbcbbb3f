// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture, IMarginAccount} from "../utils/VenueFixture.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

contract EngineCreateAccountTest is VenueFixture {
    function test_createAccount_assignsIdsFromOne() public {
        (uint256 a,) = engine.createAccount(alice);
        (uint256 b,) = engine.createAccount(bob);
        assertEq(a, 1);
        assertEq(b, 2);
        assertEq(engine.accountCount(), 2);
        assertEq(engine.accountIdOf(alice), 1);
        assertEq(engine.accountIdOf(bob), 2);
        assertEq(engine.accountIdOf(carol), 0);
    }

    function test_createAccount_anyoneMayCreateForAWallet() public {
        vm.prank(stranger);
        (uint256 id,) = engine.createAccount(alice);
        IEngine.AccountView memory v = engine.getAccount(id);
        assertEq(v.owner, alice, "owner is the wallet, not the caller");
        assertEq(v.totalWad, 0);
        assertEq(v.availableWad, 0);
        assertEq(v.committedWad, 0);
    }

    function test_createAccount_deploysCloneCarryingItsArgs() public {
        (uint256 id, address accountAddress) = engine.createAccount(alice);
        assertGt(accountAddress.code.length, 0, "clone has code");
        (address e, uint256 aid, address owner) = IMarginAccount(accountAddress).info();
        assertEq(e, address(engine));
        assertEq(aid, id);
        assertEq(owner, alice);
        assertEq(engine.getAccount(id).accountAddress, accountAddress);
    }

    function test_createAccount_emitsAccountCreated() public {
        uint64 seq = _nextSeq(address(engine));
        address predicted = _predictAccountAddress(alice);
        vm.expectEmit(true, true, true, true, address(engine));
        emit IEngine.AccountCreated(seq, 1, alice, predicted);
        (, address accountAddress) = engine.createAccount(alice);
        assertEq(accountAddress, predicted);
    }

    /// CREATE2 with salt = owner: the address does not depend on who creates it or when.
    function _predictAccountAddress(address owner) internal returns (address a) {
        uint256 snap = vm.snapshotState();
        vm.prank(stranger);
        (, a) = engine.createAccount(owner);
        vm.revertToState(snap);
    }

    function test_createAccount_revertsAccountExists() public {
        engine.createAccount(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.AccountExists.selector, alice, uint256(1)));
        engine.createAccount(alice);
    }

    function test_getAccount_revertsAccountNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.AccountNotFound.selector, uint256(7)));
        engine.getAccount(7);
    }

}
