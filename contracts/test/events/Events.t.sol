// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {OrderScan} from "../utils/OrderScan.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IOracle} from "../../src/interfaces/IOracle.sol";
import {openPolicy, approvalStructHash} from "../utils/OperatorPolicies.sol";

/// The indexer's only input: every venue event carries `seq`, strictly increasing per emitting
/// contract from 1 without gaps, and post-state values.
contract EventsTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
        b = _account(bob, 1_000e6);
        c = _account(carol, 10_000e6);
    }

    function _isOracleEvent(bytes32 t) internal pure returns (bool) {
        return t == IOracle.IndexPriceUpdated.selector || t == IOracle.IndexPriceClamped.selector
            || t == IOracle.OracleConfigUpdated.selector || t == IOracle.FeedSet.selector;
    }

    function _isEngineEvent(bytes32 t) internal pure returns (bool) {
        return t == IEngine.AccountCreated.selector || t == IEngine.MarginUpdated.selector
            || t == IEngine.OperatorSet.selector || t == IEngine.MarketRegistered.selector
            || t == IEngine.VenueBalancesUpdated.selector || t == IEngine.NonceInvalidated.selector
            || t == IEngine.InsuranceDonated.selector || t == IEngine.FeesWithdrawn.selector
            || t == IEngine.LiquidationSkipped.selector || t == IEngine.OperatorBudgetUsed.selector;
    }

    function _isMarketEvent(bytes32 t) internal pure returns (bool) {
        return t == IMarket.OrderPlaced.selector || t == IMarket.OrderFilled.selector || t == IMarket.OrderClosed.selector
            || t == IMarket.LevelUpdated.selector || t == IMarket.PositionUpdated.selector
            || t == IMarket.OpenInterestUpdated.selector || t == IMarket.FundingUpdated.selector
            || t == IMarket.Liquidated.selector || t == IMarket.ActiveSet.selector || t == IMarket.FundingRateStale.selector;
    }

    bytes32 internal constant OWNERSHIP_TRANSFERRED = keccak256("OwnershipTransferred(address,address)");
    bytes32 internal constant INITIALIZED = keccak256("Initialized(uint64)");

    /// A busy session from deployment on: every event of the engine, the markets and the oracle
    /// is a documented one, and its seq is the previous one + 1 (first = 1); a single cancel's
    /// OrderCancelled, the one market event without a seq, takes none (no gap after it).
    function test_events_seqStrictlyIncreasingWithoutGaps() public {
        // trade, cancel, close, fund, liquidate, pause
        _limit(bob, b, SHORT, 216e6, 10, 1.08e18);
        _market(alice, a, LONG, 22.5e6, 48);
        uint256 extra = _limit(bob, b, SHORT, 10.9e6, 10, 1.09e18);
        bytes32 key = _keyOf(extra);
        vm.prank(bob);
        engine.cancelOrder(b, EUR, key);
        vm.warp(block.timestamp + 30 minutes);
        engine.pokeFunding(EUR);
        _setPrice(EUR, 1.066e18);
        _limit(carol, c, LONG, 213e6, 10, 1.065e18);
        vm.prank(keeper);
        engine.liquidatePosition(a, EUR);
        _setPrice(EUR, 1.08e18); // back to bob's ask, within the band
        uint256 d = _account(dave, 100e6);
        _market(dave, d, LONG, 10.8e6, 10);
        vm.prank(dave);
        engine.closePosition(d, EUR, MKT, 0, bytes32(0));
        engine.setMarketActive(EUR, false);
        vm.prank(bob);
        engine.placeOrder(_params(b, GBP, SHORT, LMT, 12.8e6, 10, 1.28e18, bytes32(0)));
        vm.prank(alice);
        engine.setOperator(dave, uint64(block.timestamp + 1 days), openPolicy());
        vm.prank(dave); // an operator's order: OperatorBudgetUsed
        engine.placeOrder(_params(a, GBP, LONG, LMT, 1e6, 10, 1.26e18, bytes32(0)));
        vm.prank(bob);
        engine.withdraw(b, 1e6);

        Vm.Log[] memory all = vm.getRecordedLogs();
        address[4] memory emitters = [address(engine), address(market), address(gbp), address(oracle)];
        uint256[4] memory last;
        uint256[4] memory count;
        uint256 cancels;
        for (uint256 i; i < all.length; ++i) {
            for (uint256 e; e < 4; ++e) {
                if (all[i].emitter != emitters[e]) continue;
                bytes32 t = all[i].topics[0];
                // the oracle's one-off MarketFactorySet (deployment) carries no seq either
                if (t == OWNERSHIP_TRANSFERRED || t == INITIALIZED || t == IOracle.UpdaterSet.selector || t == IOracle.MarketFactorySet.selector) continue;
                // OpenZeppelin AccessControl's role events carry no seq (all fields indexed)
                if (t == keccak256("RoleGranted(bytes32,address,address)") || t == keccak256("RoleRevoked(bytes32,address,address)")) continue;
                if (e == 1 && t == IMarket.OrderCancelled.selector) {
                    ++cancels;
                    continue;
                }
                bool known = e == 0 ? _isEngineEvent(t) : e == 3 ? _isOracleEvent(t) : _isMarketEvent(t);
                assertTrue(known, "undocumented event");
                uint256 s = abi.decode(all[i].data, (uint256));
                assertEq(s, last[e] + 1, "seq + 1 per emitter");
                last[e] = s;
                ++count[e];
            }
        }
        assertGt(count[0], 10);
        assertGt(count[1], 20);
        assertEq(cancels, 1, "the cancel's one event");
        assertGt(count[2], 0, "GBP/USD");
        assertGt(count[3], 2, "oracle");
    }

    /// A MARKET order filling one maker: the book, order and open-interest events in order, with
    /// their post-state values.
    function test_events_marketOrderFlowPostState() public {
        uint256 ask = _limit(bob, b, SHORT, 108e6, 10, 1.08e18); // 1000
        uint256 takerId = OrderScan.id(market, 2, 2); // the 2nd order, in the 2nd slot
        bytes32 takerKey = keccak256(abi.encode(a, takerId));
        uint64 s = _nextSeq(address(market));
        vm.expectEmit(true, true, true, true, address(market));
        emit IMarket.OrderPlaced(s, takerId, a, takerKey, LONG, MKT, false, 1.08e18, 500e18, 54e18, IMarket.TimeInForce.IOC, 0);
        vm.expectEmit(true, true, false, false, address(market));
        emit IMarket.OrderFilled(0, ask, takerId, 0, 0, LONG, 0, 0, 0, 0, 0, 0, 0, 0);
        vm.expectEmit(false, false, false, true, address(market));
        emit IMarket.LevelUpdated(s + 3, SHORT, 1.08e18, 500e18, 1);
        vm.expectEmit(true, true, true, true, address(market));
        emit IMarket.OrderClosed(s + 5, takerId, a, IMarket.OrderStatus.FILLED, IMarket.CloseReason.FILLED, 500e18, 0, 0);
        vm.expectEmit(false, false, false, true, address(market));
        emit IMarket.OpenInterestUpdated(s + 6, 500e18, 500e18);
        _market(alice, a, LONG, 54e6, 10);
    }

    function test_events_liquidationPostState() public {
        _limit(bob, b, SHORT, 216e6, 10, 1.08e18);
        _market(alice, a, LONG, 22.5e6, 48);
        _setPrice(EUR, 1.066e18);
        _limit(carol, c, LONG, 213e6, 10, 1.065e18);
        uint256 m0 = _pos(a).marginWad;
        uint256 fee = _ceilDiv(1_065e18 * 50, 1e4);
        uint256 released = m0 + 1_065e18 - 1_080e18;
        if (fee > released) fee = released;
        uint64 seq = _liquidatedSeq();
        vm.expectEmit(true, true, false, true, address(market));
        emit IMarket.Liquidated(seq, a, keeper, 1_000e18, 1_065e18, fee / 2, fee - fee / 2, 0, 0);
        vm.prank(keeper);
        engine.liquidatePosition(a, EUR);
    }

    /// The Liquidated event's seq (it follows a variable number of fill events): from a dry run
    /// of the same liquidation, undone.
    function _liquidatedSeq() internal returns (uint64 s) {
        uint256 snap = vm.snapshotState();
        vm.recordLogs();
        vm.prank(keeper);
        engine.liquidatePosition(a, EUR);
        Vm.Log[] memory l = _logs(vm.getRecordedLogs(), address(market), IMarket.Liquidated.selector);
        s = abi.decode(l[0].data, (uint64));
        vm.revertToState(snap);
    }
}
