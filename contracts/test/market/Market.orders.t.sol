// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {Vm} from "../utils/Vm.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {openPolicy, approvalStructHash} from "../utils/OperatorPolicies.sol";

/// Order entry rules of issue 10 (docs/CONTRACTS.md "Order entry"): the taker's fee per fill,
/// the operator band, exposure caps, the funding skew of resting size, reduce-only orders.
contract MarketOrdersTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;
    uint256 internal c;
    address internal relayer = address(0xBEEF);

    function setUp() public override {
        super.setUp();
        a = _account(alice, 10_000e6);
        b = _account(bob, 10_000e6);
        c = _account(carol, 100_000e6);
        vm.prank(alice);
        engine.setOperator(relayer, uint64(block.timestamp + 1 days), openPolicy());
    }

    // ─── taker fee per fill ──────────────────────────────────────────────────────────────

    /// Three makers at three prices: each OrderFilled carries ceil(notional × 5 bp) for the
    /// taker, and their sum is exactly the fee of the taker's PositionUpdated (and its charge).
    function test_takerFeePerFill_sumsToTheTakerCharge() public {
        _limit(bob, b, SHORT, 10.8e6, 10, 1.08e18);
        _limit(bob, b, SHORT, 10.8e6, 10, 1.08003e18);
        _limit(carol, c, SHORT, 10.8e6, 10, 1.08007e18);
        uint256 before = _acct(a).totalWad;
        vm.recordLogs();
        _market(alice, a, LONG, 30e6, 10);
        Vm.Log[] memory all = vm.getRecordedLogs();
        Vm.Log[] memory fills = _logs(all, address(market), IMarket.OrderFilled.selector);
        assertEq(fills.length, 3, "three maker fills");
        uint256 sum;
        for (uint256 i; i < fills.length; ++i) {
            (,,,, uint256 px, uint256 q,,,,,, uint256 takerFee) = abi.decode(
                fills[i].data,
                (uint64, uint256, uint256, IMarket.Side, uint256, uint256, uint256, uint256, uint256, uint256, uint256, uint256)
            );
            assertEq(takerFee, _takerFee(q, px), "ceil(notional x taker bps) per fill");
            assertGt(takerFee, 0);
            sum += takerFee;
        }
        Vm.Log[] memory pos = _logs(all, address(market), IMarket.PositionUpdated.selector);
        uint256 takerFeeCharged;
        for (uint256 i; i < pos.length; ++i) {
            if (uint256(pos[i].topics[1]) != a) continue;
            (,,,,,,, uint256 fee,) =
                abi.decode(pos[i].data, (uint64, IMarket.PositionReason, int256, uint256, uint256, int256, int256, uint256, int256));
            takerFeeCharged = fee;
        }
        assertEq(sum, takerFeeCharged, "sum of per-fill taker fees == the taker's PositionUpdated.feeWad");
        assertEq(before - _acct(a).totalWad, sum, "and == what the taker's account paid");
        _checkAll();
    }

    // ─── operator band ───────────────────────────────────────────────────────────────────

    function test_operatorBand_limitBeyondRevertsOwnerMayPlace() public {
        uint256 mark = market.markPrice();
        // 92 bps below: inside the band (94), outside the operator band (90)
        uint256 far = (mark * 9_908 / 10_000 / TICK) * TICK;
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OperatorPriceTooFar.selector, far, mark, 90));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 100e6, 5, far, bytes32(0)));
        _limit(alice, a, LONG, 100e6, 5, far); // the owner may
        uint256 near = (mark * 995 / 1000 / TICK) * TICK;
        vm.prank(relayer);
        engine.placeOrder(_params(a, EUR, LONG, LMT, 100e6, 5, near, bytes32(0)));
        _checkAll();
    }

    /// A MARKET order by an operator fills only within the operator band: the relayer's own ask at
    /// the band's edge cannot be bought for the account it serves.
    function test_operatorBand_marketOrderCannotReachAFarAsk() public {
        uint256 top = (market.markPrice() * 10_092 / 10_000 / TICK) * TICK; // between 90 and 94 bps
        _limit(bob, b, SHORT, 100e6, 1, top);
        vm.prank(relayer);
        try engine.placeOrder(_params(a, EUR, LONG, MKT, 100e6, 1, 0, bytes32(0))) {
            revert("the operator bought the far ask");
        } catch (bytes memory r) {
            assertEq(bytes4(r), IVenueErrors.OperatorPriceTooFar.selector);
        }
        assertEq(_pos(a).sizeQty, 0, "nothing filled");
        _market(alice, a, LONG, 100e6, 1); // the owner may buy it
        assertGt(_pos(a).sizeQty, 0);
        _checkAll();
    }

    function test_operatorBand_closeByOperatorWithinBand() public {
        _limit(bob, b, SHORT, 108e6, 10, 1.08e18);
        _market(alice, a, LONG, 54e6, 10);
        uint256 low = (market.markPrice() * 9_908 / 10_000 / TICK) * TICK; // between 90 and 94 bps
        vm.prank(relayer);
        try engine.closePosition(a, EUR, LMT, low, bytes32(0)) {
            revert("the operator rested a far close");
        } catch (bytes memory r) {
            assertEq(bytes4(r), IVenueErrors.OperatorPriceTooFar.selector);
        }
        vm.prank(alice);
        engine.closePosition(a, EUR, LMT, low, bytes32(0)); // the owner may rest it
        _checkAll();
    }

    // ─── caps ────────────────────────────────────────────────────────────────────────────

    function _capped(uint256 maxPos, uint256 maxOi) internal returns (bytes32 mid, IMarket m) {
        IMarket.MarketParams memory p = _eurParams();
        p.maxPositionQty = maxPos;
        p.maxOpenInterestQty = maxOi;
        mid = keccak256("CAP/USD");
        oracle.setPrice(mid, EUR_PX);
        m = IMarket(factory.createMarket("CAP", "USD", p));
    }

    function test_positionCap_placementRevertsBeyondCap() public {
        (bytes32 mid,) = _capped(1_000e18, 10_000e18);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PositionCapExceeded.selector, a, 2_000e18, 1_000e18));
        engine.placeOrder(_params(a, mid, LONG, LMT, 216e6, 10, 1.08e18, bytes32(0)));
    }

    function test_positionCap_makerBeyondCapIsCancelledTakerFillsNext() public {
        (bytes32 mid, IMarket m) = _capped(1_000e18, 10_000e18);
        // bob rests two asks of 900 each: the second would take him to 1,800 short
        vm.prank(bob);
        (uint256 first,,,) = engine.placeOrder(_params(b, mid, SHORT, LMT, 97.2e6, 10, 1.08e18, bytes32(0)));
        vm.prank(bob);
        (uint256 second,,,) = engine.placeOrder(_params(b, mid, SHORT, LMT, 97.2e6, 10, 1.08e18, bytes32(0)));
        vm.prank(carol);
        engine.placeOrder(_params(c, mid, SHORT, LMT, 97.2e6, 10, 1.08e18, bytes32(0)));
        vm.prank(alice);
        engine.placeOrder(_params(a, mid, LONG, MKT, 97.2e6, 10, 0, bytes32(0))); // 900
        uint256 d = _account(dave, 10_000e6);
        vm.prank(dave);
        engine.placeOrder(_params(d, mid, LONG, MKT, 97.2e6, 10, 0, bytes32(0))); // 900 more
        assertEq(m.getPosition(b).sizeQty, -900e18, "bob stays within the cap");
        assertEq(uint256(m.getOrder(second).status), uint256(IMarket.OrderStatus.CANCELLED), "over-cap maker cancelled");
        assertEq(uint256(m.getOrder(first).status), uint256(IMarket.OrderStatus.FILLED));
        assertEq(m.getPosition(d).sizeQty, 900e18, "dave filled against carol");
    }

    function test_openInterestCap_revertsTheOrderThatGrowsIt() public {
        (bytes32 mid, IMarket m) = _capped(1_000e18, 1_500e18);
        vm.prank(bob);
        engine.placeOrder(_params(b, mid, SHORT, LMT, 97.2e6, 10, 1.08e18, bytes32(0)));
        vm.prank(carol);
        engine.placeOrder(_params(c, mid, SHORT, LMT, 97.2e6, 10, 1.08e18, bytes32(0)));
        vm.prank(alice);
        engine.placeOrder(_params(a, mid, LONG, MKT, 97.2e6, 10, 0, bytes32(0))); // OI 900
        uint256 d = _account(dave, 10_000e6);
        vm.prank(dave);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.OpenInterestCapExceeded.selector, 1_800e18, 1_500e18));
        engine.placeOrder(_params(d, mid, LONG, MKT, 97.2e6, 10, 0, bytes32(0)));
        (uint256 l,) = m.openInterest();
        assertEq(l, 900e18, "nothing of the refused order stayed");
        // a close never grows open interest, so the cap never blocks it
        vm.prank(dave);
        engine.placeOrder(_params(d, mid, LONG, LMT, 97.2e6, 10, 1.07e18, bytes32(0)));
        vm.prank(alice);
        engine.closePosition(a, mid, MKT, 0, bytes32(0));
        assertEq(m.getPosition(a).sizeQty, 0, "closed");
    }

    // ─── funding skew and reduce-only ────────────────────────────────────────────────────

    function test_skew_leavesOutReduceOnlyAndCancelRestores() public {
        _limit(bob, b, SHORT, 108e6, 10, 1.08e18);
        _market(alice, a, LONG, 54e6, 10); // alice long 500
        engine.pokeFunding(EUR);
        int256 r0 = market.funding().skewX18;
        int256 rate0 = market.funding().rateX18PerHour;
        // reduce-only asks (no margin) leave the skew as it was
        vm.prank(alice);
        engine.closePosition(a, EUR, LMT, 1.09e18, bytes32(0));
        engine.pokeFunding(EUR);
        assertEq(market.funding().skewX18, r0, "reduce-only size is not in the skew");
        // a margined bid moves it, its cancel moves it back
        uint256 oid = _limit(carol, c, LONG, 1_000e6, 10, 1.075e18);
        assertGt(market.funding().skewX18, r0);
        bytes32 key = _keyOf(oid);
        vm.prank(carol);
        engine.cancelOrder(c, EUR, key);
        // the cancel marks the rate stale: the rate in force is the book's without the bid
        assertEq(market.funding().rateStaleSince, block.timestamp, "the cancel marked the rate stale");
        assertEq(market.funding().rateNowX18PerHour, rate0, "the rate in force after the cancel");
        engine.pokeFunding(EUR);
        assertEq(market.funding().skewX18, r0, "the next accrual recomputed the skew");
        assertEq(market.funding().rateX18PerHour, rate0);
        _checkAll();
    }

    /// Reduce-only: sized to the position; once the position is closed, a resting reduce-only
    /// order met by a taker is cancelled (REDUCE_ONLY_EXPIRED), never filled into a new position.
    function test_reduceOnly_boundedByPositionAndExpiresWhenClosed() public {
        _limit(bob, b, SHORT, 108e6, 10, 1.08e18);
        _market(alice, a, LONG, 54e6, 10); // long 500
        vm.prank(alice);
        (uint256 ro,,, uint256 q) = engine.closePosition(a, EUR, LMT, 1.09e18, bytes32(0));
        assertEq(q, 500e18, "sized to the position");
        _limit(carol, c, LONG, 108e6, 10, 1.079e18);
        vm.prank(alice);
        engine.closePosition(a, EUR, MKT, 0, bytes32(0));
        assertEq(_pos(a).sizeQty, 0, "closed");
        _market(carol, c, LONG, 100e6, 10); // bob's 500 at 1.08, then the leftover reduce-only ask
        assertEq(uint256(_order(ro).status), uint256(IMarket.OrderStatus.CANCELLED), "expired reduce-only cancelled");
        assertEq(_pos(a).sizeQty, 0, "never filled into a new position");
        _checkAll();
    }
}
