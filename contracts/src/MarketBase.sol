// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {IVenueErrors} from "./interfaces/IVenueErrors.sol";
import {IEngine} from "./interfaces/IEngine.sol";
import {IOracle} from "./interfaces/IOracle.sol";
import {TickBitmap} from "./libraries/TickBitmap.sol";
import {VenueMath} from "./libraries/VenueMath.sol";
import {MarketArgs} from "./libraries/MarketArgs.sol";
import {MarketCalendar} from "./libraries/MarketCalendar.sol";

/// @notice Storage and the shared internals of a market: the matching engine, position
/// settlement with the initial-margin check, funding and the mark. `Market` (entry points) and
/// `MarketExtension` (liquidation and views, reached by delegatecall) both inherit it, so they
/// share one storage layout; each stays well under EIP-170.
abstract contract MarketBase is IVenueErrors {
    using TickBitmap for TickBitmap.Bitmap;

    uint256 internal constant WAD = 1e18;
    uint256 internal constant BPS = 1e4;
    /// WAD per 1e-6 (the deposit token's unit): an order's margin is kept in these units.
    uint256 internal constant MICRO = 1e12;
    uint256 internal constant MAX_TICK = (1 << 24) - 1;
    /// An order's local number n: its number << SLOT_BITS | its storage slot (1 ≤ slot ≤ SLOT_MASK).
    uint256 internal constant SLOT_BITS = 24;
    uint256 internal constant SLOT_MASK = (1 << 24) - 1;
    /// Resting orders per account and market (bounds what a liquidation may have to cancel).
    uint256 internal constant MAX_OPEN_ORDERS = 100;
    /// Makers cancelled instead of filled in one transaction (below initial margin, expired
    /// reduce-only, opening in the pre-close window); a budget apart from the fill cap, so such orders cannot exhaust the cap.
    uint256 internal constant MAX_SKIPS = 100;
    /// Time constant of the mark's premium average (seconds).
    uint256 internal constant MARK_PERIOD = 300;
    /// Resting orders the premium sample reads at most per side (`_markBest`).
    uint256 internal constant MARK_PROBES = 4;
    /// The insurance fund's account in every market: it holds the positions it takes over.
    uint256 internal constant FUND = 0;
    /// Bond of every resting order (docs/CONTRACTS.md "Order bond"): committed with the order,
    /// returned to its owner on a fill or an owner's cancel, paid to whoever clears the order when
    /// a sweep meets it unable to fill (reduce-only with no position left, below initial margin,
    /// opening in the pre-close window): an order that can never fill costs its placer more than
    /// it costs the keeper to remove (about 20k gas a cleared order).
    uint256 internal constant ORDER_BOND_WAD = 0.5e18;
    /// `_closeOrder`'s flags: its margin and bond are not sent to the engine (the caller returns
    /// them itself: MarketOrders.cancelOrders sums its orders' into one call, a single cancel hands
    /// them to the Engine's entry point as `refundWad`: Market._cancelOne); its
    /// bond goes back to the owner; its bond is forfeited (to whoever cleared the order, paid by the caller).
    uint8 internal constant MARGIN_DEFERRED = 1;
    uint8 internal constant BOND_REFUND = 2;
    uint8 internal constant BOND_FORFEIT = 4;
    /// ... and no OrderClosed or LevelUpdated for it (the caller's OrdersCancelled tells it).
    uint8 internal constant QUIET = 8;
    /// A key bucket's flag: a key of this bucket went to `openByKey` (never cleared).
    uint256 internal constant KEY_SPILL = 1 << 64;

    /// Two slots: ids, links and flags; quantities and margin (`_finishTaker` writes each word
    /// whole: its packing follows this order). The client key is not stored: the
    /// key map (`_keyed`, `_claimKey`) leads from it to the order, and the events carry it.
    /// Orders live in reused storage slots (docs/CONTRACTS.md "Order ids and slots"): `orders` is
    /// keyed by slot, and an order's local number n = `number` << SLOT_BITS | slot.
    /// A cancel reads and writes the words whole at these fields' bit offsets (`_cancel`,
    /// `_removeAt`, `_free`, `_isLiveWord`, `_closeOrder`): a change here changes them too.
    struct Order {
        uint40 accountId;
        uint24 next; // the next order's slot in its level; once closed, the next free slot (`_free`)
        uint24 prev;
        uint40 number; // the market's n-th order: its id's high part (`_idAt`)
        uint24 tick; // price = tick × tickSize
        IMarket.Side side;
        IMarket.OrderStatus status;
        IMarket.OrderType orderType;
        bool reduceOnly;
        bool uncounted; // the funding skew leaves its size out (`_uncounted`), fixed when it rests
        uint16 operatorBandBps; // placed by an operator: its band (fills beyond it are refused); 0: by the owner
        uint40 expiresAt; // 0: none; from this second it never fills (`_expired`)
        uint96 originalQty;
        uint96 filledQty;
        uint64 margin6; // still committed to the unfilled part, in units of 1e-6 (margins move in whole units: `_portion`)
    }

    struct MarketNames {
        string symbol;
        address baseFxToken;
        address quoteFxToken;
    }

    /// One slot (read and written whole at these offsets by `_removeAt`).
    struct Level {
        uint96 totalQty;
        uint40 head;
        uint40 tail;
        uint32 orderCount;
    }

    /// Two slots: what a placement reads (size, its resting orders) and a fill's first half; the
    /// margin and funding index. Narrowing is checked where they are written (`_writeSettle`,
    /// which writes each word whole: its packing follows this order; `_removeAt` the open-order count).
    struct Position {
        int96 size;
        uint96 openNotional;
        uint16 openOrders; // resting orders of the account in this market (≤ MAX_OPEN_ORDERS)
        uint40 lastSettledAt;
        uint96 margin;
        int128 lastFundingIndex;
        uint32 openBlock;
    }

    /// One slot, written whole by `_setFunding` (its packing follows this order).
    struct FundingState {
        int128 cumulativeIndex;
        int64 rate;
        uint64 lastUpdate;
    }

    /// One slot, written whole by `_updateRate` (its packing follows this order).
    struct FundingComponents {
        int64 premiumComponent;
        int64 skewComponent;
        int64 skew;
        int64 premium; // the time-weighted premium the mark and funding use (docs/CONTRACTS.md "Prices")
    }

    /// Running totals of one taker order's matching.
    struct Sweep {
        uint256 orderN;
        uint256 accountId;
        bool isBuy;
        bool reduceOnly;
        uint256 bound; // worst price the taker accepts
        uint256 remaining;
        uint256 filledQty;
        uint256 notional;
        uint256 makerFees;
        uint256 takerFees; // Σ per-fill taker fees (0 for liquidations)
        uint256 fills;
        uint256 skips;
        uint256 mark; // for the makers' initial-margin check
        bool capped;
        uint256 bonds; // bonds of the makers cleared as unable to fill: to the taker (the liquidator)
        bool liquidation; // own resting orders are cancelled (uncounted) instead of reverting SelfTrade
        bool window; // not OPEN and not a liquidation: makers may only reduce (REDUCE_ONLY_SESSION)
        uint256 margin; // the taker's margin as placed (what `_uncounted` reads, from memory when it rests)
        uint256 qty; // the taker's original quantity
        uint256 marginLeft; // the taker's margin still committed after its own fills (WAD, whole 1e-6 units)
        uint256 band; // an operator's order: its band, kept when it rests (`_sweepLevel`); 0: the owner's
        IMarket.OrderType orderType;
        uint256 tif; // IMarket.TimeInForce
        uint256 expiresAt;
        bool deferRate; // an item of Engine.batch (OrderOptions.DEFER_RATE): the rate at the batch's end
    }

    /// A position change computed before it is written (so a maker failing its margin check can
    /// be skipped without side effects).
    struct Settlement {
        int256 oldSize;
        int256 size;
        uint256 openNotional;
        int256 margin;
        int256 pnl;
        int256 funding;
        int256 toAvailable;
        uint256 feeTaken;
        uint256 shortfall;
    }

    /// The market's names; its numbers are args in its code (libraries/MarketArgs.sol).
    MarketNames internal _names;
    bool internal _isActive;
    /// The guardian's mode (IMarket.MarketStatus ACTIVE to REDUCE_ONLY): same slot as `seq`.
    uint8 internal _mode;
    uint64 internal seq;
    uint40 internal _orderCount;
    /// Same slot as `seq` (warm in every transaction): the close uplift (bps, 0 = none) costs no
    /// cold read on the trading path.
    uint16 internal _closeUpliftBps;
    /// Same slot: the market's maxLeverage and makerFeeBps (copied at initialize; parameters never
    /// change), so `_uncounted` costs a cancel no cold read of the parameters.
    uint16 internal _maxLeverage;
    uint16 internal _makerFeeBps;
    /// Same slot: the highest slot ever used (the free list's head is kept with the skew's sides: `_freeHead`).
    uint24 internal _slotCount;
    /// While an order is placed: the slot it takes if it rests (`_reserve`), and the slot a close
    /// during its own sweep pushed right above it on the free list (`_free`), whose link then
    /// skips it (`_claimSlot`).
    uint256 transient _reservedSlot;
    uint256 transient _freedAbove;
    /// A placement of an Engine.batch left the rate update to the batch's end (`settleRate`): the
    /// index it read, + 1 (0: none due).
    uint256 transient _rateDue;

    mapping(uint256 => Order) internal orders; // by slot (n & SLOT_MASK)
    /// The key map's spill (`_claimKey`): account → clientKey → n, for a key whose bucket held
    /// another ACTIVE order when it was claimed.
    mapping(uint256 => mapping(bytes32 => uint256)) internal openByKey;
    mapping(uint256 => Level) internal bidLevels; // by tick
    mapping(uint256 => Level) internal askLevels;
    TickBitmap.Bitmap internal bids;
    TickBitmap.Bitmap internal asks;
    /// The funding skew's sides (`_marginedQty`): per side the open interest plus the resting size
    /// the skew counts (all but `_uncounted` orders, totalled apart below), kept by `_resting` and
    /// `_updateOI`; a side's resting size is this less its open interest plus its uncounted size
    /// (`restingQty`). An order placed or cancelled reads and writes this one slot, and a single
    /// cancel no other market-wide one (its event carries no `seq`: IMarket.OrderCancelled), so it
    /// also holds the two fields below. 96 bits a side, as a level's or a position's size.
    uint96 internal marginedLongQty;
    uint96 internal marginedShortQty;
    /// The second from which the stored rate is stale (0: it is not). A cancel of margined size
    /// sets it instead of recomputing the rate (cheap); the next accrual accrues at the stored
    /// rate up to it and from it at the rate the book then gives (docs/CONTRACTS.md "Funding").
    uint40 internal _rateStaleSince;
    /// The head of the free slots' list (0: none; linked through `Order.next`). A closed order's
    /// slot is pushed (`_free`); a resting order takes the head, or a new slot (`_slotCount` + 1)
    /// when the list is empty (`_reserve`, `_claimSlot`): rewriting a used slot costs about a
    /// fifth of a fresh one.
    uint24 internal _freeHead;
    uint128 internal longOI;
    uint128 internal shortOI;
    mapping(uint256 => Position) internal positions;
    FundingState internal fundingState;
    FundingComponents internal components;
    /// The resting size the funding skew leaves out (`_uncounted`).
    uint128 internal restingUncountedBidQty;
    uint128 internal restingUncountedAskQty;
    /// The calendar in force, the next one and its start (MarketCalendar's packing: 136 bits).
    uint136 internal _calendar;
    /// Same slot (a placement reads both it and the calendar): the book's sampled bid and ask
    /// (ticks; 0 = none) taken at the last rate update
    /// (`_updateRate`, after every placement, fill, liquidation, margin change and poke) from the
    /// book's fillable top (`_sampleNow`). The premium average moves towards their sample against
    /// the index of the moment (`_sampleAt`) until the next update, in transactions and views
    /// alike: the mark never reads the book in between (docs/CONTRACTS.md "Prices").
    uint24 internal _sampleBidTick;
    uint24 internal _sampleAskTick;
    /// Same slot (every rate update reads it): the best bid and ask ticks (0: the side is empty),
    /// kept by `_bookSet` and `_bookClear`, so that the top of the book costs no bitmap walk.
    uint24 internal _bestBidTick;
    uint24 internal _bestAskTick;
    /// The second of the last `reduceFundPosition` (MarketBackstop).
    uint40 internal _fundReducedAt;
    /// The key map's buckets: account → bucket (0–255, from the key's hash) → the key's tag (the
    /// hash's high 184 bits), KEY_SPILL, and the order's n (`_claimKey`).
    mapping(uint256 => mapping(uint256 => uint256)) internal _keyBuckets;

    // ─── who the market is (args in its code: libraries/MarketArgs.sol) ────────────────

    function _engine() internal view returns (IEngine) {
        return IEngine(address(uint160(MarketArgs.get(MarketArgs.ENGINE))));
    }

    function _oracle() internal view returns (IOracle) {
        return IOracle(address(uint160(MarketArgs.get(MarketArgs.ORACLE))));
    }

    function _marketId() internal view returns (bytes32) {
        return bytes32(MarketArgs.get(MarketArgs.MARKET_ID));
    }

    function _marketIndex() internal view returns (uint256) {
        return MarketArgs.get(MarketArgs.MARKET_INDEX);
    }

    // ─── orders ──────────────────────────────────────────────────────────────────────────

    /// The next order's local number: the market's next number and the slot it takes if it rests
    /// (the free list's head, else a new slot), reserved for this placement; nothing is written to
    /// the slot until it rests (`_finishTaker`), so a taker that fills or closes at once costs none.
    function _reserve() internal returns (uint256 n) {
        uint256 slot = _freeHead;
        if (slot == 0) {
            slot = uint256(_slotCount) + 1;
            if (slot > SLOT_MASK) revert BookFull();
        }
        (_reservedSlot, _freedAbove) = (slot, 0);
        uint40 number = ++_orderCount;
        n = uint256(number) << SLOT_BITS | slot;
    }

    /// The reserved slot of order `n`, taken as it rests: off the free list (the link of the slot a
    /// close in its own sweep pushed above it skips it), or the new highest.
    function _claimSlot(uint256 n) internal returns (uint256 slot) {
        slot = n & SLOT_MASK;
        if (slot > _slotCount) {
            _slotCount = uint24(slot);
            return slot;
        }
        uint24 link = orders[slot].next;
        uint256 above = _freedAbove;
        if (above != 0) orders[above].next = link;
        else _freeHead = link;
    }

    /// A closed order (`a`: its first word as stored): its `status`, and its slot onto the free
    /// list (after it left its level: its link is reused), in one write of its first word; returns
    /// that word as written.
    function _free(uint256 slot, Order storage o, uint256 a, IMarket.OrderStatus status) internal returns (uint256) {
        // the free list's head: `_freeHead`'s word read and written once
        uint256 k;
        uint256 head;
        assembly ("memory-safe") {
            k := sload(_freeHead.slot)
            head := shr(232, k)
        }
        if (head != 0 && head == _reservedSlot && _freedAbove == 0) _freedAbove = slot;
        // `Order`'s first word (see the struct): `next` at bit 40, `status` at bit 160; the head at bit 232 of its word
        assembly ("memory-safe") {
            a := or(and(a, not(or(shl(40, SLOT_MASK), shl(160, 0xff)))), or(shl(40, head), shl(160, and(status, 0xff))))
            sstore(o.slot, a)
            sstore(_freeHead.slot, or(and(k, not(shl(232, SLOT_MASK))), shl(232, slot)))
        }
        return a;
    }

    /// The first word of an order (ids, links and flags: its packing follows the struct).
    function _word(Order storage o) internal view returns (uint256 a) {
        assembly ("memory-safe") {
            a := sload(o.slot)
        }
    }

    /// Both words of an order: ids, links and flags; quantities and margin (see the struct).
    function _words(Order storage o) internal view returns (uint256 a, uint256 b) {
        assembly ("memory-safe") {
            a := sload(o.slot)
            b := sload(add(o.slot, 1))
        }
    }

    /// Order `n`'s OrderPlaced (`marginWad`: a whole number of 1e-6 units, collateral6 × 1e12);
    /// `n` from `_reserve`. Its client key, when it has one (liquidation orders have none), is
    /// claimed apart (`_claimKey`).
    function _newOrder(
        uint256 n, uint256 accountId, IMarket.Side side, IMarket.OrderType orderType, bool reduceOnly, uint256 price, uint256 qty,
        uint256 marginWad, bytes32 clientKey, uint256 tif, uint256 expiresAt
    ) internal {
        // liquidation orders: the mark, rounded down to the tick
        uint256 ts = MarketArgs.get(MarketArgs.TICK_SIZE);
        emit IMarket.OrderPlaced(
            ++seq, _orderId(n), accountId, _keyFor(accountId, n, clientKey), side, orderType, reduceOnly, price / ts * ts, qty, marginWad,
            IMarket.TimeInForce(tif), expiresAt
        );
    }

    /// Matches a taker against the opposite book up to `bound`, the fill cap, the skip budget and
    /// (reduce-only) the taker's position. Makers are settled per fill; the taker by the caller.
    function _sweep(Sweep memory s, uint256 qty) internal {
        s.remaining = qty;
        // a liquidation's makers may still open (at the uplifted initial margin): a weak position
        // taken out of the window is safer than one left to cross the close
        s.window = !s.liquidation && _sessionNow() != IMarket.Session.OPEN;
        TickBitmap.Bitmap storage book = s.isBuy ? asks : bids;
        while (s.remaining != 0) {
            if (s.fills >= MarketArgs.get(MarketArgs.MAX_FILLS) || s.skips >= MAX_SKIPS) {
                s.capped = true;
                break;
            }
            uint256 tick = s.isBuy ? _bestAskTick : _bestBidTick;
            if (tick == 0) break;
            uint256 price = tick * MarketArgs.get(MarketArgs.TICK_SIZE);
            if (s.isBuy ? price > s.bound : price < s.bound) break;
            if (!_sweepLevel(s, tick, price)) break;
        }
    }

    /// Fills makers at one level FIFO; false when the taker must stop (reduce-only exhausted).
    function _sweepLevel(Sweep memory s, uint256 tick, uint256 price) internal returns (bool more) {
        mapping(uint256 => Level) storage levels = s.isBuy ? askLevels : bidLevels;
        Level storage level = levels[tick];
        uint256 m = level.head;
        uint256 cap = MarketArgs.get(MarketArgs.MAX_FILLS);
        more = true;
        while (m != 0 && s.remaining != 0 && s.fills < cap && s.skips < MAX_SKIPS) {
            Order storage mo = orders[m];
            uint256 next = m == level.tail ? 0 : mo.next;
            // why the maker is cancelled (FILLED: it is not); one call site of `_dropMaker` (via-IR
            // would copy it per literal reason)
            IMarket.CloseReason reason;
            if (_expired(mo)) {
                // an expired order never fills: removed, its bond to the taker (any of its own too)
                reason = IMarket.CloseReason.EXPIRED;
            } else if (mo.accountId == s.accountId) {
                if (!s.liquidation) revert SelfTrade(s.accountId, _idAt(m, mo));
                reason = IMarket.CloseReason.LIQUIDATION;
            } else {
                uint256 q = s.remaining;
                uint256 makerRemaining = mo.originalQty - mo.filledQty;
                if (s.reduceOnly) {
                    uint256 room = _reduceRoom(s.accountId, s.isBuy) - s.filledQty;
                    if (room == 0) {
                        s.remaining = 0;
                        more = false;
                        break;
                    }
                    if (q > room) q = room;
                }
                if (q > makerRemaining) q = makerRemaining;
                // outside OPEN (the pre-close window) every maker may only reduce: an order resting
                // from before must not open exposure across the close
                if (mo.reduceOnly || s.window) {
                    uint256 room = _reduceRoom(mo.accountId, !s.isBuy);
                    if (room == 0) {
                        reason = mo.reduceOnly ? IMarket.CloseReason.REDUCE_ONLY_EXPIRED : IMarket.CloseReason.REDUCE_ONLY_SESSION;
                    } else if (q > room) {
                        q = room;
                    }
                }
                if (reason == IMarket.CloseReason.FILLED) {
                    // an operator's order fills only within its band from the mark now (on the owner's cost side)
                    uint256 ob = mo.operatorBandBps;
                    if (ob != 0 && (s.isBuy ? price * BPS < s.mark * (BPS - ob) : price * BPS > s.mark * (BPS + ob))) {
                        reason = IMarket.CloseReason.OPERATOR_BAND;
                    } else if (!_fillMaker(s, level, m, mo, q, price)) {
                        reason = IMarket.CloseReason.MARGIN;
                    }
                }
            }
            if (reason != IMarket.CloseReason.FILLED) {
                _dropMaker(s, level, mo, m, reason);
                // the account's own orders (its liquidation) are bounded by MAX_OPEN_ORDERS: not counted
                if (reason != IMarket.CloseReason.LIQUIDATION) ++s.skips;
            }
            m = next;
        }
        _emitLevel(s.isBuy ? IMarket.Side.SHORT : IMarket.Side.LONG, tick, level);
        if (level.orderCount == 0) {
            _bookClear(!s.isBuy, tick);
            delete levels[tick];
        }
    }

    /// Cancels a resting maker met during a sweep.
    function _dropMaker(Sweep memory s, Level storage level, Order storage mo, uint256 m, IMarket.CloseReason reason) internal {
        (uint256 a, uint256 b) = _words(mo);
        // `Order`'s second word (see the struct): originalQty, filledQty at bit 96
        uint256 makerRemaining = uint96(b) - uint96(b >> 96);
        _resting(!s.isBuy, _uncounted(mo), makerRemaining, false);
        _removeAt(level, m, a, makerRemaining);
        // the bond goes back when the order is not at fault: the account's own orders in its
        // liquidation, and an operator's order its owner's band stops (it was inside the band when
        // placed; the owner's policy, not the order, refuses the fill now)
        bool refund = reason == IMarket.CloseReason.LIQUIDATION || reason == IMarket.CloseReason.OPERATOR_BAND;
        _closeOrder(m, mo, a, b, IMarket.OrderStatus.CANCELLED, reason, refund ? BOND_REFUND : BOND_FORFEIT);
        if (!refund) s.bonds += ORDER_BOND_WAD;
    }

    /// Fills a maker; false (nothing written) when the fill would leave the maker's opened or
    /// increased position below initial margin.
    function _fillMaker(Sweep memory s, Level storage level, uint256 m, Order storage mo, uint256 q, uint256 price)
        internal returns (bool)
    {
        uint256 makerRemaining = mo.originalQty - mo.filledQty;
        uint256 portion = _portion(mo.margin6, q, makerRemaining);
        uint256 notional = q * price / WAD;
        uint256 makerFee = Math.mulDiv(notional, MarketArgs.get(MarketArgs.MAKER_FEE_BPS), BPS, Math.Rounding.Ceil);
        Settlement memory st = _computeSettle(mo.accountId, !s.isBuy, q, notional, portion, makerFee, false);
        if (!_meetsInitialMargin(st, s.mark)) return false;
        // the fill that completes the order returns its bond with the settlement (no extra call)
        if (q == makerRemaining) st.toAvailable += int256(ORDER_BOND_WAD);
        // the skew's side loses the resting size before the position adds it (96-bit totals: a
        // side near its top never stops a fill, a liquidation's least of all)
        _resting(!s.isBuy, _uncounted(mo), q, false);
        _writeSettle(mo.accountId, st, q == makerRemaining ? portion + ORDER_BOND_WAD : portion, IMarket.PositionReason.TRADE);
        uint256 left = makerRemaining - q;
        uint256 filled = mo.originalQty - left;
        // an order filled whole keeps its second slot as it was (getOrder: a FILLED order's filled
        // quantity is its original one, and no margin is left): only its status is written below
        if (left != 0) {
            mo.filledQty = uint96(filled);
            mo.margin6 -= uint64(portion / MICRO);
        }
        level.totalQty -= uint96(q);
        uint256 takerFee = s.liquidation ? 0 : Math.mulDiv(notional, MarketArgs.get(MarketArgs.TAKER_FEE_BPS), BPS, Math.Rounding.Ceil);
        s.makerFees += st.feeTaken;
        s.takerFees += takerFee;
        s.remaining -= q;
        s.filledQty += q;
        s.notional += notional;
        ++s.fills;
        emit IMarket.OrderFilled(
            ++seq, _idAt(m, mo), _orderId(s.orderN), mo.accountId, s.accountId, s.isBuy ? IMarket.Side.LONG : IMarket.Side.SHORT, price, q,
            filled, left, s.filledQty, s.qty - s.filledQty, st.feeTaken, takerFee
        );
        if (left == 0) {
            uint256 a = _word(mo);
            _removeAt(level, m, a, 0);
            // its margin went with the fill and its bond with the settlement
            a = _free(m, mo, a, IMarket.OrderStatus.FILLED);
            _released(_numberOf(m, a), uint40(a), IMarket.OrderStatus.FILLED, IMarket.CloseReason.FILLED, filled, 0, 0, 0);
        } else if (left < MarketArgs.get(MarketArgs.MIN_ORDER) && !mo.reduceOnly) {
            // a dust remainder is cancelled
            _resting(!s.isBuy, _uncounted(mo), left, false);
            (uint256 a, uint256 b) = _words(mo);
            _removeAt(level, m, a, left);
            _closeOrder(m, mo, a, b, IMarket.OrderStatus.CANCELLED, IMarket.CloseReason.DUST, BOND_REFUND);
        }
        return true;
    }

    /// After matching: LIMIT rests its remainder (unless the fill cap stopped it while still
    /// crossing, or it is dust); MARKET and reduce-only leftovers beyond the position are cancelled.
    function _finishTaker(uint256 n, Sweep memory s) internal returns (IMarket.OrderStatus) {
        // the bonds of makers this order cleared as unable to fill are the taker's (a liquidation
        // pays them to the liquidator)
        if (s.bonds != 0 && !s.liquidation) {
            // the fund's own reduction (MarketBackstop.reduceFundPosition) takes them into the fund
            if (s.accountId == FUND) _engine().settleInsurance(int256(s.bonds), 0);
            else _margin(s.accountId, int256(s.bonds), 0, IEngine.MarginReason.TRADE_SETTLEMENT);
        }
        // a LIMIT with margin committed its bond at placement: back when it closes without resting
        uint8 flags = s.orderType == IMarket.OrderType.LIMIT && !s.reduceOnly ? BOND_REFUND : 0;
        // why it closes without resting (USER_CANCEL: it rests); one call site of `_closeTaker`
        // (via-IR would copy it per literal reason)
        IMarket.CloseReason reason = IMarket.CloseReason.USER_CANCEL;
        if (s.remaining == 0) {
            reason = s.filledQty == s.qty ? IMarket.CloseReason.FILLED : IMarket.CloseReason.REDUCE_ONLY_EXPIRED;
        } else if (s.orderType == IMarket.OrderType.MARKET) {
            reason = s.capped ? IMarket.CloseReason.FILL_CAP : IMarket.CloseReason.UNFILLED_MARKET;
        } else if (s.tif == uint256(IMarket.TimeInForce.IOC)) {
            reason = IMarket.CloseReason.UNFILLED_IOC;
        } else if (s.remaining < MarketArgs.get(MarketArgs.MIN_ORDER) && !s.reduceOnly) {
            reason = IMarket.CloseReason.DUST;
        } else {
            // a LIMIT's price is its bound
            uint256 opposite = s.isBuy ? _best(false) : _best(true);
            if (opposite != 0 && (s.isBuy ? opposite <= s.bound : opposite >= s.bound)) reason = IMarket.CloseReason.FILL_CAP;
        }
        if (reason != IMarket.CloseReason.USER_CANCEL) {
            return _closeTaker(
                n, s, reason == IMarket.CloseReason.FILLED ? IMarket.OrderStatus.FILLED : IMarket.OrderStatus.CANCELLED, reason, flags
            );
        }
        // it rests: stored now, whole (two slots, each written once)
        uint256 tick = s.bound / MarketArgs.get(MarketArgs.TICK_SIZE);
        // the skew's check at rest from what the sweep holds (original size = filled + remaining):
        // fixed for the order's life
        bool uncounted = _uncountedOf(s.reduceOnly || s.expiresAt != 0, s.qty, s.bound, s.margin);
        uint256 slot = _claimSlot(n);
        Order storage o = orders[slot];
        // `Order`'s two words as the compiler lays them out (from the low bits, see the struct): no links yet
        uint256 a = uint256(uint40(s.accountId)) | (n >> SLOT_BITS) << 88 | uint256(uint24(tick)) << 128 | uint256(s.isBuy ? 0 : 1) << 152
            | uint256(IMarket.OrderStatus.ACTIVE) << 160 | uint256(IMarket.OrderType.LIMIT) << 168 | uint256(s.reduceOnly ? 1 : 0) << 176
            | uint256(uncounted ? 1 : 0) << 184 | uint256(uint16(s.band)) << 192 | uint256(uint40(s.expiresAt)) << 208;
        uint256 b = uint256(uint96(s.qty)) | uint256(uint96(s.filledQty)) << 96 | uint256(uint64(s.marginLeft / MICRO)) << 192;
        assembly ("memory-safe") {
            sstore(o.slot, a)
            sstore(add(o.slot, 1), b)
        }
        _rest(slot, o, tick, s.remaining, uncounted);
        // a reduce-only order that rests commits its bond now (it committed nothing at placement)
        if (s.reduceOnly) _margin(s.accountId, -int256(ORDER_BOND_WAD), int256(ORDER_BOND_WAD), IEngine.MarginReason.ORDER_COMMIT);
        return IMarket.OrderStatus.ACTIVE;
    }

    /// Closes a taker that does not rest (nothing of it is stored): its margin left and bond back.
    function _closeTaker(uint256 n, Sweep memory s, IMarket.OrderStatus status, IMarket.CloseReason reason, uint8 flags)
        internal returns (IMarket.OrderStatus)
    {
        _released(n, s.accountId, status, reason, s.filledQty, s.qty - s.filledQty, s.marginLeft, flags);
        return status;
    }

    function _rest(uint256 slot, Order storage o, uint256 tick, uint256 qty, bool uncounted) internal {
        Level storage level = _link(slot, o, tick, qty);
        _resting(o.side == IMarket.Side.LONG, uncounted, qty, true);
        _emitLevel(o.side, tick, level);
    }

    /// Puts the order in `slot` at the tail of its side's level `tick` with `qty` more in the level (no
    /// resting totals, no event: the caller's).
    function _link(uint256 slot, Order storage o, uint256 tick, uint256 qty) internal returns (Level storage level) {
        bool isBid = o.side == IMarket.Side.LONG;
        level = isBid ? bidLevels[tick] : askLevels[tick];
        if (level.orderCount == 0) {
            level.head = uint40(slot);
            _bookSet(isBid, tick);
        } else {
            uint256 tail = level.tail;
            orders[tail].next = uint24(slot);
            o.prev = uint24(tail);
        }
        level.tail = uint40(slot);
        level.totalQty += uint96(qty);
        level.orderCount += 1;
        positions[o.accountId].openOrders += 1;
    }

    /// Resting totals per side: the size the funding skew counts, or the size it leaves out (`_uncounted`).
    function _resting(bool isBid, bool uncounted, uint256 q, bool add) internal {
        if (uncounted) {
            if (isBid) restingUncountedBidQty = add ? restingUncountedBidQty + uint128(q) : restingUncountedBidQty - uint128(q);
            else restingUncountedAskQty = add ? restingUncountedAskQty + uint128(q) : restingUncountedAskQty - uint128(q);
            return;
        }
        // the skew's word read and written once: marginedLongQty, marginedShortQty at bit 96
        uint256 k;
        assembly ("memory-safe") {
            k := sload(marginedLongQty.slot)
        }
        uint256 shift = isBid ? 0 : 96;
        uint96 v = uint96(k >> shift);
        v = add ? v + uint96(q) : v - uint96(q);
        k = k & ~(uint256(type(uint96).max) << shift) | uint256(v) << shift;
        assembly ("memory-safe") {
            sstore(marginedLongQty.slot, k)
        }
    }

    /// A good-til-time order at or past its expiry: never filled, never liquidity (docs/CONTRACTS.md "Time in force").
    function _expired(Order storage o) internal view returns (bool) {
        uint256 e = o.expiresAt;
        return e != 0 && e <= block.timestamp;
    }

    /// Resting size the funding skew leaves out: reduce-only (it carries no margin), or margined
    /// but unable to carry itself, its margin less the maker fee below initial margin at its own
    /// price (a bid at the maximum leverage): such an order fails the maker check whenever the mark
    /// is at or beyond its price against it (a 50× bid at or above the mark), and can fill only
    /// once the mark has moved away from it in its favour. Fixed for the order's life (original
    /// size, margin and price; a market's parameters never change), so the totals stay exact.
    function _uncounted(Order storage o) internal view returns (bool) {
        return o.reduceOnly || o.uncounted;
    }

    /// `_uncounted` of an order's original size, price and margin.
    function _uncountedOf(bool reduceOnly, uint256 qty, uint256 price, uint256 margin) internal view returns (bool) {
        if (reduceOnly) return true;
        uint256 notional = qty * price / WAD;
        uint256 lev = _maxLeverage;
        // margin < ceil(notional × makerFee / 1e4) + ceil(notional / maxLeverage)
        return margin < (notional * _makerFeeBps + BPS - 1) / BPS + (notional + lev - 1) / lev;
    }

    /// Unlinks the resting order in `slot` (`a`: its first word) from its level's FIFO list and
    /// takes `qty` off the level's total, in one write of the level; returns the level's word as
    /// written (its `orderCount` at bit 176). The resting totals are the caller's.
    /// Only the links inside a level are kept: the level's head and tail end it, and the head's
    /// `prev` and the tail's `next` mean nothing (walks stop at the tail), so taking out an end
    /// writes the level alone, not its neighbour. Taking out a level's only order leaves its
    /// head and tail as they are: an empty level is deleted, or refilled by `_link` (which tests
    /// `orderCount`, not the links), before anything reads them.
    function _removeAt(Level storage level, uint256 slot, uint256 a, uint256 qty) internal returns (uint256 w) {
        // `Order`'s first word (see the struct): next at bit 40, prev at bit 64; `Level`'s word:
        // totalQty, head at bit 96, tail at bit 136, orderCount at bit 176
        uint256 next;
        uint256 prev;
        bool atHead;
        bool atTail;
        uint96 total;
        uint32 count;
        assembly ("memory-safe") {
            w := sload(level.slot)
            next := and(shr(40, a), SLOT_MASK)
            prev := and(shr(64, a), SLOT_MASK)
            atHead := eq(slot, and(shr(96, w), 0xffffffffff))
            atTail := eq(slot, and(shr(136, w), 0xffffffffff))
            total := and(w, 0xffffffffffffffffffffffff)
            count := and(shr(176, w), 0xffffffff)
        }
        if (atHead) {
            w = w & ~(uint256(type(uint40).max) << 96) | next << 96;
        } else if (atTail) {
            w = w & ~(uint256(type(uint40).max) << 136) | prev << 136;
        } else {
            orders[prev].next = uint24(next);
            orders[next].prev = uint24(prev);
        }
        // checked as the fields' own arithmetic: neither goes below zero
        total -= uint96(qty);
        count -= 1;
        // `Position`'s first word (see the struct): openOrders at bit 192, read and written once
        Position storage p = positions[uint40(a)];
        uint256 pw;
        uint16 open;
        assembly ("memory-safe") {
            // (a narrow type's bits above its width are not assumed clean in assembly)
            w := or(and(w, not(or(0xffffffffffffffffffffffff, shl(176, 0xffffffff)))), or(and(total, 0xffffffffffffffffffffffff), shl(176, and(count, 0xffffffff))))
            sstore(level.slot, w)
            pw := sload(p.slot)
            open := and(shr(192, pw), 0xffff)
        }
        open -= 1;
        assembly ("memory-safe") {
            sstore(p.slot, or(and(pw, not(shl(192, 0xffff))), shl(192, and(open, 0xffff))))
        }
    }

    /// Marks the resting order in `slot` closed (its client key is free again: `_claimKey`; its
    /// slot onto the free list: `_free`), returns its remaining margin. `a`, `b`: its words as stored.
    /// `flags`: BOND_REFUND (the bond to the owner's available balance with the margin) or
    /// BOND_FORFEIT (out of the owner's committed balance; the caller pays it to whoever cleared it),
    /// and MARGIN_DEFERRED. Only its first word is written: a closed order's margin is left as it
    /// was (nothing reads it once it is not ACTIVE; getOrder reports its margin as 0).
    function _closeOrder(
        uint256 slot, Order storage o, uint256 a, uint256 b, IMarket.OrderStatus status, IMarket.CloseReason reason, uint8 flags
    ) internal returns (uint256 marginReturned) {
        a = _free(slot, o, a, status);
        // `Order`'s second word (see the struct): originalQty, filledQty at bit 96, margin6 at bit 192
        unchecked {
            marginReturned = (b >> 192) * MICRO; // 64 bits × 1e12
        }
        // nothing to send or tell when the caller returns the margin and bond itself and its own event tells the close
        if (flags & (MARGIN_DEFERRED | QUIET) != MARGIN_DEFERRED | QUIET) {
            uint256 filled = uint96(b >> 96);
            _released(_numberOf(slot, a), uint40(a), status, reason, filled, uint96(b) - filled, marginReturned, flags);
        }
    }

    /// The local number n of the order in `slot` whose first word is `a`.
    function _numberOf(uint256 slot, uint256 a) internal pure returns (uint256) {
        return uint256(uint40(a >> 88)) << SLOT_BITS | slot;
    }

    /// Order `n`'s close: its margin (and bond, by `flags`) back, and OrderClosed.
    function _released(
        uint256 n, uint256 accountId, IMarket.OrderStatus status, IMarket.CloseReason reason, uint256 filled, uint256 cancelled,
        uint256 marginReturned, uint8 flags
    ) internal {
        uint256 bond = flags & (BOND_REFUND | BOND_FORFEIT) == 0 ? 0 : ORDER_BOND_WAD;
        if (marginReturned + bond != 0 && flags & MARGIN_DEFERRED == 0) {
            _margin(
                accountId, int256(marginReturned + (flags & BOND_REFUND == 0 ? 0 : bond)), -int256(marginReturned + bond),
                IEngine.MarginReason.ORDER_RELEASE
            );
        }
        if (flags & QUIET == 0) emit IMarket.OrderClosed(++seq, _orderId(n), accountId, status, reason, filled, cancelled, marginReturned);
    }

    /// An order id's local number here (0: another market's).
    function _localOf(uint256 orderId) internal view returns (uint256) {
        return orderId >> 64 == _marketIndex() ? uint64(orderId) : 0;
    }

    /// The first word of order `n` when it is open (resting, `accountId`'s; never 0: its status is
    /// ACTIVE), else 0.
    function _openWord(uint256 accountId, uint256 n) internal view returns (uint256 a) {
        if (n & SLOT_MASK == 0) return 0;
        a = _word(orders[n & SLOT_MASK]);
        if (!_isLiveWord(n, a) || uint40(a) != accountId) return 0;
    }

    /// Whether order `n` is resting: its slot holds it (not a later order's) and it is ACTIVE.
    function _isLive(uint256 n, Order storage o) internal view returns (bool) {
        return n & SLOT_MASK != 0 && _isLiveWord(n, _word(o));
    }

    /// `_isLive` of order `n` (its slot not 0) from its slot's first word `a`.
    function _isLiveWord(uint256 n, uint256 a) internal pure returns (bool) {
        // `Order`'s first word (see the struct): number at bit 88, status at bit 160
        return uint40(a >> 88) == n >> SLOT_BITS && uint8(a >> 160) == uint8(IMarket.OrderStatus.ACTIVE);
    }

    /// Cancels the resting order `n` (`a`: its first word as stored): out of its level (the level's LevelUpdated unless QUIET; an
    /// emptied level deleted) and the resting totals, then closed (`_closeOrder`).
    /// `counted`: the skew counted its size (the caller marks the rate stale: `_markStale`).
    /// `b`: the order's second word (its quantities: `Order`), `w`: its level's word after (0: deleted).
    /// `flags`: BOND_REFUND or BOND_FORFEIT, with MARGIN_DEFERRED when the caller returns the margin
    /// and bond itself, and QUIET when it emits OrdersCancelled (or OrderCancelled).
    function _cancel(uint256 n, uint256 a, IMarket.CloseReason reason, uint8 flags)
        internal returns (uint256 marginReturnedWad, uint256 releaseWad, bool counted, uint256 b, uint256 w)
    {
        uint256 slot = n & SLOT_MASK;
        Order storage o = orders[slot];
        uint256 tick;
        bool isBid;
        bool band;
        uint96 original;
        uint96 filled;
        // `Order`'s words (see the struct): tick at bit 128, side 152, reduceOnly 176, uncounted 184,
        // operatorBandBps 192; originalQty, filledQty at bit 96
        assembly ("memory-safe") {
            b := sload(add(o.slot, 1))
            tick := and(shr(128, a), 0xffffff)
            isBid := iszero(and(shr(152, a), 0xff))
            band := iszero(iszero(and(shr(192, a), 0xffff)))
            counted := iszero(and(shr(176, a), 0xffff))
            original := and(b, 0xffffffffffffffffffffffff)
            filled := and(shr(96, b), 0xffffffffffffffffffffffff)
        }
        uint256 remaining = original - filled;
        // an operator's order gives back the taker fee its unfilled quantity was charged
        if (band) releaseWad = _operatorCharge(false, 0, tick * MarketArgs.get(MarketArgs.TICK_SIZE), remaining, false);
        _resting(isBid, !counted, remaining, false);
        Level storage level = isBid ? bidLevels[tick] : askLevels[tick];
        w = _removeAt(level, slot, a, remaining);
        if (flags & QUIET == 0) _emitLevel(isBid ? IMarket.Side.LONG : IMarket.Side.SHORT, tick, level);
        if (uint32(w >> 176) == 0) {
            _bookClear(isBid, tick);
            if (isBid) delete bidLevels[tick];
            else delete askLevels[tick];
            w = 0;
        }
        marginReturnedWad = _closeOrder(slot, o, a, b, IMarket.OrderStatus.CANCELLED, reason, flags);
    }

    /// A cancel of several orders that changed the skew: the rate stale (`_staleSince`), and FundingRateStale.
    function _markStale() internal {
        (uint256 since, uint256 l, uint256 s) = _staleSince(true);
        emit IMarket.FundingRateStale(++seq, uint64(since), l, s);
    }

    /// When `set`: the second from which the stored rate is stale, set to now by the first cancel
    /// that changed the skew since the last update (else 0); and the skew's sides after (`_marginedQty`).
    function _staleSince(bool set) internal returns (uint256 since, uint256 l, uint256 s) {
        uint256 k;
        assembly ("memory-safe") {
            k := sload(marginedLongQty.slot)
        }
        // the word's packing (see the declarations): marginedLongQty, marginedShortQty at bit 96,
        // _rateStaleSince at bit 192, _freeHead at bit 232
        if (set) {
            since = uint40(k >> 192);
            if (since == 0) {
                since = block.timestamp;
                k |= uint256(uint40(since)) << 192;
                assembly ("memory-safe") {
                    sstore(marginedLongQty.slot, k)
                }
            }
        }
        (l, s) = (uint96(k), uint96(k >> 96));
    }

    /// What an operator's order of `qty` at `price` may cost its owner: the taker fee at `price`
    /// and, when `isCharge`, the distance from `mark` on the side that costs the owner (a charge is
    /// rounded up, a release of the unfilled quantity's fee down: never more than was charged).
    function _operatorCharge(bool isBuy, uint256 mark, uint256 price, uint256 qty, bool isCharge) internal view returns (uint256) {
        uint256 perUnit = (price * MarketArgs.get(MarketArgs.TAKER_FEE_BPS) + BPS - 1) / BPS;
        if (!isCharge) return qty * perUnit / WAD;
        if (isBuy ? price > mark : mark > price) perUnit += isBuy ? price - mark : mark - price;
        return qty * perUnit / WAD + 1;
    }

    // ─── positions ───────────────────────────────────────────────────────────────────────

    /// Computes a fill of `q` base units worth `notional` WAD on an account's position: funding
    /// is netted with the realized PnL, the reduce part realizes PnL, the increase part takes its
    /// share of `orderMargin`. `capFee` (liquidation) limits the fee to the equity released.
    function _computeSettle(
        uint256 accountId, bool isBuy, uint256 q, uint256 notional, uint256 orderMargin, uint256 fee, bool capFee
    ) internal view returns (Settlement memory st) {
        Position storage pos = positions[accountId];
        st.oldSize = pos.size;
        st.funding = _pending(pos, fundingState.cumulativeIndex);
        // funding owed beyond the margin is a debt netted with this fill's PnL below
        int256 m0 = int256(uint256(pos.margin)) - st.funding;
        uint256 released;
        uint256 mInc;
        (st.size, st.openNotional, st.pnl, released, mInc) =
            _trade(st.oldSize, pos.openNotional, m0 > 0 ? uint256(m0) : 0, isBuy, q, notional, orderMargin);
        int256 margin = (m0 > 0 ? m0 : int256(0)) - int256(released) + int256(mInc);
        int256 toAvailable = int256(released) + st.pnl + int256(orderMargin - mInc) + (m0 < 0 ? m0 : int256(0));
        st.feeTaken = fee;
        if (capFee && st.feeTaken > (toAvailable > 0 ? uint256(toAvailable) : 0)) {
            st.feeTaken = toAvailable > 0 ? uint256(toAvailable) : 0;
        }
        toAvailable -= int256(st.feeTaken);
        if (toAvailable < 0) {
            // isolated margin: a loss beyond what is released comes out of the position's margin
            uint256 loss = uint256(-toAvailable);
            uint256 take = loss < uint256(margin) ? loss : uint256(margin);
            margin -= int256(take);
            st.shortfall = loss - take;
            toAvailable = 0;
        }
        if (st.size == 0 && margin != 0) {
            toAvailable += margin;
            margin = 0;
        }
        st.margin = margin;
        st.toAvailable = toAvailable;
    }

    /// No trade fill leaves a shortfall (a loss beyond the position's margin: a close beyond its
    /// bankruptcy price would let the counterparty keep a gain the pool pays; only liquidations,
    /// which skip this check, may leave rounding dust). No position is opened, increased or
    /// flipped below initial margin: equity at the mark (after the fee and settled funding) ≥
    /// ceil(|size| × mark / 1e18 × uplift / 1e4 / maxLeverage) (uplift: "Weekends and gaps").
    function _meetsInitialMargin(Settlement memory st, uint256 mark) internal view returns (bool) {
        if (st.shortfall != 0) return false;
        int256 size = st.size;
        if (size == 0) return true;
        int256 old = st.oldSize;
        bool increased = old == 0 || (old > 0) != (size > 0) || VenueMath.abs(size) > VenueMath.abs(old);
        if (!increased) return true;
        uint256 value = VenueMath.abs(size) * mark / WAD;
        int256 upnl = size > 0 ? int256(value) - int256(st.openNotional) : int256(st.openNotional) - int256(value);
        int256 equity = st.margin + upnl;
        return equity >= 0 && uint256(equity) >= Math.ceilDiv(value * _upliftBps(), MarketArgs.get(MarketArgs.MAX_LEVERAGE) * BPS)
            && VenueMath.abs(size) <= MarketArgs.get(MarketArgs.MAX_POSITION);
    }

    /// Placement: an opening order that would take the position (all of it filled) beyond the
    /// market's position cap is refused; what later fills make of several orders is checked per fill.
    function _checkPositionCap(uint256 accountId, int256 size, bool isBuy, uint256 qty) internal view {
        int256 next = isBuy ? size + int256(qty) : size - int256(qty);
        uint256 after_ = VenueMath.abs(next);
        if (after_ > VenueMath.abs(size) && after_ > MarketArgs.get(MarketArgs.MAX_POSITION)) {
            revert PositionCapExceeded(accountId, after_, MarketArgs.get(MarketArgs.MAX_POSITION));
        }
    }

    /// A LIMIT price (a placement's or a modify's): > 0, on the tick, within the market's band of the mark.
    function _checkLimitPrice(uint256 price, uint256 mark) internal view {
        uint256 ts = MarketArgs.get(MarketArgs.TICK_SIZE);
        if (price == 0 || price % ts != 0 || price / ts > MAX_TICK || price > _bandPrice(true, mark) || price < _bandPrice(false, mark)) {
            revert InvalidPrice(price);
        }
    }

    /// An order that must not take (post-only, a modify): its price short of the best opposite.
    function _checkPostOnly(bool isBid, uint256 price) internal view {
        uint256 opposite = _best(!isBid);
        if (opposite != 0 && (isBid ? opposite <= price : opposite >= price)) revert PostOnlyWouldCross(price, opposite);
    }

    /// An operator's band for an order (its owner's policy `operatorBand`, at most the market's),
    /// with the order's price within mark ± it.
    function _operatorBand(uint256 operatorBand, uint256 price, uint256 mark) internal view returns (uint256 bandBps) {
        bandBps = MarketArgs.get(MarketArgs.OPERATOR_BAND_BPS);
        if (operatorBand < bandBps) bandBps = operatorBand;
        _checkOperatorPrice(price, mark, bandBps);
    }

    /// An operator's order: its price within mark ± operatorBandBps.
    function _checkOperatorPrice(uint256 price, uint256 mark, uint256 bandBps) internal pure {
        if (price > _bandPrice(true, mark, bandBps) || price < _bandPrice(false, mark, bandBps)) {
            revert OperatorPriceTooFar(price, mark, bandBps);
        }
    }

    /// The one call site of Engine.applyMargin (each call site costs bytecode; docs/CONTRACTS.md "Margin accounting").
    function _margin(uint256 accountId, int256 deltaAvailableWad, int256 deltaCommittedWad, IEngine.MarginReason reason) internal {
        _engine().applyMargin(accountId, deltaAvailableWad, deltaCommittedWad, reason);
    }

    /// Writes a computed settlement: position, open interest, one Engine call for the account.
    function _writeSettle(uint256 accountId, Settlement memory st, uint256 orderMargin, IMarket.PositionReason reason) internal {
        Position storage pos = positions[accountId];
        uint256 oldMargin = pos.margin;
        int256 size = st.size;
        _updateOI(st.oldSize, size);
        uint256 openBlock = pos.openBlock;
        if (size == 0) openBlock = 0;
        else if (st.oldSize == 0 || (st.oldSize > 0) != (size > 0)) openBlock = uint32(block.number);
        // `Position`'s two words as the compiler lays them out (see the struct), each written once:
        // size, open notional, resting orders (kept), now; margin, funding index, opening block
        uint256 w0 = uint256(uint96(SafeCast.toInt96(size))) | uint256(SafeCast.toUint96(st.openNotional)) << 96
            | uint256(pos.openOrders) << 192 | uint256(uint40(block.timestamp)) << 208;
        uint256 w1 = uint256(SafeCast.toUint96(uint256(st.margin))) | uint256(uint128(fundingState.cumulativeIndex)) << 96 | openBlock << 224;
        assembly ("memory-safe") {
            sstore(pos.slot, w0)
            sstore(add(pos.slot, 1), w1)
        }
        if (accountId == FUND) {
            // the fund's wallet is the insurance fund; `orderMargin` is what it puts in now
            _engine().settleInsurance(st.toAvailable - int256(orderMargin), st.margin - int256(oldMargin));
        } else {
            _margin(
                accountId, st.toAvailable, st.margin - int256(oldMargin) - int256(orderMargin),
                reason == IMarket.PositionReason.TRADE ? IEngine.MarginReason.TRADE_SETTLEMENT : IEngine.MarginReason.LIQUIDATION
            );
        }
        if (st.shortfall != 0) _engine().coverBadDebt(st.shortfall);
        emit IMarket.PositionUpdated(
            ++seq, accountId, reason, size, st.openNotional, uint256(st.margin), st.pnl, st.funding, st.feeTaken,
            fundingState.cumulativeIndex
        );
    }

    /// The position arithmetic of one fill (docs/CONTRACTS.md "Positions"): new size and open
    /// notional, realized PnL and released margin of the reduce part, margin added by the increase part.
    function _trade(int256 size, uint256 on, uint256 margin, bool isBuy, uint256 q, uint256 notional, uint256 orderMargin)
        internal pure returns (int256 newSize, uint256 newOn, int256 pnl, uint256 released, uint256 mInc)
    {
        uint256 absSize = VenueMath.abs(size);
        uint256 r = (size != 0 && (size > 0) != isBuy) ? (q < absSize ? q : absSize) : 0;
        uint256 reducePart;
        if (r != 0) {
            uint256 basis;
            if (size > 0) {
                reducePart = r == q ? notional : notional * r / q;
                basis = Math.mulDiv(on, r, absSize, Math.Rounding.Ceil);
                pnl = int256(reducePart) - int256(basis);
            } else {
                reducePart = r == q ? notional : Math.mulDiv(notional, r, q, Math.Rounding.Ceil);
                basis = on * r / absSize;
                pnl = int256(basis) - int256(reducePart);
            }
            released = margin * r / absSize;
            on -= basis;
            size = size > 0 ? size - int256(r) : size + int256(r);
        }
        uint256 i = q - r;
        if (i != 0) {
            mInc = i == q ? orderMargin : orderMargin * i / q;
            on += notional - reducePart;
            size = isBuy ? size + int256(i) : size - int256(i);
        }
        if (size == 0) on = 0;
        return (size, on, pnl, released, mInc);
    }

    /// The open interest, and the skew's sides with it (`marginedLongQty`).
    function _updateOI(int256 oldSize, int256 newSize) internal {
        if (oldSize == newSize) return;
        if (oldSize > 0) (longOI, marginedLongQty) = (longOI - uint128(uint256(oldSize)), marginedLongQty - uint96(uint256(oldSize)));
        else if (oldSize < 0) (shortOI, marginedShortQty) = (shortOI - uint128(uint256(-oldSize)), marginedShortQty - uint96(uint256(-oldSize)));
        if (newSize > 0) (longOI, marginedLongQty) = (longOI + uint128(uint256(newSize)), marginedLongQty + uint96(uint256(newSize)));
        else if (newSize < 0) (shortOI, marginedShortQty) = (shortOI + uint128(uint256(-newSize)), marginedShortQty + uint96(uint256(-newSize)));
    }

    /// Largest quantity a fill on side `isBuy` can reduce the account's position by.
    function _reduceRoom(uint256 accountId, bool isBuy) internal view returns (uint256) {
        int256 size = positions[accountId].size;
        if (size == 0 || (size > 0) == isBuy) return 0;
        return VenueMath.abs(size);
    }

    function _healthOf(Position storage pos, uint256 mark) internal view returns (VenueMath.Health memory) {
        return VenueMath.health(
            pos.size, pos.openNotional, pos.margin, _pending(pos, fundingState.cumulativeIndex), mark, _maintenanceBps()
        );
    }

    /// Margin multiplier now (bps): the close uplift outside OPEN (docs/CONTRACTS.md "Weekends and gaps").
    function _upliftBps() internal view returns (uint256) {
        uint256 u = _closeUpliftBps;
        return u == 0 || _sessionNow() == IMarket.Session.OPEN ? BPS : u;
    }

    /// What the market's status lets through now, in `status()`'s precedence (docs/CONTRACTS.md
    /// "Market status"): nothing when CLOSED; paused, only reduce-only orders; in the window
    /// before a close (unless the mode is CANCEL_ONLY), only reduce-only orders; then the mode:
    /// nothing in CANCEL_ONLY, only an order that does not take (`postOnly`) in POST_ONLY, only
    /// reduce-only orders in REDUCE_ONLY.
    function _checkStatus(bool reduceOnly, bool postOnly) internal view {
        IMarket.Session session_ = _sessionNow();
        if (session_ == IMarket.Session.CLOSED) revert MarketClosed(_marketId());
        if (!_isActive) {
            if (!reduceOnly) revert MarketNotActive(_marketId());
            return;
        }
        uint256 mode = _mode;
        if (mode == uint256(IMarket.MarketStatus.CANCEL_ONLY)) revert MarketCancelOnly(_marketId());
        if (session_ != IMarket.Session.OPEN || mode == uint256(IMarket.MarketStatus.REDUCE_ONLY)) {
            if (!reduceOnly) revert MarketReduceOnly(_marketId());
            return;
        }
        if (mode == uint256(IMarket.MarketStatus.POST_ONLY) && !postOnly) revert MarketPostOnly(_marketId());
    }

    /// The session now: the calendar in force and `block.timestamp` (one storage read).
    function _sessionNow() internal view returns (IMarket.Session) {
        return MarketCalendar.sessionAt(MarketCalendar.at(_calendar, block.timestamp), block.timestamp);
    }

    /// The end of the latest CLOSED stretch up to now (0: none). Under a calendar that started
    /// after it, the close of the one before (cut at the start when the start fell in it).
    function _lastReopen() internal view returns (uint256 r) {
        uint256 w = _calendar;
        uint256 start = uint40(w >> 96);
        if (start == 0 || block.timestamp < start) return MarketCalendar.lastReopen(MarketCalendar.unpack(w), block.timestamp);
        r = MarketCalendar.lastReopen(MarketCalendar.unpack(w >> 48), block.timestamp);
        if (r < start) {
            IMarket.Calendar memory old = MarketCalendar.unpack(w);
            r = MarketCalendar.sessionAt(old, start) == IMarket.Session.CLOSED ? start : MarketCalendar.lastReopen(old, start);
        }
    }

    /// Nothing accrues over a close (docs/CONTRACTS.md "Weekends and gaps"): an accrual after
    /// one restarts the funding clock at the reopening (what accrued before it stays).
    function _skipClosed() internal {
        uint256 r = _lastReopen();
        if (fundingState.lastUpdate < r) {
            fundingState.lastUpdate = uint64(r);
            uint256 stale = _rateStaleSince;
            if (stale != 0 && stale < r) _rateStaleSince = uint40(r);
        }
    }

    function _maintenanceBps() internal view returns (uint256) {
        return uint256(MarketArgs.get(MarketArgs.MAINTENANCE_BPS)) * _upliftBps() / BPS;
    }

    /// The price at which the position's equity is zero, rounded in its favour by one wei (so a
    /// close there leaves no shortfall); a long that cannot go bankrupt: 1.
    function _bankruptcyPrice(int256 size, VenueMath.Health memory h) internal pure returns (uint256) {
        uint256 p = h.insolvencyPrice;
        return size > 0 ? p + 1 : (p > 1 ? p - 1 : 1);
    }

    // ─── funding and prices ──────────────────────────────────────────────────────────────

    function _pending(Position storage pos, int256 cumulativeIndex) internal view returns (int256) {
        if (pos.size == 0) return 0;
        return VenueMath.pendingFunding(pos.size, cumulativeIndex - pos.lastFundingIndex);
    }

    /// Seconds from `t` to now; 0 when `t` is not in the past. On chain a block's timestamp never
    /// goes back, but an eth_call may run at a timestamp below that of the state it reads (anvil
    /// simulating on `latest` while a block lands): no time has passed then, never a panic 0x11
    /// that would fail every simulated order, cancel or liquidation of the market.
    function _since(uint256 t) internal view returns (uint256) {
        return block.timestamp > t ? block.timestamp - t : 0;
    }

    /// Reads a fresh index (else reverts PriceStale) and accrues funding to now; returns the index.
    function _accrueFresh() internal returns (uint256 index) {
        uint256 since;
        uint256 until;
        (index, since, until) = _oracle().getFreshPriceWindow(_marketId());
        _accrue(index, since, until);
    }

    /// Accrues funding to now (`_indexNow`; the index has been fresh over [since, until]) and moves the
    /// time-weighted premium towards the book's current (pre-trade) premium sample; a no-op within
    /// the same second (or at a timestamp behind the last accrual: `_since`). The stale flag is
    /// cleared by the `_updateRate` that follows every accrual.
    function _accrue(uint256 index, uint256 since, uint256 until) internal {
        _skipClosed();
        FundingState memory f = fundingState;
        uint256 dt = _since(f.lastUpdate);
        if (dt == 0) return;
        _setFunding(_indexNow(f, index, since, until), f.rate);
        components.premium = int64(_premiumAfter(index, dt));
    }

    /// The funding state accrued to now: `FundingState`'s word written whole (its packing: the
    /// index in the low 128 bits, the rate, the second).
    function _setFunding(int256 cumulativeIndex, int256 rate) internal {
        uint256 w = uint256(uint128(int128(cumulativeIndex))) | uint256(uint64(int64(rate))) << 128 | uint256(uint64(block.timestamp)) << 192;
        assembly ("memory-safe") {
            sstore(fundingState.slot, w)
        }
    }

    /// The cumulative index accrued from lastUpdate to now over the seconds the index has been
    /// fresh without a break, [since, until] (IOracle.priceWindow; docs/CONTRACTS.md "Funding"):
    /// a stale stretch is never charged, poked or not. At the stored rate, or, when a cancel made
    /// the rate stale, at the stored rate for the seconds before that second and from it at the
    /// rate of the stored premium and the margined book as it is now (what the cancel would have set).
    function _indexNow(FundingState memory f, uint256 index, uint256 since, uint256 until) internal view returns (int256 c) {
        uint256 last = f.lastUpdate;
        uint256 t = block.timestamp;
        // a call behind the last accrual (`_since`): no time has passed
        if (t <= last) return f.cumulativeIndex;
        uint256 b = _clamp(since, last, t);
        uint256 e = _clamp(until, b, t);
        uint256 stale = _rateStaleSince;
        if (stale == 0) return VenueMath.accrue(f.cumulativeIndex, f.rate, index, e - b);
        // lastUpdate ≤ rateStaleSince ≤ now on chain; bounded all the same (as core/math/funding.ts)
        uint256 split = _clamp(stale, b, e);
        c = VenueMath.accrue(f.cumulativeIndex, f.rate, index, split - b);
        return VenueMath.accrue(c, _rateOf(components.premium).rate, index, e - split);
    }

    /// `x` within [lo, hi] (lo ≤ hi).
    function _clamp(uint256 x, uint256 lo, uint256 hi) internal pure returns (uint256) {
        return x < lo ? lo : x > hi ? hi : x;
    }

    /// The premium average after `dt` seconds: towards the sample of the last rate update's bid
    /// and ask against `index`.
    function _premiumAfter(uint256 index, uint256 dt) internal view returns (int256) {
        return VenueMath.premiumEma(components.premium, _sampleAt(index), dt, MARK_PERIOD);
    }

    /// The premium sample of the stored bid and ask against `index`: median(index, bid, ask),
    /// clamped; 0 when either is none. An index that moved since the update moves the sample with
    /// it (a stored bid the index rose past samples the index itself, premium 0).
    function _sampleAt(uint256 index) internal view returns (int256) {
        uint256 ts = MarketArgs.get(MarketArgs.TICK_SIZE);
        return VenueMath.premiumSample(index, _sampleBidTick * ts, _sampleAskTick * ts, MarketArgs.get(MarketArgs.MARK_CLAMP_BPS));
    }

    /// The bid and ask (0 = none) the premium samples until the next update, taken now at
    /// `mark`. A book around the index (best bid ≤ index ≤ best ask) gives none (premium 0 whatever
    /// orders make it; an empty side gives none too); only a side beyond the index moves the mark,
    /// and then only through orders that can fill: the bid and ask are the book's fillable top
    /// (`_fillableTop`), fixed at the update.
    function _sampleNow(uint256 index, uint256 mark) internal view returns (uint256, uint256) {
        if (index == 0) return (0, 0);
        uint256 bid = _best(true);
        uint256 ask = _best(false);
        if (bid == 0 || ask == 0 || (bid <= index && ask >= index)) return (0, 0);
        (bid, ask) = _fillableTop(mark);
        return bid == 0 || ask == 0 ? (0, 0) : (bid, ask);
    }

    /// The best bid and ask that could fill now (`_markBest`). Market reaches the extension's copy
    /// (`_fillable` does not fit in it under EIP-170).
    function _fillableTop(uint256 mark) internal view virtual returns (uint256 bid, uint256 ask) {
        return (_markBest(true, mark), _markBest(false, mark));
    }

    /// The skew's sides: only size that can fill, positions and the resting orders that carry
    /// themselves (`_uncounted` leaves out reduce-only ones and those at the maximum leverage,
    /// which could steer it for free).
    function _marginedQty() internal view returns (uint256 l, uint256 s) {
        return (marginedLongQty, marginedShortQty);
    }

    /// The rate of `premium` and the margined book as it is now.
    function _rateOf(int256 premium) internal view returns (VenueMath.Rate memory) {
        (uint256 l, uint256 s) = _marginedQty();
        return VenueMath.fundingRate(premium, l, s, MarketArgs.get(MarketArgs.SKEW_SCALE), MarketArgs.get(MarketArgs.MAX_FUNDING_RATE));
    }

    /// Recomputes the rate from the stored premium average and the margined skew (after an
    /// accrual to now, so the rate is no longer stale).
    function _updateRate(uint256 index) internal {
        int256 premium = components.premium;
        uint256 mark = VenueMath.markFromPremium(index, premium);
        VenueMath.Rate memory r = _rateOf(premium);
        fundingState.rate = int64(r.rate);
        // `FundingComponents`' word whole (its packing: four int64 from the low bits)
        uint256 w = uint256(uint64(int64(r.premiumComponent))) | uint256(uint64(int64(r.skewComponent))) << 64
            | uint256(uint64(int64(r.skew))) << 128 | uint256(uint64(int64(premium))) << 192;
        assembly ("memory-safe") {
            sstore(components.slot, w)
        }
        _rateStaleSince = 0;
        // the bid and ask the premium average moves towards until the next update (written when they moved)
        (uint256 bid, uint256 ask) = _sampleNow(index, mark);
        uint256 ts = MarketArgs.get(MarketArgs.TICK_SIZE);
        if (bid / ts != _sampleBidTick || ask / ts != _sampleAskTick) (_sampleBidTick, _sampleAskTick) = (uint24(bid / ts), uint24(ask / ts));
        emit IMarket.FundingUpdated(
            ++seq, r.rate, r.premiumComponent, r.skewComponent, r.skew, premium, bid, ask,
            fundingState.cumulativeIndex, index, mark, block.timestamp
        );
    }

    /// Accrues funding to now and recomputes the rate (pokeFunding, a session's close). While the
    /// market is CLOSED or the index unset, nothing accrues: the interval is closed without
    /// funding. On a stale index the interval is closed after accruing up to the index's expiry
    /// (`_indexNow`: nothing for the stale seconds), and the premium average is left as it was.
    function _poke() internal {
        (uint256 index, uint256 since, uint256 until) = _oracle().priceWindow(_marketId());
        // closed for the session break: funding does not accrue either
        if (index == 0 || _sessionNow() == IMarket.Session.CLOSED) {
            fundingState.lastUpdate = uint64(block.timestamp);
        } else if (until < block.timestamp) {
            _skipClosed();
            FundingState memory f = fundingState;
            _setFunding(_indexNow(f, index, since, until), f.rate);
        } else {
            _accrue(index, since, until);
        }
        _updateRate(index);
    }

    /// After a placement, fill or liquidation: the open interest when it may have moved (`traded`),
    /// and the rate.
    function _afterTrade(uint256 index, bool traded) internal {
        _emitOpenInterest(traded);
        _updateRate(index);
    }

    function _emitOpenInterest(bool traded) internal {
        if (traded) emit IMarket.OpenInterestUpdated(++seq, longOI, shortOI);
    }

    /// The mark after `_accrue` in this transaction: index × (1 + stored premium average).
    function _mark(uint256 index) internal view returns (uint256) {
        return VenueMath.markFromPremium(index, components.premium);
    }

    /// The mark a transaction would see now (views).
    function _markNow(uint256 index) internal view returns (uint256) {
        // as the next accrual would: from the reopening when a close came since (_skipClosed)
        uint256 last = fundingState.lastUpdate;
        uint256 reopen = _lastReopen();
        uint256 dt = _since(last > reopen ? last : reopen);
        return VenueMath.markFromPremium(index, dt == 0 ? components.premium : _premiumAfter(index, dt));
    }

    /// Whether resting order `n` could fill an ordinary taker now, all of its remaining size (or
    /// what its position lets a reduce-only order reduce), with `mark` for the maker's margin check:
    /// not a reduce-only order whose position is gone (flat or turned), not an opening order
    /// outside OPEN, not one the fill would leave below initial margin. The sweep's own tests,
    /// without side effects: for views (`getFillableLevels`) and whoever needs fillable depth.
    function _fillable(uint256 n, uint256 mark) internal view returns (bool) {
        Order storage o = orders[n];
        if (o.status != IMarket.OrderStatus.ACTIVE || _expired(o)) return false;
        bool isBid = o.side == IMarket.Side.LONG;
        uint256 left = o.originalQty - o.filledQty;
        uint256 q = left;
        if (o.reduceOnly || _sessionNow() != IMarket.Session.OPEN) {
            uint256 room = _reduceRoom(o.accountId, isBid);
            if (room == 0) return false;
            if (q > room) q = room;
        }
        uint256 notional = q * (uint256(o.tick) * MarketArgs.get(MarketArgs.TICK_SIZE)) / WAD;
        uint256 portion = _portion(o.margin6, q, left);
        uint256 fee = Math.mulDiv(notional, MarketArgs.get(MarketArgs.MAKER_FEE_BPS), BPS, Math.Rounding.Ceil);
        return _meetsInitialMargin(_computeSettle(o.accountId, isBid, q, notional, portion, fee, false), mark);
    }

    /// The best bid (`bid`) or ask the premium sample reads: the price of the first resting order
    /// from the top that could fill an ordinary taker now (`_fillable` at `mark`), probing at most
    /// MARK_PROBES orders; 0 (the side gives no sample) when none of them can. An order that cannot
    /// fill (a reduce-only one whose position is gone, an opening one outside OPEN, one its own fill
    /// would leave below initial margin) never moves the mark; a wall of them only silences the side.
    function _markBest(bool bid, uint256 mark) internal view returns (uint256) {
        TickBitmap.Bitmap storage book = bid ? bids : asks;
        uint256 tick = bid ? _bestBidTick : _bestAskTick;
        if (tick == 0) return 0;
        uint256 probes;
        while (tick != TickBitmap.NONE) {
            Level storage level = bid ? bidLevels[tick] : askLevels[tick];
            uint256 last = level.tail;
            for (uint256 n = level.head; n != 0; n = n == last ? 0 : orders[n].next) {
                if (_fillable(n, mark)) return tick * MarketArgs.get(MarketArgs.TICK_SIZE);
                if (++probes == MARK_PROBES) return 0;
            }
            tick = bid ? book.nextBelow(tick) : book.nextAbove(tick);
        }
        return 0;
    }

    /// Best bid (`bid`) or best ask price; 0 when that side is empty.
    function _best(bool bid) internal view returns (uint256) {
        return (bid ? _bestBidTick : _bestAskTick) * MarketArgs.get(MarketArgs.TICK_SIZE);
    }

    /// A level on that side is no longer empty: the bitmap, and the best tick when it is better.
    function _bookSet(bool isBid, uint256 tick) internal {
        if (isBid) {
            bids.set(tick);
            if (tick > _bestBidTick) _bestBidTick = uint24(tick);
        } else {
            asks.set(tick);
            uint256 best = _bestAskTick;
            if (best == 0 || tick < best) _bestAskTick = uint24(tick);
        }
    }

    /// A level on that side is empty now: the bitmap, and the best tick when it was the best (the
    /// next one from the bitmap, or 0).
    function _bookClear(bool isBid, uint256 tick) internal {
        if (isBid) {
            bids.clear(tick);
            if (tick == _bestBidTick) {
                uint256 next = bids.highest();
                _bestBidTick = next == TickBitmap.NONE ? 0 : uint24(next);
            }
        } else {
            asks.clear(tick);
            if (tick == _bestAskTick) {
                uint256 next = asks.lowest();
                _bestAskTick = next == TickBitmap.NONE ? 0 : uint24(next);
            }
        }
    }

    /// The worst price a taker on this side may fill at: mark ± band.
    function _bandPrice(bool isBuy, uint256 mark) internal view returns (uint256) {
        return _bandPrice(isBuy, mark, MarketArgs.get(MarketArgs.PRICE_BAND_BPS));
    }

    function _bandPrice(bool isBuy, uint256 mark, uint256 band) internal pure returns (uint256) {
        return isBuy ? mark * (BPS + band) / BPS : mark * (BPS - band) / BPS;
    }

    /// Order `n` takes its client key (`_keyFor`); a key in use by an ACTIVE order is refused.
    /// The key goes to its bucket, one of 256 per account picked by its hash, unless the bucket
    /// holds another ACTIVE order: then to `openByKey`, and the bucket is flagged KEY_SPILL. A
    /// bucket is rewritten by every later key that lands in it, so once an account has used a
    /// bucket a new key costs a rewrite (about 5,000 gas with its reads) instead of a fresh slot
    /// (22,100). A key never is in use in both: its bucket takes it only when the spill does not
    /// hold it ACTIVE, and it spills only while its bucket holds another key (docs/CONTRACTS.md "Identifiers").
    function _claimKey(uint256 accountId, uint256 n, bytes32 clientKey) internal returns (bytes32 key) {
        key = _keyFor(accountId, n, clientKey);
        (uint256 bucket, uint256 tag) = _keyBucket(accountId, key);
        mapping(uint256 => uint256) storage buckets = _keyBuckets[accountId];
        uint256 w = buckets[bucket];
        uint256 m = _keyedIn(w, tag, accountId, key);
        if (_isLive(m, orders[m & SLOT_MASK])) revert ClientKeyInUse(accountId, key);
        m = uint64(w);
        if (w >> 72 == tag || !_isLive(m, orders[m & SLOT_MASK])) {
            buckets[bucket] = tag << 72 | w & KEY_SPILL | n;
        } else {
            openByKey[accountId][key] = n;
            buckets[bucket] = w | KEY_SPILL;
        }
    }

    /// The n the key map holds for `key` of `accountId` (0: none); its order may have closed since
    /// (callers check `_isLive`).
    function _keyed(uint256 accountId, bytes32 key) internal view returns (uint256) {
        (uint256 bucket, uint256 tag) = _keyBucket(accountId, key);
        return _keyedIn(_keyBuckets[accountId][bucket], tag, accountId, key);
    }

    /// `_keyed` from the key's bucket word `w` and tag.
    function _keyedIn(uint256 w, uint256 tag, uint256 accountId, bytes32 key) internal view returns (uint256) {
        if (w >> 72 == tag) return uint64(w);
        return w & KEY_SPILL != 0 ? openByKey[accountId][key] : 0;
    }

    /// `key`'s bucket (the low byte of keccak256(accountId, key)) and tag (its high 184 bits).
    function _keyBucket(uint256 accountId, bytes32 key) internal pure returns (uint256 bucket, uint256 tag) {
        uint256 h = _hash(accountId, uint256(key));
        return (h & 0xff, h >> 72);
    }

    /// keccak256(abi.encode(a, b)), in scratch space.
    function _hash(uint256 a, uint256 b) internal pure returns (uint256 h) {
        assembly ("memory-safe") {
            mstore(0, a)
            mstore(32, b)
            h := keccak256(0, 64)
        }
    }

    /// The client key of order `n`: the one supplied, else derived: keccak256(accountId, orderId).
    function _keyFor(uint256 accountId, uint256 n, bytes32 clientKey) internal view returns (bytes32) {
        return clientKey == bytes32(0) ? bytes32(_hash(accountId, _orderId(n))) : clientKey;
    }

    /// The margin (WAD) a fill of `q` of `left` takes from an order's remaining `margin6`: all of it
    /// for the last fill, else floor(margin6 × q / left) whole 1e-6 units.
    function _portion(uint256 margin6, uint256 q, uint256 left) internal pure returns (uint256) {
        return (q == left ? margin6 : margin6 * q / left) * MICRO;
    }

    function _orderId(uint256 n) internal view returns (uint256) {
        return (_marketIndex() << 64) | n;
    }

    /// The id of the order in `slot`.
    function _idAt(uint256 slot, Order storage o) internal view returns (uint256) {
        return _orderId(uint256(o.number) << SLOT_BITS | slot);
    }

    function _emitLevel(IMarket.Side side, uint256 tick, Level storage level) internal {
        emit IMarket.LevelUpdated(++seq, side, tick * MarketArgs.get(MarketArgs.TICK_SIZE), level.totalQty, level.orderCount);
    }
}
