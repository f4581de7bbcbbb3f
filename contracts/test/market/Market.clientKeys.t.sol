// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {KeyBuckets} from "../utils/KeyBuckets.sol";

/// The key map (MarketBase._claimKey, _keyed): 256 buckets per account picked by the key's hash,
/// and a spill map for a key whose bucket holds another ACTIVE order. Whatever the order of
/// placements, cancels and fills, a key leads to its ACTIVE order and only to it, and a key in
/// use is refused — the same answers as a plain map (account, key) → order, which the fuzz test
/// below keeps beside the market.
contract MarketClientKeysTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 100_000e6);
        b = _account(bob, 100_000e6);
    }

    function _placeKey(uint256 id, bytes32 key, uint256 px) internal returns (uint256 oid) {
        vm.prank(id == a ? alice : bob);
        (oid,,,) = engine.placeOrder(_params(id, EUR, LONG, LMT, 50e6, 5, px, key));
    }

    function _cancelKey(uint256 id, bytes32 key) internal returns (uint256 oid) {
        vm.prank(id == a ? alice : bob);
        (oid,) = engine.cancelOrder(id, EUR, key);
    }

    function _expectInUse(uint256 id, bytes32 key) internal {
        vm.prank(id == a ? alice : bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.ClientKeyInUse.selector, id, key));
        engine.placeOrder(_params(id, EUR, LONG, LMT, 50e6, 5, 1.07e18, key));
    }

    function test_keyMap_keysOfOneBucketAreAllFoundWhileOpen() public {
        bytes32[] memory k = KeyBuckets.sameBucket(a, keccak256("one-bucket"), 4);
        uint256[] memory ids = new uint256[](4);
        // the first takes the bucket, the three others spill (the bucket's order is ACTIVE)
        for (uint256 i; i < 4; ++i) ids[i] = _placeKey(a, k[i], 1.07e18 + i * TICK);
        for (uint256 i; i < 4; ++i) {
            assertEq(market.orderIdOf(a, k[i]), ids[i], "each key leads to its own order");
            _expectInUse(a, k[i]);
        }
        // cancelled by key in another order than placed: each cancel takes its own order
        assertEq(_cancelKey(a, k[2]), ids[2]);
        assertEq(_cancelKey(a, k[0]), ids[0]);
        assertEq(market.orderIdOf(a, k[2]), 0);
        assertEq(market.orderIdOf(a, k[0]), 0);
        assertEq(market.orderIdOf(a, k[1]), ids[1]);
        assertEq(market.orderIdOf(a, k[3]), ids[3]);
        assertEq(_cancelKey(a, k[1]), ids[1]);
        assertEq(_cancelKey(a, k[3]), ids[3]);
        _checkAll();
    }

    /// A spilled key stays in use while its order is ACTIVE, even once its bucket is free again
    /// (the bucket's spill flag sends the check to the spill map), and never is in both.
    function test_keyMap_spilledKeyStaysInUseWhenItsBucketFrees() public {
        bytes32[] memory k = KeyBuckets.sameBucket(a, keccak256("spill"), 3);
        uint256 first = _placeKey(a, k[0], 1.07e18); // the bucket
        uint256 spilled = _placeKey(a, k[1], 1.0701e18); // the spill map
        _cancelKey(a, k[0]); // the bucket's order closed: the bucket is free
        _expectInUse(a, k[1]);
        assertEq(market.orderIdOf(a, k[1]), spilled);
        // another key of the bucket takes it; the spilled key is still found
        uint256 third = _placeKey(a, k[2], 1.0702e18);
        assertEq(market.orderIdOf(a, k[2]), third);
        assertEq(market.orderIdOf(a, k[1]), spilled);
        assertEq(market.orderIdOf(a, k[0]), 0, "the first key's order is closed");
        // the spilled key freed, placed again: it spills again (the bucket holds the third, ACTIVE)
        assertEq(_cancelKey(a, k[1]), spilled);
        uint256 again = _placeKey(a, k[1], 1.0703e18);
        assertEq(market.orderIdOf(a, k[1]), again);
        assertEq(market.orderIdOf(a, k[2]), third);
        // the first key, placed again while the bucket holds the third: spills too
        uint256 firstAgain = _placeKey(a, k[0], 1.0704e18);
        assertTrue(firstAgain != first);
        assertEq(market.orderIdOf(a, k[0]), firstAgain);
        for (uint256 i; i < 3; ++i) _expectInUse(a, k[i]);
        _checkAll();
    }

    /// A fill closes an order without touching the key map: its key is free again, in the bucket
    /// and in the spill map alike.
    function test_keyMap_keyOfAFilledOrderIsFree() public {
        bytes32[] memory k = KeyBuckets.sameBucket(a, keccak256("filled"), 2);
        uint256 inBucket = _placeKey(a, k[0], 1.07e18);
        uint256 inSpill = _placeKey(a, k[1], 1.07e18);
        // bob sells into both (one level, 1.07)
        vm.prank(bob);
        (uint256 rest,,,) = engine.placeOrder(_params(b, EUR, SHORT, LMT, 200e6, 5, 1.07e18, bytes32(0)));
        vm.prank(bob);
        engine.cancelOrderById(b, EUR, rest); // what is left of it: alice's new bids below rest
        assertEq(uint256(market.getOrder(inBucket).status), uint256(IMarket.OrderStatus.FILLED));
        assertEq(uint256(market.getOrder(inSpill).status), uint256(IMarket.OrderStatus.FILLED));
        assertEq(market.orderIdOf(a, k[0]), 0);
        assertEq(market.orderIdOf(a, k[1]), 0);
        uint256 x = _placeKey(a, k[1], 1.0705e18);
        uint256 y = _placeKey(a, k[0], 1.0705e18);
        assertEq(market.orderIdOf(a, k[1]), x);
        assertEq(market.orderIdOf(a, k[0]), y);
        _checkAll();
    }

    /// Buckets are per account: the same keys, or another account's keys of the same bucket, do
    /// not meet.
    function test_keyMap_accountsApart() public {
        bytes32[] memory k = KeyBuckets.sameBucket(a, keccak256("apart"), 2);
        uint256 mine = _placeKey(a, k[0], 1.07e18);
        uint256 theirs = _placeKey(b, k[0], 1.07e18);
        assertEq(market.orderIdOf(a, k[0]), mine);
        assertEq(market.orderIdOf(b, k[0]), theirs);
        assertEq(market.orderIdOf(b, k[1]), 0);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, b, k[1]));
        engine.cancelOrder(b, EUR, k[1]);
        assertEq(_cancelKey(b, k[0]), theirs);
        assertEq(market.orderIdOf(a, k[0]), mine);
    }

    // ─── the key map against a plain map ─────────────────────────────────────────────────

    uint256 internal constant KEYS = 6;
    mapping(bytes32 => uint256) internal model; // key → ACTIVE order id of alice (0: none)

    /// Random steps over six keys of alice, four of them in one bucket: place (refused exactly
    /// when the model holds the key), cancel by key (found exactly when it does), cancel by id,
    /// modify by key, and bob's sells that fill some of alice's bids. After each step every key
    /// answers what the model answers.
    function testFuzz_keyMap_answersAsAPlainMap(uint256 seed) public {
        bytes32[] memory same = KeyBuckets.sameBucket(a, keccak256("fuzz"), 4);
        bytes32[] memory keys = new bytes32[](KEYS);
        for (uint256 i; i < 4; ++i) keys[i] = same[i];
        keys[4] = keccak256("other-4");
        keys[5] = keccak256("other-5");
        for (uint256 step; step < 40; ++step) {
            uint256 r = uint256(keccak256(abi.encode(seed, step)));
            bytes32 key = keys[r % KEYS];
            uint256 op = (r >> 8) % 10;
            if (op < 5) {
                uint256 px = 1.07e18 + ((r >> 16) % 5) * TICK;
                if (model[key] != 0) {
                    _expectInUse(a, key);
                } else {
                    model[key] = _placeKey(a, key, px);
                }
            } else if (op < 7) {
                if (model[key] == 0) {
                    vm.prank(alice);
                    vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, a, key));
                    engine.cancelOrder(a, EUR, key);
                } else {
                    assertEq(_cancelKey(a, key), model[key], "cancel by key takes the key's order");
                    model[key] = 0;
                }
            } else if (op == 7) {
                if (model[key] != 0) {
                    vm.prank(alice);
                    engine.cancelOrderById(a, EUR, model[key]);
                    model[key] = 0;
                }
            } else if (op == 8) {
                if (model[key] != 0) {
                    // a modify by key keeps the order and its key
                    IMarket.OrderView memory o = market.getOrder(model[key]);
                    vm.prank(alice);
                    engine.modifyOrder(a, EUR, 0, key, o.priceX18 == 1.0705e18 ? 1.0706e18 : 1.0705e18, o.remainingQty);
                    assertEq(market.orderIdOf(a, key), model[key]);
                }
            } else {
                // bob sells a little into alice's best bids: some of her orders fill whole
                vm.prank(bob);
                try engine.placeOrder(_params(b, EUR, SHORT, MKT, 20e6, 5, 0, bytes32(0))) {} catch {}
                for (uint256 i; i < KEYS; ++i) {
                    uint256 id = model[keys[i]];
                    if (id != 0 && market.getOrder(id).status != IMarket.OrderStatus.ACTIVE) model[keys[i]] = 0;
                }
            }
            for (uint256 i; i < KEYS; ++i) assertEq(market.orderIdOf(a, keys[i]), model[keys[i]], "the key map answers as a plain map");
            vm.warp(block.timestamp + 1);
            _refreshPrices();
        }
        _checkAll();
    }
}
