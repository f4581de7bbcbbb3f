// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IOracle} from "../../src/interfaces/IOracle.sol";
import {IMarketFactory} from "../../src/interfaces/IMarketFactory.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {Vm} from "../utils/Vm.sol";

contract OracleTest is VenueFixture {
    bytes32 internal constant AUD = keccak256("AUD/USD");

    function test_setPrice_storesAndEmits() public {
        uint64 seq = _nextSeq(address(oracle));
        vm.expectEmit(true, true, true, true, address(oracle));
        emit IOracle.IndexPriceUpdated(seq, AUD, 0.66e18, block.timestamp);
        oracle.setPrice(AUD, 0.66e18);
        (uint256 p, uint256 at) = oracle.getPrice(AUD);
        assertEq(p, 0.66e18);
        assertEq(at, block.timestamp);
        assertEq(oracle.getFreshPrice(AUD), 0.66e18);
    }

    function test_getPrice_unsetIsZero() public view {
        (uint256 p, uint256 at) = oracle.getPrice(AUD);
        assertEq(p, 0);
        assertEq(at, 0);
    }

    function test_getFreshPrice_revertsPriceStaleWhenNeverSet() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PriceStale.selector, AUD, uint256(0), MAX_AGE));
        oracle.getFreshPrice(AUD);
    }

    function test_getFreshPrice_freshAtExactlyMaxAge() public {
        (, uint256 at) = oracle.getPrice(EUR);
        vm.warp(at + MAX_AGE);
        assertEq(oracle.getFreshPrice(EUR), EUR_PX);
    }

    function test_setUpdater_grantsAndRevokes() public {
        oracle.setUpdater(keeper, true);
        assertTrue(oracle.isUpdater(keeper));
        vm.prank(keeper);
        oracle.setPrice(EUR, 1.09e18);
        oracle.setUpdater(keeper, false);
        vm.prank(keeper);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, keeper));
        oracle.setPrice(EUR, 1.1e18);
    }

    function test_setUpdater_revertsForNonOwner() public {
        vm.prank(stranger);
        vm.expectRevert();
        oracle.setUpdater(stranger, true);
        assertFalse(oracle.isUpdater(stranger));
    }

    function test_setPrice_revertsInvalidPriceOnZero() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, uint256(0)));
        oracle.setPrice(EUR, 0);
    }

    function test_setPrices_batch() public {
        bytes32[] memory ids = new bytes32[](2);
        uint256[] memory ps = new uint256[](2);
        (ids[0], ids[1]) = (EUR, AUD);
        (ps[0], ps[1]) = (1.09e18, 0.67e18); // EUR within the 1 % bound of 1.08
        oracle.setPrices(ids, ps);
        (uint256 e,) = oracle.getPrice(EUR);
        (uint256 a,) = oracle.getPrice(AUD);
        assertEq(e, 1.09e18);
        assertEq(a, 0.67e18);
    }

    function test_setPrices_revertsInvalidParametersOnLengthMismatch() public {
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        oracle.setPrices(new bytes32[](2), new uint256[](1));
    }
}

