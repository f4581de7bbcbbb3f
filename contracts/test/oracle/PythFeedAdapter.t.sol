// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {VenueFixture} from "../utils/VenueFixture.sol";
import {IPriceFeed} from "../../src/interfaces/IPriceFeed.sol";
import {IPythLike} from "../../src/oracle/PythFeedAdapter.sol";

/// Pyth's getPriceUnsafe, settable.
contract MockPyth {
    IPythLike.Price internal p;
    bool internal broken;

    function set(int64 price, uint64 conf, int32 expo, uint256 publishTime) external {
        p = IPythLike.Price(price, conf, expo, publishTime);
    }

    function setBroken(bool b) external {
        broken = b;
    }

    function getPriceUnsafe(bytes32) external view returns (IPythLike.Price memory) {
        require(!broken, "pyth down");
        return p;
    }
}

contract PythFeedAdapterTest is VenueFixture {
    bytes32 internal constant PRICE_ID = keccak256("EUR/USD pyth id");
    MockPyth internal pyth;
    IPriceFeed internal adapter;

    function setUp() public override {
        super.setUp();
        oracle.setConfig(60, 100); // the most EUR/USD at 50x takes (OracleMarketBound)
        pyth = new MockPyth();
        adapter = IPriceFeed(
            vm.deployCode("PythFeedAdapter.sol:PythFeedAdapter", abi.encode(address(pyth), PRICE_ID, uint256(50)))
        );
    }

    function test_scalesByExponent() public {
        pyth.set(108_512_345, 10_000, -8, block.timestamp - 3); // 1.08512345 ± 0.0001
        (uint256 p, uint256 at) = adapter.latestPrice();
        assertEq(p, 1.08512345e18);
        assertEq(at, block.timestamp - 3);
        pyth.set(150, 0, 0, block.timestamp); // expo 0
        (p,) = adapter.latestPrice();
        assertEq(p, 150e18);
    }

    function test_uncertainOrBadPricesReadAsNeverSet() public {
        pyth.set(108_000_000, 600_000, -8, block.timestamp); // conf 0.56 % > 0.5 %
        _assertNone();
        pyth.set(-1, 0, -8, block.timestamp);
        _assertNone();
        pyth.set(108_000_000, 0, -8, 0);
        _assertNone();
        pyth.set(108_000_000, 0, -8, block.timestamp);
        pyth.setBroken(true);
        _assertNone();
    }

    function _assertNone() internal view {
        (uint256 p, uint256 at) = adapter.latestPrice();
        assertEq(p, 0);
        assertEq(at, 0);
    }

    function test_oracleRoutesMarketToPyth() public {
        pyth.set(109_100_000, 1_000, -8, block.timestamp);
        oracle.setFeed(EUR, address(adapter));
        assertEq(oracle.getFreshPrice(EUR), 1.091e18);
        assertEq(market.markPrice(), 1.091e18);
        vm.warp(block.timestamp + 61);
        assertFalse(oracle.isFresh(EUR));
    }
}
