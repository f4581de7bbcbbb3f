// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";

/// Issue 10, scenario 9: market parameters are not checked against each other. Each set below is
/// inconsistent and must be refused at creation: leverage × maintenance ≥ 1, a price band wider
/// than 1/leverage − maintenance, an unbounded fill cap, a funding clamp that does not fit its
/// type, a mark clamp above half the maintenance margin; and a tick whose highest price is too
/// low for a USD/JPY-like market must be refused or still quote twice the index.
contract Scenario09ParametersAttack is AttackBase {
    uint256 internal made;

    /// Creation must be refused with a venue error.
    function _refused(IMarket.MarketParams memory p, string memory what) internal {
        string memory base = string.concat("X", vm.toString(++made));
        bytes32 mid = keccak256(bytes(string.concat(base, "/USD")));
        oracle.setPrice(mid, EUR_PX);
        try factory.createMarket(base, "USD", p) returns (address) {
            revert(string.concat("accepted: ", what));
        } catch (bytes memory r) {
            _requireVenueRefusal(r, what);
        }
    }

    function test_attack_leverageTimesMaintenanceAtLeastOne() public {
        IMarket.MarketParams memory p = _eurParams();
        p.maxLeverage = 100;
        p.maintenanceMarginBps = 100;
        _refused(p, "100x with 1 % maintenance");
    }

    function test_attack_bandWiderThanInitialMinusMaintenance() public {
        IMarket.MarketParams memory p = _eurParams();
        p.priceBandBps = 9_000;
        _refused(p, "a 90 % band at 50x");
    }

    function test_attack_unboundedFillCap() public {
        IMarket.MarketParams memory p = _eurParams();
        p.maxFillsPerTx = type(uint16).max;
        _refused(p, "65,535 fills per transaction");
    }

    function test_attack_fundingClampDoesNotFitItsType() public {
        IMarket.MarketParams memory p = _eurParams();
        p.maxFundingRateX18PerHour = uint256(type(uint64).max) + 1;
        _refused(p, "a funding clamp beyond int64");
        p = _eurParams();
        p.skewScaleX18PerHour = uint256(type(uint64).max) + 1;
        _refused(p, "a skew scale beyond int64");
    }

    function test_attack_markClampAboveHalfMaintenance() public {
        IMarket.MarketParams memory p = _eurParams();
        p.markClampBps = p.maintenanceMarginBps / 2 + 1;
        _refused(p, "a mark clamp above half the maintenance margin");
    }

    /// USD/JPY at 150 with the EUR/USD tick: either refused, or a limit order at the mark still
    /// goes in after the index doubles.
    function test_attack_tickTooFineForJpy() public {
        bytes32 jpy = keccak256("USD/JPY");
        oracle.setPrice(jpy, 150e18);
        IMarket m;
        try factory.createMarket("USD", "JPY", _eurParams()) returns (address addr) {
            m = IMarket(addr);
        } catch (bytes memory r) {
            _requireVenueRefusal(r, "USD/JPY");
            return;
        }
        _walkIndex(jpy, 300e18);
        uint256 a = _account(alice, 1_000_000e6);
        uint256 px = m.markPrice() / m.params().tickSizeX18 * m.params().tickSizeX18;
        vm.prank(alice);
        try engine.placeOrder(_params(a, jpy, IMarket.Side.LONG, LMT, 1_000e6, 10, px, bytes32(0))) {}
        catch (bytes memory r) {
            revert(string.concat("USD/JPY cannot quote twice its index: ", vm.toString(r)));
        }
    }
}
