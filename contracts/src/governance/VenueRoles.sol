// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice The venue's roles (OpenZeppelin AccessControl ids), one place for every contract.
/// Who holds them after `scripts/deploy.ts`: docs/CONTRACTS.md "Oracle, roles and governance".
library VenueRoles {
    /// Market parameters, market creation, oracle configuration and feeds, the Engine's factory
    /// and market calendars. Held by the VenueTimelock, so every change waits out its delay.
    /// DEFAULT_ADMIN_ROLE (who grants every role, updaters included) sits with the timelock too.
    bytes32 internal constant PARAMS_ROLE = keccak256("venue.PARAMS_ROLE");
    /// Pushes index prices (bounded per update, see Oracle.maxMoveBps).
    bytes32 internal constant UPDATER_ROLE = keccak256("venue.UPDATER_ROLE");
    /// Withdraws accrued protocol fees (Engine.withdrawFees), nothing else. Held by the owner
    /// (no delay: it only pays out fees already earned); granting it waits for the timelock.
    bytes32 internal constant FEES_ROLE = keccak256("venue.FEES_ROLE");
    /// Acts at once but can only take power away: revokes updaters (Oracle), pauses and resumes
    /// markets (Engine.setMarketActive; a paused market still liquidates, cancels and closes).
    bytes32 internal constant GUARDIAN_ROLE = keccak256("venue.GUARDIAN_ROLE");
}
