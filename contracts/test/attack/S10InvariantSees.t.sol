// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {RiskChecks} from "../utils/RiskChecks.sol";
import {VenueHandler} from "../invariant/VenueHandler.sol";

/// Issue 10, scenario 10: the invariant suite could not see any of the above. The handler now
/// drives client keys, operators and signatures, pauses, a stale feed, reduce-only orders, dust
/// ladders (the fill cap) and failed liquidations, classifies every revert
/// (`invariant/VenueHandler.t.sol` checks that reach), and counts issue 10's violations.
/// Property: scenario 1 played through the handler's own actions (a 50x ask 4 % above the mark,
/// a 50x market buy into it, the keeper's liquidations) leaves no violation the target
/// invariants (`invariant/Venue.invariant.t.sol`, issue 10's rules) look at.
contract Scenario10InvariantSeesAttack is AttackBase {
    VenueHandler internal h;

    function setUp() public override {
        super.setUp();
        h = new VenueHandler(engine, [market, gbp], oracle, token, lens, admin, 5);
        for (uint256 i; i < 5; ++i) h.deposit(i, 5_000e6);
    }

    function test_attack_handlerSeesSelfDeal() public {
        h.placeLimit(0, true, 1_000e6, 25, -100); // an honest bid 1 % under the mark
        h.placeLimit(1, false, 1_000e6, 50, 400); // B: an ask 4 % over it at 50x
        h.placeMarket(2, true, 1_000e6, 50); // A: 50x market buy into it
        h.liquidate(2);
        h.liquidate(2 | (1 << 16));
        assertEq(h.unexpectedReverts(), 0, "unexpected revert");
        assertEq(h.bornBelowInitialMargin(), 0, "born below initial margin");
        assertEq(h.blockedWithDepth(), 0, "blocked liquidation");
        (uint256 unexpected,) = h.liquidateEverything();
        assertEq(unexpected, 0, "unexpected revert liquidating everything");
        assertGe(RiskChecks.surplusWad(engine, lens, token), int256(0), "strict solvency");
    }
}
