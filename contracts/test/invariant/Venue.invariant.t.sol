// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {VenueHandler} from "./VenueHandler.sol";
import {RiskChecks} from "../utils/RiskChecks.sol";

/// Handler set-up shared by the invariant contracts: 5 actors in EUR/USD and GBP/USD, every
/// action weighted so the book is worth trading against.
abstract contract VenueInvariantBase is VenueFixture {
    VenueHandler internal handler;

    function setUp() public virtual override {
        super.setUp();
        handler = new VenueHandler(engine, [market, gbp], oracle, token, lens, admin, 5);
        targetContract(address(handler));
        bytes4[] memory sel = new bytes4[](45);
        sel[0] = VenueHandler.deposit.selector;
        sel[1] = VenueHandler.withdraw.selector;
        sel[2] = VenueHandler.placeLimit.selector;
        sel[3] = VenueHandler.placeLimit.selector;
        sel[4] = VenueHandler.placeLimitKeyed.selector;
        sel[5] = VenueHandler.placeMarket.selector;
        sel[6] = VenueHandler.placeMarket.selector;
        sel[7] = VenueHandler.dustLadder.selector;
        sel[8] = VenueHandler.cancel.selector;
        sel[9] = VenueHandler.cancel.selector;
        sel[10] = VenueHandler.close.selector;
        sel[11] = VenueHandler.movePrice.selector;
        sel[12] = VenueHandler.movePrice.selector;
        sel[13] = VenueHandler.warp.selector;
        sel[14] = VenueHandler.goStale.selector;
        sel[15] = VenueHandler.pokeFunding.selector;
        sel[16] = VenueHandler.setPaused.selector;
        sel[17] = VenueHandler.approveOperator.selector;
        sel[18] = VenueHandler.revokeOperator.selector;
        sel[19] = VenueHandler.liquidate.selector;
        sel[20] = VenueHandler.liquidate.selector;
        sel[21] = VenueHandler.liquidate.selector;
        sel[22] = VenueHandler.donate.selector;
        sel[23] = VenueHandler.withdrawFees.selector;
        sel[24] = VenueHandler.placeReduceOnly.selector;
        sel[25] = VenueHandler.replaySignature.selector;
        sel[26] = VenueHandler.advanceSession.selector;
        sel[27] = VenueHandler.cancelThenPoke.selector;
        sel[28] = VenueHandler.liquidateRanked.selector; // issue 26
        sel[29] = VenueHandler.flatLeavingReduceOnly.selector; // issue 26
        sel[30] = VenueHandler.operatorRoundTrip.selector; // issue 26
        sel[31] = VenueHandler.staleGap.selector; // issue 26
        sel[32] = VenueHandler.reduceFund.selector; // issue 26
        sel[33] = VenueHandler.moveMargin.selector; // issue 29: isolated margin
        sel[34] = VenueHandler.placeWithOptions.selector; // issue 29: time in force, expiry, reduce-only flag
        sel[35] = VenueHandler.placeWithOptions.selector;
        sel[36] = VenueHandler.removeExpired.selector; // issue 29
        sel[37] = VenueHandler.deadmanLapse.selector; // issue 29
        sel[38] = VenueHandler.batchPlaceCancel.selector; // issue 29
        sel[39] = VenueHandler.modifyOrder.selector; // issue 29
        sel[40] = VenueHandler.modifyOrder.selector;
        sel[41] = VenueHandler.setStatus.selector; // issue 29: market status
        sel[42] = VenueHandler.setTrigger.selector; // issue 29: take-profit / stop-loss
        sel[43] = VenueHandler.executeTrigger.selector;
        sel[44] = VenueHandler.cancelByKey.selector; // the key map's buckets and spill
        targetSelector(FuzzSelector(address(handler), sel));
        // seed every actor with margin so the first steps can trade
        for (uint256 i; i < 5; ++i) handler.deposit(i, 5_000e6);
    }

    /// GBP/USD with exposure caps the handler's orders reach (EUR/USD keeps none): 25,000 per
    /// position, 60,000 of open interest per side.
    function _gbpParams() internal pure virtual override returns (IMarket.MarketParams memory p) {
        p = super._gbpParams();
        p.maxPositionQty = 25_000e18;
        p.maxOpenInterestQty = 60_000e18;
    }

    /// No account's position beyond the position cap (the insurance fund's takeovers are not
    /// capped), open interest within its cap.
    function _checkCaps(IMarket m) internal view {
        IMarket.MarketParams memory p = m.params();
        (uint256 longQty,) = m.openInterest();
        assertLe(longQty, p.maxOpenInterestQty, "open interest above its cap");
        uint256 n = engine.accountCount();
        for (uint256 i = 1; i <= n; ++i) {
            int256 s = m.getPosition(i).sizeQty;
            assertLe(s < 0 ? uint256(-s) : uint256(s), p.maxPositionQty, "position above its cap");
        }
    }

    /// The run's first unexpected revert, spelled out.
    function _assertNoUnexpectedReverts() internal view {
        if (handler.unexpectedReverts() != 0) {
            revert(
                string.concat(
                    "unexpected revert in ", handler.lastUnexpectedAction(), ": ", vm.toString(handler.lastUnexpectedReason())
                )
            );
        }
    }

    /// Mark within index ± clamp; |funding rate| within its clamp.
    function _checkClamps(IMarket m) internal view {
        (uint256 index,) = oracle.getPrice(m.marketId());
        IMarket.MarketParams memory p = m.params();
        uint256 mark = m.markPrice();
        assertGe(mark, index * (1e4 - p.markClampBps) / 1e4, "mark below index - clamp");
        assertLe(mark, index * (1e4 + p.markClampBps) / 1e4 + 1, "mark above index + clamp");
        int256 rate = m.funding().rateX18PerHour;
        assertLe(rate < 0 ? uint256(-rate) : uint256(rate), p.maxFundingRateX18PerHour, "funding rate beyond its clamp");
    }
}

