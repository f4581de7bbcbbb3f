// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {OrderScan} from "../utils/OrderScan.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

contract MarketPlaceOrderTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
        b = _account(bob, 1_000e6);
    }

    function test_placeOrder_limitRestsAndCommitsMargin() public {
        uint256 px = 1.07e18;
        uint256 want = _qty(108e6, 10, px);
        (uint256 oid, uint256 qty, IMarket.OrderStatus st) = _place(alice, a, LONG, LMT, 108e6, 10, px);
        assertEq(qty, want, "qty = floor(coll x lev / price to lot)");
        assertEq(uint256(st), uint256(IMarket.OrderStatus.ACTIVE));
        IMarket.OrderView memory o = market.getOrder(oid);
        assertEq(o.accountId, a);
        assertEq(o.originalQty, want);
        assertEq(o.remainingQty, want);
        assertEq(o.filledQty, 0);
        assertEq(o.priceX18, px);
        assertEq(o.marginRemainingWad, 108e18);
        assertFalse(o.reduceOnly);
        IEngine.AccountView memory v = engine.getAccount(a);
        // the order's margin and its bond (committed together)
        assertEq(v.committedWad, 108e18 + ORDER_BOND_WAD);
        assertEq(v.availableWad, 892e18 - ORDER_BOND_WAD);
        assertEq(_bestBid(), px);
        assertEq(_bestAsk(), 0);
        (uint256[] memory prices, uint256[] memory totals, uint256[] memory counts) = market.getLevels(LONG, 10);
        assertEq(prices.length, 1);
        assertEq(prices[0], px);
        assertEq(totals[0], want);
        assertEq(counts[0], 1);
        (uint256 bidQty, uint256 askQty) = market.restingQty();
        assertEq(bidQty, want);
        assertEq(askQty, 0);
        _checkAll();
    }

    function test_placeOrder_emitsPlacedLevelAndMargin() public {
        uint256 px = 1.07e18;
        uint256 q = _qty(108e6, 10, px);
        uint256 oid = OrderScan.id(market, 1, 1);
        bytes32 key = keccak256(abi.encode(a, oid));
        uint64 ms = _nextSeq(address(market));
        uint64 es = _nextSeq(address(engine));
        vm.expectEmit(true, true, true, true, address(engine));
        // one ORDER_COMMIT of the margin and the bond
        emit IEngine.MarginUpdated(
            es, a, EUR, IEngine.MarginReason.ORDER_COMMIT, -108.5e18, 108.5e18, 0, 891.5e18, 108.5e18
        );
        vm.expectEmit(true, true, true, true, address(market));
        emit IMarket.OrderPlaced(ms, oid, a, key, LONG, LMT, false, px, q, 108e18, IMarket.TimeInForce.GTC, 0);
        vm.expectEmit(false, false, false, false, address(market));
        emit IMarket.LevelUpdated(0, LONG, px, q, 1);
        _place(alice, a, LONG, LMT, 108e6, 10, px);
    }

    function test_placeOrder_levelUpdatedCarriesNewTotals() public {
        uint256 px = 1.07e18;
        uint256 q = _qty(108e6, 10, px);
        _limit(alice, a, LONG, 108e6, 10, px);
        vm.recordLogs();
        _limit(bob, b, LONG, 108e6, 10, px);
        bytes32 sig = IMarket.LevelUpdated.selector;
        uint256 found;
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(market) || logs[i].topics[0] != sig) continue;
            (, IMarket.Side side, uint256 price, uint256 total, uint256 count) =
                abi.decode(logs[i].data, (uint64, IMarket.Side, uint256, uint256, uint256));
            assertEq(uint256(side), uint256(LONG));
            assertEq(price, px);
            assertEq(total, 2 * q, "post-state total");
            assertEq(count, 2, "post-state count");
            ++found;
        }
        assertEq(found, 1);
    }

    function test_placeOrder_derivesClientKeyAndVenueWideId() public {
        vm.prank(alice);
        (uint256 oid, bytes32 key,,) = engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.07e18, bytes32(0)));
        assertEq(oid, (uint256(1) << 64) | (1 << 24) | 1, "EUR/USD: market index 1, its 1st order, in slot 1");
        assertEq(key, keccak256(abi.encode(a, oid)));
        assertEq(market.orderIdOf(a, key), oid);
        vm.prank(alice);
        (uint256 gid,,,) = engine.placeOrder(_params(a, GBP, LONG, LMT, 50e6, 5, 1.26e18, bytes32(0)));
        assertEq(gid, (uint256(2) << 64) | (1 << 24) | 1, "GBP market index 2");
        assertEq(market.orderCount(), 1);
    }

    function test_placeOrder_keepsGivenClientKey() public {
        bytes32 key = keccak256("my-order-1");
        vm.prank(alice);
        (uint256 oid, bytes32 k,,) = engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.07e18, key));
        assertEq(k, key);
        assertEq(market.orderIdOf(a, key), oid);
    }

    function test_placeOrder_revertsClientKeyInUse() public {
        bytes32 key = keccak256("dup");
        vm.prank(alice);
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.07e18, key));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.ClientKeyInUse.selector, a, key));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.072e18, key));
    }

    function test_placeOrder_clientKeyFreeAfterCancel() public {
        bytes32 key = keccak256("reuse");
        vm.prank(alice);
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.07e18, key));
        vm.prank(alice);
        engine.cancelOrder(a, EUR, key);
        vm.prank(alice);
        (uint256 oid,,,) = engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.07e18, key));
        assertEq(market.orderIdOf(a, key), oid);
    }

    function test_placeOrder_sameKeyOtherAccountOk() public {
        bytes32 key = keccak256("shared");
        vm.prank(alice);
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.07e18, key));
        vm.prank(bob);
        engine.placeOrder(_params(b, EUR, LONG, LMT, 50e6, 5, 1.07e18, key));
    }

    function test_placeOrder_revertsExceedsMaxLeverageZero() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.ExceedsMaxLeverage.selector, uint256(0), uint256(50)));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 0, 1.07e18, bytes32(0)));
    }

    function test_placeOrder_revertsExceedsMaxLeverageAboveMax() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.ExceedsMaxLeverage.selector, uint256(51), uint256(50)));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 51, 1.07e18, bytes32(0)));
        // GBP/USD allows 25
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.ExceedsMaxLeverage.selector, uint256(26), uint256(25)));
        engine.placeOrder(_params(a, GBP, LONG, LMT, 50e6, 26, 1.26e18, bytes32(0)));
    }

    function test_placeOrder_maxLeverageAccepted() public {
        _limit(alice, a, LONG, 50e6, 50, 1.07e18);
    }

    function test_placeOrder_revertsInvalidPriceOffTick() public {
        uint256 px = 1.07e18 + TICK / 2;
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, px));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, px, bytes32(0)));
    }

    function test_placeOrder_revertsInvalidPriceOutsideBand() public {
        // mark = index 1.08 (empty book); band 94 bps: [1.069848, 1.090152]
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, uint256(1.09016e18)));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.09016e18, bytes32(0)));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, uint256(1.06984e18)));
        engine.placeOrder(_params(a, EUR, SHORT, LMT, 50e6, 5, 1.06984e18, bytes32(0)));
        // the band edges themselves are inside
        _limit(alice, a, SHORT, 50e6, 5, 1.09015e18);
        _limit(bob, b, LONG, 50e6, 5, 1.06985e18);
    }

    /// docs/CONTRACTS.md: a LIMIT price must lie within mark × (1 ± band) whatever its side.
    /// BUGS.md #1: the contract only bounds the crossing side (bid ≤ upper, ask ≥ lower).
    function test_placeOrder_revertsInvalidPriceOutsideBandPassiveSide() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, uint256(1.09016e18)));
        engine.placeOrder(_params(a, EUR, SHORT, LMT, 50e6, 5, 1.09016e18, bytes32(0)));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, uint256(1.06984e18)));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.06984e18, bytes32(0)));
    }

    function test_placeOrder_revertsInvalidPriceZero() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, uint256(0)));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 0, bytes32(0)));
    }

    function test_placeOrder_revertsOrderTooSmall() public {
        uint256 q = _qty(1e6, 1, 1.07e18); // 0.93
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OrderTooSmall.selector, q, MIN_QTY));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 1e6, 1, 1.07e18, bytes32(0)));
    }

    function test_placeOrder_revertsPriceStale() public {
        (, uint256 updatedAt) = oracle.getPrice(EUR);
        vm.warp(updatedAt + MAX_AGE + 1);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PriceStale.selector, EUR, updatedAt, MAX_AGE));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.07e18, bytes32(0)));
    }

    function test_placeOrder_revertsInsufficientMargin() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InsufficientMargin.selector, uint256(1_000e18), 1_001e18 + ORDER_BOND_WAD));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 1_001e6, 2, 1.07e18, bytes32(0)));
    }

    function test_placeOrder_revertsNoLiquidityForMarketOnEmptyBook() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoLiquidity.selector, EUR));
        engine.placeOrder(_params(a, EUR, LONG, MKT, 50e6, 5, 0, bytes32(0)));
        // the same side resting does not count as liquidity
        _limit(bob, b, LONG, 50e6, 5, 1.07e18);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoLiquidity.selector, EUR));
        engine.placeOrder(_params(a, EUR, LONG, MKT, 50e6, 5, 0, bytes32(0)));
    }

    function test_placeOrder_revertsNoPositionForReduceOnlyWithoutPosition() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.NoPosition.selector, a, EUR));
        engine.placeOrder(_params(a, EUR, SHORT, LMT, 0, 5, 1.09e18, bytes32(0)));
    }

    function test_placeOrder_revertsOperatorNotApproved() public {
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorNotApproved.selector, alice, bob));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 50e6, 5, 1.07e18, bytes32(0)));
    }

    function test_placeOrder_revertsAccountNotFound() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.AccountNotFound.selector, uint256(77)));
        engine.placeOrder(_params(77, EUR, LONG, LMT, 50e6, 5, 1.07e18, bytes32(0)));
    }

    function test_placeOrder_bestPricesOrderLevels() public {
        _limit(alice, a, LONG, 50e6, 5, 1.07e18);
        _limit(alice, a, LONG, 50e6, 5, 1.075e18);
        _limit(alice, a, LONG, 50e6, 5, 1.0699e18);
        _limit(bob, b, SHORT, 50e6, 5, 1.09e18);
        _limit(bob, b, SHORT, 50e6, 5, 1.085e18);
        assertEq(_bestBid(), 1.075e18);
        assertEq(_bestAsk(), 1.085e18);
        (uint256[] memory bids,,) = market.getLevels(LONG, 2);
        assertEq(bids.length, 2, "depth bounds the levels");
        assertEq(bids[0], 1.075e18);
        assertEq(bids[1], 1.07e18);
        _checkAll();
    }

}
