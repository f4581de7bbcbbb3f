// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {VenueHandler} from "./VenueHandler.sol";
import {RiskChecks} from "../utils/RiskChecks.sol";

/// Guards the invariant tests' reach: a fixed pseudo-random walk of the handler must really
/// place, fill, cancel, close and liquidate, use client keys, operators (direct and signed),
/// revocations, pauses, a stale feed, reduce-only orders, dust ladders and the fill cap, and see
/// failed liquidations (an invariant over a venue where nothing happens proves nothing); the
/// accounting invariants hold after every step and no revert goes unclassified.
contract VenueHandlerTest is VenueFixture {
    VenueHandler internal h;

    /// The invariant's capped GBP/USD (Venue.invariant.t.sol).
    function _gbpParams() internal pure override returns (IMarket.MarketParams memory p) {
        p = super._gbpParams();
        p.maxPositionQty = 25_000e18;
        p.maxOpenInterestQty = 60_000e18;
    }

    function setUp() public override {
        super.setUp();
        h = new VenueHandler(engine, [market, gbp], oracle, token, lens, admin, 5);
        for (uint256 i; i < 5; ++i) h.deposit(i, 5_000e6);
    }

    function step(uint256 k, uint256 seed) external {
        uint256 s2 = uint256(keccak256(abi.encode(seed, 2)));
        if (k == 0) h.deposit(seed, s2);
        else if (k == 1) h.withdraw(seed, s2);
        else if (k == 2 || k == 3) h.placeLimit(seed, s2 & 1 == 0, s2 >> 8, s2 >> 64, int256(s2 >> 128));
        else if (k == 4) h.placeLimitKeyed(seed, s2 & 1 == 0, s2 >> 8, s2 >> 64, int256(s2 >> 128), s2 >> 200);
        else if (k == 5 || k == 6) h.placeMarket(seed, s2 & 1 == 0, s2 >> 8, s2 >> 64);
        else if (k == 7) h.dustLadder(seed, s2 & 1 == 0, s2 >> 8, int256(s2 >> 128));
        else if (k == 8 || k == 9) h.cancel(seed, s2);
        else if (k == 10) h.close(seed, s2 & 1 == 0, int256(s2 >> 128));
        else if (k == 11 || k == 12) h.movePrice(seed, int256(s2));
        else if (k == 13) h.warp(s2);
        else if (k == 14) h.goStale(s2);
        else if (k == 15) h.pokeFunding(s2);
        else if (k == 16) h.setPaused(s2, s2 & (1 << 20) != 0);
        else if (k == 17) h.approveOperator(seed, s2 & 1 == 0, s2 >> 8);
        else if (k == 18) h.revokeOperator(seed);
        else if (k == 22) h.donate(s2);
        else if (k == 19) h.cancelByKey(seed, s2);
        else if (k == 23) h.withdrawFees(s2);
        else if (k == 24) h.placeReduceOnly(seed, s2 & 1 == 0, int256(s2 >> 128), s2 >> 8);
        else if (k == 25) h.replaySignature(seed, s2);
        else if (k == 26) h.advanceSession(s2);
        else if (k == 27) h.cancelThenPoke(seed, s2, s2 >> 128);
        else h.liquidate(seed);
    }

    uint256 internal leftoverSeen;

    function test_handler_exercisesEveryAction() public {
        uint256 seed = 1;
        for (uint256 i; i < 600; ++i) {
            seed = uint256(keccak256(abi.encode(seed)));
            this.step(seed % 26, uint256(keccak256(abi.encode(seed, 1))));
            _checkSolvency();
            _checkOpenInterest(market);
            _checkOpenInterest(gbp);
            _checkVenueKeepsDust();
            if (i % 50 == 49) {
                if (h.reduceOnlyLeftovers() != 0) ++leftoverSeen;
                assertGe(RiskChecks.surplusSignedWad(engine, lens, token), int256(0), "a pool hides a deficit");
                // memory grows within one test transaction: the walks every 50 steps
                _checkBook(market);
                _checkBook(gbp);
                _checkCommitted();
            }
        }
        _checkBook(market);
        _checkCommitted();
        if (h.unexpectedReverts() != 0) {
            revert(string.concat("unexpected revert in ", h.lastUnexpectedAction(), ": ", vm.toString(h.lastUnexpectedReason())));
        }
        assertEq(h.unauthorizedSuccesses(), 0, "a revoked operator acted");
        assertEq(h.bornBelowInitialMargin() + h.blockedWithDepth() + h.blockedWithoutDepth(), 0, h.lastTargetViolation());
        assertEq(h.badDebtDespiteDepth() + h.badDebtWithFundLeft() + h.refusedWhilePaused(), 0, h.lastTargetViolation());
        assertFalse(h.venueBalanceDecreased());
        assertGt(h.placed(), 50, "orders placed");
        assertGe(h.fills(), 4, "limit orders filled at once"); // 4 on this walk since the order bond (5 before it)
        assertGt(h.cancels(), 10, "cancels");
        assertGt(h.closes(), 5, "closes");
        assertGt(h.reduceOnlyOrders(), 0, "reduce-only limit orders");
        assertGt(h.liquidations() + h.accountLiquidations(), 0, "liquidations");
        assertGt(h.failedLiquidations(), 0, "failed liquidations");
        assertGt(h.keyedOrders(), 5, "orders with a chosen client key");
        assertGt(h.keyCollisions(), 0, "client key collisions");
        assertGt(h.keysSharingABucket(), 0, "client keys open together in one bucket (one in the spill)");
        assertGt(h.keyedCancels(), 0, "cancels by client key");
        assertEq(h.keyMapMisses(), 0, h.lastTargetViolation());
        assertGt(h.operatorActions(), 5, "actions through an operator");
        assertGt(h.signedApprovals(), 0, "operators approved by signature");
        assertGt(h.revokedOperatorRefusals(), 0, "revoked operators refused");
        assertGt(h.pauses(), 0, "pauses");
        assertGt(h.pausedRefusals(), 0, "orders refused while paused");
        assertGt(h.staleRefusals(), 0, "orders refused on a stale price");
        assertGt(h.dustOrders(), 20, "minimum-size orders");
        assertGt(h.fillCapHits(), 0, "market orders stopped with the book still full");
        assertGt(h.reduceOnlyPlaced(), 0, "reduce-only orders through placeOrder");
        // the walk meets leftovers by chance or not at all (its path moves with the contracts):
        // then its actors make some: another actor rests a bid and an ask 10 bps from the mark
        // (depth for the close, which the walk may have used up), the actor rests a reduce-only
        // LIMIT 50 bps from the mark and closes at market
        h.setPaused(0, false);
        h.setPaused(1, false);
        h.warp(1);
        for (uint256 a; a < 40 && leftoverSeen == 0; ++a) {
            h.placeLimit(a + 1, true, 2_000e6, 20, -10);
            h.placeLimit(a + 1, false, 2_000e6, 20, 10);
            h.placeReduceOnly(a, true, a & 1 == 0 ? int256(50) : int256(-50), a);
            h.close(a, false, 0);
            if (h.reduceOnlyLeftovers() != 0) ++leftoverSeen;
        }
        assertGt(leftoverSeen, 0, "reduce-only orders left over after their position closed");
        assertGt(h.capRefusals(), 0, "orders refused by an exposure cap");
        assertGt(h.voidedSignatureRefusals(), 2, "voided signatures refused");
        assertGt(h.nonceInvalidations(), 0, "nonces invalidated");
        assertEq(h.badDebtOutsideLiquidation() + h.reduceOnlyGrew() + h.grewInWindow(), 0, h.lastTargetViolation());
        (uint256 l,) = market.openInterest();
        (uint256 g,) = gbp.openInterest();
        assertGt(l, 0, "EUR/USD open interest");
        assertGt(g, 0, "GBP/USD open interest");
        assertGt(engine.feesWad(), 0, "fees");
    }

    /// Take-profit and stop-loss through the handler: actors with positions set triggers (owners
    /// and operators, some on the wrong side), the price walks, anyone fires them; triggers really
    /// fire and are voided, every revert is classified, none fired early, grew a position, was
    /// voided while its position held, or paid its executor.
    function test_handler_triggers() public {
        uint256 seed = 7;
        for (uint256 i; i < 500; ++i) {
            seed = uint256(keccak256(abi.encode(seed)));
            uint256 s2 = uint256(keccak256(abi.encode(seed, 1)));
            uint256 k = seed % 12;
            if (k < 2) h.placeLimit(s2, s2 & 1 == 0, s2 >> 8, s2 >> 64, int256(s2 >> 128));
            else if (k == 2) h.placeMarket(s2, s2 & 1 == 0, s2 >> 8, s2 >> 64);
            else if (k < 5) h.movePrice(s2, int256(s2 >> 8));
            else if (k == 5) h.approveOperator(s2, s2 & 1 == 0, s2 >> 8);
            else if (k == 6) h.close(s2, s2 & 1 == 0, int256(s2 >> 128));
            else if (k < 9) h.setTrigger(s2, s2 & 1 == 0, int256(s2 >> 128) % 40, (s2 >> 2) & 1 == 0, (s2 >> 3) & 1 == 0);
            else h.executeTrigger(s2, s2 & 1 == 0);
        }
        if (h.unexpectedReverts() != 0) {
            revert(string.concat("unexpected revert in ", h.lastUnexpectedAction(), ": ", vm.toString(h.lastUnexpectedReason())));
        }
        assertEq(h.triggerFiredEarly() + h.triggerGrew() + h.triggerVoidWrong() + h.triggerExecutorPaid(), 0, h.lastTargetViolation());
        assertGt(h.triggersSet(), 10, "triggers set");
        assertGe(h.triggersFired(), 2, string.concat("triggers fired; not reached ", vm.toString(h.triggersNotReached()), ", refused ", vm.toString(h.triggersRefused()), ", voided ", vm.toString(h.triggersVoided())));
        assertGt(h.triggersVoided(), 0, "triggers voided with their position");
        assertGt(h.triggersNotReached(), 0, "triggers refused before their mark");
        assertGt(h.triggersRefused(), 0, "triggers reached whose order could not be placed then (no liquidity in the band)");
        _checkAll();
    }

    /// The same walk with the schedule keeper moving markets through their sessions (pre-close,
    /// weekend, reopening) every few steps: orders and liquidations meet the session's refusals,
    /// every revert is classified, and issue 10's rules hold across the gaps.
    /// Isolated margin through the handler: after a few trades, additions and removals by owners
    /// and operators succeed and are refused only for reasons the handler expects, and no removal
    /// leaves a position liquidatable.
    function test_handler_movesMargin() public {
        uint256 seed = 7;
        for (uint256 i; i < 300; ++i) {
            seed = uint256(keccak256(abi.encode(seed)));
            uint256 s2 = uint256(keccak256(abi.encode(seed, 2)));
            uint256 k = seed % 8;
            if (k < 2) h.placeLimit(seed, s2 & 1 == 0, s2 >> 8, s2 >> 64, int256(s2 >> 128));
            else if (k < 4) h.placeMarket(seed, s2 & 1 == 0, s2 >> 8, s2 >> 64);
            else if (k == 4) h.movePrice(seed, int256(s2));
            else if (k == 5) h.approveOperator(seed, s2 & 1 == 0, s2 >> 8);
            else h.moveMargin(seed, s2 & 1 == 0, s2 >> 8);
            _checkSolvency();
        }
        _checkCommitted();
        if (h.unexpectedReverts() != 0) {
            revert(string.concat("unexpected revert in ", h.lastUnexpectedAction(), ": ", vm.toString(h.lastUnexpectedReason())));
        }
        assertGt(h.marginMoves(), 10, "margin moved");
        assertEq(h.marginLeftLiquidatable(), 0, h.lastTargetViolation());
    }

    function test_handler_sessions() public {
        uint256 seed = 7;
        for (uint256 i; i < 300; ++i) {
            seed = uint256(keccak256(abi.encode(seed)));
            uint256 k = i % 10 == 0 ? 26 : seed % 26;
            this.step(k, uint256(keccak256(abi.encode(seed, 1))));
            _checkSolvency();
            _checkVenueKeepsDust();
        }
        _checkBook(market);
        _checkBook(gbp);
        _checkCommitted();
        if (h.unexpectedReverts() != 0) {
            revert(string.concat("unexpected revert in ", h.lastUnexpectedAction(), ": ", vm.toString(h.lastUnexpectedReason())));
        }
        assertEq(h.bornBelowInitialMargin() + h.blockedWithDepth() + h.blockedWithoutDepth(), 0, h.lastTargetViolation());
        assertEq(h.badDebtDespiteDepth() + h.badDebtWithFundLeft() + h.refusedWhilePaused(), 0, h.lastTargetViolation());
        assertEq(h.badDebtOutsideLiquidation() + h.reduceOnlyGrew() + h.grewInWindow(), 0, h.lastTargetViolation());
        assertGe(RiskChecks.surplusSignedWad(engine, lens, token), int256(0), "a pool hides a deficit");
        assertGt(h.sessionChanges(), 10, "market sessions (pre-close, weekend, reopening)");
        assertGt(h.closedRefusals(), 0, "orders or liquidations refused by the session");
        assertGt(h.placed(), 20, "orders placed");
    }

    /// Cancels followed by pokes (a stale rate, docs/CONTRACTS.md "Funding") amid the usual walk
    /// and the sessions: every poke stores what the funding views said just before it.
    function test_handler_cancelsThenPokes() public {
        uint256 seed = 11;
        for (uint256 i; i < 300; ++i) {
            seed = uint256(keccak256(abi.encode(seed)));
            uint256 k = i % 4 == 3 ? 27 : i % 25 == 0 ? 26 : seed % 26;
            this.step(k, uint256(keccak256(abi.encode(seed, 1))));
            _checkSolvency();
        }
        if (h.unexpectedReverts() != 0) {
            revert(string.concat("unexpected revert in ", h.lastUnexpectedAction(), ": ", vm.toString(h.lastUnexpectedReason())));
        }
        assertEq(h.fundingViewDrift(), 0, h.lastTargetViolation());
        assertGt(h.stalePokes(), 10, "pokes after a cancel made the rate stale");
        assertGt(h.cancels(), 20, "cancels");
        assertGt(h.sessionChanges(), 5, "market sessions");
    }
}
