// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {openPolicy, approvalStructHash} from "../utils/OperatorPolicies.sol";

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
        bytes32 structHash = approvalStructHash(engine.OPERATOR_APPROVAL_TYPEHASH(), owner, operator, exp, openPolicy(), nonce, deadline);
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }

    function _sig(uint256 pk, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(pk, digest);
        return abi.encodePacked(r, s, v);
    }

    function test_typehash_matchesDocs() public view {
        assertEq(
            engine.OPERATOR_APPROVAL_TYPEHASH(),
            keccak256(
                "OperatorApproval(address owner,address operator,uint64 expiry,uint16 maxLeverage,uint16 bandBps,uint16 budgetBps,uint256 nonce,uint256 deadline)"
            )
        );
    }

    function test_setOperator_approvesUntilExpiry() public {
        uint64 seq = _nextSeq(address(engine));
        vm.expectEmit(true, true, true, true, address(engine));
        emit IEngine.OperatorSet(seq, alice, bob, expiry, type(uint16).max, 10_000, 10_000, false);
        vm.prank(alice);
        engine.setOperator(bob, expiry, openPolicy());
        assertEq(engine.operatorExpiry(alice, bob), expiry);
        assertTrue(engine.isAuthorized(id, bob));
        assertTrue(engine.isAuthorized(id, alice), "owner always");
        vm.warp(expiry);
        assertFalse(engine.isAuthorized(id, bob), "expired at expiry");
    }

    function test_setOperator_zeroExpiryRevokes() public {
        vm.prank(alice);
        engine.setOperator(bob, expiry, openPolicy());
        vm.prank(alice);
        engine.setOperator(bob, 0, openPolicy());
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
        emit IEngine.OperatorSet(seq, alice, bob, expiry, type(uint16).max, 10_000, 10_000, true);
        vm.prank(stranger);
        engine.setOperatorWithSig(alice, bob, expiry, openPolicy(), deadline, sig);
        assertEq(engine.operatorExpiry(alice, bob), expiry);
        assertEq(engine.operatorNonce(alice), 1);
        // the operator now trades for the account
        vm.prank(bob);
        engine.placeOrder(_params(id, EUR, LONG, LMT, 10e6, 5, 1.075e18, bytes32(0))); // within the operator band
        assertEq(engine.getAccount(id).committedWad, 10e18 + ORDER_BOND_WAD); // margin and bond
    }

    function test_setOperatorWithSig_revertsInvalidSignatureForBadSigner() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(BOB_PK, _digest(alice, bob, expiry, 0, deadline));
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, openPolicy(), deadline, sig);
    }

    function test_setOperatorWithSig_revertsInvalidSignatureForTamperedExpiry() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, 0, deadline));
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry + 1, openPolicy(), deadline, sig);
    }

    function test_setOperatorWithSig_revertsInvalidSignatureAfterDeadline() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, 0, deadline));
        vm.warp(deadline + 1);
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, openPolicy(), deadline, sig);
    }

    function test_setOperatorWithSig_revertsInvalidSignatureOnReusedNonce() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, 0, deadline));
        engine.setOperatorWithSig(alice, bob, expiry, openPolicy(), deadline, sig);
        // the owner revokes; replaying the old approval must not restore it
        vm.prank(alice);
        engine.setOperator(bob, 0, openPolicy());
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, openPolicy(), deadline, sig);
        assertEq(engine.operatorExpiry(alice, bob), 0);
    }

    function test_operator_cannotWithdrawToItself() public {
        vm.prank(alice);
        engine.setOperator(bob, expiry, openPolicy());
        vm.prank(bob);
        engine.withdraw(id, 10e6);
        assertEq(token.balanceOf(bob), 0);
        assertEq(token.balanceOf(alice), 10e6);
    }

    function test_operator_ofOneOwnerIsNotOperatorOfAnother() public {
        uint256 bobId = _account(bob, 10e6);
        vm.prank(alice);
        engine.setOperator(carol, expiry, openPolicy());
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, bob, carol));
        engine.withdraw(bobId, 1e6);
    }

    /// Revoking an operator voids an approval signed earlier and not yet used.
    function test_setOperator_bumpsNonceVoidingUnusedSignatures() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, engine.operatorNonce(alice), deadline));
        vm.prank(alice);
        engine.setOperator(bob, 0, openPolicy());
        assertEq(engine.operatorNonce(alice), 1);
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, openPolicy(), deadline, sig);
        assertFalse(engine.isAuthorized(id, bob));
    }

    function test_invalidateNonces_voidsEverySignatureBelow() public {
        uint256 deadline = block.timestamp + 1 hours;
        bytes memory sig = _sig(ALICE_PK, _digest(alice, bob, expiry, 3, deadline));
        vm.prank(alice);
        engine.invalidateNonces(5);
        assertEq(engine.operatorNonce(alice), 5);
        vm.expectRevert(IVenueErrors.InvalidSignature.selector);
        engine.setOperatorWithSig(alice, bob, expiry, openPolicy(), deadline, sig);
        vm.prank(alice);
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        engine.invalidateNonces(5); // never backwards
    }

    // ─── the owner's policy (issue 26) ───────────────────────────────────────────────────

    function test_setOperator_storesThePolicy() public {
        IEngine.OperatorPolicy memory p = IEngine.OperatorPolicy(5, 40, 100);
        uint64 seq = _nextSeq(address(engine));
        vm.expectEmit(true, true, true, true, address(engine));
        emit IEngine.OperatorSet(seq, alice, bob, expiry, 5, 40, 100, false);
        vm.prank(alice);
        engine.setOperator(bob, expiry, p);
        IEngine.OperatorView memory v = engine.operatorState(alice, bob);
        assertEq(v.expiry, expiry);
        assertEq(v.maxLeverage, 5);
        assertEq(v.bandBps, 40);
        assertEq(v.budgetBps, 100);
        assertEq(v.usedWad, 0);
        assertEq(v.budgetWad, 100e6 * 1e12 / 100, "1 % of the account's value");
    }

    function test_setOperator_refusesAnEmptyPolicy() public {
        IEngine.OperatorPolicy[4] memory bad = [
            IEngine.OperatorPolicy(0, 40, 100),
            IEngine.OperatorPolicy(5, 0, 100),
            IEngine.OperatorPolicy(5, 10_001, 100),
            IEngine.OperatorPolicy(5, 40, 10_001)
        ];
        for (uint256 i; i < 4; ++i) {
            vm.prank(alice);
            vm.expectRevert(IVenueErrors.InvalidParameters.selector);
            engine.setOperator(bob, expiry, bad[i]);
        }
        vm.prank(alice);
        engine.setOperator(bob, 0, bad[0]); // a revocation ignores the policy
    }

    function test_setOperatorWithSig_signsThePolicy() public {
        IEngine.OperatorPolicy memory p = IEngine.OperatorPolicy(3, 25, 50);
        uint256 deadline = block.timestamp + 1 hours;
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("VenueEngine"),
                keccak256("1"),
                block.chainid,
                address(engine)
            )
        );
        bytes32 h = approvalStructHash(engine.OPERATOR_APPROVAL_TYPEHASH(), alice, bob, expiry, p, engine.operatorNonce(alice), deadline);
        bytes memory sig = _sig(ALICE_PK, keccak256(abi.encodePacked("\x19\x01", domain, h)));
        uint64 seq = _nextSeq(address(engine));
        vm.expectEmit(true, true, true, true, address(engine));
        emit IEngine.OperatorSet(seq, alice, bob, expiry, 3, 25, 50, true);
        vm.prank(bob);
        engine.setOperatorWithSig(alice, bob, expiry, p, deadline, sig);
        IEngine.OperatorView memory v = engine.operatorState(alice, bob);
        assertEq(v.maxLeverage, 3);
        assertEq(v.bandBps, 25);
        assertEq(v.budgetBps, 50);
    }
}
