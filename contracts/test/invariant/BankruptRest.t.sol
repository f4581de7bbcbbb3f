// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueInvariantBase} from "./Venue.invariant.t.sol";
import {RiskChecks} from "../utils/RiskChecks.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// contracts/test/BUGS.md #10 (fixed), the invariant campaign's shrunk sequence: a 20× long goes
/// bankrupt across two index moves with no liquidation between them; its liquidation closes what
/// the book and a counterparty in profit take. The rest (1.96 EUR, equity −0.0157) has no fund to
/// take it and no opposite position in profit: it stayed open carrying its deficit, which was not
/// recorded as bad debt. The backstop's last resort now closes it against the other opposite
/// position (in loss) at the bankruptcy price: that position bears the deficit, as one in profit
/// would, and nothing is left open nor to bad debt.
contract BankruptRestTest is VenueInvariantBase {
    function test_bankruptRestWithoutCounterpartyInProfit_closesAgainstTheOppositePosition() public {
        handler.placeLimit(1832525, false, 2352501491225433984056485496203583090865517140095416611217053568845696, 38902, -306288601359980945948842206231);
        handler.placeMarket(5156, true, 39808, 20);
        handler.movePrice(172831378121420415350979177062063351112, -72643058858516624131);
        handler.movePrice(163686018184281099202955187751723013291884659534254326, -555651312460255016143876386450667);
        handler.placeLimit(7757, false, 0, 2, -300);
        handler.placeLimitKeyed(
            42467931361411038974572819044508561412051494837797306082642734579142345, true,
            9978126576117644736401606818617400681813214323470372105908883258313, 9799920280748913909231187951030521771107740898468627452, 0,
            1809236422626247207336464641955
        );
        assertGe(RiskChecks.surplusSignedWad(engine, lens, token), int256(0), "no deficit hidden before");
        (uint256 unexpected,) = handler.liquidateEverything();
        assertEq(unexpected, 0, "every liquidation refused only for a venue reason");
        assertEq(market.getPosition(2).sizeQty, 0, "the rest is closed");
        assertEq(handler.deficitLeftOpen(), 0, "no deficit left in an open position");
        assertEq(engine.badDebtWad(), 0, "no bad debt: the opposite side bore the deficit");
        assertGe(RiskChecks.surplusWad(engine, lens, token), int256(0), "strictly solvent");
    }
}