/// The move bound, the configurable staleness and the feed seam.
contract OracleBoundsTest is VenueFixture {
    bytes32 internal constant AUD = keccak256("AUD/USD");

    function setUp() public override {
        super.setUp();
        oracle.setConfig(60, 100); // devnet staleness, 1 % per update
        vm.warp(block.timestamp + 1);
    }

    function test_setConfig_appliesAndEmits() public {
        uint64 seq = _nextSeq(address(oracle));
        vm.expectEmit(true, true, true, true, address(oracle));
        emit IOracle.OracleConfigUpdated(seq, 120, 80);
        oracle.setConfig(120, 80); // within what the fixture's markets take (OracleMarketBound)
        assertEq(oracle.maxAgeSeconds(), 120);
        assertEq(oracle.maxMoveBps(), 80);
    }

    function test_setConfig_rejectsOutOfRange() public {
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        oracle.setConfig(0, 100);
        // the markets' re-check (OracleMarketBound) refuses it first
        vm.expectRevert(abi.encodeWithSelector(IMarketFactory.InvalidMarketParams.selector, "0<oracleMaxMove<=1/leverage-maintenance"));
        oracle.setConfig(60, 10_000);
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        oracle.setConfig(uint256(type(uint32).max) + 1, 100);
    }

    function test_setConfig_revertsUnauthorized() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        oracle.setConfig(3600, 0);
    }

    function test_setPrice_withinBoundIsApplied() public {
        vm.getRecordedLogs(); // drain
        oracle.setPrice(EUR, 1.0908e18); // exactly +1 %
        (uint256 p,) = oracle.getPrice(EUR);
        assertEq(p, 1.0908e18);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 1, "no clamp event");
    }

    function test_setPrice_clampsUpAndEmitsRequestedVsApplied() public {
        uint64 seq = _nextSeq(address(oracle));
        vm.expectEmit(true, true, true, true, address(oracle));
        emit IOracle.IndexPriceClamped(seq, EUR, 1.2e18, 1.0908e18, EUR_PX);
        vm.expectEmit(true, true, true, true, address(oracle));
        emit IOracle.IndexPriceUpdated(seq + 1, EUR, 1.0908e18, block.timestamp);
        oracle.setPrice(EUR, 1.2e18);
        assertEq(oracle.getFreshPrice(EUR), 1.0908e18);
    }

    function test_setPrice_clampsDown() public {
        oracle.setPrice(EUR, 1); // a fat finger: 1 wei
        assertEq(oracle.getFreshPrice(EUR), 1.0692e18);
    }

    function test_setPrice_sameSecondDoesNotCompound() public {
        oracle.setPrice(EUR, 1.2e18);
        oracle.setPrice(EUR, 1.3e18); // still bounded by the price before this second
        assertEq(oracle.getFreshPrice(EUR), 1.0908e18);
        oracle.setPrice(EUR, 1.0e18); // and downwards too
        assertEq(oracle.getFreshPrice(EUR), 1.0692e18);
        vm.warp(block.timestamp + 1); // next second: the reference is the last applied price
        oracle.setPrice(EUR, 1.0e18);
        assertEq(oracle.getFreshPrice(EUR), 1.0692e18 * 99 / 100);
    }

    function test_setPrice_firstPriceIsNotBoundedButFixesTheReference() public {
        oracle.setPrice(AUD, 0.66e18);
        oracle.setPrice(AUD, 0.9e18); // same second as the first price: bounded by it
        assertEq(oracle.getFreshPrice(AUD), 0.6666e18);
    }

    function testFuzz_setPrice_neverMovesMoreThanTheBound(uint256 requested, uint8 steps) public {
        steps = uint8(bound(steps, 1, 20));
        for (uint256 i; i < steps; ++i) {
            (uint256 before,) = oracle.getPrice(EUR);
            uint256 r = bound(uint256(keccak256(abi.encode(requested, i))), 1, type(uint96).max);
            oracle.setPrice(EUR, r);
            (uint256 p,) = oracle.getPrice(EUR);
            assertLe(p, before * 101 / 100);
            assertGe(p, before * 99 / 100);
            vm.warp(block.timestamp + 1);
        }
    }

    function test_setPrice_revertsAboveUint96() public {
        uint256 big = uint256(type(uint96).max) + 1;
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.InvalidPrice.selector, big));
        oracle.setPrice(EUR, big);
    }

    function test_staleness_devnet60Seconds() public {
        (, uint256 at) = oracle.getPrice(EUR);
        oracle.setPrice(EUR, EUR_PX);
        (, at) = oracle.getPrice(EUR);
        vm.warp(at + 60);
        assertTrue(oracle.isFresh(EUR));
        assertEq(oracle.getFreshPrice(EUR), EUR_PX);
        vm.warp(at + 61);
        assertFalse(oracle.isFresh(EUR));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PriceStale.selector, EUR, at, uint256(60)));
        oracle.getFreshPrice(EUR);
        assertFalse(oracle.isFresh(AUD)); // never set
    }

    function test_staleness_followsConfig() public {
        (, uint256 at) = oracle.getPrice(EUR);
        vm.warp(at + 600);
        assertFalse(oracle.isFresh(EUR));
        oracle.setConfig(3600, 100);
        assertTrue(oracle.isFresh(EUR));
    }

    // ─── feed seam ─────────────────────────────────────────────────────────────────────────

    function test_setFeed_routesReadsAndRefusesPushes() public {
        StaticFeed feed = new StaticFeed();
        feed.set(1.1e18, block.timestamp - 5);
        uint64 seq = _nextSeq(address(oracle));
        vm.expectEmit(true, true, true, true, address(oracle));
        emit IOracle.FeedSet(seq, EUR, address(feed));
        oracle.setFeed(EUR, address(feed));
        assertEq(oracle.feedOf(EUR), address(feed));
        (uint256 p, uint256 at) = oracle.getPrice(EUR);
        assertEq(p, 1.1e18);
        assertEq(at, block.timestamp - 5);
        assertEq(oracle.getFreshPrice(EUR), 1.1e18);
        assertEq(market.markPrice(), 1.1e18, "the market reads through the seam");
        vm.expectRevert(abi.encodeWithSelector(IOracle.FeedManaged.selector, EUR, address(feed)));
        oracle.setPrice(EUR, 1.08e18);

        feed.set(1.1e18, block.timestamp - 61);
        assertFalse(oracle.isFresh(EUR));
        feed.setBroken(true); // a reverting feed reads as never set, never as a revert
        (p, at) = oracle.getPrice(EUR);
        assertEq(p, 0);
        assertEq(at, 0);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PriceStale.selector, EUR, uint256(0), uint256(60)));
        oracle.getFreshPrice(EUR);

        oracle.setFeed(EUR, address(0)); // back to pushed prices
        oracle.setPrice(EUR, EUR_PX);
        assertEq(oracle.getFreshPrice(EUR), EUR_PX);
    }

    function test_setFeed_revertsUnauthorized() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        oracle.setFeed(EUR, address(1));
    }
}

/// A settable IPriceFeed for the seam tests.
contract StaticFeed {
    uint256 internal px;
    uint256 internal at;
    bool internal broken;

    function set(uint256 px_, uint256 at_) external {
        (px, at) = (px_, at_);
    }

    function setBroken(bool b) external {
        broken = b;
    }

    function latestPrice() external view returns (uint256, uint256) {
        require(!broken, "feed down");
        return (px, at);
    }
}
