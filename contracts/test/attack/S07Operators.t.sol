// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {openPolicy, approvalStructHash} from "../utils/OperatorPolicies.sol";

/// Issue 10, scenario 7: revoking an operator does not void a signed approval that was not yet
/// used (`setOperator` does not bump the nonce): the revoked operator submits it and is back.
/// Property: after a revocation (or after the owner invalidates its nonce) no approval signed
/// before it can make the operator act for the account.
contract Scenario07OperatorsAttack is AttackBase {
    uint256 internal a;
    address internal relayer = address(0x2E1A7E2);

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
    }

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
        bytes32 structHash =
            approvalStructHash(engine.OPERATOR_APPROVAL_TYPEHASH(), owner, operator, exp, openPolicy(), nonce, deadline);
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }

    /// An approval signed now for the next nonce, held back by the relayer.
    function _signedApproval() internal view returns (bytes memory sig, uint64 exp, uint256 deadline) {
        exp = uint64(block.timestamp + 30 days);
        deadline = block.timestamp + 1 days;
        (uint8 v, bytes32 r, bytes32 s) =
            vm.sign(ALICE_PK, _digest(alice, relayer, exp, engine.operatorNonce(alice), deadline));
        sig = abi.encodePacked(r, s, v);
    }

    /// The revoked relayer replays the held-back approval, then tries to trade for the owner.
    function _replayAndTrade(bytes memory sig, uint64 exp, uint256 deadline) internal {
        vm.prank(relayer);
        try engine.setOperatorWithSig(alice, relayer, exp, openPolicy(), deadline, sig) {}
        catch (bytes memory r) {
            _requireVenueRefusal(r, "replayed approval");
        }
        assertFalse(engine.isAuthorized(a, relayer), "a revoked operator is authorized again");
        vm.prank(relayer);
        try engine.placeOrder(_params(a, EUR, LONG, LMT, 10e6, 10, 1.07e18, bytes32(0))) {
            revert("the revoked operator placed an order for the owner");
        } catch (bytes memory r) {
            _requireVenueRefusal(r, "operator order");
        }
    }

    function test_attack_revokeVoidsUnusedSignedApproval() public {
        (bytes memory sig, uint64 exp, uint256 deadline) = _signedApproval();
        vm.prank(alice);
        engine.setOperator(relayer, exp, openPolicy());
        vm.prank(alice);
        engine.setOperator(relayer, 0, openPolicy()); // revoke
        _replayAndTrade(sig, exp, deadline);
    }

    function test_attack_ownerInvalidatesNonce() public {
        (bytes memory sig, uint64 exp, uint256 deadline) = _signedApproval();
        uint256 n0 = engine.operatorNonce(alice);
        vm.prank(alice);
        (bool ok, bytes memory r) = address(engine).call(abi.encodeWithSignature("invalidateNonces(uint256)", n0 + 1));
        if (!ok) revert(string.concat("missing or refused: invalidateNonces(uint256) ", vm.toString(r)));
        assertGt(engine.operatorNonce(alice), n0, "nonce not moved");
        _replayAndTrade(sig, exp, deadline);
    }

    /// The relayer is every account's operator and must not be able to wash-trade them: it rests
    /// an ask at the top of the band for its own account and buys it for the account it serves
    /// (at 1x the victim stays healthy, so only the operator's price distance can stop it), then
    /// closes near the index. Property: the relayer makes no profit.
    function test_attack_operatorWashTradesAccountItServes() public {
        (address carol_, uint256 c) = _bystander("honest-asker", 100_000e6);
        (, uint256 r) = _attacker("relayer-own", 10_000e6);
        address relayerOwner = attackers[0];
        _fund(alice, a, 9_000e6);
        vm.prank(alice);
        engine.setOperator(relayerOwner, uint64(block.timestamp + 30 days), openPolicy());
        uint256 top = _onTick(market.markPrice() * (1e4 + _bandBps()) / 1e4);
        _tryLimit(relayerOwner, r, EUR, SHORT, 1_000e6, 1, top, "relayer's own ask at the band");
        _tryMarket(relayerOwner, a, EUR, LONG, 1_000e6, 1, "relayer buys it for the account it serves");
        _tryLimit(carol_, c, EUR, SHORT, 1_000e6, 10, EUR_PX + TICK, "honest ask");
        _exitAttackers();
        _assertAttackFailed();
    }
}
