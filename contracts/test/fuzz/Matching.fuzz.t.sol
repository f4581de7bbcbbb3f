// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Random books and crossing takers: fills never exceed orders, levels stay exact, money is conserved.
contract MatchingFuzzTest is VenueFixture {
    uint256[4] internal ids;
    address[4] internal who;
    /// the makers' orders of a run (each fuzz run starts from setUp's state: empty)
    uint256[] internal makerOrders;

    function setUp() public override {
        super.setUp();
        who = [alice, bob, carol, dave];
        for (uint256 i; i < 4; ++i) ids[i] = _account(who[i], 100_000e6);
    }

    function test_fuzz_match_randomCrossing(uint256[8] memory seeds, uint256 takerSeed, bool takerLong, bool asMarket)
        public
    {
        // makers: actors 1..3 rest orders on the side the taker (actor 0) will hit
        IMarket.Side makerSide = takerLong ? SHORT : LONG;
        for (uint256 i; i < seeds.length; ++i) {
            uint256 k = 1 + seeds[i] % 3;
            // asks 1.08 .. 1.09, bids 1.07 .. 1.08 (inside the band of 1.08 ± 94 bps)
            uint256 tick = bound(seeds[i] >> 8, 0, 1_000);
            uint256 px = takerLong ? 1.08e18 + tick * TICK : 1.08e18 - tick * TICK;
            uint256 coll6 = bound(seeds[i] >> 32, 1e6, 5_000e6);
            uint256 makerLev = bound(seeds[i] >> 96, 1, 20);
            if (_qty(coll6, makerLev, px) < MIN_QTY) continue;
            makerOrders.push(_limit(who[k], ids[k], makerSide, coll6, makerLev, px));
        }
        (uint256 bidBefore, uint256 askBefore) = market.restingQty();
        uint256 coll = bound(takerSeed, 1e6, 50_000e6);
        uint256 lev = bound(takerSeed >> 128, 1, 20);
        uint256 limitPx = takerLong ? 1.09e18 : 1.07e18;
        if (!asMarket && _qty(coll, lev, limitPx) < MIN_QTY) return;
        if (asMarket && (takerLong ? askBefore : bidBefore) == 0) return;
        if (asMarket) {
            (uint256 best, uint256 ask) = lens.bestPrices(market);
            if (_qty(coll, lev, takerLong ? ask : best) < MIN_QTY) return;
        }
        (uint256 oid, uint256 qty,) =
            _place(alice, ids[0], takerLong ? LONG : SHORT, asMarket ? MKT : LMT, coll, lev, asMarket ? 0 : limitPx);
        IMarket.OrderView memory t = _orderEnd(oid);
        assertLe(t.filledQty, qty, "taker filled <= original");
        (uint256 bidAfter, uint256 askAfter) = market.restingQty();
        uint256 consumed = takerLong ? askBefore - askAfter : bidBefore - bidAfter;
        _checkConsumed(consumed, t.filledQty);
        assertEq(_pos(ids[0]).sizeQty, takerLong ? int256(t.filledQty) : -int256(t.filledQty));
        _checkAll();
    }

    /// What left the book is the taker's fills plus remainders cancelled on the way (dust below the
    /// minimum order, or a maker whose fill would leave it below initial margin).
    function _checkConsumed(uint256 consumed, uint256 takerFilled) internal {
        uint256 makersFilled;
        uint256 cancelledLeft;
        for (uint256 i; i < makerOrders.length; ++i) {
            IMarket.OrderView memory o = _orderEnd(makerOrders[i]);
            makersFilled += o.filledQty;
            if (o.status == IMarket.OrderStatus.CANCELLED) cancelledLeft += o.originalQty - o.filledQty;
        }
        assertEq(makersFilled, takerFilled, "makers filled exactly what the taker got");
        assertEq(consumed, takerFilled + cancelledLeft, "the book lost the fills and the cancelled remainders");
    }
}
