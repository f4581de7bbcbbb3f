// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {VenueHandler} from "./VenueHandler.sol";

/// Guards the invariant tests' reach: a fixed pseudo-random walk of the handler must really
/// place, fill, cancel, close and liquidate (an invariant over a venue where nothing happens
/// proves nothing), and the accounting invariants hold after every step.
contract VenueHandlerTest is VenueFixture {
    VenueHandler internal h;

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
        else if (k == 4) h.placeMarket(seed, s2 & 1 == 0, s2 >> 8, s2 >> 64);
        else if (k == 5) h.cancel(seed, s2);
        else if (k == 6) h.close(seed, s2 & 1 == 0, int256(s2 >> 128));
        else if (k == 7) h.movePrice(seed, int256(s2));
        else if (k == 8) h.warp(s2);
        else h.liquidate(seed);
    }

    function test_handler_exercisesEveryAction() public {
        uint256 seed = 1;
        for (uint256 i; i < 400; ++i) {
            seed = uint256(keccak256(abi.encode(seed)));
            try this.step(seed % 10, uint256(keccak256(abi.encode(seed, 1)))) {} catch {}
            _checkSolvency();
            _checkOpenInterest(market);
            _checkOpenInterest(gbp);
            _checkVenueKeepsDust();
            if (i % 50 == 49) {
                // memory grows within one test transaction: the walks every 50 steps
                _checkBook(market);
                _checkBook(gbp);
                _checkCommitted();
            }
        }
        _checkBook(market);
        _checkCommitted();
        assertFalse(h.venueBalanceDecreased());
        assertGt(h.placed(), 50, "orders placed");
        assertGt(h.fills(), 5, "limit orders filled at once");
        assertGt(h.cancels(), 10, "cancels");
        assertGt(h.closes(), 5, "closes");
        assertGt(h.liquidations() + h.accountLiquidations(), 0, "liquidations");
        (uint256 l,) = market.openInterest();
        (uint256 g,) = gbp.openInterest();
        assertGt(l, 0, "EUR/USD open interest");
        assertGt(g, 0, "GBP/USD open interest");
        assertGt(engine.feesWad(), 0, "fees");
    }
}
