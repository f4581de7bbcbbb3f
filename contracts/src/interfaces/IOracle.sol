// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IVenueErrors} from "./IVenueErrors.sol";

/// @notice Index prices per market. Markets read only the views below (the read seam); where a
/// price comes from is the Oracle's business: pushed by UPDATER_ROLE holders (each update moves
/// the price at most `maxMoveBps` from the price before that second), or read from an
/// IPriceFeed adapter (Chainlink-, Pyth-style) routed per market with `setFeed`.
/// Roles: docs/CONTRACTS.md "Oracle, roles and governance".
interface IOracle is IVenueErrors {
    event IndexPriceUpdated(uint64 seq, bytes32 indexed marketId, uint256 priceX18, uint256 timestamp);
    /// An update asked for more than `maxMoveBps` away from `referencePriceX18` (the price
    /// before the first update of this second) and was clamped to `appliedPriceX18`. Emitted
    /// just before the IndexPriceUpdated carrying the applied price.
    event IndexPriceClamped(
        uint64 seq, bytes32 indexed marketId, uint256 requestedPriceX18, uint256 appliedPriceX18,
        uint256 referencePriceX18
    );
    event UpdaterSet(address indexed updater, bool allowed);
    event OracleConfigUpdated(uint64 seq, uint256 maxAgeSeconds, uint256 maxMoveBps);
    /// The factory whose markets `setConfig` re-checks (set once).
    event MarketFactorySet(address factory);
    /// `feed` 0: the market goes back to pushed prices (the last pushed one, if fresh, applies).
    event FeedSet(uint64 seq, bytes32 indexed marketId, address feed);

    /// FEED_MANAGED: the market reads an external feed; pushed prices are refused.
    error FeedManaged(bytes32 marketId, address feed);

    // ─── updaters (UPDATER_ROLE) ────────────────────────────────────────────────────────────
    function setPrice(bytes32 marketId, uint256 priceX18) external;
    function setPrices(bytes32[] calldata marketIds, uint256[] calldata pricesX18) external;

    // ─── admin ──────────────────────────────────────────────────────────────────────────────
    /// Granting needs DEFAULT_ADMIN_ROLE (the timelock); revoking also GUARDIAN_ROLE (at once).
    function setUpdater(address updater, bool allowed) external;
    /// PARAMS_ROLE (the timelock). maxAge in (0, 2^32); maxMoveBps < 10_000 (0 = unbounded).
    /// Once a market factory is set, maxMoveBps must keep maxMove + maintenance ≤ 1/leverage for
    /// every market it created on this oracle (else `InvalidMarketParams(rule)`).
    function setConfig(uint256 maxAgeSeconds, uint256 maxMoveBps) external;
    /// DEFAULT_ADMIN_ROLE, once: the factory whose markets `setConfig` re-checks.
    function setMarketFactory(address factory) external;
    /// PARAMS_ROLE (the timelock). Routes a market to an IPriceFeed adapter (0 = pushed prices).
    function setFeed(bytes32 marketId, address feed) external;

    // ─── reads (what markets use) ───────────────────────────────────────────────────────────
    /// Price and the second it was set; (0, 0) if never set (or the feed has no valid answer).
    function getPrice(bytes32 marketId) external view returns (uint256 priceX18, uint256 updatedAt);
    /// Reverts PriceStale when never set or older than maxAgeSeconds.
    function getFreshPrice(bytes32 marketId) external view returns (uint256 priceX18);
    /// The price with the stretch over which the index has been fresh without a break: from the
    /// first update of the run of pushed updates it ends (each within maxAgeSeconds of the one
    /// before; a feed's price: its own second) to updatedAt + maxAgeSeconds. Markets charge funding
    /// only over such stretches (docs/CONTRACTS.md "Funding"). Unset: (0, 0, maxAgeSeconds).
    function priceWindow(bytes32 marketId) external view returns (uint256 priceX18, uint256 freshSince, uint256 freshUntil);
    /// priceWindow, reverting PriceStale like getFreshPrice.
    function getFreshPriceWindow(bytes32 marketId) external view returns (uint256 priceX18, uint256 freshSince, uint256 freshUntil);
    /// false when never set or older than maxAgeSeconds: markets stop opening orders and funding.
    function isFresh(bytes32 marketId) external view returns (bool);
    function maxAgeSeconds() external view returns (uint256);
    function maxMoveBps() external view returns (uint256);
    function feedOf(bytes32 marketId) external view returns (address);
    function isUpdater(address who) external view returns (bool);
}
