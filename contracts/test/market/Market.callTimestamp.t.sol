// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// A call whose block timestamp is behind the market's last accrual (an eth_call on anvil's
/// `latest` racing a block that lands, docs: MarketBase `_since`): no time has passed. It used
/// to panic 0x11 in `_accrue` (`block.timestamp - lastUpdate`), failing the simulation of every
/// order, cancel and poke of the market (test/e2e/reads-consistency.test.ts, 2026-11-27, a
/// maker's EUR bid at 1.0732).
contract MarketCallTimestampTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 10_000e6);
        b = _account(bob, 10_000e6);
        c = _account(carol, 10_000e6);
    }

    /// What a lagging simulation runs, then undone: the maker's next bid rests, a cancel and a
    /// poke go through, the views answer, and nothing accrues (the index and the premium as stored).
    function _simulateLagging(uint256 lag, uint256 bidPx) internal {
        uint256 snap = vm.snapshotState();
        IMarket.FundingView memory f0 = market.funding();
        vm.warp(block.timestamp - lag);
        // behind the last accrual: the views and the order see no time passed
        bool behind = block.timestamp <= f0.lastUpdate;
        uint256 mark = market.markPrice();
        if (behind) assertEq(market.funding().cumulativeIndexNowX18, f0.cumulativeIndexX18, "lagging view: nothing accrues");
        (uint256 id,, IMarket.OrderStatus st) = _place(bob, b, LONG, LMT, 100e6, 10, bidPx);
        assertEq(uint256(st), uint256(IMarket.OrderStatus.ACTIVE), "lagging bid rests");
        if (behind) {
            assertEq(market.funding().cumulativeIndexX18, f0.cumulativeIndexX18, "lagging order: nothing accrues");
            assertEq(market.funding().lastUpdate, f0.lastUpdate, "lagging order: lastUpdate not moved back");
        }
        assertEq(market.markPrice(), mark, "lagging order: the mark it was placed at");
        engine.pokeFunding(EUR);
        bytes32 key = _keyOf(id);
        vm.prank(bob);
        engine.cancelOrder(b, EUR, key);
        _place(bob, b, LONG, LMT, 100e6, 10, bidPx);
        _checkAll();
        vm.revertToState(snap);
    }

    /// The e2e scenario: asks by alice at 1.089 − i·0.0001, bids by bob at 1.071 + i·0.0001,
    /// market buys of carol in GBP, the gaps between blocks fuzzed; before every bid a
    /// simulation lagging 1..`maxLag` seconds behind the last block.
    function test_fuzz_callBehindLastAccrual_neverPanics(uint256 seed, uint256 maxLag) public {
        maxLag = bound(maxLag, 1, 30);
        for (uint256 i; i < 25; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            vm.warp(block.timestamp + (r % 4)); // 0..3 s between blocks (several a second under load: 0)
            vm.roll(block.number + 1);
            _limit(alice, a, SHORT, 100e6, 10, 1.089e18 - i * 1e14);
            vm.warp(block.timestamp + ((r >> 8) % 3));
            vm.roll(block.number + 1);
            uint256 bidPx = 1.071e18 + i * 1e14;
            _simulateLagging(1 + ((r >> 16) % maxLag), bidPx);
            _limit(bob, b, LONG, 100e6, 10, bidPx);
        }
    }

    /// The same on a market with a position, a stale rate (a cancel) and pending funding.
    function test_callBehindLastAccrual_withPositionAndStaleRate() public {
        _limit(alice, a, SHORT, 100e6, 10, 1.085e18);
        _market(carol, c, LONG, 50e6, 10);
        uint256 id = _limit(bob, b, LONG, 100e6, 10, 1.072e18); // the last accrual
        vm.warp(block.timestamp + 600);
        vm.roll(block.number + 1);
        _setPrice(EUR, EUR_PX);
        bytes32 key = _keyOf(id);
        vm.prank(bob);
        engine.cancelOrder(b, EUR, key); // the rate stale from now
        _simulateLagging(300, 1.073e18); // after the last accrual, behind the stale second
        _simulateLagging(700, 1.073e18); // behind both
    }
}
