// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

contract EngineOperatorsTest is VenueFixture {
    uint256 internal id;
    uint64 internal expiry;

    function setUp() public override {
        super.setUp();
        id = _account(alice, 100e6);
        expiry = uint64(block.timestamp + 30 days);
    }

    /// docs/CONTRACTS.md: name "VenueEngine", version "1", chainId, verifyingContract = engine.
    function _digest(address owner, address operator, uint64 exp, uint256 nonce, uint256 deadline)
        internal
        view
        returns (bytes32)
    {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("VenueEngine"),
                keccak256("1"),
                block.chainid,
                address(engine)
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(engine.OPERATOR_APPROVAL_TYPEHASH(), owner, operator, exp, nonce, deadline)
        );
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }

    function _sig(uint256 pk, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(pk, digest);
        return abi.encodePacked(r, s, v);
    }

    function test_typehash_matchesDocs() public view {
        assertEq(
            engine.OPERATOR_APPROVAL_TYPEHASH(),
            keccak256("OperatorApproval(address owner,address operator,uint64 expiry,uint256 nonce,uint256 deadline)")
        );
    }

    function test_setOperator_approvesUntilExpiry() public {
        uint64 seq = _nextSeq(address(engine));
        vm.expectEmit(true, true, true, true, address(engine));
        emit IEngine.OperatorSet(seq, alice, bob, expiry, false);
        vm.prank(alice);
        engine.setOperator(bob, expiry);
        assertEq(engine.operatorExpiry(alice, bob), expiry);
        assertTrue(engine.isAuthorized(id, bob));
        assertTrue(engine.isAuthorized(id, alice), "owner always");
        vm.warp(expiry);
        assertFalse(engine.isAuthorized(id, bob), "expired at expiry");
    }

    function test_setOperator_zeroExpiryRevokes() public {
        vm.prank(alice);
        engine.setOperator(bob, expiry);
        vm.prank(alice);
        engine.setOperator(bob, 0);
        assertFalse(engine.isAuthorized(id, bob));
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, bob));
        engine.withdraw(id, 1e6);
    }

    function test_setOperatorWithSig_anyoneSubmits() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, 0, deadline));
        uint64 seq = _nextSeq(address(engine));
        vm.expectEmit(true, true, true, true, address(engine));
        emit IEngine.OperatorSet(seq, alice, bob, expiry, true);
        vm.prank(stranger);
        engine.setOperatorWithSig(alice, bob, expiry, deadline, sig);
        assertEq(engine.operatorExpiry(alice, bob), expiry);
        assertEq(engine.operatorNonce(alice), 1);
        // the operator now trades for the account
        vm.prank(bob);
        engine.placeOrder(_params(id, EUR, LONG, LMT, 10e6, 5, 1.075e18, bytes32(0))); // within the operator band
        assertEq(engine.getAccount(id).committedWad, 10e18);
    }

    function test_setOperatorWithSig_revertsInvalidSignatureForBadSigner() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(BOB_PK, _digest(alice, bob, expiry, 0, deadline));
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, deadline, sig);
    }

    function test_setOperatorWithSig_revertsInvalidSignatureForTamperedExpiry() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, 0, deadline));
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry + 1, deadline, sig);
    }

    function test_setOperatorWithSig_revertsInvalidSignatureAfterDeadline() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, 0, deadline));
        vm.warp(deadline + 1);
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, deadline, sig);
    }

    function test_setOperatorWithSig_revertsInvalidSignatureOnReusedNonce() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, 0, deadline));
        engine.setOperatorWithSig(alice, bob, expiry, deadline, sig);
        // the owner revokes; replaying the old approval must not restore it
        vm.prank(alice);
        engine.setOperator(bob, 0);
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, deadline, sig);
        assertEq(engine.operatorExpiry(alice, bob), 0);
    }

    function test_operator_cannotWithdrawToItself() public {
        vm.prank(alice);
        engine.setOperator(bob, expiry);
        vm.prank(bob);
        engine.withdraw(id, 10e6);
        assertEq(token.balanceOf(bob), 0);
        assertEq(token.balanceOf(alice), 10e6);
    }

    function test_operator_ofOneOwnerIsNotOperatorOfAnother() public {
        uint256 bobId = _account(bob, 10e6);
        vm.prank(alice);
        engine.setOperator(carol, expiry);
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, bob, carol));
        engine.withdraw(bobId, 1e6);
    }

    /// Revoking an operator voids an approval signed earlier and not yet used.
    function test_setOperator_bumpsNonceVoidingUnusedSignatures() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, engine.operatorNonce(alice), deadline));
        vm.prank(alice);
        engine.setOperator(bob, 0);
        assertEq(engine.operatorNonce(alice), 1);
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, deadline, sig);
        assertFalse(engine.isAuthorized(id, bob));
    }

    function test_invalidateNonces_voidsEverySignatureBelow() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, 3, deadline));
        vm.prank(alice);
        engine.invalidateNonces(5);
        assertEq(engine.operatorNonce(alice), 5);
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, deadline, sig);
        vm.prank(alice);
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        engine.invalidateNonces(5); // never backwards
    }
}
