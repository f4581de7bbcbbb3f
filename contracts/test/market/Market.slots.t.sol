// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Orders live in reused storage slots (docs/CONTRACTS.md "Order ids and slots"): a closed
/// order's slot goes to a later order, under a new id; nothing that names the closed order (its
/// id, its client key) ever reaches the order that took its slot.
contract MarketSlotsTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;
    uint256 internal d;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 10_000e6);
        b = _account(bob, 10_000e6);
        c = _account(carol, 10_000e6);
        d = _account(dave, 10_000e6);
    }

    function _slot(uint256 orderId) internal pure returns (uint256) {
        return orderId & ((1 << 24) - 1);
    }

    function test_slots_aCancelledOrdersSlotGoesToTheNextWithANewId() public {
        uint256 first = _limit(alice, a, LONG, 108e6, 10, 1.07e18);
        bytes32 firstKey = _keyOf(first);
        vm.prank(alice);
        engine.cancelOrder(a, EUR, firstKey);
        // bob's order takes alice's slot: a new, larger id
        uint256 next = _limit(bob, b, LONG, 108e6, 10, 1.07e18);
        assertEq(_slot(next), _slot(first), "the freed slot is reused");
        assertGt(next, first, "ids grow");
        assertEq(market.orderSlots(), 1);
        assertEq(market.orderIdAt(_slot(next)), next);
        // alice's id and key name nothing now: never bob's order
        assertEq(uint256(market.getOrder(first).status), uint256(IMarket.OrderStatus.NONE), "the old id's view");
        assertEq(market.orderIdOf(a, firstKey), 0);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, a, bytes32(first)));
        engine.cancelOrderById(a, EUR, first);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, a, firstKey));
        engine.cancelOrder(a, EUR, firstKey);
        uint256[] memory ids = new uint256[](1);
        ids[0] = first;
        vm.prank(alice);
        (uint256 cancelled,) = engine.cancelOrders(a, EUR, ids);
        assertEq(cancelled, 0, "cancelOrders skips the old id");
        assertEq(uint256(market.getOrder(next).status), uint256(IMarket.OrderStatus.ACTIVE), "bob's order untouched");
        // alice may use her key again: it names no resting order
        vm.prank(alice);
        (uint256 again,,,) = engine.placeOrder(_params(a, EUR, LONG, LMT, 108e6, 10, 1.07e18, firstKey));
        assertEq(market.orderIdOf(a, firstKey), again);
        assertEq(_slot(again), 2, "a new slot: none was free");
        _checkAll();
    }

    /// The taker's slot is reserved before its sweep (its id is in OrderPlaced); a maker its
    /// sweep fills whole frees its slot above the reserved one on the free list, and the taker
    /// takes the reserved slot when it rests.
    function test_slots_aMakerFilledInTheTakersOwnSweep() public {
        uint256 x = _limit(carol, c, LONG, 108e6, 10, 1.07e18); // slot 1
        uint256 y = _limit(bob, b, SHORT, 108e6, 10, 1.081e18); // slot 2: ~1000
        vm.prank(carol);
        engine.cancelOrderById(c, EUR, x); // slot 1 free
        // alice buys 2000 at 1.081: fills bob's whole ask (slot 2 freed), rests the rest in slot 1
        uint256 taker = _limit(alice, a, LONG, 216.2e6, 10, 1.081e18);
        assertEq(_slot(taker), 1, "the reserved slot");
        assertEq(uint256(market.getOrder(taker).status), uint256(IMarket.OrderStatus.ACTIVE));
        assertEq(uint256(market.getOrder(y).status), uint256(IMarket.OrderStatus.FILLED), "bob's order until its slot is reused");
        // the free list holds bob's slot only, then new slots
        uint256 n1 = _limit(dave, d, LONG, 108e6, 10, 1.07e18);
        uint256 n2 = _limit(dave, d, LONG, 108e6, 10, 1.0705e18);
        assertEq(_slot(n1), 2, "bob's slot");
        assertEq(_slot(n2), 3, "a new slot");
        assertEq(market.orderSlots(), 3);
        assertEq(uint256(market.getOrder(y).status), uint256(IMarket.OrderStatus.NONE));
        // the lens lists what the slots hold
        IMarket.OrderView[] memory held = lens.orders(market, 1, 3);
        assertEq(held[0].orderId, taker);
        assertEq(held[1].orderId, n1);
        assertEq(held[2].orderId, n2);
        _checkAll();
    }

    /// Removing expired orders and modifying by a stale id: nothing happens to the order that took
    /// the slot, though it too is past its expiry.
    function test_slots_removeExpiredAndModifyByAStaleIdReachNothing() public {
        uint64 exp = uint64(block.timestamp + 60);
        IEngine.PlaceOrderParams memory p = _params(a, EUR, LONG, LMT, 108e6, 10, 1.07e18, bytes32(0));
        p.expiresAt = exp;
        vm.prank(alice);
        (uint256 old,,,) = engine.placeOrder(p);
        vm.warp(exp);
        uint256[] memory ids = new uint256[](1);
        ids[0] = old;
        vm.prank(stranger);
        assertEq(market.removeExpired(ids), 1);
        // bob's order takes the slot and expires too
        p = _params(b, EUR, LONG, LMT, 108e6, 10, 1.07e18, bytes32(0));
        p.expiresAt = uint64(block.timestamp + 60);
        vm.prank(bob);
        (uint256 next,,,) = engine.placeOrder(p);
        assertEq(_slot(next), _slot(old));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderNotFound.selector, a, bytes32(old)));
        engine.modifyOrder(a, EUR, old, bytes32(0), 1.069e18, 50e18);
        vm.warp(block.timestamp + 60);
        vm.prank(stranger);
        assertEq(market.removeExpired(ids), 0, "the stale id removes nothing");
        assertEq(uint256(market.getOrder(next).status), uint256(IMarket.OrderStatus.ACTIVE), "bob's order untouched");
        ids[0] = next;
        vm.prank(stranger);
        assertEq(market.removeExpired(ids), 1, "bob's own id removes it");
        _checkAll();
    }

    /// A taker that does not rest leaves its reserved slot free (nothing written to it).
    function test_slots_aTakerThatDoesNotRestLeavesItsSlotFree() public {
        uint256 x = _limit(carol, c, LONG, 108e6, 10, 1.07e18); // slot 1
        _limit(bob, b, SHORT, 108e6, 10, 1.081e18); // slot 2
        vm.prank(carol);
        engine.cancelOrderById(c, EUR, x); // slot 1 free
        _market(alice, a, LONG, 10.8e6, 10); // reserves slot 1, fills part of bob's ask, closes
        uint256 n1 = _limit(dave, d, LONG, 108e6, 10, 1.07e18);
        assertEq(_slot(n1), 1, "the slot the market order reserved");
        assertEq(market.orderSlots(), 2);
        _checkAll();
    }

    /// Random places, cancels and fills by four accounts: every order the test knows to be resting
    /// still reads as itself (no two share a slot), and the book and margin checks hold.
    function testFuzz_slots_manyPlacesCancelsAndFills(uint256 seed) public {
        uint256[4] memory ids = [a, b, c, d];
        address[4] memory who = [alice, bob, carol, dave];
        uint256[] memory live = new uint256[](64);
        uint256[] memory owner = new uint256[](64);
        uint256 nLive;
        for (uint256 step; step < 40; ++step) {
            uint256 r = uint256(keccak256(abi.encode(seed, step)));
            uint256 i = r % 4;
            uint256 action = (r >> 8) % 3;
            if (action == 2 && nLive != 0) {
                // cancel one the test knows to be resting
                uint256 k = (r >> 16) % nLive;
                vm.prank(who[owner[k]]);
                engine.cancelOrderById(ids[owner[k]], EUR, live[k]);
                live[k] = live[nLive - 1];
                owner[k] = owner[nLive - 1];
                --nLive;
            } else if (nLive < 64) {
                // bids 1.075–1.079, asks 1.081–1.085; some cross (1.08 either way) and fill
                bool long = (r >> 24) % 2 == 0;
                uint256 offset = ((r >> 32) % 6) * 1e15;
                uint256 px = long ? 1.075e18 + offset : 1.085e18 - offset;
                vm.prank(who[i]);
                try engine.placeOrder(_params(ids[i], EUR, long ? LONG : SHORT, LMT, 11e6, 10, px, bytes32(0))) returns (
                    uint256 oid, bytes32, uint256, IMarket.OrderStatus status
                ) {
                    if (status == IMarket.OrderStatus.ACTIVE) {
                        live[nLive] = oid;
                        owner[nLive++] = i;
                    }
                } catch {}
            }
            // closed orders leave the list the step they close: their slots are reused from the next
            for (uint256 k = nLive; k > 0; --k) {
                IMarket.OrderView memory o = market.getOrder(live[k - 1]);
                assertTrue(o.status != IMarket.OrderStatus.NONE, "a resting order's slot went to another");
                if (o.status == IMarket.OrderStatus.ACTIVE) {
                    assertEq(o.accountId, ids[owner[k - 1]], "an order reads as another's");
                } else {
                    live[k - 1] = live[nLive - 1];
                    owner[k - 1] = owner[nLive - 1];
                    --nLive;
                }
            }
        }
        _checkAll();
    }
}
