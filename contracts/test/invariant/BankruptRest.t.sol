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

    /// BUGS.md #11, the campaign's shrunk sequence (CI, 2026-11-30): after a solvent long is
    /// deleveraged against the only short, a bankrupt long (10.3 EUR, equity −0.4298) remains with
    /// no book, no fund, and that short (equity +0.4271) the only opposite position: at the
    /// bankrupt's price the short would end below zero, so it was passed over and the deficit
    /// stayed open. Now the short bears what it has (it closes at its own bankruptcy price, a tick
    /// inside it) and the rest of the deficit is bad debt: nothing is left open, nobody ends below
    /// zero, and the bad debt is only what the opposite side could not bear (a tick's worth more).
    function test_bankruptRestBeyondTheOppositeSidesEquity_closesWithTheRestToBadDebt() public {
        handler.batchPlaceCancel(4330, false, 7200, 488671477760, -555651312460255016143876386450667);
        handler.placeLimit(163686018184281099202955187751723013291884659534254326, true, 7, 21585, -10);
        handler.movePrice(18126, -300);
        handler.placeLimitKeyed(600, true, 79381, 40, 12691, 34611);
        handler.movePrice(34164349429851171014679094707935803147808267675956, -162666924392400173711);
        handler.modifyOrder(20, -50, 19439);
        handler.movePrice(488671477760, -50);
        handler.placeMarket(12, false, 15116, 13662846);
        handler.movePrice(type(uint256).max - 1, -2745927531114797725025353969520012160741813394248695586725959821);
        // the situation: account 1 long and liquidatable, account 2 long and bankrupt, account 3 the only short
        assertGt(market.getPosition(1).sizeQty, 0);
        assertLt(lens.positionHealth(market, 2).equityWad, 0, "account 2 bankrupt");
        assertLt(market.getPosition(3).sizeQty, 0);
        assertEq(engine.insuranceFundWad(), 0, "no fund");
        uint256 snap = vm.snapshotState();
        vm.prank(address(0x4Ee9E2));
        engine.liquidatePosition(1, EUR);
        int256 deficit = -lens.positionHealth(market, 2).equityWad;
        int256 shortEquity = lens.positionHealth(market, 3).equityWad;
        uint256 fund = engine.insuranceFundWad(); // the first liquidation's fee
        assertGt(deficit, shortEquity, "the short cannot bear the whole deficit");
        vm.revertToState(snap);

        (uint256 unexpected,) = handler.liquidateEverything();
        assertEq(unexpected, 0, "every liquidation refused only for a venue reason");
        assertEq(market.getPosition(2).sizeQty, 0, "the bankrupt rest is closed");
        assertEq(market.getPosition(3).sizeQty, 0, "the short bore what it had");
        assertEq(handler.deficitLeftOpen(), 0, "no deficit left in an open position");
        // what the opposite side could not bear: from the fund (the first liquidation's fee went
        // there), then bad debt; together no more than that (and a tick's worth)
        uint256 absorbed = fund - engine.insuranceFundWad() + engine.badDebtWad();
        assertGt(absorbed, 0, "the fund and bad debt took what the short could not bear");
        assertLe(absorbed, uint256(deficit - shortEquity) + 10.3e18 * TICK / 1e18 + 10, "no more than the opposite side could not bear");
        assertGe(RiskChecks.surplusWad(engine, lens, token), int256(0), "strictly solvent");
    }

    /// BUGS.md #12, the campaign's shrunk sequence (`--fuzz-seed 0x146a0`, 2026-11-30):
    /// a bankrupt long (4,626.88 EUR, equity −137.84) with no fund to take it is deleveraged
    /// against a short in profit (account 2, 4,591.26 EUR) at its bankruptcy price, and the rest
    /// (35.62 EUR) against a short in loss (account 3) that could not bear that price: account 3
    /// closed at its own bankruptcy price and the gap (0.00103) went to bad debt although account
    /// 2's gain could bear it. Now the gains of those in profit bear such a gap before the fund and
    /// bad debt: no bad debt, strictly solvent, and account 2 gives up at most what it gained.
    function test_gapOfAShortInLoss_isBorneByTheGainOfTheShortInProfit() public {
        handler.staleGap(1000000000, 64452, false);
        handler.operatorRoundTrip(17296, 81, 1843585342, 182701721715066);
        handler.movePrice(85991165134291549810321053037669102432633138750599839296, 123907857606062713896669620245454861088698274386058636919659685);
        handler.movePrice(121538814547548430909853231189076256, 2149327254506796942);
        handler.placeLimit(208, false, 868371411, 10064, -306288601359980945948842206231);
        handler.placeMarket(79381, true, 255, 37);
        handler.movePrice(128, 85024);
        handler.close(3856518, true, 47287771469180644668492291077350157906680373778696982535606502352);
        handler.movePrice(612575145302974098230529070368052451102909014073248302, 34977722303256078442288326595323293597288080517086749984155521279677834);
        handler.cancelThenPoke(22023, 37, 2000000000);
        handler.staleGap(36694, 6804424700467854231465305, true);
        handler.warp(7941765694856);
        handler.placeLimit(25311666360519585166979652431887340759304952941883613767, false, 24789, 1813029034225799544348095, -1357806011236831);
        // the situation: account 6 long and bankrupt, accounts 2 and 3 the shorts, no fund
        assertLt(lens.positionHealth(market, 6).equityWad, 0, "account 6 bankrupt");
        assertLt(market.getPosition(2).sizeQty, 0);
        assertLt(market.getPosition(3).sizeQty, 0);
        assertLt(uint256(-market.getPosition(2).sizeQty), uint256(market.getPosition(6).sizeQty), "the short in profit cannot take it all");
        assertEq(engine.insuranceFundWad(), 0, "no fund");
        uint256 total2 = engine.getAccount(2).totalWad;

        (uint256 unexpected,) = handler.liquidateEverything();
        assertEq(unexpected, 0, "every liquidation refused only for a venue reason");
        assertEq(market.getPosition(6).sizeQty, 0, "the bankrupt long is closed");
        assertEq(market.getPosition(3).sizeQty, 0, "the short in loss bore what it had");
        assertEq(handler.deficitLeftOpen(), 0, "no deficit left in an open position");
        assertEq(engine.badDebtWad(), 0, "no bad debt: the gain of the short in profit bore the gap");
        assertGe(engine.getAccount(2).totalWad, total2, "the short in profit gives up at most what it gained");
        assertGe(RiskChecks.surplusWad(engine, lens, token), int256(0), "strictly solvent");
    }
}
