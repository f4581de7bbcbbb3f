// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IOracle} from "../../src/interfaces/IOracle.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

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
        (ps[0], ps[1]) = (1.1e18, 0.67e18);
        oracle.setPrices(ids, ps);
        (uint256 e,) = oracle.getPrice(EUR);
        (uint256 a,) = oracle.getPrice(AUD);
        assertEq(e, 1.1e18);
        assertEq(a, 0.67e18);
    }

    function test_setPrices_revertsInvalidParametersOnLengthMismatch() public {
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        oracle.setPrices(new bytes32[](2), new uint256[](1));
    }
}
