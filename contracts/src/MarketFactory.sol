// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {MarketArgs} from "./libraries/MarketArgs.sol";
import {IMarketFactory} from "./interfaces/IMarketFactory.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {IEngine} from "./interfaces/IEngine.sol";
import {IOracle} from "./interfaces/IOracle.sol";
import {Market} from "./Market.sol";
import {FxToken} from "./FxToken.sol";
import {MarketParamRules} from "./factory/MarketParamRules.sol";
import {VenueRoles} from "./governance/VenueRoles.sol";

/// @notice Makes one Market per market (a copy of the implementation's code with the market's
/// args: `_deploy`), and the FX tokens it names, and registers it.
/// Market creation needs PARAMS_ROLE; `admin_` holds it (and DEFAULT_ADMIN_ROLE) until the
/// deploy script hands both to the VenueTimelock.
contract MarketFactory is IMarketFactory, AccessControl {
    bytes32 public constant PARAMS_ROLE = VenueRoles.PARAMS_ROLE;

    address public immutable engine;
    address public immutable marketImplementation;
    /// Owner (minter) of the FX tokens the factory deploys.
    address public immutable fxTokenOwner;
    address[] internal markets;
    mapping(string => address) public fxTokenOf; // asset symbol ("EUR") → fx token

    constructor(address engine_, address marketImplementation_, address admin_) {
        engine = engine_;
        marketImplementation = marketImplementation_;
        fxTokenOwner = admin_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin_);
        _grantRole(PARAMS_ROLE, admin_);
    }

    function createMarket(string calldata baseSymbol, string calldata quoteSymbol, IMarket.MarketParams calldata p)
        external onlyRole(PARAMS_ROLE) returns (address market)
    {
        if (bytes(baseSymbol).length == 0 || bytes(quoteSymbol).length == 0) revert InvalidParameters();
        IMarket.MarketParams memory params = p;
        params.symbol = string.concat(baseSymbol, "/", quoteSymbol);
        params.marketId = keccak256(bytes(params.symbol));
        if (IEngine(engine).marketOf(params.marketId) != address(0)) revert InvalidParameters();
        address oracle = IEngine(engine).oracle();
        (uint256 index,) = IOracle(oracle).getPrice(params.marketId);
        MarketParamRules.check(params, index, IOracle(oracle).maxMoveBps());
        params.baseFxToken = _fxToken(baseSymbol);
        params.quoteFxToken = _fxToken(quoteSymbol);
        // who the market is and its numbers live in its code (libraries/MarketArgs.sol): no cold
        // storage read for them in a trade
        uint256 marketIndex = markets.length + 1;
        market = _deploy(MarketArgs.encode(params, engine, oracle, marketIndex), params.marketId);
        markets.push(market);
        IMarket(market).initialize(params);
        IEngine(engine).registerMarket(params.marketId, market);
        emit MarketCreated(
            params.marketId, market, marketIndex, params.symbol, params.baseFxToken, string.concat("fx", baseSymbol),
            params.quoteFxToken, string.concat("fx", quoteSymbol), params
        );
    }

    function checkParams(IMarket.MarketParams calldata p) external view {
        IOracle oracle = IOracle(IEngine(engine).oracle());
        (uint256 index,) = oracle.getPrice(p.marketId);
        MarketParamRules.check(p, index, oracle.maxMoveBps());
    }

    function checkOracleBound(address oracle, uint256 maxMoveBps) external view {
        uint256 n = markets.length;
        for (uint256 i; i < n; ++i) {
            IMarket m = IMarket(markets[i]);
            if (m.oracle() == oracle) MarketParamRules.checkOracleBound(m.params(), maxMoveBps);
        }
    }

    function marketCount() external view returns (uint256) {
        return markets.length;
    }

    function marketAt(uint256 index) external view returns (address) {
        return markets[index - 1];
    }

    /// A market: the implementation's runtime code, zeros up to MarketArgs.OFFSET, then `args`
    /// (its code ends at EIP-170's limit). Not a proxy: a call runs the market's own code, with no
    /// delegatecall to the implementation (a cold account, 2,600 gas a transaction). CREATE2 with
    /// the market id as salt; the init code is a 10-byte prefix that returns what follows it.
    function _deploy(bytes memory args, bytes32 salt) internal returns (address market) {
        address impl = marketImplementation;
        uint256 size = impl.code.length;
        if (size == 0 || size > MarketArgs.OFFSET || args.length != MarketArgs.COUNT * 32) revert InvalidParameters();
        uint256 offset = MarketArgs.OFFSET;
        uint256 total = offset + args.length; // EIP-170's limit
        bytes memory init = new bytes(10 + total);
        assembly ("memory-safe") {
            let code := add(init, 0x2a) // the runtime code, after the length word and the prefix
            // PUSH2 total, DUP1, PUSH1 10, RETURNDATASIZE, CODECOPY, RETURNDATASIZE, RETURN
            mstore(add(init, 0x20), or(shl(232, or(0x610000, total)), shl(176, 0x80600a3d393df3)))
            extcodecopy(impl, code, 0, size)
            mcopy(add(code, offset), add(args, 0x20), mload(args))
            market := create2(0, add(init, 0x20), add(10, total), salt)
        }
        if (market == address(0)) revert InvalidParameters();
    }

    function _fxToken(string calldata asset) internal returns (address token) {
        token = fxTokenOf[asset];
        if (token == address(0)) {
            token = address(new FxToken(string.concat("FX ", asset), string.concat("fx", asset), fxTokenOwner));
            fxTokenOf[asset] = token;
        }
    }

    /// The venue's one authorization error (core/errors.ts maps it), instead of OpenZeppelin's.
    function _checkRole(bytes32 role, address account) internal view override {
        if (!hasRole(role, account)) revert Unauthorized(account);
    }
}
