// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IVenueErrors} from "./IVenueErrors.sol";
import {IMarket} from "./IMarket.sol";

/// @notice Creates one Market (and its base/quote FX tokens) per market and registers it
/// with the Engine. The indexer discovers markets from MarketCreated.
interface IMarketFactory is IVenueErrors {
    event MarketCreated(
        bytes32 indexed marketId, address indexed market, uint256 marketIndex, string symbol,
        address baseFxToken, string baseFxTokenSymbol, address quoteFxToken, string quoteFxTokenSymbol,
        IMarket.MarketParams params
    );

    /// VALIDATION_ERROR: the parameters break `rule` (factory/MarketParamRules.sol).
    error InvalidMarketParams(string rule);

    /// PARAMS_ROLE (the timelock after deployment). Checks the parameters (every MarketParamRules
    /// rule, with the oracle's current index when it has one and its per-update bound), deploys `fx<BASE>`/`fx<QUOTE>` tokens, deploys
    /// the market, registers it. `p.marketId`, `p.baseFxToken` and `p.quoteFxToken` are filled
    /// in by the factory. A duplicate market reverts InvalidParameters.
    function createMarket(string calldata baseSymbol, string calldata quoteSymbol, IMarket.MarketParams calldata p)
        external returns (address market);

    /// createMarket's rules as a view (reverts InvalidMarketParams(rule)).
    function checkParams(IMarket.MarketParams calldata p) external view;

    /// The oracle-bound rule (maxMove + maintenance ≤ 1/leverage, maxMove ≠ 0) for every market
    /// this factory created that reads `oracle`; reverts InvalidMarketParams(rule) on the first
    /// that breaks it. Oracle.setConfig calls it before it changes the bound.
    function checkOracleBound(address oracle, uint256 maxMoveBps) external view;

    function engine() external view returns (address);
    function marketImplementation() external view returns (address);
    function marketCount() external view returns (uint256);
    function marketAt(uint256 index) external view returns (address); // 1-based
}
