// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IMarketFactory} from "./interfaces/IMarketFactory.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {IEngine} from "./interfaces/IEngine.sol";
import {Market} from "./Market.sol";
import {FxToken} from "./FxToken.sol";

/// @notice Makes one Market clone per market (and the FX tokens it names) and registers it.
contract MarketFactory is IMarketFactory, Ownable {
    address public immutable engine;
    address public immutable marketImplementation;
    address[] internal markets;
    mapping(string => address) public fxTokenOf; // asset symbol ("EUR") → fx token

    constructor(address engine_, address marketImplementation_, address owner_) Ownable(owner_) {
        engine = engine_;
        marketImplementation = marketImplementation_;
    }

    function createMarket(string calldata baseSymbol, string calldata quoteSymbol, IMarket.MarketParams calldata p)
        external onlyOwner returns (address market)
    {
        uint256 BPS = 1e4;
        if (
            p.tickSizeX18 == 0 || p.lotSizeQty == 0 || p.maxLeverage == 0 || p.maintenanceMarginBps == 0
                || p.maintenanceMarginBps >= BPS || p.priceBandBps >= BPS || p.markClampBps >= BPS || p.maxFillsPerTx == 0
                || p.liquidationFeeBps >= BPS || p.takerFeeBps >= BPS || p.makerFeeBps >= BPS
        ) revert InvalidParameters();
        IMarket.MarketParams memory params = p;
        params.symbol = string.concat(baseSymbol, "/", quoteSymbol);
        params.marketId = keccak256(bytes(params.symbol));
        if (IEngine(engine).marketOf(params.marketId) != address(0)) revert InvalidParameters();
        params.baseFxToken = _fxToken(baseSymbol);
        params.quoteFxToken = _fxToken(quoteSymbol);
        market = Clones.cloneDeterministic(marketImplementation, params.marketId);
        markets.push(market);
        uint256 index = markets.length;
        Market(market).initialize(engine, IEngine(engine).oracle(), index, params);
        IEngine(engine).registerMarket(params.marketId, market);
        emit MarketCreated(
            params.marketId, market, index, params.symbol, params.baseFxToken, string.concat("fx", baseSymbol),
            params.quoteFxToken, string.concat("fx", quoteSymbol), params
        );
    }

    function marketCount() external view returns (uint256) {
        return markets.length;
    }

    function marketAt(uint256 index) external view returns (address) {
        return markets[index - 1];
    }

    function _fxToken(string calldata asset) internal returns (address token) {
        token = fxTokenOf[asset];
        if (token == address(0)) {
            token = address(new FxToken(string.concat("FX ", asset), string.concat("fx", asset), owner()));
            fxTokenOf[asset] = token;
        }
    }
}
