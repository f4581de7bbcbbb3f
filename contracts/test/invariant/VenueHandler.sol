// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {KeyBuckets} from "../utils/KeyBuckets.sol";
import {Test} from "../utils/Test.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {OrderScan} from "../utils/OrderScan.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IOracle} from "../../src/interfaces/IOracle.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {ITriggerBook} from "../../src/interfaces/ITriggerBook.sol";
import {IDepositToken, ILens} from "../utils/VenueFixture.sol";
import {RiskChecks} from "../utils/RiskChecks.sol";
import {Vm} from "../utils/Vm.sol";
import {openPolicy, approvalStructHash} from "../utils/OperatorPolicies.sol";

/// Random walks over the venue for the invariant tests. Actors deposit, withdraw, place limit and
/// market orders (with derived or chosen client keys, as owner or through an operator), cancel,
/// close (reduce-only), lay ladders of minimum-size orders (the fill cap); operators are approved
/// directly or by EIP-712 signature and revoked; the admin pauses markets and the schedule
/// keeper moves them through their sessions; prices move, time passes, the feed goes stale; a
/// keeper liquidates positions and accounts.
///
/// Every venue call is made in try/catch and its revert classified against what the action can
/// legitimately meet in the current state (`_expect`); anything else is counted in
/// `unexpectedReverts` (the invariant fails on it, with the action and the revert data), so a
/// revert never hides a bug (forge's fail_on_revert would instead fail on legitimate refusals).
/// Violations of issue 10's rules are counted separately (`bornBelowInitialMargin`,
/// `blockedWithDepth`, ...) for the target invariants. The market of an action is bit 8 of its
/// actor seed (`_pick`).
contract VenueHandler is Test {
    uint256 internal constant MIN_QTY = 1e18;
    address internal constant KEEPER = address(0x4EE9E2);
    bytes32 internal constant APPROVAL_TYPEHASH =
        keccak256(
            "OperatorApproval(address owner,address operator,uint64 expiry,uint16 maxLeverage,uint16 bandBps,uint16 budgetBps,uint256 nonce,uint256 deadline)"
        );

    IEngine internal immutable engine;
    IOracle internal immutable oracle;
    IDepositToken internal immutable token;
    ILens internal immutable lens;
    address internal immutable admin;

    IMarket[2] internal markets;
    bytes32[2] internal ids;
    uint256[2] internal initialPrice;
    uint256[2] public indexPrice;
    uint256[] internal pks;
    address[] internal actors;
    address[] internal operators;
    uint256[] public accountIds;

    // ─── world state the classification depends on ───────────────────────────────────────
    bool[2] public paused;
    /// The guardian's mode per market (IMarket.MarketStatus ACTIVE..REDUCE_ONLY; setStatus).
    uint8[2] public mode;
    uint256[2] internal statusSteps; // the guardian sets ACTIVE again after a few steps
    bool[2] public stale; // the feed of this market stopped (until a warp or a price move)
    uint256 internal staleSteps; // the feed comes back on its own after a few steps
    uint256[2] internal pausedSteps; // and the admin resumes a paused market
    /// The markets' calendars (set in the constructor): a 15-minute window and a 30-minute close
    /// a week, EUR/USD's 2 h from the start, GBP/USD's 5 h; sessions follow time (warps).
    uint16 internal constant CAL_WINDOW_MIN = 15;
    uint16 internal constant CAL_CLOSED_MIN = 30;

    // ─── ghosts: what happened ───────────────────────────────────────────────────────────
    // Market v2 (placeWithOptions, removeExpired, deadmanLapse, batchPlaceCancel)
    uint256 public optionOrders;
    uint256 public postOnlyMatched;
    uint256 public immediateRested;
    uint256 public expiredRemoved;
    uint256 public expiredRemovalMismatch;
    uint256 public deadmanCancels;
    uint256 public deadmanMismatch;
    uint256 public batches;
    uint256 public modifies;
    uint256 public triggersSet;
    uint256 public triggersFired;
    uint256 public triggersVoided;
    uint256 public triggersNotReached;
    uint256 public triggersRefused; // reached, but the order could not be placed then (kept)
    uint256 public triggerFiredEarly; // a trigger fired while the mark had not reached it
    uint256 public triggerGrew; // a trigger's order grew or turned its position
    uint256 public triggerVoidWrong; // a trigger removed as void while its position and operator held
    uint256 public triggerExecutorPaid; // the executor's token balance moved
    uint256 public calls;
    uint256 public placed;
    uint256 public fills;
    uint256 public cancels;
    uint256 public closes;
    uint256 public liquidations;
    uint256 public accountLiquidations;
    uint256 public failedLiquidations;
    uint256 public deposits;
    uint256 public withdrawals;
    uint256 public marginMoves;
    uint256 public marginLeftLiquidatable;
    uint256 public operatorActions;
    uint256 public signedApprovals;
    uint256 public revocations;
    uint256 public revokedOperatorRefusals;
    uint256 public keyedOrders;
    uint256 public keyCollisions;
    uint256 public reduceOnlyOrders;
    uint256 public dustOrders;
    uint256 public fillCapHits;
    uint256 public pauses;
    uint256 public pausedRefusals;
    uint256 public staleRefusals;
    uint256 public donations;
    uint256 public feeWithdrawals;
    uint256 public reduceOnlyPlaced; // reduce-only orders through placeOrder (collateral 0)
    uint256 public capRefusals; // PositionCapExceeded / OpenInterestCapExceeded
    uint256 public voidedSignatureRefusals; // a signed approval voided (revoke, nonces, deadline) refused
    uint256 public nonceInvalidations;
    uint256 public sessionChanges;
    uint256 public closedRefusals; // MarketClosed / MarketReduceOnly met by orders, closes, liquidations

    // ─── ghosts: broken rules of today's design (the current invariants fail on these) ────
    uint256 public unexpectedReverts;
    string public lastUnexpectedAction;
    bytes public lastUnexpectedReason;
    uint256 public unauthorizedSuccesses; // a revoked/unapproved operator acted for an account
    /// The last `_caller` was an operator: its orders may be refused beyond the operator band.
    bool internal operatorActing;
    uint256 public operatorBandRefusals;
    /// Set if fees or recorded bad debt ever went down (both only accumulate).
    bool public venueBalanceDecreased;
    uint256 internal lastFees;
    uint256 internal lastBadDebt;

    // ─── ghosts: broken rules of issue 10 (the target invariants fail on these) ───────────
    uint256 public bornBelowInitialMargin; // a fill opened/increased a position below IM
    uint256 public blockedWithDepth; // liquidatable, depth inside bankruptcy, not reduced
    uint256 public blockedWithoutDepth; // liquidatable, no depth, not reduced (no backstop)
    uint256 public refusedWhilePaused;
    /// The key map answered otherwise than a plain map would (`cancelByKey`, `_place`).
    uint256 public keyMapMisses;
    /// Orders resting with a fixed key while another of its account's (same bucket) was open: one
    /// of them is in the key map's spill.
    uint256 public keysSharingABucket;
    uint256 public keyedCancels;
    /// account → market → fixed key → the last order placed with it (`_place`).
    mapping(uint256 => mapping(uint256 => mapping(bytes32 => uint256))) internal lastOfKey; // a close, cancel, liquidation or withdrawal refused while paused
    uint256 public badDebtDespiteDepth; // bad debt although the book held the size inside bankruptcy
    uint256 public badDebtWithFundLeft; // bad debt recorded while the insurance fund had money
    uint256 public badDebtOutsideLiquidation; // bad debt grew in a step that liquidated nothing
    uint256 public reduceOnlyGrew; // a reduce-only order increased or flipped its position
    uint256 public grewInWindow; // a position opened or increased while its market was not OPEN
    uint256 public fundingViewDrift; // a poke stored a cumulative index other than the views said
    uint256 public stalePokes; // pokes that found the rate stale (a cancel since the last accrual)
    uint256 public repeatedLiquidationCalls; // issue 26: calls after one that closed 0 (cancelled only)
    uint256 public chosenGained; // issue 26: a solvent rest deleveraged away from the mark
    uint256 public operatorRoundTrips; // issue 26: operator drain rounds tried under a policy
    uint256 public operatorOverBudget; // issue 26: a round trip cost its owner beyond the operator's budget
    uint256[] internal victims; // accounts only operatorRoundTrip trades for (no other resting orders)
    address[] internal victimOwners;
    uint256 public staleGapCharged; // issue 26: funding accrued over a stale-index stretch
    uint256 public staleGaps; // issue 26: stale stretches the handler checked
    uint256 public fundReductions; // issue 26: reduceFundPosition calls that closed some of the fund's position
    uint256 public fundReductionWrong; // issue 26: a reduction that grew, flipped or misreported the fund's position
    /// The current step is a liquidation (the only place bad debt, as rounding dust, may appear).
    bool internal liquidating;
    string public lastTargetViolation;

    /// Counts the call and checks the monotonic venue balances after it.
    modifier step() {
        ++calls;
        _tick();
        _;
        uint256 fees = engine.feesWad();
        uint256 bad = engine.badDebtWad();
        if (fees < lastFees || bad < lastBadDebt) venueBalanceDecreased = true;
        if (bad > lastBadDebt && !liquidating) {
            ++badDebtOutsideLiquidation;
            _target("bad debt outside a liquidation");
        }
        liquidating = false;
        lastFees = fees;
        lastBadDebt = bad;
    }

    constructor(IEngine e, IMarket[2] memory m, IOracle o, IDepositToken t, ILens l, address admin_, uint256 nActors) {
        engine = e;
        oracle = o;
        token = t;
        lens = l;
        admin = admin_;
        for (uint256 k; k < 2; ++k) {
            markets[k] = m[k];
            ids[k] = m[k].marketId();
            (initialPrice[k],) = o.getPrice(ids[k]);
            indexPrice[k] = initialPrice[k];
            uint256 pos = (block.timestamp + 3 days) % 7 days;
            uint256 closeAt = ((pos + (k == 0 ? 2 hours : 5 hours)) / 60) % (7 days / 60);
            vm.prank(admin_);
            e.scheduleMarketCalendar(ids[k], IMarket.Calendar(uint16(closeAt), CAL_WINDOW_MIN, CAL_CLOSED_MIN), block.timestamp);
        }
        for (uint256 i; i < nActors; ++i) {
            uint256 pk = 0xAC7000 + i;
            address who = vm.addr(pk);
            pks.push(pk);
            actors.push(who);
            operators.push(address(uint160(0x0DE7A7000 + i)));
            vm.prank(admin);
            (uint256 id,) = e.createAccount(who);
            accountIds.push(id);
        }
    }

    /// Bounded outages: a stale feed lasts at most 3 steps, a pause at most 5.
    function _tick() internal {
        if (staleSteps != 0 && --staleSteps == 0) {
            if (stale[0]) _refresh(0);
            if (stale[1]) _refresh(1);
        }
        for (uint256 k; k < 2; ++k) {
            if (pausedSteps[k] != 0 && --pausedSteps[k] == 0 && paused[k]) _setActive(k, true);
            if (statusSteps[k] != 0 && --statusSteps[k] == 0) _setMode(k, 0);
        }
    }

    /// The session of market `k` now (derived on chain from its calendar and the time).
    function _sess(uint256 k) internal view returns (IMarket.Session s) {
        (s,,) = markets[k].session();
    }

    /// The next second ≥ now at which market `k`'s session changes (window, close, reopening).
    function _nextBoundary(uint256 k) internal view returns (uint256) {
        (IMarket.Calendar memory c,,) = markets[k].calendar();
        uint256 pos = (block.timestamp + 3 days) % 7 days;
        uint256 closeSec = uint256(c.closeAtMin) * 60;
        uint256[3] memory b = [closeSec + 7 days - uint256(c.windowMin) * 60, closeSec, closeSec + uint256(c.closedMin) * 60];
        uint256 best = type(uint256).max;
        for (uint256 i; i < 3; ++i) {
            uint256 d = (b[i] + 7 days - pos) % 7 days;
            if (d == 0) d = 7 days;
            if (d < best) best = d;
        }
        return block.timestamp + best;
    }

    /// Time moves to market `k`'s next session change (the feed stays live). An OPEN market whose
    /// next window is more than two hours away gets a new calendar first (a calendar change: at
    /// once on the fixture's zero-delay engine), with its window 30 minutes from now.
    function _setSession(uint256 k) internal {
        IMarket.Session before = _sess(k);
        if (before == IMarket.Session.OPEN && _nextBoundary(k) > block.timestamp + 2 hours) {
            uint256 pos = (block.timestamp + 3 days) % 7 days;
            uint256 closeAt = ((pos + 30 minutes + uint256(CAL_WINDOW_MIN) * 60 + 59) / 60) % (7 days / 60);
            vm.prank(admin);
            try engine.scheduleMarketCalendar(ids[k], IMarket.Calendar(uint16(closeAt), CAL_WINDOW_MIN, CAL_CLOSED_MIN), 0) {}
            catch (bytes memory r) {
                _expect("scheduleMarketCalendar", r, new bytes4[](0));
            }
        }
        vm.warp(_nextBoundary(k));
        vm.roll(block.number + 1);
        _refresh(0);
        _refresh(1);
        if (_sess(k) != before) ++sessionChanges;
    }

    function _setActive(uint256 k, bool active) internal {
        vm.prank(admin);
        try engine.setMarketActive(ids[k], active) {
            paused[k] = !active;
        } catch (bytes memory r) {
            _expect("setMarketActive", r, new bytes4[](0));
        }
    }

    // ─── classification ──────────────────────────────────────────────────────────────────

    /// Records a revert of `action`: expected when its selector is in `allowed` (a venue error
    /// this action may meet in the current state), else counted as unexpected.
    function _expect(string memory action, bytes memory reason, bytes4[] memory allowed) internal returns (bytes4 sel) {
        sel = RiskChecks.selectorOf(reason);
        if (RiskChecks.classify(reason) == RiskChecks.Revert.VENUE) {
            for (uint256 i; i < allowed.length; ++i) if (allowed[i] == sel) return sel;
        }
        ++unexpectedReverts;
        lastUnexpectedAction = action;
        lastUnexpectedReason = reason;
    }

    function _target(string memory what) internal {
        lastTargetViolation = what;
    }

    /// Selectors of errors issue 10 adds (named by signature so this compiles before they exist).
    function _sig(string memory s) internal pure returns (bytes4) {
        return bytes4(keccak256(bytes(s)));
    }

    /// What an order may meet: margin, leverage, price band, size, self-trade, key in use, an
    /// empty book, too many orders, initial margin; a stale feed and a pause when they hold; the
    /// operator band when an operator acts; the exposure caps.
    function _orderRefusals(uint256 k) internal view returns (bytes4[] memory a) {
        a = new bytes4[](24);
        a[22] = mode[k] == uint8(IMarket.MarketStatus.POST_ONLY) ? IVenueErrors.MarketPostOnly.selector : bytes4(0xffffffff);
        a[23] = mode[k] == uint8(IMarket.MarketStatus.CANCEL_ONLY) ? IVenueErrors.MarketCancelOnly.selector : bytes4(0xffffffff);
        // Market v2's time in force (placeWithOptions)
        a[18] = IVenueErrors.PostOnlyWouldCross.selector;
        a[19] = IVenueErrors.FillOrKillUnfilled.selector;
        a[20] = IVenueErrors.InvalidOrderOptions.selector;
        a[21] = IVenueErrors.ReduceOnlyExceedsPosition.selector;
        a[17] = operatorActing ? IVenueErrors.OperatorLimitExceeded.selector : bytes4(0xffffffff);
        a[15] = _sess(k) == IMarket.Session.CLOSED ? IVenueErrors.MarketClosed.selector : bytes4(0xffffffff);
        a[16] = _sess(k) == IMarket.Session.REDUCE_ONLY || mode[k] == uint8(IMarket.MarketStatus.REDUCE_ONLY)
            ? IVenueErrors.MarketReduceOnly.selector
            : bytes4(0xffffffff);
        a[12] = operatorActing ? IVenueErrors.OperatorPriceTooFar.selector : bytes4(0xffffffff);
        a[13] = IVenueErrors.PositionCapExceeded.selector;
        a[14] = IVenueErrors.OpenInterestCapExceeded.selector;
        a[0] = IVenueErrors.InsufficientMargin.selector;
        a[1] = IVenueErrors.ExceedsMaxLeverage.selector;
        a[2] = IVenueErrors.InvalidPrice.selector;
        a[3] = IVenueErrors.OrderTooSmall.selector;
        a[4] = IVenueErrors.SelfTrade.selector;
        a[5] = IVenueErrors.ClientKeyInUse.selector;
        a[6] = IVenueErrors.NoLiquidity.selector;
        a[7] = _sig("BelowInitialMargin(uint256,bytes32)");
        a[8] = _sig("TooManyOrders(uint256,uint256)");
        a[9] = IVenueErrors.NoPosition.selector;
        a[10] = stale[k] ? IVenueErrors.PriceStale.selector : bytes4(0xffffffff);
        a[11] = paused[k] ? IVenueErrors.MarketNotActive.selector : bytes4(0xffffffff);
    }

    function _one(bytes4 s) internal pure returns (bytes4[] memory a) {
        a = new bytes4[](1);
        a[0] = s;
    }

    // ─── actors ──────────────────────────────────────────────────────────────────────────

    function _pick(uint256 seed) internal view returns (uint256 i, uint256 id, uint256 k) {
        i = seed % actors.length;
        return (i, accountIds[i], (seed >> 8) & 1);
    }

    /// The owner, or (bit 16 of the seed) its operator when that one is approved.
    function _caller(uint256 i, uint256 seed) internal returns (address) {
        operatorActing = (seed >> 16) & 1 == 1 && engine.isAuthorized(accountIds[i], operators[i]);
        if (operatorActing) {
            ++operatorActions;
            return operators[i];
        }
        return actors[i];
    }

    function _side(bool long) internal pure returns (IMarket.Side) {
        return long ? IMarket.Side.LONG : IMarket.Side.SHORT;
    }

    function _refresh(uint256 k) internal {
        vm.prank(admin);
        try oracle.setPrice(ids[k], indexPrice[k]) {}
        catch (bytes memory r) {
            _expect("refresh price", r, _one(IVenueErrors.InvalidPrice.selector));
        }
        (indexPrice[k],) = oracle.getPrice(ids[k]);
        stale[k] = false;
    }

    // ─── money ──────────────────────────────────────────────────────────────────────────

    function deposit(uint256 actorSeed, uint256 amount6) external step {
        (uint256 i, uint256 id,) = _pick(actorSeed);
        amount6 = bound(amount6, 1e6, 20_000e6);
        address who = actors[i];
        vm.prank(admin);
        token.mint(who, amount6);
        vm.prank(who);
        token.approve(address(engine), amount6);
        vm.prank(_caller(i, actorSeed)); // an operator deposits the owner's tokens
        try engine.deposit(id, amount6) {
            ++deposits;
        } catch (bytes memory r) {
            _expect("deposit", r, new bytes4[](0));
        }
    }

    function withdraw(uint256 actorSeed, uint256 amount6) external step {
        (uint256 i, uint256 id,) = _pick(actorSeed);
        uint256 avail6 = engine.getAccount(id).availableWad / 1e12;
        if (avail6 == 0) return;
        amount6 = bound(amount6, 1, avail6);
        vm.prank(_caller(i, actorSeed));
        try engine.withdraw(id, amount6) {
            ++withdrawals;
        } catch (bytes memory r) {
            _expect("withdraw", r, new bytes4[](0));
        }
    }

    /// Isolated margin (Market v2): the owner or its operator adds to or removes from a position's
    /// margin; a removal that succeeds leaves the position healthy (it kept initial margin).
    function moveMargin(uint256 actorSeed, bool add, uint256 amount6) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        amount6 = bound(amount6, 1, 2_000e6);
        address who = _caller(i, actorSeed);
        bytes4[] memory allowed = new bytes4[](7);
        allowed[0] = IVenueErrors.NoPosition.selector;
        allowed[1] = IVenueErrors.InsufficientMargin.selector;
        allowed[2] = _sig("BelowInitialMargin(uint256,bytes32)");
        allowed[3] = _sess(k) == IMarket.Session.CLOSED ? IVenueErrors.MarketClosed.selector : bytes4(0xffffffff);
        allowed[4] = stale[k] ? IVenueErrors.PriceStale.selector : bytes4(0xffffffff);
        allowed[5] = paused[k] ? IVenueErrors.MarketNotActive.selector : bytes4(0xffffffff);
        allowed[6] = operatorActing ? IVenueErrors.OperatorLimitExceeded.selector : bytes4(0xffffffff);
        vm.prank(who);
        try engine.movePositionMargin(id, ids[k], add ? int256(amount6) : -int256(amount6)) {
            ++marginMoves;
            if (!add && markets[k].getPosition(id).sizeQty != 0 && lens.positionHealth(markets[k], id).isLiquidatable) {
                ++marginLeftLiquidatable;
                _target("a margin removal left the position liquidatable");
            }
        } catch (bytes memory r) {
            _expect(add ? "add position margin" : "remove position margin", r, allowed);
        }
    }

    // ─── orders ─────────────────────────────────────────────────────────────────────────

    function _collateral(uint256 id, uint256 seed) internal view returns (uint256) {
        uint256 avail6 = engine.getAccount(id).availableWad / 1e12;
        if (avail6 < 1e6) return 0;
        uint256 cap = avail6 < 2_000e6 ? avail6 : 2_000e6;
        return bound(seed, 1e6, cap);
    }

    /// How far from the mark the handler prices orders: the market's band and a little beyond
    /// (so that out-of-band refusals stay exercised).
    function _reach(uint256 k) internal view returns (int256) {
        return int256(uint256(markets[k].params().priceBandBps)) + 10;
    }

    /// A tick price within `maxBps` of the market's mark.
    function _nearMark(uint256 k, int256 offsetBps, int256 maxBps) internal view returns (uint256) {
        int256 off = bound(offsetBps, -maxBps, maxBps);
        uint256 tick = markets[k].params().tickSizeX18;
        return uint256(int256(markets[k].markPrice()) * (10_000 + off) / 10_000) / tick * tick;
    }

    /// Per account: three fixed keys in one bucket of its key map (MarketBase._claimKey).
    mapping(uint256 => bytes32[3]) internal _fixedKeys;

    /// Derived (0) or one of the account's three fixed keys: they collide while their order is
    /// open, and share one bucket of the key map (while one holds it, the others spill).
    function _key(uint256 seed, uint256 accountId) internal returns (bytes32) {
        uint256 k = seed % 4;
        if (k == 0) return bytes32(0);
        ++keyedOrders;
        return _fixedKey(accountId, k - 1);
    }

    function _fixedKey(uint256 accountId, uint256 j) internal returns (bytes32) {
        bytes32[3] storage keys = _fixedKeys[accountId];
        if (keys[0] == bytes32(0)) {
            bytes32[] memory same = KeyBuckets.sameBucket(accountId, keccak256(abi.encode("key", accountId)), 3);
            for (uint256 i; i < 3; ++i) keys[i] = same[i];
        }
        return keys[j];
    }

    struct Before {
        uint256 mark;
        int256[] sizes;
    }

    function _snapshotSizes(uint256 k) internal view returns (Before memory b) {
        b.mark = markets[k].markPrice();
        b.sizes = new int256[](accountIds.length);
        for (uint256 i; i < accountIds.length; ++i) b.sizes[i] = markets[k].getPosition(accountIds[i]).sizeQty;
    }

    /// Issue 10: every position a step opened or increased is at or above initial margin, at the
    /// mark before and at the mark after the step (a violation must hold at both).
    function _checkBornHealthy(uint256 k, Before memory b) internal {
        IMarket m = markets[k];
        uint256 maxLev = m.params().maxLeverage;
        for (uint256 i; i < accountIds.length; ++i) {
            IMarket.PositionView memory p = m.getPosition(accountIds[i]);
            int256 s0 = b.sizes[i];
            bool grew = p.sizeQty != 0
                && ((s0 == 0) || ((s0 > 0) != (p.sizeQty > 0)) || _abs(p.sizeQty) > _abs(s0));
            if (!grew) continue;
            IMarket.HealthView memory h = lens.positionHealth(m, accountIds[i]);
            bool belowAfter = h.equityWad < int256(h.positionValueWad / maxLev);
            uint256 valueBefore = _abs(p.sizeQty) * b.mark / 1e18;
            int256 upnlBefore = p.sizeQty > 0
                ? int256(valueBefore) - int256(p.openNotionalWad)
                : int256(p.openNotionalWad) - int256(valueBefore);
            int256 equityBefore = int256(p.marginWad) + upnlBefore - h.pendingFundingWad;
            bool belowBefore = equityBefore < int256(valueBefore / maxLev);
            if (belowAfter && belowBefore) {
                ++bornBelowInitialMargin;
                _target("position opened or increased below initial margin");
            }
        }
    }

    /// The pre-close window: takers are reduce-only and resting makers may only reduce, so no
    /// order opens or increases a position while the market is not OPEN (a liquidation's makers
    /// may, at the uplifted initial margin: docs/CONTRACTS.md "Weekends and gaps").
    function _checkNoGrowthInWindow(uint256 k, Before memory b) internal {
        if (_sess(k) == IMarket.Session.OPEN) return;
        for (uint256 i; i < accountIds.length; ++i) {
            int256 s1 = markets[k].getPosition(accountIds[i]).sizeQty;
            int256 s0 = b.sizes[i];
            if (s1 != 0 && (s0 == 0 || (s0 > 0) != (s1 > 0) || _abs(s1) > _abs(s0))) {
                ++grewInWindow;
                _target("position opened or increased outside OPEN");
            }
        }
    }

    function _place(address who, uint256 k, IEngine.PlaceOrderParams memory p, string memory action)
        internal
        returns (bool ok, uint256 orderId, IMarket.OrderStatus st)
    {
        Before memory b = _snapshotSizes(k);
        vm.prank(who);
        try engine.placeOrder(p) returns (uint256 oid, bytes32, uint256, IMarket.OrderStatus s) {
            ++placed;
            if (p.clientKey != bytes32(0)) {
                if (s == IMarket.OrderStatus.ACTIVE) {
                    for (uint256 j; j < 3; ++j) {
                        bytes32 other = _fixedKey(p.accountId, j);
                        if (other != p.clientKey && _openOfKey(p.accountId, k, other) != 0) ++keysSharingABucket;
                    }
                }
                lastOfKey[p.accountId][k][p.clientKey] = oid;
            }
            _checkBornHealthy(k, b);
            _checkNoGrowthInWindow(k, b);
            return (true, oid, s);
        } catch (bytes memory r) {
            bytes4 sel = _expect(action, r, _orderRefusals(k));
            if (sel == IVenueErrors.ClientKeyInUse.selector) {
                ++keyCollisions;
                if (_openOfKey(p.accountId, k, p.clientKey) == 0) {
                    ++keyMapMisses;
                    _target("ClientKeyInUse for a key whose last order is not open");
                }
            }
            else if (sel == IVenueErrors.OperatorPriceTooFar.selector) ++operatorBandRefusals;
            else if (sel == IVenueErrors.PriceStale.selector) ++staleRefusals;
            else if (sel == IVenueErrors.MarketNotActive.selector) ++pausedRefusals;
            else if (sel == IVenueErrors.MarketClosed.selector || sel == IVenueErrors.MarketReduceOnly.selector) ++closedRefusals;
            else if (sel == IVenueErrors.PositionCapExceeded.selector || sel == IVenueErrors.OpenInterestCapExceeded.selector) {
                ++capRefusals;
            }
        }
    }

    function placeLimit(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev, int256 offsetBps) external step {
        _placeLimit(actorSeed, long, collSeed, lev, offsetBps, collSeed >> 128);
    }

    function placeLimitKeyed(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev, int256 offsetBps, uint256 keySeed)
        external
        step
    {
        _placeLimit(actorSeed, long, collSeed, lev, offsetBps, keySeed);
    }

    function _placeLimit(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev, int256 offsetBps, uint256 keySeed) internal {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        IEngine.PlaceOrderParams memory p = _limitParams(id, k, long, collSeed, lev, offsetBps);
        if (p.collateral6 == 0) return;
        p.clientKey = _key(keySeed, id);
        (bool ok,, IMarket.OrderStatus st) = _place(_caller(i, actorSeed), k, p, "placeLimit");
        if (ok && st == IMarket.OrderStatus.FILLED) ++fills;
    }

    /// A LIMIT order for `id` within the band (and a little beyond) of the mark (collateral 0: none possible).
    function _limitParams(uint256 id, uint256 k, bool long, uint256 collSeed, uint256 lev, int256 offsetBps)
        internal
        view
        returns (IEngine.PlaceOrderParams memory p)
    {
        uint256 coll6 = _collateral(id, collSeed);
        if (coll6 == 0) return p;
        lev = bound(lev, 1, markets[k].params().maxLeverage);
        uint256 px = _nearMark(k, offsetBps, _reach(k));
        if (coll6 * 1e12 * lev * 1e18 / px < MIN_QTY) return p;
        p = IEngine.PlaceOrderParams(id, ids[k], _side(long), IMarket.OrderType.LIMIT, coll6, lev, px, bytes32(0), IMarket.TimeInForce.GTC, false, 0);
    }

    /// Market v2: any time in force, an expiry, the reduce-only flag, on a LIMIT or a MARKET order.
    /// Post-only never matches (the placer's position does not move); IOC, FOK and MARKET never rest.
    function placeWithOptions(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev, int256 offsetBps, uint256 optSeed)
        external
        step
    {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        IEngine.PlaceOrderParams memory p = _optionParams(id, k, long, collSeed, lev, offsetBps, optSeed);
        if (p.collateral6 == 0) return;
        int256 before = markets[k].getPosition(id).sizeQty;
        (bool ok,, IMarket.OrderStatus st) = _place(_caller(i, actorSeed), k, p, "placeWithOptions");
        if (ok) _checkOptionOutcome(p, id, k, before, st);
    }

    function _optionParams(uint256 id, uint256 k, bool long, uint256 collSeed, uint256 lev, int256 offsetBps, uint256 optSeed)
        internal
        view
        returns (IEngine.PlaceOrderParams memory p)
    {
        bool limit = optSeed & 1 == 0;
        p = limit ? _limitParams(id, k, long, collSeed, lev, offsetBps) : _marketParams(id, k, long, collSeed, lev);
        p.timeInForce = IMarket.TimeInForce(optSeed >> 1 & 3);
        p.reduceOnly = optSeed >> 3 & 3 == 0;
        bool resting = p.timeInForce == IMarket.TimeInForce.GTC || p.timeInForce == IMarket.TimeInForce.POST_ONLY;
        if (limit && resting && optSeed >> 5 & 1 == 1) p.expiresAt = uint64(block.timestamp + bound(optSeed >> 8, 1, 600));
    }

    function _checkOptionOutcome(IEngine.PlaceOrderParams memory p, uint256 id, uint256 k, int256 before, IMarket.OrderStatus st) internal {
        ++optionOrders;
        if (p.timeInForce == IMarket.TimeInForce.POST_ONLY && markets[k].getPosition(id).sizeQty != before) {
            ++postOnlyMatched;
            _target("a post-only order matched");
        }
        bool rests = p.orderType == IMarket.OrderType.LIMIT
            && (p.timeInForce == IMarket.TimeInForce.GTC || p.timeInForce == IMarket.TimeInForce.POST_ONLY);
        if (!rests && st == IMarket.OrderStatus.ACTIVE) {
            ++immediateRested;
            _target("an IOC, FOK or MARKET order rested");
        }
    }

    /// Anyone removes the expired orders of a market (up to 32 of them) and earns their bonds.
    function removeExpired(uint256 marketSeed) external step {
        uint256 k = marketSeed % 2;
        IMarket m = markets[k];
        uint256[] memory all = OrderScan.newestFirst(m);
        uint256[] memory found = new uint256[](32);
        uint256 f;
        for (uint256 j; j < all.length && f < 32; ++j) {
            IMarket.OrderView memory o = m.getOrder(all[j]);
            if (o.status == IMarket.OrderStatus.ACTIVE && o.expiresAt != 0 && o.expiresAt <= block.timestamp) found[f++] = all[j];
        }
        assembly ("memory-safe") {
            mstore(found, f)
        }
        uint256 balance = token.balanceOf(address(this));
        uint256 removed = m.removeExpired(found);
        if (removed != f || token.balanceOf(address(this)) != balance + removed * 5e5) {
            ++expiredRemovalMismatch;
            _target("removeExpired removed other than the expired orders, or paid other than their bonds");
        }
        expiredRemoved += removed;
    }

    /// The owner arms its dead-man switch, lets it lapse; a stranger then cancels its resting
    /// orders (up to 32) in one market; the owner turns it off again.
    function deadmanLapse(uint256 actorSeed) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        vm.prank(actors[i]);
        engine.setDeadman(id, uint64(block.timestamp + 5));
        vm.warp(block.timestamp + 5);
        vm.roll(block.number + 1);
        if (!stale[0]) _refresh(0);
        if (!stale[1]) _refresh(1);
        IMarket m = markets[k];
        uint256[] memory all = OrderScan.newestFirst(m);
        uint256[] memory open = new uint256[](32);
        uint256 f;
        for (uint256 j; j < all.length && f < 32; ++j) {
            IMarket.OrderView memory o = m.getOrder(all[j]);
            if (o.status == IMarket.OrderStatus.ACTIVE && o.accountId == id) open[f++] = all[j];
        }
        assembly ("memory-safe") {
            mstore(open, f)
        }
        vm.prank(address(0xDEAD5));
        (uint256 cancelled,) = engine.cancelOrders(id, ids[k], open);
        if (cancelled != f) {
            ++deadmanMismatch;
            _target("a lapsed dead-man switch left orders open");
        }
        deadmanCancels += cancelled;
        vm.prank(actors[i]);
        engine.setDeadman(id, 0);
    }

    /// Modify one of the actor's resting orders (newest first): a price near the mark, any size.
    function modifyOrder(uint256 actorSeed, int256 offsetBps, uint256 qtySeed) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        uint256 orderId = _newestOpen(k, id);
        if (orderId == 0) return;
        uint256 qty = bound(qtySeed, 1, 5_000) * markets[k].params().lotSizeQty * 10;
        uint256 px = _nearMark(k, offsetBps, _reach(k));
        address caller = _caller(i, actorSeed); // before the refusals: an operator's band applies
        bytes4[] memory refusals = _orderRefusals(k);
        // the order may have expired (OrderNotFound); it never matches (PostOnlyWouldCross)
        bytes4[] memory ok = new bytes4[](refusals.length + 1);
        for (uint256 j; j < refusals.length; ++j) ok[j] = refusals[j];
        ok[refusals.length] = IVenueErrors.OrderNotFound.selector;
        vm.prank(caller);
        try engine.modifyOrder(id, ids[k], orderId, bytes32(0), px, qty) {
            ++modifies;
        } catch (bytes memory r) {
            _expect("modifyOrder", r, ok);
        }
    }

    /// The account's newest resting order in market k (0: none).
    function _newestOpen(uint256 k, uint256 id) internal view returns (uint256) {
        uint256[] memory all = OrderScan.newestFirst(markets[k]);
        for (uint256 j; j < all.length; ++j) {
            IMarket.OrderView memory o = markets[k].getOrder(all[j]);
            if (o.status == IMarket.OrderStatus.ACTIVE && o.accountId == id) return all[j];
        }
        return 0;
    }

    /// A batch of a placement and a cancel of the actor's newest order, each on its own.
    function batchPlaceCancel(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev, int256 offsetBps) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        IEngine.PlaceOrderParams memory p = _limitParams(id, k, long, collSeed, lev, offsetBps);
        if (p.collateral6 == 0) return;
        bytes[] memory calls = new bytes[](2);
        calls[0] = abi.encodeCall(IEngine.placeOrder, (p));
        uint256[] memory newest = OrderScan.newestFirst(markets[k]);
        calls[1] = abi.encodeCall(IEngine.cancelOrderById, (id, ids[k], newest.length == 0 ? 0 : newest[0]));
        Before memory b = _snapshotSizes(k);
        vm.prank(_caller(i, actorSeed));
        (bool[] memory ok, bytes[] memory res) = engine.batch(calls, false);
        if (!ok[0]) _expect("batch place", res[0], _orderRefusals(k));
        else _checkBornHealthy(k, b);
        if (ok[1]) ++cancels;
        ++batches;
    }

    function placeMarket(uint256 actorSeed, bool long, uint256 collSeed, uint256 lev) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        IEngine.PlaceOrderParams memory p = _marketParams(id, k, long, collSeed, lev);
        if (p.collateral6 == 0) return;
        int256 before = markets[k].getPosition(id).sizeQty;
        (bool ok,, IMarket.OrderStatus st) = _place(_caller(i, actorSeed), k, p, "placeMarket");
        if (ok && st == IMarket.OrderStatus.CANCELLED) _countFillCap(k, id, long, before);
    }

    /// A MARKET order for `id` sized against the best opposite price (collateral 0: none possible).
    function _marketParams(uint256 id, uint256 k, bool long, uint256 collSeed, uint256 lev)
        internal
        view
        returns (IEngine.PlaceOrderParams memory p)
    {
        uint256 coll6 = _collateral(id, collSeed);
        if (coll6 == 0) return p;
        lev = bound(lev, 1, markets[k].params().maxLeverage);
        (uint256 bid, uint256 ask) = lens.bestPrices(markets[k]);
        uint256 px = long ? ask : bid;
        if (px == 0 || coll6 * 1e12 * lev * 1e18 / px < MIN_QTY) return p;
        p = IEngine.PlaceOrderParams(id, ids[k], _side(long), IMarket.OrderType.MARKET, coll6, lev, 0, bytes32(0), IMarket.TimeInForce.GTC, false, 0);
    }

    /// A MARKET order cancelled with a remainder after filling some while the opposite side still
    /// has orders: it stopped at the fill cap (or the band). A taker is not stored
    /// (MarketBase._finishTaker): what it filled is its account's position change.
    function _countFillCap(uint256 k, uint256 id, bool long, int256 before) internal {
        int256 size = markets[k].getPosition(id).sizeQty;
        if (size == before) return;
        (uint256 bid, uint256 ask) = lens.bestPrices(markets[k]);
        if ((long ? ask : bid) != 0) ++fillCapHits;
    }

    /// A ladder of up to 12 minimum-size orders on consecutive ticks near the mark (the fill cap
    /// and dust in the book). Collateral: just enough at the market's max leverage.
    function dustLadder(uint256 actorSeed, bool long, uint256 nSeed, int256 offsetBps) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        uint256 n = bound(nSeed, 1, 12);
        uint256 px = _nearMark(k, offsetBps, _reach(k));
        for (uint256 j; j < n; ++j) {
            IEngine.PlaceOrderParams memory p = _dust(id, k, long, px, j);
            if (engine.getAccount(id).availableWad < p.collateral6 * 1e12) return;
            (bool ok,,) = _place(_caller(i, actorSeed), k, p, "dustLadder");
            if (ok) ++dustOrders;
        }
    }

    /// The j-th rung: the minimum size at max leverage, j ticks away from `px` (outwards).
    function _dust(uint256 id, uint256 k, bool long, uint256 px, uint256 j)
        internal
        view
        returns (IEngine.PlaceOrderParams memory)
    {
        IMarket.MarketParams memory mp = markets[k].params();
        uint256 p = long ? px - j * mp.tickSizeX18 : px + j * mp.tickSizeX18;
        uint256 coll6 = (MIN_QTY + mp.lotSizeQty) * p / 1e18 / mp.maxLeverage / 1e12 + 1;
        return IEngine.PlaceOrderParams(id, ids[k], _side(long), IMarket.OrderType.LIMIT, coll6, mp.maxLeverage, p, bytes32(0), IMarket.TimeInForce.GTC, false, 0);
    }

    /// The last order placed with `key` (`_place`), when it is still open; else 0. What a plain
    /// map (account, key) → order answers, beside the market's key map.
    function _openOfKey(uint256 id, uint256 k, bytes32 key) internal view returns (uint256 oid) {
        oid = lastOfKey[id][k][key];
        if (oid != 0 && markets[k].getOrder(oid).status != IMarket.OrderStatus.ACTIVE) oid = 0;
    }

    /// A cancel by one of the actor's fixed keys: `orderIdOf` names the key's last order while it
    /// is open (and nothing else), and the cancel takes exactly that one (`keyMapMisses` counts
    /// any other answer).
    function cancelByKey(uint256 actorSeed, uint256 keySeed) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        bytes32 key = _fixedKey(id, keySeed % 3);
        uint256 named = _openOfKey(id, k, key);
        if (markets[k].orderIdOf(id, key) != named) {
            ++keyMapMisses;
            _target("orderIdOf does not name the key's open order");
        }
        vm.prank(_caller(i, actorSeed));
        try engine.cancelOrder(id, ids[k], key) returns (uint256 orderId, uint256) {
            ++cancels;
            ++keyedCancels;
            if (named == 0 || orderId != named) {
                ++keyMapMisses;
                _target("cancel by key took another order than the key's last open one");
            }
        } catch (bytes memory r) {
            bytes4[] memory allowed = new bytes4[](2);
            allowed[0] = IVenueErrors.OrderNotFound.selector;
            allowed[1] = IVenueErrors.MarketNotActive.selector;
            bytes4 sel = _expect("cancelByKey", r, allowed);
            if (sel == IVenueErrors.OrderNotFound.selector && named != 0) {
                ++keyMapMisses;
                _target("cancel by key found nothing while the key's last order is open");
            } else if (sel == IVenueErrors.MarketNotActive.selector) {
                ++refusedWhilePaused;
                _target("cancel refused while paused");
            }
        }
    }

    function cancel(uint256 actorSeed, uint256 orderSeed) external step {
        _cancel(actorSeed, orderSeed);
    }

    /// A cancel, time passing (fresh feeds unless stale), then a poke of that market: the poke
    /// writes what the views said just before it (`_checkedPoke`).
    function cancelThenPoke(uint256 actorSeed, uint256 orderSeed, uint256 secondsSeed) external step {
        _cancel(actorSeed, orderSeed);
        uint256 dt = bound(secondsSeed, 0, 1 hours);
        if (dt != 0) {
            vm.warp(block.timestamp + dt);
            vm.roll(block.number + 1);
            if (!stale[0]) _refresh(0);
            if (!stale[1]) _refresh(1);
        }
        _checkedPoke(actorSeed >> 8 & 1);
    }

    function _cancel(uint256 actorSeed, uint256 orderSeed) internal {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        IMarket m = markets[k];
        uint256[] memory all = OrderScan.ids(m);
        uint256 n = all.length;
        if (n == 0) return;
        uint256 start = orderSeed % n;
        for (uint256 j; j < n; ++j) {
            IMarket.OrderView memory o = m.getOrder(all[(start + j) % n]);
            if (o.accountId != id || o.status != IMarket.OrderStatus.ACTIVE) continue;
            vm.prank(_caller(i, actorSeed));
            try engine.cancelOrderById(id, ids[k], all[(start + j) % n]) {
                ++cancels;
            } catch (bytes memory r) {
                bytes4 sel = _expect("cancel", r, _one(IVenueErrors.MarketNotActive.selector));
                if (sel == IVenueErrors.MarketNotActive.selector) {
                    ++refusedWhilePaused;
                    _target("cancel refused while paused");
                }
            }
            return;
        }
    }

    /// Reduce-only close of the whole position, at market or as a limit order near the mark.
    function close(uint256 actorSeed, bool asLimit, int256 offsetBps) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        if (markets[k].getPosition(id).sizeQty == 0) return;
        uint256 px = asLimit ? _nearMark(k, offsetBps, _reach(k)) : 0;
        vm.prank(_caller(i, actorSeed));
        try engine.closePosition(id, ids[k], asLimit ? IMarket.OrderType.LIMIT : IMarket.OrderType.MARKET, px, bytes32(0)) {
            ++closes;
            if (asLimit) ++reduceOnlyOrders;
        } catch (bytes memory r) {
            bytes4 sel = _expect("close", r, _orderRefusals(k));
            if (sel == IVenueErrors.MarketNotActive.selector) {
                ++refusedWhilePaused;
                _target("close refused while paused");
            } else if (sel == IVenueErrors.PriceStale.selector) {
                ++staleRefusals;
            }
        }
    }

    /// Issue 26: an operator round trip under a policy (the drain of finding 3). A victim account
    /// approves the operator with a policy drawn from the seed; actor `j` (the operator's accomplice)
    /// rests an ask at the top of the operator's band, the operator buys it for the victim, the
    /// accomplice rests a bid at the bottom and the operator closes the victim into it. Any step may
    /// be refused; within the second, the victim's value may fall by at most the budget it had left.
    function operatorRoundTrip(uint256 victimSeed, uint256 accompliceSeed, uint256 policySeed, uint256 collSeed) external step {
        uint256 v = _victim(victimSeed);
        Trip memory t;
        (t.j, t.jid, t.k) = _pick(accompliceSeed);
        if (stale[t.k] || paused[t.k] || _sess(t.k) != IMarket.Session.OPEN) return;
        t.id = victims[v];
        t.operator = operators[t.j];
        IEngine.OperatorPolicy memory pol = IEngine.OperatorPolicy(
            uint16(1 + policySeed % 50), uint16(1 + (policySeed >> 8) % 100), uint16(1 + (policySeed >> 16) % 300)
        );
        vm.prank(victimOwners[v]);
        engine.setOperator(t.operator, uint64(block.timestamp + 1 days), pol);
        ++operatorRoundTrips;
        IEngine.OperatorView memory ov = engine.operatorState(victimOwners[v], t.operator);
        uint256 left = ov.budgetWad > ov.usedWad ? ov.budgetWad - ov.usedWad : 0;
        IMarket.MarketParams memory mp = markets[t.k].params();
        t.band = pol.bandBps < mp.operatorBandBps ? pol.bandBps : mp.operatorBandBps;
        t.lev = pol.maxLeverage < mp.maxLeverage ? pol.maxLeverage : mp.maxLeverage;
        t.coll = 1e6 + collSeed % 1_000e6;
        uint256 v0 = RiskChecks.accountValueWad(engine, lens, t.id);
        _trip(t, mp.tickSizeX18);
        uint256 v1 = RiskChecks.accountValueWad(engine, lens, t.id);
        // (a few wei of rounding in the position's value at the mark aside)
        if (v0 > v1 && v0 - v1 > left + 1e6) {
            ++operatorOverBudget;
            _target("an operator round trip cost its owner beyond the budget");
        }
        _cleanVictim(v, t.k);
    }

    struct Trip {
        uint256 id;
        uint256 j;
        uint256 jid;
        uint256 k;
        address operator;
        uint256 band;
        uint256 lev;
        uint256 coll;
    }

    /// The victim `victimSeed % 3`, created (2,000 deposited) the first time.
    function _victim(uint256 victimSeed) internal returns (uint256 v) {
        v = victimSeed % 3;
        if (v < victims.length) return v;
        address owner = address(uint160(0x71C7170000 + victims.length));
        vm.prank(admin);
        (uint256 vid,) = engine.createAccount(owner);
        vm.prank(admin);
        token.mint(owner, 2_000e6);
        vm.prank(owner);
        token.approve(address(engine), 2_000e6);
        vm.prank(owner);
        engine.deposit(vid, 2_000e6);
        victims.push(vid);
        victimOwners.push(owner);
        return victims.length - 1;
    }

    function _trip(Trip memory t, uint256 tick) internal {
        uint256 mark = markets[t.k].markPrice();
        uint256 up = mark * (10_000 + t.band) / 10_000 / tick * tick;
        uint256 dn = (mark * (10_000 - t.band) / 10_000 + tick - 1) / tick * tick;
        bytes32 key = keccak256(abi.encode("accomplice", calls));
        _accomplice(t.j, t.jid, t.k, IMarket.Side.SHORT, up, key);
        IEngine.PlaceOrderParams memory p =
            IEngine.PlaceOrderParams(t.id, ids[t.k], IMarket.Side.LONG, IMarket.OrderType.LIMIT, t.coll, t.lev, up, bytes32(0), IMarket.TimeInForce.GTC, false, 0);
        operatorActing = true;
        vm.prank(t.operator);
        try engine.placeOrder(p) {} catch (bytes memory r) {
            _expect("operatorRoundTrip: buy", r, _orderRefusals(t.k));
        }
        _accomplice(t.j, t.jid, t.k, IMarket.Side.LONG, dn, key);
        if (markets[t.k].getPosition(t.id).sizeQty != 0) {
            vm.prank(t.operator);
            try engine.closePosition(t.id, ids[t.k], IMarket.OrderType.LIMIT, dn, bytes32(0)) {} catch (bytes memory r) {
                _expect("operatorRoundTrip: close", r, _orderRefusals(t.k));
            }
        }
        operatorActing = false;
        vm.prank(actors[t.j]);
        try engine.cancelOrder(t.jid, ids[t.k], key) {} catch {}
    }

    /// The victim's leftovers (its orders of this step, among the market's last four), cancelled by its owner.
    function _cleanVictim(uint256 v, uint256 k) internal {
        uint256[] memory all = OrderScan.newestFirst(markets[k]);
        for (uint256 m; m < all.length && m < 4; ++m) {
            IMarket.OrderView memory o = markets[k].getOrder(all[m]);
            if (o.accountId != victims[v] || o.status != IMarket.OrderStatus.ACTIVE) continue;
            vm.prank(victimOwners[v]);
            try engine.cancelOrderById(victims[v], ids[k], all[m]) {} catch {}
        }
    }

    /// The accomplice's order (its previous one under `key` cancelled first); refusals ignored.
    function _accomplice(uint256 j, uint256 jid, uint256 k, IMarket.Side side, uint256 px, bytes32 key) internal {
        vm.prank(actors[j]);
        try engine.cancelOrder(jid, ids[k], key) {} catch {}
        IEngine.PlaceOrderParams memory p = IEngine.PlaceOrderParams(jid, ids[k], side, IMarket.OrderType.LIMIT, 500e6, 10, px, key, IMarket.TimeInForce.GTC, false, 0);
        vm.prank(actors[j]);
        try engine.placeOrder(p) {} catch {}
    }

    /// A reduce-only order through placeOrder (collateral 0: the whole position, no margin), a
    /// LIMIT near the mark or a MARKET order, with a derived or chosen key; bit 20 of the seed
    /// takes the wrong side (or there is no position: NoPosition). Such orders rest without margin
    /// and are left over when the position closes or flips (see `reduceOnlyLeftovers`). A
    /// reduce-only order never increases or flips the position it reduces.
    function placeReduceOnly(uint256 actorSeed, bool asLimit, int256 offsetBps, uint256 keySeed) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        int256 size0 = markets[k].getPosition(id).sizeQty;
        bool long = size0 < 0; // a short buys back
        if ((actorSeed >> 20) & 1 == 1) long = !long;
        IEngine.PlaceOrderParams memory p = IEngine.PlaceOrderParams(
            id, ids[k], _side(long), asLimit ? IMarket.OrderType.LIMIT : IMarket.OrderType.MARKET, 0, 0,
            asLimit ? _nearMark(k, offsetBps, 300) : 0, _key(keySeed, id)
        , IMarket.TimeInForce.GTC, false, 0);
        (bool ok,, IMarket.OrderStatus st) = _place(_caller(i, actorSeed), k, p, "placeReduceOnly");
        if (!ok) return;
        ++reduceOnlyPlaced;
        if (st == IMarket.OrderStatus.ACTIVE) ++reduceOnlyOrders;
        int256 size1 = markets[k].getPosition(id).sizeQty;
        if (_abs(size1) > _abs(size0) || (size1 != 0 && (size1 > 0) != (size0 > 0))) {
            ++reduceOnlyGrew;
            _target("a reduce-only order increased or flipped its position");
        }
    }

    /// Resting reduce-only orders whose position has closed or flipped since (left over: they
    /// expire when a taker meets them, and must neither fill nor block a liquidation).
    function reduceOnlyLeftovers() external view returns (uint256 n) {
        for (uint256 k; k < 2; ++k) {
            IMarket m = markets[k];
            uint256[] memory all = OrderScan.ids(m);
            for (uint256 j; j < all.length; ++j) {
                IMarket.OrderView memory o = m.getOrder(all[j]);
                if (o.status != IMarket.OrderStatus.ACTIVE || !o.reduceOnly) continue;
                int256 s = m.getPosition(o.accountId).sizeQty;
                if (s == 0 || (s > 0) == (o.side == IMarket.Side.LONG)) ++n;
            }
        }
    }

    // ─── operators ──────────────────────────────────────────────────────────────────────

    function _digest(address owner, address operator, uint64 expiry, uint256 nonce, uint256 deadline)
        internal
        view
        returns (bytes32)
    {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("VenueEngine"),
                keccak256("1"),
                block.chainid,
                address(engine)
            )
        );
        bytes32 structHash = approvalStructHash(APPROVAL_TYPEHASH, owner, operator, expiry, openPolicy(), nonce, deadline);
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }

    /// The owner approves its operator for up to a day, directly or by a signature the
    /// operator submits.
    function approveOperator(uint256 actorSeed, bool bySignature, uint256 expirySeed) external step {
        (uint256 i,,) = _pick(actorSeed);
        uint64 expiry = uint64(block.timestamp + bound(expirySeed, 1 minutes, 1 days));
        if (!bySignature) {
            vm.prank(actors[i]);
            try engine.setOperator(operators[i], expiry, openPolicy()) {} catch (bytes memory r) {
                _expect("setOperator", r, new bytes4[](0));
            }
            return;
        }
        uint256 deadline = block.timestamp + 1 hours;
        (uint8 v, bytes32 r_, bytes32 s) =
            vm.sign(pks[i], _digest(actors[i], operators[i], expiry, engine.operatorNonce(actors[i]), deadline));
        vm.prank(operators[i]);
        try engine.setOperatorWithSig(actors[i], operators[i], expiry, openPolicy(), deadline, abi.encodePacked(r_, s, v)) {
            ++signedApprovals;
        } catch (bytes memory r) {
            _expect("setOperatorWithSig", r, new bytes4[](0));
        }
    }

    /// The owner revokes its operator; the operator then tries to trade for it and must be refused.
    function revokeOperator(uint256 actorSeed) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        vm.prank(actors[i]);
        try engine.setOperator(operators[i], 0, openPolicy()) {
            ++revocations;
        } catch (bytes memory r) {
            _expect("revoke", r, new bytes4[](0));
        }
        // built before the prank: a call made while evaluating the arguments would consume it
        IEngine.PlaceOrderParams memory p =
            IEngine.PlaceOrderParams(id, ids[k], IMarket.Side.LONG, IMarket.OrderType.LIMIT, 1e6, 1, _nearMark(k, -100, 100), bytes32(0), IMarket.TimeInForce.GTC, false, 0);
        vm.prank(operators[i]);
        try engine.placeOrder(p) {
            ++unauthorizedSuccesses;
        } catch (bytes memory r) {
            if (_expect("revoked operator", r, _one(IVenueErrors.OperatorNotApproved.selector)) == IVenueErrors.OperatorNotApproved.selector) {
                ++revokedOperatorRefusals;
            }
        }
    }

    /// The owner signs an approval for its operator, then voids it before the operator submits
    /// it: by revoking (setOperator bumps the nonce), by invalidating its nonces, or the deadline
    /// passes. The operator's submission must be refused (InvalidSignature) and must not approve it.
    function replaySignature(uint256 actorSeed, uint256 how) external step {
        (uint256 i,,) = _pick(actorSeed);
        how %= 3;
        address owner = actors[i];
        uint64 expiry = uint64(block.timestamp + 1 days);
        uint256 nonce = engine.operatorNonce(owner);
        uint256 deadline = how == 2 ? block.timestamp - 1 : block.timestamp + 1 hours;
        (uint8 v, bytes32 r_, bytes32 s) = vm.sign(pks[i], _digest(owner, operators[i], expiry, nonce, deadline));
        if (how == 0) {
            vm.prank(owner);
            try engine.setOperator(operators[i], 0, openPolicy()) {
                ++revocations;
            } catch (bytes memory r) {
                _expect("revoke", r, new bytes4[](0));
            }
        } else if (how == 1) {
            vm.prank(owner);
            try engine.invalidateNonces(nonce + 1) {
                ++nonceInvalidations;
            } catch (bytes memory r) {
                _expect("invalidateNonces", r, new bytes4[](0));
            }
        }
        vm.prank(operators[i]);
        try engine.setOperatorWithSig(owner, operators[i], expiry, openPolicy(), deadline, abi.encodePacked(r_, s, v)) {
            ++unauthorizedSuccesses;
            lastUnexpectedAction = "setOperatorWithSig: a voided signature approved an operator";
        } catch (bytes memory r) {
            if (_expect("voided signature", r, _one(IVenueErrors.InvalidSignature.selector)) == IVenueErrors.InvalidSignature.selector) {
                ++voidedSignatureRefusals;
            }
        }
    }

    // ─── the world ──────────────────────────────────────────────────────────────────────

    /// One index moves up to ±3 % per step, kept within ±20 % of where it started, in up to four
    /// oracle-bounded updates a second apart (the handler reads back what was set).
    function movePrice(uint256 marketSeed, int256 bps) external step {
        uint256 k = marketSeed & 1;
        int256 stepBps = bound(bps, -300, 300);
        uint256 next = uint256(int256(indexPrice[k]) * (10_000 + stepBps) / 10_000);
        if (next < initialPrice[k] * 8 / 10 || next > initialPrice[k] * 12 / 10) next = initialPrice[k];
        // in updates a second apart: the oracle bounds each (all updates of one second together)
        for (uint256 j; j < 4; ++j) {
            vm.warp(block.timestamp + 1);
            vm.roll(block.number + 1);
            indexPrice[k] = next;
            _refresh(k);
            if (indexPrice[k] == next) break;
        }
    }

    /// Time passes (funding accrues); the feed keeps both indexes fresh.
    function warp(uint256 secondsSeed) external step {
        vm.warp(block.timestamp + bound(secondsSeed, 1, 2 hours));
        vm.roll(block.number + 1);
        _refresh(0);
        _refresh(1);
    }

    /// The feed stops: time passes beyond the oracle's staleness bound without an update.
    function goStale(uint256 marketSeed) external step {
        vm.warp(block.timestamp + oracle.maxAgeSeconds() + 1);
        vm.roll(block.number + 1);
        stale[0] = true;
        stale[1] = true;
        staleSteps = 1 + (marketSeed >> 16) % 3;
        if (marketSeed & 1 == 1) _refresh(marketSeed >> 8 & 1); // sometimes one market stays fresh
    }

    function pokeFunding(uint256 marketSeed) external step {
        _checkedPoke(marketSeed & 1);
    }

    /// A poke, checked against the views just before it: it stores the view's cumulativeIndexNow
    /// (the stored index when nothing accrues: stale or unset price, closed market) and clears a
    /// stale rate (a cancel's; docs/CONTRACTS.md "Funding").
    function _checkedPoke(uint256 k) internal {
        IMarket m = markets[k];
        IMarket.FundingView memory v = m.funding();
        (uint256 index, uint256 at) = oracle.getPrice(ids[k]);
        (IMarket.Session s,,) = m.session();
        bool accrues = index != 0 && s != IMarket.Session.CLOSED && block.timestamp - at <= oracle.maxAgeSeconds();
        if (v.rateStaleSince != 0) ++stalePokes;
        try engine.pokeFunding(ids[k]) {
            IMarket.FundingView memory f = m.funding();
            // a stale index accrues up to its expiry, nothing after (the view says the same)
            if (
                f.cumulativeIndexX18 != (accrues || s != IMarket.Session.CLOSED ? v.cumulativeIndexNowX18 : v.cumulativeIndexX18)
                    || f.rateStaleSince != 0
                    || f.lastUpdate != block.timestamp || f.rateNowX18PerHour != f.rateX18PerHour
            ) {
                ++fundingViewDrift;
                _target("a poke stored other than the funding views said");
            }
        } catch (bytes memory r) {
            _expect("pokeFunding", r, _one(stale[k] ? IVenueErrors.PriceStale.selector : bytes4(0xffffffff)));
        }
    }

    /// Issue 26: the feed of one market stops for 1 s .. 3 h past its expiry, with a poke in the
    /// middle or not, then resumes: the stale stretch accrues nothing. Right after the first fresh
    /// update, the funding view (what the next accrual writes) equals, poked during the gap, the
    /// view at the last fresh second (the poke accrued up to the expiry), else the stored index
    /// (nothing since the last accrual: the run the market saw has ended).
    function staleGap(uint256 marketSeed, uint256 gapSeed, bool pokeDuring) external step {
        uint256 k = marketSeed & 1;
        (, uint256 at) = oracle.getPrice(ids[k]);
        uint256 expiry = at + oracle.maxAgeSeconds();
        if (block.timestamp > expiry) return; // already stale (goStale)
        vm.warp(expiry);
        IMarket.FundingView memory v0 = markets[k].funding();
        bool check = _sess(k) != IMarket.Session.CLOSED;
        vm.warp(expiry + bound(gapSeed, 1, 3 hours));
        vm.roll(block.number + 1);
        _refresh(1 - k); // the other feed goes on
        // a close met on the way restarts the clock itself ("Weekends and gaps"): not this check's
        check = check && _sess(k) != IMarket.Session.CLOSED && markets[k].funding().lastUpdate == v0.lastUpdate;
        stale[k] = true;
        if (pokeDuring) _checkedPoke(k);
        _refresh(k);
        if (!check) return;
        IMarket.FundingView memory f = markets[k].funding();
        ++staleGaps;
        if (f.cumulativeIndexNowX18 != (pokeDuring ? v0.cumulativeIndexNowX18 : f.cumulativeIndexX18)) {
            ++staleGapCharged;
            _target("funding accrued over a stale-index stretch");
        }
    }

    /// Issue 26: anyone reduces the insurance fund's position against the book (at most once per
    /// 300 s). It may be refused; when it closes something, the fund's position only shrank, by
    /// the quantity it reports, never flipped.
    function reduceFund(uint256 marketSeed) external step {
        uint256 k = marketSeed & 1;
        IMarket m = markets[k];
        int256 before = m.getPosition(0).sizeQty;
        vm.prank(address(0xF00D));
        try m.reduceFundPosition() returns (uint256 q) {
            int256 after_ = m.getPosition(0).sizeQty;
            if (q != 0) ++fundReductions;
            if (_abs(after_) > _abs(before) || (after_ != 0 && (after_ > 0) != (before > 0)) || _abs(before) - _abs(after_) != q) {
                ++fundReductionWrong;
                _target("a fund reduction grew, flipped or misreported the fund's position");
            }
        } catch (bytes memory r) {
            bytes4[] memory a = new bytes4[](9);
            // a MARKET close: refused in the guardian's POST_ONLY and CANCEL_ONLY modes (not while paused or in the window before a close: MarketBase._checkStatus)
            a[7] = mode[k] == uint8(IMarket.MarketStatus.POST_ONLY) ? IVenueErrors.MarketPostOnly.selector : bytes4(0xffffffff);
            a[8] = mode[k] == uint8(IMarket.MarketStatus.CANCEL_ONLY) ? IVenueErrors.MarketCancelOnly.selector : bytes4(0xffffffff);
            a[0] = IVenueErrors.FundReductionNotDue.selector;
            a[1] = IVenueErrors.NoPosition.selector;
            a[2] = IVenueErrors.NoLiquidity.selector;
            a[3] = IVenueErrors.MarketClosed.selector;
            a[4] = stale[k] ? IVenueErrors.PriceStale.selector : bytes4(0xffffffff);
            // a fill beyond what the fund's margin carries (the liquidation path's then)
            a[5] = IVenueErrors.BelowInitialMargin.selector;
            a[6] = IVenueErrors.OperatorPriceTooFar.selector;
            _expect("reduceFundPosition", r, a);
        }
    }

    /// The admin pauses a market for 1-5 steps (or resumes it early).
    // ─── triggers (TriggerBook) ──────────────────────────────────────────────────────────

    /// The actor (or its operator) sets a take-profit or stop-loss on its position: beyond the mark
    /// in the direction it fires (offset > 0), or on the wrong side (offset ≤ 0: InvalidTrigger).
    function setTrigger(uint256 actorSeed, bool takeProfit, int256 offsetBps, bool limitOrder, bool oco) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        ITriggerBook.TriggerKind kind = takeProfit ? ITriggerBook.TriggerKind.TAKE_PROFIT : ITriggerBook.TriggerKind.STOP_LOSS;
        uint256 trig = _triggerPrice(k, id, takeProfit, offsetBps);
        uint256 limit = limitOrder ? _nearMark(k, offsetBps >> 8, _reach(k)) : 0;
        ITriggerBook book = ITriggerBook(engine.triggerBook()); // before the prank, which the next call takes
        vm.prank(_caller(i, actorSeed));
        try book.setTrigger(
            id, ids[k], kind, trig, limitOrder ? IMarket.OrderType.LIMIT : IMarket.OrderType.MARKET, limit, oco
        ) {
            ++triggersSet;
        } catch (bytes memory r) {
            _expect("setTrigger", r, _triggerRefusals(k));
        }
    }

    /// `offsetBps` (±300) from the mark: beyond it in the firing direction (up for a long's
    /// take-profit and a short's stop-loss) when > 0, on the wrong side when ≤ 0.
    function _triggerPrice(uint256 k, uint256 id, bool takeProfit, int256 offsetBps) internal view returns (uint256) {
        bool up = takeProfit == (markets[k].getPosition(id).sizeQty > 0);
        uint256 px = _nearMark(k, offsetBps, 300);
        return up ? px : 2 * markets[k].markPrice() - px;
    }

    function _triggerRefusals(uint256 k) internal view returns (bytes4[] memory ok) {
        ok = new bytes4[](5);
        ok[0] = IVenueErrors.NoPosition.selector;
        ok[1] = IVenueErrors.InvalidTrigger.selector;
        ok[2] = IVenueErrors.InvalidPrice.selector; // a LIMIT at 0 (a price rounding to no tick)
        ok[3] = stale[k] ? IVenueErrors.PriceStale.selector : bytes4(0xffffffff);
        ok[4] = IVenueErrors.OperatorNotApproved.selector;
    }

    struct TriggerCase {
        uint256 id;
        uint256 k;
        ITriggerBook.TriggerKind kind;
        int256 sizeBefore;
        bool samePosition;
        bool operatorHolds;
        bool reached;
        address executor;
        uint256 paidBefore;
    }

    /// Anyone fires an actor's trigger: only once the mark reached it, only reducing its position,
    /// void (removed, nothing placed) only when its position or operator is gone; the executor gains nothing.
    function executeTrigger(uint256 actorSeed, bool takeProfit) external step {
        TriggerCase memory c = _triggerCase(actorSeed, takeProfit);
        bytes4[] memory refusals = _orderRefusals(c.k);
        bytes4[] memory ok = new bytes4[](refusals.length + 2);
        for (uint256 j; j < refusals.length; ++j) ok[j] = refusals[j];
        ok[refusals.length] = IVenueErrors.TriggerNotFound.selector;
        ok[refusals.length + 1] = c.reached ? bytes4(0xffffffff) : IVenueErrors.TriggerNotReached.selector;
        ITriggerBook book = ITriggerBook(engine.triggerBook());
        vm.prank(c.executor);
        try book.executeTrigger(c.id, ids[c.k], c.kind) returns (uint256 orderId) {
            _checkFired(c, orderId);
        } catch (bytes memory r) {
            bytes4 sel = _expect("executeTrigger", r, ok);
            if (sel == IVenueErrors.TriggerNotReached.selector) ++triggersNotReached;
            else if (sel != IVenueErrors.TriggerNotFound.selector) ++triggersRefused;
        }
        if (token.balanceOf(c.executor) != c.paidBefore) {
            ++triggerExecutorPaid;
            _target("a trigger's executor was paid");
        }
    }

    function _triggerCase(uint256 actorSeed, bool takeProfit) internal returns (TriggerCase memory c) {
        (, c.id, c.k) = _pick(actorSeed);
        IMarket m = markets[c.k];
        c.kind = takeProfit ? ITriggerBook.TriggerKind.TAKE_PROFIT : ITriggerBook.TriggerKind.STOP_LOSS;
        ITriggerBook.TriggerView memory t = ITriggerBook(engine.triggerBook()).triggerOf(c.id, ids[c.k], c.kind);
        IMarket.PositionView memory p = m.getPosition(c.id);
        bool long = t.positionSide == IMarket.Side.LONG;
        c.sizeBefore = p.sizeQty;
        c.samePosition = p.sizeQty != 0 && (p.sizeQty > 0) == long && p.openBlock == t.openBlock;
        c.operatorHolds = t.operator == address(0) || engine.operatorExpiry(engine.ownerOf(c.id), t.operator) > block.timestamp;
        if (t.set && c.samePosition && c.operatorHolds) {
            try m.markPrice() returns (uint256 mark) {
                c.reached = (takeProfit == long) ? mark >= t.triggerPriceX18 : mark <= t.triggerPriceX18;
            } catch {}
        }
        c.executor = address(uint160(0xE8EC00 + (actorSeed % 7)));
        c.paidBefore = token.balanceOf(c.executor);
        operatorActing = t.operator != address(0); // the setting operator's band and budget apply
    }

    function _checkFired(TriggerCase memory c, uint256 orderId) internal {
        if (orderId == 0) {
            ++triggersVoided;
            if (c.samePosition && c.operatorHolds) {
                ++triggerVoidWrong;
                _target("a trigger removed as void while its position and operator held");
            }
            return;
        }
        ++triggersFired;
        if (!c.reached) {
            ++triggerFiredEarly;
            _target("a trigger fired before the mark reached it");
        }
        int256 after_ = markets[c.k].getPosition(c.id).sizeQty;
        if (_absInt(after_) > _absInt(c.sizeBefore) || (after_ != 0 && (after_ > 0) != (c.sizeBefore > 0))) {
            ++triggerGrew;
            _target("a trigger's order grew or turned its position");
        }
    }

    function _absInt(int256 x) internal pure returns (uint256) {
        return uint256(x >= 0 ? x : -x);
    }

    /// The guardian sets a market's mode (ACTIVE, POST_ONLY, CANCEL_ONLY, REDUCE_ONLY) for a few
    /// steps (then ACTIVE again, so the other actions keep trading).
    function setStatus(uint256 marketSeed, uint256 statusSeed) external step {
        uint256 k = marketSeed & 1;
        uint8 m = uint8(statusSeed & 3);
        _setMode(k, m);
        statusSteps[k] = m == 0 ? 0 : 1 + (statusSeed >> 8) % 5;
    }

    function _setMode(uint256 k, uint8 m) internal {
        vm.prank(admin);
        engine.setMarketStatus(ids[k], IMarket.MarketStatus(m));
        mode[k] = m;
    }

    function setPaused(uint256 marketSeed, bool pause) external step {
        uint256 k = marketSeed & 1;
        if (pause == paused[k]) return;
        _setActive(k, !pause);
        if (pause && paused[k]) {
            ++pauses;
            pausedSteps[k] = 1 + (marketSeed >> 8) % 5;
        }
    }

    /// Time moves to the market's next session change under its calendar (OPEN → REDUCE_ONLY →
    /// CLOSED → OPEN), with whatever rests in the book: no key switches a session.
    function advanceSession(uint256 marketSeed) external step {
        uint256 k = marketSeed & 1;
        _setSession(k);
    }

    // ─── the venue's pots (issue 10; called by signature until the functions exist) ─────────

    /// A stranger donates to the insurance fund: the fund grows by exactly the donation.
    function donate(uint256 amount6) external step {
        amount6 = bound(amount6, 1, 1_000e6);
        address donor = address(0xD0_7A7E);
        vm.prank(admin);
        token.mint(donor, amount6);
        vm.prank(donor);
        token.approve(address(engine), amount6);
        uint256 before = engine.insuranceFundWad();
        vm.prank(donor);
        (bool ok, bytes memory r) = address(engine).call(abi.encodeWithSignature("donateInsurance(uint256)", amount6));
        if (!ok) {
            if (r.length != 0) _expect("donateInsurance", r, new bytes4[](0));
            return; // not deployed yet
        }
        ++donations;
        if (engine.insuranceFundWad() != before + amount6 * 1e12) {
            ++unexpectedReverts;
            lastUnexpectedAction = "donateInsurance: the fund did not grow by the donation";
        }
    }

    /// The admin pays accrued fees (at most what accrued) to a treasury.
    function withdrawFees(uint256 amount6) external step {
        uint256 fees6 = engine.feesWad() / 1e12;
        if (fees6 == 0) return;
        amount6 = bound(amount6, 1, fees6);
        address treasury = address(0x7EA5_0E7);
        uint256 bal = token.balanceOf(treasury);
        vm.prank(admin);
        (bool ok, bytes memory r) = address(engine).call(abi.encodeWithSignature("withdrawFees(address,uint256)", treasury, amount6));
        if (!ok) {
            if (r.length != 0) _expect("withdrawFees", r, new bytes4[](0));
            return;
        }
        ++feeWithdrawals;
        lastFees -= amount6 * 1e12; // fees only grow, but for what the treasury took
        if (token.balanceOf(treasury) != bal + amount6) {
            ++unexpectedReverts;
            lastUnexpectedAction = "withdrawFees: the treasury was not paid the amount";
        }
    }

    // ─── liquidation ────────────────────────────────────────────────────────────────────

    /// A keeper liquidates one position, or (bit 16 of the seed) every liquidatable position of
    /// the account. Issue 10: a liquidatable position with depth inside its bankruptcy price is
    /// always reduced; without depth the backstop reduces it; bad debt only where the book and
    /// the fund were exhausted.
    function liquidate(uint256 actorSeed) external step {
        liquidating = true;
        (, uint256 id, uint256 k) = _pick(actorSeed);
        if (actorSeed & (1 << 16) != 0) {
            _liquidateAccount(id);
            return;
        }
        IMarket m = markets[k];
        int256 size = m.getPosition(id).sizeQty;
        if (size == 0 || !lens.positionHealth(m, id).isLiquidatable) {
            if (actorSeed & (1 << 17) != 0) _liquidateHealthy(id, k); // a keeper's wasted attempt
            return;
        }
        uint256 depth = RiskChecks.depthInsideBankruptcy(m, lens, id);
        uint256 bad0 = engine.badDebtWad();
        // issue 26: a call that only cancelled makers it could not fill returns 0 closed; the
        // keeper calls again, at most 1 + ⌈J / 100⌉ times in all (J ≤ the orders resting on the
        // side it sells or buys into): after that the position must have been reduced
        uint256 bound = 1 + (_restingOrders(m, size > 0) + 99) / 100;
        for (uint256 c; c < bound; ++c) {
            vm.prank(KEEPER);
            try engine.liquidatePosition(id, ids[k]) returns (uint256 closed) {
                ++liquidations;
                if (closed != 0 || m.getPosition(id).sizeQty != size || c + 1 == bound) {
                    _afterLiquidation(m, id, size, depth, bad0, true, "");
                    return;
                }
                ++repeatedLiquidationCalls;
            } catch (bytes memory r) {
                _afterLiquidation(m, id, size, depth, bad0, false, r);
                return;
            }
        }
    }

    /// Resting orders on the side a liquidation of a long (bids) or short (asks) meets.
    function _restingOrders(IMarket m, bool long) internal view returns (uint256 n) {
        (,, uint256[] memory counts) = m.getLevels(long ? IMarket.Side.LONG : IMarket.Side.SHORT, 1_000);
        for (uint256 j; j < counts.length; ++j) n += counts[j];
    }

    /// Issue 26: a liquidator names an account of its choice (an actor's) as the only ADL
    /// candidate. Being chosen is worth nothing: while the rest is solvent at the mark (and no
    /// book fill came first, which could leave it bankrupt), a counterparty the backstop closes
    /// is closed at the mark, not at the bankruptcy price.
    function liquidateRanked(uint256 actorSeed, uint256 namedSeed) external step {
        liquidating = true;
        (, uint256 id, uint256 k) = _pick(actorSeed);
        (, uint256 named,) = _pick(namedSeed);
        IMarket m = markets[k];
        if (named == id || m.getPosition(id).sizeQty == 0 || !lens.positionHealth(m, id).isLiquidatable) return;
        bool solvent = RiskChecks.equityWad(m, lens, id) > 0;
        uint256 mark = m.markPrice();
        uint256[] memory list = new uint256[](1);
        list[0] = named;
        vm.getRecordedLogs(); // only this call's logs below
        vm.prank(KEEPER);
        try engine.liquidatePositionRanked(id, ids[k], list) {
            ++liquidations;
        } catch (bytes memory r) {
            ++failedLiquidations;
            bytes4[] memory allowed = new bytes4[](5);
            allowed[0] = IVenueErrors.NotLiquidatable.selector;
            allowed[1] = IVenueErrors.NoLiquidity.selector;
            allowed[2] = stale[k] ? IVenueErrors.PriceStale.selector : bytes4(0xffffffff);
            allowed[3] = _sess(k) == IMarket.Session.CLOSED ? IVenueErrors.MarketClosed.selector : bytes4(0xffffffff);
            allowed[4] = IVenueErrors.SelfTrade.selector;
            _expect("liquidatePositionRanked", r, allowed);
            return;
        }
        Vm.Log[] memory logs = vm.getRecordedLogs();
        bool bookFill;
        for (uint256 j; j < logs.length; ++j) {
            if (logs[j].emitter != address(m) || logs[j].topics.length == 0) continue;
            if (logs[j].topics[0] == IMarket.OrderFilled.selector) bookFill = true;
            if (logs[j].topics[0] != IMarket.Deleveraged.selector || !solvent || bookFill) continue;
            (,, uint256 price,,,,) = abi.decode(logs[j].data, (uint64, uint256, uint256, uint256, int256, int256, uint256));
            if (price != mark) {
                ++chosenGained;
                _target("a solvent rest was deleveraged away from the mark");
            }
        }
    }

    /// Issue 26: an account rests reduce-only orders for its position, then closes it at market:
    /// the orders stay behind without a position (a liquidation must get past them).
    function flatLeavingReduceOnly(uint256 actorSeed, uint256 nSeed) external step {
        (uint256 i, uint256 id, uint256 k) = _pick(actorSeed);
        int256 size = markets[k].getPosition(id).sizeQty;
        if (size == 0) return;
        bool long = size < 0; // the closing side: a short buys back
        uint256 n = 1 + nSeed % 5;
        for (uint256 j; j < n; ++j) {
            int256 off = long ? -int256(10 + 5 * j) : int256(10 + 5 * j); // behind the mark
            IEngine.PlaceOrderParams memory p =
                IEngine.PlaceOrderParams(id, ids[k], _side(long), IMarket.OrderType.LIMIT, 0, 0, _nearMark(k, off, 90), bytes32(0), IMarket.TimeInForce.GTC, false, 0);
            (bool ok,, IMarket.OrderStatus st) = _place(_caller(i, nSeed + j), k, p, "flatLeavingReduceOnly: rest");
            if (ok) ++reduceOnlyPlaced;
            if (ok && st == IMarket.OrderStatus.ACTIVE) ++reduceOnlyOrders;
        }
        IEngine.PlaceOrderParams memory c =
            IEngine.PlaceOrderParams(id, ids[k], _side(long), IMarket.OrderType.MARKET, 0, 0, 0, bytes32(0), IMarket.TimeInForce.GTC, false, 0);
        _place(_caller(i, nSeed), k, c, "flatLeavingReduceOnly: close");
    }

    /// A liquidation of a healthy (or absent) position must be refused, and only as such.
    function _liquidateHealthy(uint256 id, uint256 k) internal {
        vm.prank(KEEPER);
        try engine.liquidatePosition(id, ids[k]) {
            ++unexpectedReverts;
            lastUnexpectedAction = "liquidatePosition: a healthy position was liquidated";
        } catch (bytes memory r) {
            ++failedLiquidations;
            bytes4[] memory allowed = new bytes4[](3);
            allowed[0] = IVenueErrors.NotLiquidatable.selector;
            allowed[1] = IVenueErrors.NoPosition.selector;
            allowed[2] = stale[k] ? IVenueErrors.PriceStale.selector : bytes4(0xffffffff);
            if (_sess(k) == IMarket.Session.CLOSED) allowed[1] = IVenueErrors.MarketClosed.selector; // checked before the position
            _expect("liquidatePosition (healthy)", r, allowed);
        }
    }

    function _afterLiquidation(IMarket m, uint256 id, int256 size, uint256 depth, uint256 bad0, bool ok, bytes memory r)
        internal
    {
        uint256 k = m == markets[0] ? 0 : 1;
        if (!ok) {
            ++failedLiquidations;
            bytes4[] memory allowed = new bytes4[](7);
            allowed[6] = _sess(k) == IMarket.Session.CLOSED ? IVenueErrors.MarketClosed.selector : bytes4(0xffffffff);
            allowed[0] = IVenueErrors.NotLiquidatable.selector; // the lens and the market disagree by rounding
            allowed[1] = IVenueErrors.NoLiquidity.selector; // today: an empty book (target: backstop)
            allowed[2] = IVenueErrors.ClientKeyInUse.selector; // today (scenario 4c)
            allowed[3] = stale[k] ? IVenueErrors.PriceStale.selector : bytes4(0xffffffff);
            allowed[4] = IVenueErrors.MarketNotActive.selector; // today: paused (target: works paused)
            allowed[5] = IVenueErrors.SelfTrade.selector;
            bytes4 sel = _expect("liquidatePosition", r, allowed);
            if (sel == IVenueErrors.MarketClosed.selector) ++closedRefusals; // until the market reopens
            if (sel == IVenueErrors.PriceStale.selector || sel == IVenueErrors.NotLiquidatable.selector || sel == IVenueErrors.MarketClosed.selector) return;
            if (sel == IVenueErrors.MarketNotActive.selector) {
                ++refusedWhilePaused;
                _target("liquidation refused while paused");
            }
        }
        bool reduced = ok && _abs(m.getPosition(id).sizeQty) < _abs(size);
        if (!reduced) {
            if (depth != 0) {
                ++blockedWithDepth;
                _target("liquidation with depth inside bankruptcy not reduced");
            } else {
                ++blockedWithoutDepth;
                _target("liquidation without depth not reduced (no backstop)");
            }
        }
        if (engine.badDebtWad() > bad0) {
            if (depth >= _abs(size)) {
                ++badDebtDespiteDepth;
                _target("bad debt although the book held the size inside bankruptcy");
            }
            if (engine.insuranceFundWad() != 0) {
                ++badDebtWithFundLeft;
                _target("bad debt while the insurance fund had money");
            }
        }
    }

    function _liquidateAccount(uint256 id) internal {
        bool any;
        int256[2] memory sizes;
        uint256[2] memory depths;
        for (uint256 j; j < 2; ++j) {
            sizes[j] = markets[j].getPosition(id).sizeQty;
            if (sizes[j] != 0 && lens.positionHealth(markets[j], id).isLiquidatable) {
                any = true;
                depths[j] = RiskChecks.depthInsideBankruptcy(markets[j], lens, id);
            }
        }
        if (!any) return;
        vm.prank(KEEPER);
        try engine.liquidateAccount(id) {
            ++accountLiquidations;
        } catch (bytes memory r) {
            ++failedLiquidations;
            bytes4[] memory allowed = new bytes4[](7);
            allowed[6] = (_sess(0) == IMarket.Session.CLOSED || _sess(1) == IMarket.Session.CLOSED)
                ? IVenueErrors.MarketClosed.selector
                : bytes4(0xffffffff);
            allowed[0] = IVenueErrors.NotLiquidatable.selector;
            allowed[1] = IVenueErrors.NoLiquidity.selector;
            allowed[2] = IVenueErrors.ClientKeyInUse.selector;
            allowed[3] = (stale[0] || stale[1]) ? IVenueErrors.PriceStale.selector : bytes4(0xffffffff);
            allowed[4] = IVenueErrors.MarketNotActive.selector;
            allowed[5] = IVenueErrors.SelfTrade.selector;
            bytes4 sel = _expect("liquidateAccount", r, allowed);
            if (sel == IVenueErrors.PriceStale.selector || sel == IVenueErrors.NotLiquidatable.selector || sel == IVenueErrors.MarketClosed.selector) return;
        }
        // issue 10: each market with depth inside bankruptcy is reduced, whatever the other does
        for (uint256 j; j < 2; ++j) {
            if (depths[j] == 0 || stale[j] || _sess(j) == IMarket.Session.CLOSED) continue;
            if (_abs(markets[j].getPosition(id).sizeQty) >= _abs(sizes[j])) {
                ++blockedWithDepth;
                _target("liquidateAccount left a market with depth unreduced");
            }
        }
    }

    function _abs(int256 x) internal pure returns (uint256) {
        return x < 0 ? uint256(-x) : uint256(x);
    }

    /// Every liquidatable position, liquidated by a keeper with a live feed (for the
    /// strict-solvency invariant, inside a snapshot: counters would be reverted with it, so the
    /// refusals it cannot explain are returned). Expected: NotLiquidatable (the lens and the
    /// market round apart) and NoLiquidity (no depth, the fund cannot carry it, nobody to deleverage).
    function liquidateEverything() external returns (uint256 unexpected, bytes memory lastReason) {
        // a live feed (at the same prices) and open markets: staleness or a weekend must not hide a deficit
        _refresh(0);
        _refresh(1);
        // to a second where both markets are OPEN (one market's reopening may fall inside the
        // other's window: each closed market in turn, a few boundaries at most)
        for (uint256 n; n < 6 && (_sess(0) != IMarket.Session.OPEN || _sess(1) != IMarket.Session.OPEN); ++n) {
            vm.warp(_nextBoundary(_sess(0) != IMarket.Session.OPEN ? 0 : 1));
            _refresh(0);
            _refresh(1);
        }
        for (uint256 round; round < 3; ++round) {
            bool any;
            for (uint256 j; j < 2; ++j) {
                // every account: the actors, the operator round trips' victims, and 0 (the insurance fund)
                for (uint256 id; id <= engine.accountCount(); ++id) {
                    if (markets[j].getPosition(id).sizeQty == 0 || !lens.positionHealth(markets[j], id).isLiquidatable) continue;
                    any = true;
                    vm.prank(KEEPER);
                    try engine.liquidatePosition(id, ids[j]) {}
                    catch (bytes memory r) {
                        bytes4 sel = RiskChecks.selectorOf(r);
                        if (
                            RiskChecks.classify(r) != RiskChecks.Revert.VENUE
                                || (sel != IVenueErrors.NotLiquidatable.selector && sel != IVenueErrors.NoLiquidity.selector)
                        ) {
                            ++unexpected;
                            lastReason = r;
                        }
                    }
                }
            }
            if (!any) return (unexpected, lastReason);
        }
    }

    /// Σ −equity of the positions still open below zero (after `liquidateEverything`: those that
    /// neither the book, the fund nor a counterparty in profit could take; BUGS.md #10).
    function deficitLeftOpen() external view returns (uint256 sum) {
        for (uint256 j; j < 2; ++j) {
            for (uint256 id; id <= engine.accountCount(); ++id) {
                if (markets[j].getPosition(id).sizeQty == 0) continue;
                int256 equity = lens.positionHealth(markets[j], id).equityWad;
                if (equity < 0) sum += uint256(-equity);
            }
        }
    }

    function actorCount() external view returns (uint256) {
        return actors.length;
    }
}
