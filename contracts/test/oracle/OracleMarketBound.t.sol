// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarketFactory} from "../../src/interfaces/IMarketFactory.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

/// Issue 10: oracle bound + maintenance ≤ 1/leverage for every market, not only when it is
/// created: Oracle.setConfig re-checks the markets the factory made (docs/CONTRACTS.md "Market
/// parameter rules"). EUR/USD (50×, 1 %) allows at most 100 bps, GBP/USD (25×, 2 %) 200.
contract OracleMarketBoundTest is VenueFixture {
    bytes internal RULE = abi.encodeWithSelector(
        IMarketFactory.InvalidMarketParams.selector, "0<oracleMaxMove<=1/leverage-maintenance"
    );

    function test_setConfig_refusesABoundAnExistingMarketBreaks() public {
        vm.expectRevert(RULE);
        oracle.setConfig(MAX_AGE, 101); // (101 + 100) × 50 > 10,000: EUR/USD
        vm.expectRevert(RULE);
        oracle.setConfig(MAX_AGE, 0); // unbounded
        assertEq(oracle.maxMoveBps(), MAX_MOVE_BPS, "unchanged");
        oracle.setConfig(60, 100); // EUR/USD's limit exactly
        oracle.setConfig(60, 40);
        assertEq(oracle.maxMoveBps(), 40);
        assertEq(oracle.maxAgeSeconds(), 60);
    }

    function test_checkOracleBound_onlyThisOraclesMarkets() public view {
        factory.checkOracleBound(address(0xBEEF), 0); // no market reads that oracle
        factory.checkOracleBound(address(oracle), 100);
    }

    function test_setMarketFactory_onceByAdmin() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        oracle.setMarketFactory(address(0xBEEF));
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        oracle.setMarketFactory(address(0xBEEF)); // already set by the deployment
    }
}