/// The venue's invariants over random sequences driven by VenueHandler (what the handler records
/// in a step, at every step; the sweeps below after every 4th step and each run's last):
///   token.balanceOf(engine) × 1e12 == Σ account totals + insurance + fees + Σ pools;
///   account total == available + committed; long OI == short OI == Σ positions per side;
///   no order's filled exceeds its original; each level == Σ of its resting orders; book not crossed;
///   committed == Σ open orders' margin + Σ positions' margin; fees and bad debt never decrease;
///   Σ pools + Σ long basis − Σ short basis + Σ pending funding + bad debt ≥ 0 (rounding dust);
///   mark and funding rate within their clamps; no revoked operator acts; every revert classified.
/// Issue 10's money-safety rules:
///   no pool hides a deficit at any sweep: token balance × 1e12 ≥ Σ free and order margin +
///   Σ signed equity at the mark + insurance + fees (a position below zero owes its deficit until
///   a liquidation hands it to the fund or to deleveraging);
///   strict solvency after everything liquidatable has been liquidated (in a snapshot): the same
///   with Σ max(0, equity);
///   no position opened or increased in a step below initial margin;
///   with depth inside the bankruptcy price a liquidation reduces the position, and without it
///   the backstop does; bad debt only where the book and the fund were exhausted;
///   cancel, reduce-only close, liquidation and withdrawals keep working while a market is paused
///   (a weekend session closes orders and liquidations until it reopens: the sweep reopens first);
///   bad debt (rounding dust) only in a liquidation step; a reduce-only order never increases or
///   flips its position; no position above maxPositionQty, open interest within maxOpenInterestQty;
///   a voided signed approval (revoked, nonces invalidated, past its deadline) approves nothing.
/// One invariant function (one campaign of 64 runs × 200 calls).
contract VenueInvariantTest is VenueInvariantBase {
    /// forge-config: default.invariant.runs = 64
    /// forge-config: default.invariant.depth = 200
    /// forge-config: default.invariant.check_interval = 4
    function invariant_venue() public {
        _assertNoUnexpectedReverts();
        _checkIssue10();
        assertEq(handler.unauthorizedSuccesses(), 0, "a revoked operator acted for an account");
        assertFalse(handler.venueBalanceDecreased(), "fees or bad debt decreased");
        _checkSolvency();
        _checkOpenInterest(market);
        _checkOpenInterest(gbp);
        _checkVenueKeepsDust();
        _checkClamps(market);
        _checkClamps(gbp);
        _checkBook(market);
        _checkBook(gbp);
        _checkCommitted();
    }

    function _checkIssue10() internal {
        assertEq(handler.bornBelowInitialMargin(), 0, handler.lastTargetViolation());
        assertEq(handler.blockedWithDepth(), 0, handler.lastTargetViolation());
        assertEq(handler.blockedWithoutDepth(), 0, handler.lastTargetViolation());
        assertEq(handler.badDebtDespiteDepth(), 0, handler.lastTargetViolation());
        assertEq(handler.badDebtWithFundLeft(), 0, handler.lastTargetViolation());
        assertEq(handler.refusedWhilePaused(), 0, handler.lastTargetViolation());
        assertEq(handler.keyMapMisses(), 0, handler.lastTargetViolation());
        assertEq(handler.badDebtOutsideLiquidation(), 0, handler.lastTargetViolation());
        assertEq(handler.reduceOnlyGrew(), 0, handler.lastTargetViolation());
        assertEq(handler.grewInWindow(), 0, handler.lastTargetViolation());
        assertEq(handler.fundingViewDrift(), 0, handler.lastTargetViolation());
        assertEq(handler.chosenGained(), 0, handler.lastTargetViolation());
        assertEq(handler.operatorOverBudget(), 0, handler.lastTargetViolation());
        assertEq(handler.staleGapCharged(), 0, handler.lastTargetViolation());
        assertEq(handler.fundReductionWrong(), 0, handler.lastTargetViolation());
        assertEq(handler.marginLeftLiquidatable(), 0, handler.lastTargetViolation());
        assertEq(handler.postOnlyMatched(), 0, handler.lastTargetViolation());
        assertEq(handler.immediateRested(), 0, handler.lastTargetViolation());
        assertEq(handler.expiredRemovalMismatch(), 0, handler.lastTargetViolation());
        assertEq(handler.deadmanMismatch(), 0, handler.lastTargetViolation());
        assertEq(handler.triggerFiredEarly(), 0, handler.lastTargetViolation());
        assertEq(handler.triggerGrew(), 0, handler.lastTargetViolation());
        assertEq(handler.triggerVoidWrong(), 0, handler.lastTargetViolation());
        assertEq(handler.triggerExecutorPaid(), 0, handler.lastTargetViolation());
        _checkCaps(market);
        _checkCaps(gbp);
        assertGe(RiskChecks.surplusSignedWad(engine, lens, token), int256(0), "a pool hides a deficit (WAD)");
        uint256 snap = vm.snapshotState();
        (uint256 unexpected, bytes memory reason) = handler.liquidateEverything();
        int256 surplus = RiskChecks.surplusWad(engine, lens, token);
        // no position is left open carrying a deficit (a bankrupt rest nobody else takes closes at
        // the mark against the other opposite positions, the deficit to bad debt: BUGS.md #10)
        uint256 stuck = handler.deficitLeftOpen();
        vm.revertToState(snap);
        if (unexpected != 0) revert(string.concat("unexpected revert in liquidateEverything: ", vm.toString(reason)));
        assertEq(stuck, 0, "a deficit left in an open position after liquidating everything (WAD)");
        assertGe(surplus, int256(0), "strict solvency after liquidating everything (WAD)");
    }

    /// Runs after each campaign: the handler really traded (not only refusals).
    function afterInvariant() public view {
        assertGt(handler.placed(), 0, "nothing placed");
    }
}
