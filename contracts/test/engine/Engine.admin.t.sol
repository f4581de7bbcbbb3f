// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture, IEngineAdmin} from "../utils/VenueFixture.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

contract EngineAdminTest is VenueFixture {
    uint256 internal a;
    uint256 internal b;

    function setUp() public override {
        super.setUp();
        a = _account(alice, 1_000e6);
        b = _account(bob, 1_000e6);
    }

    function test_deployment_registersMarkets() public view {
        bytes32[] memory ids = engine.marketIds();
        assertEq(ids.length, 2);
        assertEq(ids[0], EUR);
        assertEq(ids[1], GBP);
        assertEq(engine.marketOf(EUR), address(market));
        assertEq(market.marketId(), EUR);
        assertEq(market.marketIndex(), 1);
        assertEq(gbp.marketIndex(), 2);
        assertEq(market.engine(), address(engine));
        assertEq(factory.marketCount(), 2);
        assertEq(factory.marketAt(1), address(market));
        assertTrue(market.isActive());
        IMarket.MarketParams memory p = market.params();
        assertEq(p.marketId, EUR, "factory fills marketId");
        assertTrue(p.baseFxToken != address(0) && p.quoteFxToken != address(0), "fx tokens");
        assertEq(gbp.params().quoteFxToken, p.quoteFxToken, "fxUSD reused");
    }

    function test_setMarketActive_pausesAndResumes() public {
        uint256 oid = _limit(alice, a, LONG, 100e6, 5, 1.07e18);
        engine.setMarketActive(EUR, false);
        assertFalse(market.isActive());
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketNotActive.selector, EUR));
        engine.placeOrder(_params(a, EUR, LONG, LMT, 100e6, 5, 1.07e18, bytes32(0)));
        engine.setMarketActive(EUR, true);
        _limit(bob, b, SHORT, 100e6, 5, 1.09e18);
        assertEq(uint256(market.getOrder(oid).status), uint256(IMarket.OrderStatus.ACTIVE));
    }

    function test_setMarketActive_pauseStillAllowsCancel() public {
        uint256 oid = _limit(alice, a, LONG, 100e6, 5, 1.07e18);
        bytes32 key = _keyOf(oid);
        engine.setMarketActive(EUR, false);
        vm.prank(alice);
        engine.cancelOrder(a, EUR, key);
        assertEq(engine.getAccount(a).committedWad, 0, "margin back while paused");
    }

    function test_setMarketActive_revertsForNonOwner() public {
        vm.prank(stranger);
        vm.expectRevert();
        engine.setMarketActive(EUR, false);
        assertTrue(market.isActive());
    }

    function test_placeOrder_revertsMarketNotFound() public {
        bytes32 nope = keccak256("XXX/USD");
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.MarketNotFound.selector, nope));
        engine.placeOrder(_params(a, nope, LONG, LMT, 100e6, 5, 1.07e18, bytes32(0)));
    }

    function test_applyMargin_revertsUnauthorizedForNonMarket() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        engine.applyMargin(a, 1e18, 0, IEngine.MarginReason.TRADE_SETTLEMENT);
    }

    function test_collect_revertsUnauthorizedForNonMarket() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, address(this)));
        engine.collect(1, 1);
    }

    function test_payLiquidator_revertsUnauthorizedForNonMarket() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, alice));
        engine.payLiquidator(alice, 1e18);
    }

    function test_marketEntryPoints_revertUnauthorizedUnlessEngine() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, alice));
        market.placeOrder(a, LONG, LMT, 100e18, 5, 1.07e18, bytes32(0), 0);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, alice));
        market.setActive(false);
    }

    function test_oracle_setPriceRevertsUnauthorized() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        oracle.setPrice(EUR, 1e18);
    }

    function test_oracle_getFreshPriceRevertsPriceStale() public {
        (, uint256 updatedAt) = oracle.getPrice(EUR);
        vm.warp(updatedAt + MAX_AGE + 1);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.PriceStale.selector, EUR, updatedAt, MAX_AGE));
        oracle.getFreshPrice(EUR);
    }

    function test_factory_createMarketRevertsForNonOwner() public {
        vm.prank(stranger);
        vm.expectRevert();
        factory.createMarket("AUD", "USD", _eurParams());
    }

    function test_setFactory_revertsInvalidParametersWhenSet() public {
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        IEngineAdmin(address(engine)).setFactory(address(0xBEEF));
    }

    function test_registerMarket_revertsUnauthorizedUnlessFactory() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        engine.registerMarket(keccak256("AUD/USD"), address(0xBEEF));
    }

    function test_createMarket_revertsInvalidParametersForDuplicate() public {
        vm.expectRevert(IVenueErrors.InvalidParameters.selector);
        factory.createMarket("EUR", "USD", _eurParams());
    }

    function test_createMarket_thirdMarketGetsNextIndex() public {
        address aud = factory.createMarket("AUD", "USD", _eurParams());
        assertEq(IMarket(aud).marketIndex(), 3);
        assertEq(engine.marketOf(keccak256("AUD/USD")), aud);
        assertEq(IMarket(aud).marketId(), keccak256("AUD/USD"));
    }
}
