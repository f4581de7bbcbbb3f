// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {VenueHandler} from "./VenueHandler.sol";

/// The venue's invariants (DESIGN.md) after every step of random sequences driven by VenueHandler:
///   token.balanceOf(engine) × 1e12 == Σ account totals + insurance + fees + Σ pools;
///   account total == available + committed; long OI == short OI == Σ positions per side;
///   no order's filled exceeds its original; each level == Σ of its resting orders; book not crossed;
///   committed == Σ open orders' margin + Σ positions' margin; fees and bad debt never decrease;
///   Σ pools + Σ long basis − Σ short basis + Σ pending funding + bad debt ≥ 0 (rounding dust).
contract VenueInvariantTest is VenueFixture {
    VenueHandler internal handler;

    function setUp() public override {
        super.setUp();
        handler = new VenueHandler(engine, [market, gbp], oracle, token, lens, admin, 5);
        // the handler acts as admin for mints and price updates
        targetContract(address(handler));
        bytes4[] memory sel = new bytes4[](11);
        sel[0] = VenueHandler.deposit.selector;
        sel[1] = VenueHandler.withdraw.selector;
        sel[2] = VenueHandler.placeLimit.selector;
        sel[3] = VenueHandler.placeLimit.selector; // twice: a book worth trading against
        sel[4] = VenueHandler.placeMarket.selector;
        sel[5] = VenueHandler.cancel.selector;
        sel[6] = VenueHandler.close.selector;
        sel[7] = VenueHandler.movePrice.selector;
        sel[8] = VenueHandler.warp.selector;
        sel[9] = VenueHandler.liquidate.selector;
        sel[10] = VenueHandler.pokeFunding.selector;
        targetSelector(FuzzSelector(address(handler), sel));
        // seed every actor with margin so the first steps can trade
        for (uint256 i; i < 5; ++i) handler.deposit(i, 5_000e6);
    }

    function invariant_solvency() public view {
        _checkSolvency();
    }

    function invariant_openInterestBalanced() public view {
        _checkOpenInterest(market);
        _checkOpenInterest(gbp);
    }

    function invariant_bookLevelsMatchOrders() public view {
        _checkBook(market);
        _checkBook(gbp);
    }

    function invariant_committedIsOrdersPlusPositions() public view {
        _checkCommitted();
    }

    function invariant_venueKeepsRoundingDust() public view {
        _checkVenueKeepsDust();
    }

    function invariant_feesAndBadDebtOnlyGrow() public view {
        assertFalse(handler.venueBalanceDecreased(), "fees or bad debt decreased");
    }

    /// Runs after each campaign: the handler really traded (not only reverts).
    function afterInvariant() public view {
        assertGt(handler.calls(), 0);
    }
}
