// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {Vm} from "../utils/Vm.sol";

/// The pre-close window (docs/CONTRACTS.md "Weekends and gaps") as a property: orders resting
/// from before REDUCE_ONLY must not open or increase a maker's position in the window (the
/// exposure would cross the weekend gap, which the window exists to avoid). Such a maker is
/// cancelled (`REDUCE_ONLY_SESSION`, counted in the skip budget) and the taker goes on to the
/// next maker; a maker that only reduces its position still fills.
contract ReduceOnlyWindowMakerAttack is AttackBase {
    uint256 internal constant UPLIFT = 30_000; // initial margin 2 % → 6 %
    bytes32 internal constant ORDER_CLOSED = keccak256(
        "OrderClosed(uint64,uint256,uint256,uint8,uint8,uint256,uint256,uint256)"
    );

    address internal mm;
    uint256 internal mmId;
    address internal trader;
    uint256 internal traderId;
    address internal whale;
    uint256 internal whaleId;

    function setUp() public override {
        super.setUp();
        engine.setMarketCloseUplift(EUR, UPLIFT);
        (mm, mmId) = _bystander("market-maker", 100_000e6);
        (trader, traderId) = _bystander("trader", 10_000e6);
        (whale, whaleId) = _attacker("window-whale", 100_000e6);
        // the trader is long 10,000 (opened against the market maker's ask)
        _open(mm, mmId, trader, traderId, EUR, LONG, EUR_PX, 1_080e6, 10);
    }

    /// Time moves into the session under EUR/USD's calendar (VenueFixture._toSession).
    function _session(IMarket.Session s) internal {
        _toSession(EUR, s);
    }

    /// The close reason of every OrderClosed of `orderId` in the recorded logs.
    function _closeReasons(uint256 orderId) internal returns (uint8[] memory reasons) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        reasons = new uint8[](logs.length);
        uint256 k;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics.length == 0 || logs[i].topics[0] != ORDER_CLOSED) continue;
            if (uint256(logs[i].topics[1]) != orderId) continue;
            (,, uint8 reason,,,) = abi.decode(logs[i].data, (uint64, uint8, uint8, uint256, uint256, uint256));
            reasons[k++] = reason;
        }
        assembly {
            mstore(reasons, k)
        }
    }

    /// The whale rests a large 10× bid (inside the uplifted initial margin of 6 %) before the
    /// window; in the window the trader's reduce-only close would fill into it and open the
    /// whale's long across the weekend. It must be cancelled instead, and the close goes on to
    /// the honest bid behind it.
    function test_attack_reduceOnlyWindow_restingMakerCannotOpen() public {
        uint256 px = _onTick(EUR_PX * 9_990 / 10_000);
        (bool ok, uint256 whaleOrder,) = _tryLimit(whale, whaleId, EUR, LONG, 21_600e6, 10, px, "whale bid");
        assertTrue(ok, "setup: whale bid");
        (ok,,) = _tryLimit(mm, mmId, EUR, LONG, 1_100e6, 10, px - TICK, "mm bid behind");
        assertTrue(ok, "setup: mm bid");

        _session(IMarket.Session.REDUCE_ONLY);
        vm.recordLogs();
        assertTrue(_tryClose(trader, traderId, EUR, MKT, 0, "close in the window"), "a close was refused");

        assertEq(_pos(whaleId).sizeQty, 0, "a resting maker opened a position in the reduce-only window");
        assertEq(_pos(traderId).sizeQty, 0, "the close went on to the next maker");
        IMarket.OrderView memory o = market.getOrder(whaleOrder);
        assertEq(uint256(o.status), uint256(IMarket.OrderStatus.CANCELLED), "the whale's bid was cancelled");
        assertEq(o.filledQty, 0);
        uint8[] memory reasons = _closeReasons(whaleOrder);
        assertEq(reasons.length, 1);
        assertEq(reasons[0], uint8(IMarket.CloseReason.REDUCE_ONLY_SESSION));
        _assertAttackFailed();
    }

    /// A resting maker that holds the opposite position still fills in the window, up to that
    /// position (a fill that reduces it); past it, its order is cancelled.
    function test_reduceOnlyWindow_restingMakerMayReduce() public {
        (address buyer, uint256 buyerId) = _bystander("buyer", 10_000e6);
        (address seller, uint256 sellerId) = _bystander("seller", 10_000e6);
        _open(buyer, buyerId, seller, sellerId, EUR, SHORT, EUR_PX, 1_080e6, 10); // buyer long 10,000
        // the market maker is short 10,000 from the setup; its bid of 20,000 may only buy 10,000 back
        uint256 px = _onTick(EUR_PX * 9_990 / 10_000);
        (bool ok, uint256 mmOrder,) = _tryLimit(mm, mmId, EUR, LONG, 2_160e6, 10, px, "mm bid");
        assertTrue(ok, "setup: mm bid");
        assertEq(_pos(mmId).sizeQty, -10_000e18);
        _session(IMarket.Session.REDUCE_ONLY);
        assertTrue(_tryClose(trader, traderId, EUR, MKT, 0, "close in the window"), "a close was refused");
        assertEq(_pos(traderId).sizeQty, 0);
        assertEq(_pos(mmId).sizeQty, 0, "the maker's fill reduced its short to zero");
        assertEq(uint256(market.getOrder(mmOrder).status), uint256(IMarket.OrderStatus.ACTIVE));
        // what is left of the bid would now open a long: the next taker cancels it
        vm.recordLogs();
        assertTrue(_tryClose(buyer, buyerId, EUR, MKT, 0, "buyer close"), "a close was refused");
        assertEq(_pos(mmId).sizeQty, 0, "the rest of the bid opened a long in the window");
        assertEq(_pos(buyerId).sizeQty, 10_000e18, "no other bid: the close filled nothing");
        assertEq(uint256(market.getOrder(mmOrder).status), uint256(IMarket.OrderStatus.CANCELLED));
        uint8[] memory reasons = _closeReasons(mmOrder);
        assertEq(reasons.length, 1);
        assertEq(reasons[0], uint8(IMarket.CloseReason.REDUCE_ONLY_SESSION));
    }
}
