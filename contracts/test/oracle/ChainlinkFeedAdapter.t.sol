// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IPriceFeed} from "../../src/interfaces/IPriceFeed.sol";

/// Chainlink's AggregatorV3Interface, settable.
contract MockAggregator {
    uint8 public decimals;
    uint80 internal round;
    int256 internal answer;
    uint256 internal updatedAt;
    uint80 internal answeredIn;
    bool internal broken;

    constructor(uint8 decimals_) {
        decimals = decimals_;
    }

    function push(int256 answer_, uint256 updatedAt_) external {
        ++round;
        (answer, updatedAt, answeredIn) = (answer_, updatedAt_, round);
    }

    function setAnsweredIn(uint80 r) external {
        answeredIn = r;
    }

    function setBroken(bool b) external {
        broken = b;
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        require(!broken, "aggregator down");
        return (round, answer, updatedAt, updatedAt, answeredIn);
    }
}

contract ChainlinkFeedAdapterTest is VenueFixture {
    MockAggregator internal agg;
    IPriceFeed internal adapter;

    function setUp() public override {
        super.setUp();
        oracle.setConfig(60, 100);
        agg = new MockAggregator(8);
        adapter = _adapter(address(agg));
    }

    function _adapter(address a) internal returns (IPriceFeed) {
        return IPriceFeed(vm.deployCode("ChainlinkFeedAdapter.sol:ChainlinkFeedAdapter", abi.encode(a)));
    }

    function test_scales8DecimalsTo18() public {
        agg.push(1.0850e8, block.timestamp - 10);
        (uint256 p, uint256 at) = adapter.latestPrice();
        assertEq(p, 1.085e18);
        assertEq(at, block.timestamp - 10);
    }

    function test_scales18And20Decimals() public {
        MockAggregator a18 = new MockAggregator(18);
        a18.push(150.25e18, block.timestamp);
        (uint256 p,) = _adapter(address(a18)).latestPrice();
        assertEq(p, 150.25e18);
        MockAggregator a20 = new MockAggregator(20);
        a20.push(1.5e20, block.timestamp);
        (p,) = _adapter(address(a20)).latestPrice();
        assertEq(p, 1.5e18);
    }

    function test_badAnswersReadAsNeverSet() public {
        agg.push(0, block.timestamp);
        _assertNone();
        agg.push(-1, block.timestamp);
        _assertNone();
        agg.push(1.08e8, 0); // round not finished
        _assertNone();
        agg.push(1.08e8, block.timestamp);
        agg.setAnsweredIn(0); // answer carried over from an older round
        _assertNone();
        agg.setAnsweredIn(3);
        agg.setBroken(true);
        _assertNone();
    }

    function _assertNone() internal view {
        (uint256 p, uint256 at) = adapter.latestPrice();
        assertEq(p, 0);
        assertEq(at, 0);
    }

    /// The seam end to end: the market's index comes from the aggregator, with the oracle's
    /// staleness bound applied to the aggregator's updatedAt.
    function test_oracleRoutesMarketToAggregator() public {
        agg.push(1.0910e8, block.timestamp);
        oracle.setFeed(EUR, address(adapter));
        assertEq(oracle.getFreshPrice(EUR), 1.091e18);
        assertEq(market.markPrice(), 1.091e18);
        uint256 a = _account(alice, 1_000e6);
        _limit(alice, a, LONG, 10e6, 2, 1.09e18); // rests on the feed's price
        vm.warp(block.timestamp + 61);
        assertFalse(oracle.isFresh(EUR));
        IEngine.PlaceOrderParams memory o = _params(a, EUR, LONG, LMT, 10e6, 2, 1.09e18, bytes32(0));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PriceStale.selector, EUR, block.timestamp - 61, uint256(60)));
        engine.placeOrder(o);
        agg.push(1.0920e8, block.timestamp);
        assertTrue(oracle.isFresh(EUR));
    }

    function test_constructor_rejectsAbsurdDecimals() public {
        MockAggregator a = new MockAggregator(40);
        vm.expectRevert();
        _adapter(address(a));
    }
}
