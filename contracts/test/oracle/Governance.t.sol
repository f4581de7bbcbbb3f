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

/// The deployed role layout (scripts/deploy.ts): the timelock holds DEFAULT_ADMIN_ROLE and
/// PARAMS_ROLE on the oracle and the factory; the deployer keeps GUARDIAN_ROLE (and, on devnet,
/// UPDATER_ROLE).
contract GovernanceTest is VenueFixture {
    uint256 internal constant DELAY = 3600;
    bytes32 internal constant ADMIN = 0x00;
    ITimelock internal timelock;
    bytes32 internal PARAMS;
    bytes32 internal UPDATER;

    function setUp() public override {
        super.setUp();
        address[] memory us = new address[](1);
        us[0] = admin;
        timelock = ITimelock(vm.deployCode("VenueTimelock.sol:VenueTimelock", abi.encode(DELAY, us, us, address(0))));
        PARAMS = IRoles(address(oracle)).PARAMS_ROLE();
        UPDATER = keccak256("venue.UPDATER_ROLE");
        oracle.setConfig(60, 500);
        for (uint256 i; i < 2; ++i) {
            IRoles c = IRoles(i == 0 ? address(oracle) : address(factory));
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
}
