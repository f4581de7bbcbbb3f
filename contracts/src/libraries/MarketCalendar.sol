// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IMarket} from "../interfaces/IMarket.sol";

/// @notice The weekly market calendar (docs/CONTRACTS.md "Weekends and gaps"): a market's session
/// is derived from `block.timestamp` and a calendar stored on chain, never switched by a key.
/// A calendar is one weekly close: CLOSED from `closeAtMin` (minutes since Monday 00:00 UTC) for
/// `closedMin` minutes, REDUCE_ONLY in the `windowMin` minutes before it, OPEN otherwise
/// (closedMin = 0: always OPEN). Packed in one storage word with the next calendar and the
/// second it takes effect: bits 0–47 the calendar in force, 48–95 the next one, 96–135 its start.
library MarketCalendar {
    uint256 internal constant WEEK = 7 days;
    uint256 internal constant WEEK_MIN = WEEK / 60;
    /// The longest CLOSED stretch a calendar may hold: the FX weekend (Friday 21:00 to Sunday
    /// 21:00 UTC, 48 h) plus two holiday days. Liquidation resumes when it ends.
    uint256 internal constant MAX_CLOSED = 96 hours;
    /// The REDUCE_ONLY window before each close: at least 15 minutes (liquidations run in it,
    /// so two closes are never back to back), at most 12 hours.
    uint256 internal constant MIN_WINDOW = 15 minutes;
    uint256 internal constant MAX_WINDOW = 12 hours;
    /// The shortest delay between scheduling a calendar and its start (Engine, off the local
    /// chain): at least the longest REDUCE_ONLY window.
    uint256 internal constant MIN_DELAY = MAX_WINDOW;

    function pack(IMarket.Calendar memory c) internal pure returns (uint256) {
        return uint256(c.closeAtMin) | uint256(c.windowMin) << 16 | uint256(c.closedMin) << 32;
    }

    function unpack(uint256 w) internal pure returns (IMarket.Calendar memory c) {
        c.closeAtMin = uint16(w);
        c.windowMin = uint16(w >> 16);
        c.closedMin = uint16(w >> 32);
    }

    /// The calendar in force at `t`, from the packed word.
    function at(uint256 word, uint256 t) internal pure returns (IMarket.Calendar memory) {
        uint256 start = uint40(word >> 96);
        return unpack(start != 0 && t >= start ? word >> 48 : word);
    }

    function isValid(IMarket.Calendar memory c) internal pure returns (bool) {
        if (c.closedMin == 0) return c.closeAtMin == 0 && c.windowMin == 0;
        return c.closeAtMin < WEEK_MIN && uint256(c.closedMin) * 60 <= MAX_CLOSED && uint256(c.windowMin) * 60 >= MIN_WINDOW
            && uint256(c.windowMin) * 60 <= MAX_WINDOW;
    }

    /// Seconds since the latest close start at or before `t` (cyclic over the week).
    function _sinceClose(IMarket.Calendar memory c, uint256 t) private pure returns (uint256) {
        // 1970-01-01 was a Thursday: Monday 00:00 is 4 days after the epoch
        uint256 pos = (t + 3 days) % WEEK;
        return (pos + WEEK - uint256(c.closeAtMin) * 60) % WEEK;
    }

    function sessionAt(IMarket.Calendar memory c, uint256 t) internal pure returns (IMarket.Session) {
        if (c.closedMin == 0) return IMarket.Session.OPEN;
        uint256 d = _sinceClose(c, t);
        if (d < uint256(c.closedMin) * 60) return IMarket.Session.CLOSED;
        if (d >= WEEK - uint256(c.windowMin) * 60) return IMarket.Session.REDUCE_ONLY;
        return IMarket.Session.OPEN;
    }

    /// The end of the latest CLOSED stretch at or before `t` (0: none, or `t` is in one).
    function lastReopen(IMarket.Calendar memory c, uint256 t) internal pure returns (uint256) {
        if (c.closedMin == 0) return 0;
        uint256 d = _sinceClose(c, t);
        uint256 l = uint256(c.closedMin) * 60;
        return d >= l && t >= d - l ? t - (d - l) : 0;
    }
}
