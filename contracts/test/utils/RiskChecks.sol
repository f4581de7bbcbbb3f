// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {OrderScan} from "./OrderScan.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IDepositToken, ILens} from "./VenueFixture.sol";

/// Cheatcodes these checks use that utils/Vm.sol does not declare.
interface VmRisk {
    function skip(bool skipTest) external;
    function envOr(string calldata name, bool defaultValue) external view returns (bool);
    function prank(address sender) external;
    function toString(int256 value) external pure returns (string memory);
}

/// @notice The money-safety checks of issue 10, shared by the attack suite and the invariants:
/// strict solvency (no pool may hide a deficit), account value, depth inside the bankruptcy bound,
/// and the classification of reverts (a venue's deliberate refusal versus an accident).
library RiskChecks {
    enum Revert {
        NONE, // the call succeeded
        VENUE, // a custom error: the venue refused on purpose
        TOKEN_SHORTFALL, // the engine could not pay out tokens it owes (ERC20InsufficientBalance)
        PANIC, // arithmetic, array bounds, ... : a bug
        STRING, // require(..., "text") / Error(string): nothing in the venue reverts this way
        EMPTY // no data: out of gas, missing function, bare revert
    }

    bytes4 internal constant PANIC_SELECTOR = 0x4e487b71;
    /// The insurance fund's account in every market (it holds the positions it takes over).
    uint256 internal constant FUND = 0;
    bytes4 internal constant ERROR_SELECTOR = 0x08c379a0;

    function classify(bytes memory reason) internal pure returns (Revert) {
        if (reason.length < 4) return Revert.EMPTY;
        bytes4 sel = bytes4(reason);
        if (sel == PANIC_SELECTOR) return Revert.PANIC;
        if (sel == ERROR_SELECTOR) return Revert.STRING;
        if (sel == IERC20Errors.ERC20InsufficientBalance.selector) return Revert.TOKEN_SHORTFALL;
        return Revert.VENUE;
    }

    function selectorOf(bytes memory reason) internal pure returns (bytes4) {
        return reason.length < 4 ? bytes4(0) : bytes4(reason);
    }

    // ─── value ───────────────────────────────────────────────────────────────────────────

    function markets(IEngine e) internal view returns (IMarket[] memory ms) {
        bytes32[] memory ids = e.marketIds();
        ms = new IMarket[](ids.length);
        for (uint256 i; i < ids.length; ++i) ms[i] = IMarket(e.marketOf(ids[i]));
    }

    /// What an account is worth to its owner: free margin + margin of open orders (both can be
    /// withdrawn after a cancel) + Σ max(0, each position's equity at the mark). A position
    /// below zero is worth nothing to its owner (isolated margin): it is the venue's problem.
    function accountValueWad(IEngine e, ILens lens, uint256 id) internal view returns (uint256 v) {
        v = e.getAccount(id).totalWad;
        IMarket[] memory ms = markets(e);
        for (uint256 k; k < ms.length; ++k) {
            IMarket.PositionView memory p = ms[k].getPosition(id);
            if (p.sizeQty == 0) continue;
            v -= p.marginWad;
            int256 eq = equityWad(ms[k], lens, id);
            if (eq > 0) v += uint256(eq);
        }
    }

    /// A position's equity at the mark as the lens reports it, with the position value rounded
    /// against the position (the lens floors it, which favours shorts by up to 1 wei).
    function equityWad(IMarket m, ILens lens, uint256 id) internal view returns (int256 eq) {
        IMarket.HealthView memory h = lens.positionHealth(m, id);
        eq = h.equityWad;
        int256 size = m.getPosition(id).sizeQty;
        if (size < 0 && (uint256(-size) * h.markPriceX18) % 1e18 != 0) eq -= 1;
    }

    /// Everything the venue owes: Σ account values + insurance fund + fees.
    function claimsWad(IEngine e, ILens lens) internal view returns (uint256 c) {
        uint256 n = e.accountCount();
        for (uint256 i = 1; i <= n; ++i) c += accountValueWad(e, lens, i);
        c += e.insuranceFundWad() + e.feesWad();
        // the insurance fund's positions (account 0 of each market) are the fund's claim too
        IMarket[] memory ms = markets(e);
        for (uint256 k; k < ms.length; ++k) {
            if (ms[k].getPosition(FUND).sizeQty == 0) continue;
            int256 eq = equityWad(ms[k], lens, FUND);
            if (eq > 0) c += uint256(eq);
        }
    }

    /// Strict solvency (issue 10): token balance × 1e12 − everything owed. Negative: someone's
    /// deposit pays for someone else's loss.
    function surplusWad(IEngine e, ILens lens, IDepositToken token) internal view returns (int256) {
        return int256(token.balanceOf(address(e)) * 1e12) - int256(claimsWad(e, lens));
    }

    /// Σ equity (signed) of every position, for the "before liquidation" form of solvency: a
    /// position below zero still carries its deficit until someone takes the loss.
    function surplusSignedWad(IEngine e, ILens lens, IDepositToken token) internal view returns (int256 s) {
        s = int256(token.balanceOf(address(e)) * 1e12) - int256(e.insuranceFundWad() + e.feesWad());
        uint256 n = e.accountCount();
        IMarket[] memory ms = markets(e);
        for (uint256 i = 1; i <= n; ++i) {
            s -= int256(e.getAccount(i).totalWad);
            for (uint256 k; k < ms.length; ++k) {
                IMarket.PositionView memory p = ms[k].getPosition(i);
                if (p.sizeQty == 0) continue;
                s += int256(p.marginWad) - equityWad(ms[k], lens, i);
            }
        }
        // the fund's positions: their margin came out of the fund, their equity is its claim
        for (uint256 k; k < ms.length; ++k) {
            if (ms[k].getPosition(FUND).sizeQty == 0) continue;
            s += int256(ms[k].getPosition(FUND).marginWad) - equityWad(ms[k], lens, FUND);
        }
    }

    /// Initial margin of a position at the mark: value ÷ the market's max leverage (× the
    /// session's margin uplift, docs/CONTRACTS.md "Weekends and gaps").
    function initialMarginWad(IMarket m, IMarket.HealthView memory h) internal view returns (uint256) {
        (, uint256 uplift,) = m.session();
        return h.positionValueWad * uplift / 1e4 / m.params().maxLeverage;
    }

    // ─── liquidation ─────────────────────────────────────────────────────────────────────

    /// Opposite resting size a liquidation of `id` could fill at or better than the bankruptcy
    /// price: other accounts' orders only; reduce-only ones only while their owner still holds a
    /// position they reduce; orders that open or add to the maker's position only if the maker
    /// stays at initial margin after the fill (issue 10 cancels the others instead of filling them).
    function depthInsideBankruptcy(IMarket m, ILens lens, uint256 id) internal view returns (uint256 depth) {
        IMarket.PositionView memory p = m.getPosition(id);
        if (p.sizeQty == 0) return 0;
        uint256 bankrupt = lens.positionHealth(m, id).insolvencyPriceX18;
        bool long = p.sizeQty > 0; // a long is sold into bids
        IMarket.Side opposite = long ? IMarket.Side.LONG : IMarket.Side.SHORT;
        uint256[] memory all = OrderScan.ids(m);
        for (uint256 j; j < all.length; ++j) {
            IMarket.OrderView memory o = m.getOrder(all[j]);
            if (o.status != IMarket.OrderStatus.ACTIVE || o.side != opposite || o.accountId == id) continue;
            if (long ? o.priceX18 < bankrupt : o.priceX18 > bankrupt) continue;
            if (!_makerCanFill(m, o)) continue;
            depth += o.remainingQty;
        }
    }

    /// Whether a fill of resting order `o` at its price is allowed for its maker (see above).
    function _makerCanFill(IMarket m, IMarket.OrderView memory o) private view returns (bool) {
        int256 s = m.getPosition(o.accountId).sizeQty;
        bool bid = o.side == IMarket.Side.LONG;
        bool reduces = s != 0 && (s > 0) != bid; // a bid reduces a short, an ask a long
        if (o.reduceOnly) return reduces;
        if (reduces) return true;
        IMarket.MarketParams memory mp = m.params();
        uint256 mark = m.markPrice();
        // per unit: allocated margin - maker fee + PnL at the mark >= mark / max leverage
        int256 eq = int256(o.marginRemainingWad * 1e18 / o.remainingQty) - int256(o.priceX18 * mp.makerFeeBps / 1e4)
            + (bid ? int256(mark) - int256(o.priceX18) : int256(o.priceX18) - int256(mark));
        (, uint256 uplift,) = m.session();
        return eq >= int256(mark * uplift / 1e4 / mp.maxLeverage);
    }
}
