// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";

interface ITimelock {
    function schedule(address target, uint256 value, bytes calldata data, bytes32 predecessor, bytes32 salt, uint256 delay)
        external;
    function execute(address target, uint256 value, bytes calldata payload, bytes32 predecessor, bytes32 salt)
        external payable;
    function cancel(bytes32 id) external;
    function hashOperation(address target, uint256 value, bytes calldata data, bytes32 predecessor, bytes32 salt)
        external pure returns (bytes32);
}

interface IRoles {
    function grantRole(bytes32 role, address account) external;
    function renounceRole(bytes32 role, address account) external;
    function hasRole(bytes32 role, address account) external view returns (bool);
    function PARAMS_ROLE() external view returns (bytes32);
}

interface IEngineRoles {
    function withdrawFees(address to, uint256 amount6) external;
    function feesWad() external view returns (uint256);
}

/// The deployed role layout (scripts/deploy.ts): the timelock holds DEFAULT_ADMIN_ROLE and
/// PARAMS_ROLE on the oracle, the factory and the engine; the deployer keeps GUARDIAN_ROLE (and,
/// on devnet, UPDATER_ROLE) and the engine's FEES_ROLE.
contract GovernanceTest is VenueFixture {
    uint256 internal constant DELAY = 3600;
    bytes32 internal constant ADMIN = 0x00;
    ITimelock internal timelock;
    bytes32 internal PARAMS;
    bytes32 internal UPDATER;
    bytes32 internal constant FEES = keccak256("venue.FEES_ROLE");
    bytes32 internal constant GUARDIAN = keccak256("venue.GUARDIAN_ROLE");
    address internal treasury = address(0x7EA5);

    function setUp() public override {
        super.setUp();
        address[] memory us = new address[](1);
        us[0] = admin;
        timelock = ITimelock(vm.deployCode("VenueTimelock.sol:VenueTimelock", abi.encode(DELAY, us, us, address(0))));
        PARAMS = IRoles(address(oracle)).PARAMS_ROLE();
        UPDATER = keccak256("venue.UPDATER_ROLE");
        oracle.setConfig(60, 100);
        for (uint256 i; i < 3; ++i) {
            IRoles c = IRoles(i == 0 ? address(oracle) : i == 1 ? address(factory) : address(engine));
            c.grantRole(ADMIN, address(timelock));
            c.grantRole(PARAMS, address(timelock));
            c.renounceRole(PARAMS, admin);
            c.renounceRole(ADMIN, admin);
        }
    }

    function _schedule(address target, bytes memory data) internal {
        timelock.schedule(target, 0, data, bytes32(0), bytes32(0), DELAY);
    }

    function _execute(address target, bytes memory data) internal {
        timelock.execute(target, 0, data, bytes32(0), bytes32(0));
    }

    function test_roles_afterHandover() public view {
        IRoles o = IRoles(address(oracle));
        assertTrue(o.hasRole(ADMIN, address(timelock)));
        assertTrue(o.hasRole(PARAMS, address(timelock)));
        assertFalse(o.hasRole(ADMIN, admin));
        assertFalse(o.hasRole(PARAMS, admin));
        assertTrue(o.hasRole(keccak256("venue.GUARDIAN_ROLE"), admin));
        assertTrue(oracle.isUpdater(admin));
    }

    function test_addUpdater_notInstant() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, admin));
        oracle.setUpdater(keeper, true);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, admin));
        IRoles(address(oracle)).grantRole(UPDATER, keeper);
        assertFalse(oracle.isUpdater(keeper));
    }

    function test_addUpdater_throughTimelockAfterDelay() public {
        bytes memory call = abi.encodeCall(oracle.setUpdater, (keeper, true));
        _schedule(address(oracle), call);
        vm.warp(block.timestamp + DELAY - 1);
        vm.expectRevert(); // TimelockUnexpectedOperationState: not ready
        _execute(address(oracle), call);
        vm.warp(block.timestamp + 1);
        _execute(address(oracle), call);
        assertTrue(oracle.isUpdater(keeper));
        vm.prank(keeper);
        oracle.setPrice(EUR, 1.09e18);
        assertEq(oracle.getFreshPrice(EUR), 1.09e18);
    }

    function test_addUpdater_cancelledByProposer() public {
        bytes memory call = abi.encodeCall(oracle.setUpdater, (keeper, true));
        _schedule(address(oracle), call);
        timelock.cancel(timelock.hashOperation(address(oracle), 0, call, bytes32(0), bytes32(0)));
        vm.warp(block.timestamp + DELAY);
        vm.expectRevert();
        _execute(address(oracle), call);
        assertFalse(oracle.isUpdater(keeper));
    }

    function test_guardian_revokesUpdaterAtOnce() public {
        assertTrue(oracle.isUpdater(admin));
        oracle.setUpdater(admin, false);
        assertFalse(oracle.isUpdater(admin));
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, admin));
        oracle.setPrice(EUR, 1.08e18);
    }

    function test_revokeUpdater_revertsForStranger() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        oracle.setUpdater(admin, false);
        assertTrue(oracle.isUpdater(admin));
    }

    function test_oracleConfig_onlyThroughTimelock() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, admin));
        oracle.setConfig(3600, 100);
        bytes memory call = abi.encodeCall(oracle.setConfig, (120, 100));
        _schedule(address(oracle), call);
        vm.warp(block.timestamp + DELAY);
        _execute(address(oracle), call);
        assertEq(oracle.maxAgeSeconds(), 120);
        assertEq(oracle.maxMoveBps(), 100);
    }

    function test_feed_onlyThroughTimelock() public {
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, admin));
        oracle.setFeed(EUR, address(1));
    }

    function test_createMarket_onlyThroughTimelock() public {
        IMarket.MarketParams memory p = _eurParams();
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, admin));
        factory.createMarket("AUD", "USD", p);
        bytes memory call = abi.encodeCall(factory.createMarket, ("AUD", "USD", p));
        _schedule(address(factory), call);
        vm.warp(block.timestamp + DELAY);
        _execute(address(factory), call);
        assertEq(factory.marketCount(), 3);
    }

    // ─── the engine: fees, pause, parameters ────────────────────────────────────────────

    /// Some fees in the engine: a taker buys 1,000 EUR from a resting ask.
    function _accrueFees() internal returns (uint256 fees6) {
        uint256 a = _account(alice, 1_000e6);
        uint256 b = _account(bob, 1_000e6);
        _limit(alice, a, SHORT, 100e6, 10, EUR_PX);
        _market(bob, b, LONG, 100e6, 10);
        fees6 = IEngineRoles(address(engine)).feesWad() / TO_WAD;
        assertGt(fees6, 0, "fees accrued");
    }

    function test_engine_rolesAfterHandover() public view {
        IRoles e = IRoles(address(engine));
        assertTrue(e.hasRole(ADMIN, address(timelock)));
        assertTrue(e.hasRole(PARAMS, address(timelock)));
        assertFalse(e.hasRole(ADMIN, admin));
        assertFalse(e.hasRole(PARAMS, admin));
        assertTrue(e.hasRole(FEES, admin));
        assertTrue(e.hasRole(GUARDIAN, admin));
    }

    function test_engine_withdrawFees_onlyFeesRole() public {
        uint256 fees6 = _accrueFees();
        IEngineRoles e = IEngineRoles(address(engine));
        for (uint256 i; i < 2; ++i) {
            address who = i == 0 ? stranger : address(timelock); // the timelock holds admin, not FEES
            vm.prank(who);
            vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, who));
            e.withdrawFees(who, fees6);
        }
        assertEq(token.balanceOf(treasury), 0);
        e.withdrawFees(treasury, fees6);
        assertEq(token.balanceOf(treasury), fees6, "the fees holder pays the treasury");
    }

    function test_engine_pause_guardianAtOnce_strangerNever() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        engine.setMarketActive(EUR, false);
        engine.setMarketActive(EUR, false); // the guardian, no delay
        assertFalse(market.isActive());
        engine.setMarketActive(EUR, true);
        assertTrue(market.isActive());
    }

    function test_engine_rolesChangeOnlyThroughTimelock() public {
        uint256 fees6 = _accrueFees();
        IRoles e = IRoles(address(engine));
        // Nobody grants FEES_ROLE (or any other) at once: not the deployer, not a stranger.
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, admin));
        e.grantRole(FEES, stranger);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        e.grantRole(FEES, stranger);
        bytes memory call = abi.encodeCall(IRoles.grantRole, (FEES, stranger));
        _schedule(address(engine), call);
        vm.warp(block.timestamp + DELAY - 1);
        vm.expectRevert(); // TimelockUnexpectedOperationState: not ready
        _execute(address(engine), call);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IVenueErrors.Unauthorized.selector, stranger));
        IEngineRoles(address(engine)).withdrawFees(stranger, fees6);
        vm.warp(block.timestamp + 1);
        _execute(address(engine), call);
        vm.prank(stranger);
        IEngineRoles(address(engine)).withdrawFees(stranger, fees6);
        assertEq(token.balanceOf(stranger), fees6, "after the delay the new holder withdraws");
    }
}
