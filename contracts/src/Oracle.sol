// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IOracle} from "./interfaces/IOracle.sol";
import {IPriceFeed} from "./interfaces/IPriceFeed.sol";
import {IMarketFactory} from "./interfaces/IMarketFactory.sol";
import {VenueRoles} from "./governance/VenueRoles.sol";

/// @notice Index prices (X18) per market: pushed by updaters with a bounded move per update, or
/// read through an IPriceFeed adapter; stale after `maxAgeSeconds`.
/// The constructor gives `admin_` every role so that a deployment can set itself up; the deploy
/// script then hands DEFAULT_ADMIN_ROLE and PARAMS_ROLE to the VenueTimelock and renounces them.
contract Oracle is IOracle, AccessControl {
    struct Price {
        uint96 priceX18;   // the applied price
        uint32 updatedAt;  // second of the last update
        bool fed;          // a feed serves the market (`setFeed`): only then is `feeds` read
        uint96 anchorX18;  // price before the first update of `updatedAt`: the clamp's reference
        uint24 runAge;     // updatedAt − the first update of the unbroken fresh run it belongs to (saturating)
    }

    bytes32 public constant PARAMS_ROLE = VenueRoles.PARAMS_ROLE;
    bytes32 public constant UPDATER_ROLE = VenueRoles.UPDATER_ROLE;
    bytes32 public constant GUARDIAN_ROLE = VenueRoles.GUARDIAN_ROLE;
    uint256 internal constant BPS = 1e4;

    uint64 internal seq;
    uint32 internal maxAge;
    uint16 internal maxMove; // 0 until configured: unbounded (unit tests); deployments set it
    mapping(bytes32 => Price) internal prices;
    mapping(bytes32 => IPriceFeed) internal feeds;
    /// The factory whose markets this oracle prices: `setConfig` re-checks them (set once).
    IMarketFactory public marketFactory;

    constructor(address admin_, uint256 maxAgeSeconds_) {
        _setConfig(maxAgeSeconds_, 0);
        _grantRole(DEFAULT_ADMIN_ROLE, admin_);
        _grantRole(PARAMS_ROLE, admin_);
        _grantRole(GUARDIAN_ROLE, admin_);
        _grantRole(UPDATER_ROLE, admin_);
    }

    // ─── updaters ───────────────────────────────────────────────────────────────────────────

    function setPrice(bytes32 marketId, uint256 priceX18) public onlyRole(UPDATER_ROLE) {
        Price memory p = prices[marketId];
        if (p.fed) revert FeedManaged(marketId, address(feeds[marketId]));
        if (priceX18 == 0 || priceX18 > type(uint96).max) revert InvalidPrice(priceX18);
        // Updates within one second are all bounded by the price before it: no compounding.
        uint256 ref = p.updatedAt == block.timestamp ? p.anchorX18 : p.priceX18;
        uint256 applied = priceX18;
        uint256 move = maxMove;
        if (ref != 0 && move != 0) {
            uint256 hi = ref * (BPS + move) / BPS;
            uint256 lo = ref * (BPS - move) / BPS;
            if (applied > hi) applied = hi;
            else if (applied < lo) applied = lo;
            if (applied == 0) revert InvalidPrice(priceX18);
        }
        // a run of fresh updates goes on while each comes within maxAge of the one before
        uint256 age = p.updatedAt == 0 || block.timestamp > p.updatedAt + maxAge ? 0 : block.timestamp - p.updatedAt + p.runAge;
        if (age > type(uint24).max) age = type(uint24).max;
        prices[marketId] = Price(uint96(applied), uint32(block.timestamp), false, uint96(ref == 0 ? applied : ref), uint24(age));
        if (applied != priceX18) emit IndexPriceClamped(++seq, marketId, priceX18, applied, ref);
        emit IndexPriceUpdated(++seq, marketId, applied, block.timestamp);
    }

    function setPrices(bytes32[] calldata marketIds, uint256[] calldata pricesX18) external {
        if (marketIds.length != pricesX18.length) revert InvalidParameters();
        for (uint256 i; i < marketIds.length; ++i) setPrice(marketIds[i], pricesX18[i]);
    }

    // ─── admin ──────────────────────────────────────────────────────────────────────────────

    function setUpdater(address updater, bool allowed) external {
        if (allowed) {
            _checkRole(DEFAULT_ADMIN_ROLE, msg.sender);
            _grantRole(UPDATER_ROLE, updater);
        } else {
            if (!hasRole(GUARDIAN_ROLE, msg.sender)) _checkRole(DEFAULT_ADMIN_ROLE, msg.sender);
            _revokeRole(UPDATER_ROLE, updater);
        }
    }

    /// Issue 10's rule oracle bound + maintenance ≤ 1/leverage holds for every market, not only
    /// at its creation: a bound that would break it for an existing market is refused
    /// (`InvalidMarketParams(rule)`, from the factory's check).
    function setConfig(uint256 maxAgeSeconds_, uint256 maxMoveBps_) external onlyRole(PARAMS_ROLE) {
        IMarketFactory f = marketFactory;
        if (address(f) != address(0)) f.checkOracleBound(address(this), maxMoveBps_);
        _setConfig(maxAgeSeconds_, maxMoveBps_);
    }

    /// DEFAULT_ADMIN_ROLE, once (the deployment, before the handover): a later factory could not
    /// drop markets from the re-check.
    function setMarketFactory(address factory) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (address(marketFactory) != address(0) || factory == address(0)) revert InvalidParameters();
        marketFactory = IMarketFactory(factory);
        emit MarketFactorySet(factory);
    }

    function setFeed(bytes32 marketId, address feed) external onlyRole(PARAMS_ROLE) {
        feeds[marketId] = IPriceFeed(feed);
        prices[marketId].fed = feed != address(0);
        emit FeedSet(++seq, marketId, feed);
    }

    // ─── reads ──────────────────────────────────────────────────────────────────────────────

    function getPrice(bytes32 marketId) public view returns (uint256 priceX18, uint256 updatedAt) {
        Price memory p = prices[marketId];
        if (!p.fed) return (p.priceX18, p.updatedAt);
        return _feedPrice(marketId);
    }

    /// The price of the feed that serves `marketId`. A feed that reverts or answers garbage reads
    /// as never set (stale), never as a revert here: views and liquidation checks keep working.
    function _feedPrice(bytes32 marketId) internal view returns (uint256, uint256) {
        try feeds[marketId].latestPrice() returns (uint256 px, uint256 at) {
            if (px != 0 && at != 0) return (px, at);
        } catch {}
        return (0, 0);
    }

    function getFreshPrice(bytes32 marketId) external view returns (uint256) {
        (uint256 px, uint256 at) = getPrice(marketId);
        if (!_fresh(px, at)) revert PriceStale(marketId, at, maxAge);
        return px;
    }

    function priceWindow(bytes32 marketId) public view returns (uint256 priceX18, uint256 freshSince, uint256 freshUntil) {
        (priceX18, freshSince, freshUntil,) = _window(marketId);
    }

    function getFreshPriceWindow(bytes32 marketId) external view returns (uint256 priceX18, uint256 freshSince, uint256 freshUntil) {
        uint256 age;
        (priceX18, freshSince, freshUntil, age) = _window(marketId);
        uint256 at = freshUntil - age;
        if (priceX18 == 0 || at == 0 || (at < block.timestamp && block.timestamp - at > age)) revert PriceStale(marketId, at, age);
    }

    /// The price, its fresh run [since, until] and maxAge, each storage slot read once (the
    /// market's hot path). A feed's price: its own second (the oracle sees none of its history).
    function _window(bytes32 marketId) internal view returns (uint256 px, uint256 since, uint256 until, uint256 age) {
        age = maxAge;
        uint256 at;
        Price memory p = prices[marketId];
        if (!p.fed) {
            (px, at, since) = (p.priceX18, p.updatedAt, p.updatedAt - p.runAge);
        } else {
            (px, at) = _feedPrice(marketId);
            since = at;
        }
        until = at + age;
    }

    function isFresh(bytes32 marketId) external view returns (bool) {
        (uint256 px, uint256 at) = getPrice(marketId);
        return _fresh(px, at);
    }

    function maxAgeSeconds() external view returns (uint256) {
        return maxAge;
    }

    function maxMoveBps() external view returns (uint256) {
        return maxMove;
    }

    function feedOf(bytes32 marketId) external view returns (address) {
        return address(feeds[marketId]);
    }

    function isUpdater(address who) external view returns (bool) {
        return hasRole(UPDATER_ROLE, who);
    }

    // ─── internals ──────────────────────────────────────────────────────────────────────────

    function _fresh(uint256 px, uint256 at) internal view returns (bool) {
        return px != 0 && at != 0 && (at >= block.timestamp || block.timestamp - at <= maxAge);
    }

    function _setConfig(uint256 maxAgeSeconds_, uint256 maxMoveBps_) internal {
        if (maxAgeSeconds_ == 0 || maxAgeSeconds_ > type(uint32).max || maxMoveBps_ >= BPS) revert InvalidParameters();
        (maxAge, maxMove) = (uint32(maxAgeSeconds_), uint16(maxMoveBps_));
        emit OracleConfigUpdated(++seq, maxAgeSeconds_, maxMoveBps_);
    }

    /// The venue's one authorization error (core/errors.ts maps it), instead of OpenZeppelin's.
    function _checkRole(bytes32 role, address account) internal view override {
        if (!hasRole(role, account)) revert Unauthorized(account);
    }

    /// UpdaterSet mirrors every change of UPDATER_ROLE, however it was made.
    function _grantRole(bytes32 role, address account) internal override returns (bool granted) {
        granted = super._grantRole(role, account);
        if (granted && role == UPDATER_ROLE) emit UpdaterSet(account, true);
    }

    function _revokeRole(bytes32 role, address account) internal override returns (bool revoked) {
        revoked = super._revokeRole(role, account);
        if (revoked && role == UPDATER_ROLE) emit UpdaterSet(account, false);
    }
}
