// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {SlotDerivation} from "@openzeppelin/contracts/utils/SlotDerivation.sol";
import {TransientSlot} from "@openzeppelin/contracts/utils/TransientSlot.sol";
import {IEngine} from "./interfaces/IEngine.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {MarginAccount} from "./MarginAccount.sol";
import {VenueRoles} from "./governance/VenueRoles.sol";
import {MarketCalendar} from "./libraries/MarketCalendar.sol";
import {OrderOptions} from "./libraries/OrderOptions.sol";

/// @notice Accounts, money and the router to every market. See IEngine and docs/CONTRACTS.md.
/// Roles (governance/VenueRoles.sol): the constructor gives `admin_` every role so that a
/// deployment can set itself up; the deploy script hands DEFAULT_ADMIN_ROLE and PARAMS_ROLE to
/// the VenueTimelock, the owner keeps GUARDIAN_ROLE (pause) and FEES_ROLE (withdraw fees).
contract Engine is IEngine, AccessControl, EIP712 {
    using SafeERC20 for IERC20;
    using SlotDerivation for bytes32;
    using TransientSlot for *;

    /// Two slots; a single cancel reads and writes the second whole at these offsets (`_refund`).
    struct Account {
        address owner;
        uint64 deadman; // the dead-man deadline (0: off): same slot as the owner, read by every authorization
        uint128 availableWad;
        uint128 committedWad;
    }

    /// An operator's approval, its owner's policy and its budget use: one word (`_release` reads
    /// and writes it whole at these offsets).
    struct Operator {
        uint64 expiry;
        uint16 maxLeverage;
        uint16 bandBps;
        uint16 budgetBps;
        uint96 usedWad; // at `usedAt`; decays linearly to 0 over BUDGET_PERIOD
        uint40 usedAt;
    }

    bytes32 public constant OPERATOR_APPROVAL_TYPEHASH = keccak256(
        "OperatorApproval(address owner,address operator,uint64 expiry,uint16 maxLeverage,uint16 bandBps,uint16 budgetBps,uint256 nonce,uint256 deadline)"
    );
    /// The operator budget's rolling period.
    uint256 public constant BUDGET_PERIOD = 1 days;
    uint256 internal constant BPS = 1e4;
    bytes32 public constant PARAMS_ROLE = VenueRoles.PARAMS_ROLE;
    bytes32 public constant FEES_ROLE = VenueRoles.FEES_ROLE;
    bytes32 public constant GUARDIAN_ROLE = VenueRoles.GUARDIAN_ROLE;
    uint256 internal constant TO_WAD = 1e12;
    /// Bounds account-level loops (liquidateAccount).
    uint256 public constant MAX_MARKETS = 64;
    /// Items of one `batch` and order ids of one `cancelOrders`.
    uint256 public constant MAX_BATCH = 32;
    /// A dead-man deadline is at least this far ahead when set.
    uint256 public constant MIN_DEADMAN_DELAY = 5;

    address public immutable depositToken;
    address public immutable oracle;
    address public immutable accountImplementation;
    uint256 public immutable calendarDelay;
    address public factory;
    address public triggerBook;

    uint64 internal seq;
    uint256 public accountCount;
    uint256 public insuranceFundWad;
    uint256 public feesWad;
    uint256 public badDebtWad;

    mapping(uint256 => Account) internal accounts;
    mapping(address => uint256) public accountIdOf;
    mapping(address => mapping(address => Operator)) internal _operators;
    mapping(address => uint256) public operatorNonce;

    bytes32[] internal _marketIds;
    mapping(bytes32 => address) public marketOf;
    mapping(address => bytes32) internal marketIdOfAddress;
    mapping(bytes32 => int256) public marketPoolWad;
    /// The market this transaction's entry point called (`_market`) and its id: its hooks
    /// (`_onlyMarket`) are recognised without a cold read of `marketIdOfAddress`.
    address transient _callee;
    bytes32 transient _calleeId;
    /// While `cancelOrders` runs: its account + 1, and the margin its orders release, summed into
    /// one `applyMargin` (one MarginUpdated) at the end.
    uint256 transient _deferFor;
    int256 transient _deferAvailable;
    int256 transient _deferCommitted;
    /// While `batch` runs: its placements leave their market's rate update to its end
    /// (OrderOptions.DEFER_RATE); the markets they did so in are listed in transient slots from
    /// `_DEFERRED_RATES` (their count there, the markets after it), each settled once at the end.
    bool transient _batching;
    bytes32 internal constant _DEFERRED_RATES = keccak256("Engine.batch.deferredRates");

    /// `calendarDelay_`: at least MarketCalendar.MIN_DELAY, except on the local chain (31337),
    /// where a start script may apply a calendar at once (README "Market sessions").
    constructor(address depositToken_, address oracle_, address admin_, uint256 calendarDelay_) EIP712("VenueEngine", "1") {
        if (calendarDelay_ < MarketCalendar.MIN_DELAY && block.chainid != 31337) revert InvalidParameters();
        calendarDelay = calendarDelay_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin_);
        _grantRole(PARAMS_ROLE, admin_);
        _grantRole(FEES_ROLE, admin_);
        _grantRole(GUARDIAN_ROLE, admin_);
        depositToken = depositToken_;
        oracle = oracle_;
        accountImplementation = address(new MarginAccount());
    }

    // ─── admin ───────────────────────────────────────────────────────────────────────────

    function setFactory(address factory_) external onlyRole(PARAMS_ROLE) {
        if (factory != address(0) || factory_ == address(0)) revert InvalidParameters();
        factory = factory_;
    }

    function setTriggerBook(address triggerBook_) external onlyRole(PARAMS_ROLE) {
        if (triggerBook != address(0) || triggerBook_ == address(0)) revert InvalidParameters();
        triggerBook = triggerBook_;
    }

    /// Called by the factory for every new market.
    function registerMarket(bytes32 marketId, address market) external {
        if (msg.sender != factory) revert Unauthorized(msg.sender);
        if (marketOf[marketId] != address(0) || _marketIds.length >= MAX_MARKETS) revert InvalidParameters();
        _marketIds.push(marketId);
        marketOf[marketId] = market;
        marketIdOfAddress[market] = marketId;
        emit MarketRegistered(++seq, marketId, market, _marketIds.length);
    }

    /// Pause and resume: the guardian (at once: no money moves, and a paused market still
    /// liquidates, cancels and closes) or PARAMS_ROLE.
    function setMarketActive(bytes32 marketId, bool active) external {
        if (!hasRole(GUARDIAN_ROLE, msg.sender)) _checkRole(PARAMS_ROLE, msg.sender);
        _market(marketId).setActive(active);
    }

    function setMarketStatus(bytes32 marketId, IMarket.MarketStatus status) external {
        if (!hasRole(GUARDIAN_ROLE, msg.sender)) _checkRole(PARAMS_ROLE, msg.sender);
        _market(marketId).setStatus(status);
    }

    /// The market calendar (docs/CONTRACTS.md "Weekends and gaps"): sessions follow it with no
    /// key; a change waits at least `calendarDelay`; the margin uplift is set under PARAMS_ROLE.
    function scheduleMarketCalendar(bytes32 marketId, IMarket.Calendar calldata next, uint256 startsAt)
        external onlyRole(PARAMS_ROLE)
    {
        if (startsAt == 0) startsAt = block.timestamp; // this block's second (a zero-delay engine)
        if (startsAt < block.timestamp + calendarDelay) revert InvalidParameters();
        _market(marketId).scheduleCalendar(next, startsAt);
    }

    function setMarketCloseUplift(bytes32 marketId, uint256 upliftBps) external onlyRole(PARAMS_ROLE) {
        _market(marketId).setCloseUplift(upliftBps);
    }

    // ─── accounts and money ──────────────────────────────────────────────────────────────

    function createAccount(address owner) external returns (uint256 accountId, address accountAddress) {
        if (owner == address(0)) revert InvalidParameters();
        uint256 existing = accountIdOf[owner];
        if (existing != 0) revert AccountExists(owner, existing);
        accountId = ++accountCount;
        accountIdOf[owner] = accountId;
        accounts[accountId].owner = owner;
        accountAddress = Clones.cloneDeterministicWithImmutableArgs(
            accountImplementation, abi.encode(address(this), accountId, owner), bytes32(uint256(uint160(owner)))
        );
        emit AccountCreated(++seq, accountId, owner, accountAddress);
    }

    function deposit(uint256 accountId, uint256 amount6) external {
        address owner = _authorize(accountId);
        if (amount6 == 0) revert InvalidAmount();
        uint256 balance = IERC20(depositToken).balanceOf(owner);
        if (balance < amount6) revert InsufficientBalance(balance, amount6);
        uint256 allowance = IERC20(depositToken).allowance(owner, address(this));
        if (allowance < amount6) revert InsufficientAllowance(allowance, amount6);
        IERC20(depositToken).safeTransferFrom(owner, address(this), amount6);
        Account storage a = accounts[accountId];
        uint256 wad = amount6 * TO_WAD;
        a.availableWad += uint128(wad);
        emit MarginUpdated(++seq, accountId, bytes32(0), MarginReason.DEPOSIT, int256(wad), 0, amount6, a.availableWad, a.committedWad);
    }

    function withdraw(uint256 accountId, uint256 amount6) external {
        address owner = _authorize(accountId);
        if (amount6 == 0) revert InvalidAmount();
        Account storage a = accounts[accountId];
        uint256 wad = amount6 * TO_WAD;
        if (a.availableWad < wad) revert InsufficientMargin(a.availableWad, wad);
        a.availableWad -= uint128(wad);
        emit MarginUpdated(++seq, accountId, bytes32(0), MarginReason.WITHDRAW, -int256(wad), 0, amount6, a.availableWad, a.committedWad);
        IERC20(depositToken).safeTransfer(owner, amount6);
    }

    // ─── the venue's pots ────────────────────────────────────────────────────────────────

    /// A donation to the insurance fund: no shares, no withdrawal.
    function donateInsurance(uint256 amount6) external {
        if (amount6 == 0) revert InvalidAmount();
        IERC20(depositToken).safeTransferFrom(msg.sender, address(this), amount6);
        insuranceFundWad += amount6 * TO_WAD;
        emit InsuranceDonated(++seq, msg.sender, amount6, insuranceFundWad);
        _emitBalances(bytes32(0));
    }

    /// Accrued fees to a treasury (FEES_ROLE only); nothing else ever leaves the venue's pots.
    function withdrawFees(address to, uint256 amount6) external onlyRole(FEES_ROLE) {
        uint256 wad = amount6 * TO_WAD;
        if (amount6 == 0 || to == address(0)) revert InvalidAmount();
        if (wad > feesWad) revert InsufficientMargin(feesWad, wad);
        feesWad -= wad;
        emit FeesWithdrawn(++seq, to, amount6, feesWad);
        _emitBalances(bytes32(0));
        IERC20(depositToken).safeTransfer(to, amount6);
    }

    // ─── operators ───────────────────────────────────────────────────────────────────────

    /// Also bumps the owner's nonce: an approval signed earlier and not yet used is void.
    function setOperator(address operator, uint64 expiry, OperatorPolicy calldata policy) external {
        _setOperator(msg.sender, operator, expiry, policy, false);
        uint256 nonce = ++operatorNonce[msg.sender];
        emit NonceInvalidated(++seq, msg.sender, nonce);
    }

    function invalidateNonces(uint256 newNonce) external {
        if (newNonce <= operatorNonce[msg.sender]) revert InvalidParameters();
        operatorNonce[msg.sender] = newNonce;
        emit NonceInvalidated(++seq, msg.sender, newNonce);
    }

    function setOperatorWithSig(
        address owner, address operator, uint64 expiry, OperatorPolicy calldata policy, uint256 deadline, bytes calldata signature
    ) external {
        if (block.timestamp > deadline) revert InvalidSignature();
        uint256 nonce = operatorNonce[owner]++;
        bytes32 digest = _hashTypedDataV4(
            keccak256(
                abi.encode(
                    OPERATOR_APPROVAL_TYPEHASH, owner, operator, expiry, policy.maxLeverage, policy.bandBps, policy.budgetBps,
                    nonce, deadline
                )
            )
        );
        if (!SignatureChecker.isValidSignatureNow(owner, digest, signature)) revert InvalidSignature();
        _setOperator(owner, operator, expiry, policy, true);
    }

    /// The budget used so far stays (it decays as before): re-approving does not refill it.
    function _setOperator(address owner, address operator, uint64 expiry, OperatorPolicy calldata p, bool bySig) internal {
        if (expiry != 0 && (p.maxLeverage == 0 || p.bandBps == 0 || p.bandBps > BPS || p.budgetBps > BPS)) {
            revert InvalidParameters();
        }
        Operator storage o = _operators[owner][operator];
        o.expiry = expiry;
        o.maxLeverage = p.maxLeverage;
        o.bandBps = p.bandBps;
        o.budgetBps = p.budgetBps;
        emit OperatorSet(++seq, owner, operator, expiry, p.maxLeverage, p.bandBps, p.budgetBps, bySig);
    }

    function operatorExpiry(address owner, address operator) external view returns (uint64) {
        return _operators[owner][operator].expiry;
    }

    function operatorState(address owner, address operator) external view returns (OperatorView memory v) {
        Operator storage o = _operators[owner][operator];
        v.expiry = o.expiry;
        v.maxLeverage = o.maxLeverage;
        v.bandBps = o.bandBps;
        v.budgetBps = o.budgetBps;
        (v.usedWad, v.budgetWad) = _budgetNow(o, accountIdOf[owner]);
    }

    function domainSeparator() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    // ─── trading ─────────────────────────────────────────────────────────────────────────

    function placeOrder(PlaceOrderParams calldata p)
        external
        returns (uint256 orderId, bytes32 clientKey, uint256 quantityQty, IMarket.OrderStatus status)
    {
        IMarket m = _market(p.marketId);
        (address owner, Operator storage o) = _authorizeTrade(p.accountId);
        uint256 band;
        if (owner != msg.sender) {
            band = o.bandBps;
            if (p.collateral6 != 0 && p.leverage > o.maxLeverage) {
                revert OperatorLimitExceeded(owner, msg.sender, 1, p.leverage, o.maxLeverage);
            }
        }
        uint256 options = OrderOptions.pack(p.timeInForce, p.reduceOnly, p.expiresAt, band);
        if (_batching) {
            options |= OrderOptions.DEFER_RATE;
            _listDeferredRate(address(m));
        }
        uint256 charge;
        (orderId, clientKey, quantityQty, status, charge) = m.placeOrder(
            p.accountId, p.side, p.orderType, p.collateral6 * TO_WAD, p.leverage, p.limitPriceX18, p.clientKey, options
        );
        if (band != 0) _useBudget(owner, msg.sender, o, p.accountId, charge);
    }

    function cancelOrder(uint256 accountId, bytes32 marketId, bytes32 clientKey)
        external
        returns (uint256 orderId, uint256 marginReturnedWad)
    {
        IMarket m = _marketOf(marketId);
        (address owner, Operator storage o) = _authorizeTrade(accountId);
        uint256 release;
        uint256 refund;
        (orderId, marginReturnedWad, release, refund) = m.cancelOrder(accountId, clientKey, false);
        _refund(accountId, owner, o, release, refund);
    }

    function cancelOrderById(uint256 accountId, bytes32 marketId, uint256 orderId) external returns (uint256 marginReturnedWad) {
        IMarket m = _marketOf(marketId);
        (address owner, Operator storage o) = _authorizeTrade(accountId);
        uint256 release;
        uint256 refund;
        (, marginReturnedWad, release, refund) = m.cancelOrder(accountId, bytes32(orderId), true);
        _refund(accountId, owner, o, release, refund);
    }

    /// A single cancel's end: the operator's budget release, and the order's margin and bond from
    /// committed to available (the market leaves that to this entry point: no call back into the
    /// Engine). No MarginUpdated: the market's OrderCancelled carries the release (its margin, and
    /// the bond of every order), and the pool is untouched, so a cancel writes no `seq`.
    function _refund(uint256 accountId, address owner, Operator storage o, uint256 release, uint256 refund) internal {
        _release(owner, o, release);
        Account storage a = accounts[accountId];
        // the balances' word (`Account`'s second: availableWad, committedWad at bit 128), read and written once
        uint256 w;
        assembly ("memory-safe") {
            w := sload(add(a.slot, 1))
        }
        w = uint128(_add(uint128(w), int256(refund))) | uint256(uint128(_add(uint128(w >> 128), -int256(refund)))) << 128;
        assembly ("memory-safe") {
            sstore(add(a.slot, 1), w)
        }
    }

    function cancelOrders(uint256 accountId, bytes32 marketId, uint256[] calldata orderIds)
        external returns (uint256 cancelled, uint256 marginReturnedWad)
    {
        if (orderIds.length > MAX_BATCH) revert BatchTooLarge(orderIds.length, MAX_BATCH);
        IMarket m = _market(marketId);
        (address owner, Operator storage o, bool trader) = _trader(accountId);
        IMarket.CloseReason reason = IMarket.CloseReason.USER_CANCEL;
        if (!trader) {
            // a stranger: only once the account's dead-man deadline has passed
            uint256 deadline = accounts[accountId].deadman;
            if (deadline == 0 || block.timestamp < deadline) revert OperatorNotApproved(owner, msg.sender);
            reason = IMarket.CloseReason.DEADMAN;
        }
        uint256 release;
        _deferFor = accountId + 1;
        (cancelled, marginReturnedWad, release) = m.cancelOrders(accountId, orderIds, reason);
        _deferFor = 0;
        if (cancelled != 0) {
            _applyMargin(marketId, accountId, _deferAvailable, _deferCommitted, MarginReason.ORDER_RELEASE);
            (_deferAvailable, _deferCommitted) = (0, 0); // a batch may cancel again in this transaction
        }
        if (reason == IMarket.CloseReason.USER_CANCEL) _release(owner, o, release);
    }

    function modifyOrder(uint256 accountId, bytes32 marketId, uint256 orderId, bytes32 clientKey, uint256 priceX18, uint256 remainingQty)
        external
    {
        IMarket m = _market(marketId);
        (address owner, Operator storage o) = _authorizeTrade(accountId);
        uint256 band = owner != msg.sender ? o.bandBps : 0;
        (uint256 charge, uint256 release, uint256 value, uint256 marginWad) =
            m.modifyOrder(accountId, orderId, clientKey, priceX18, remainingQty, band);
        _release(owner, o, release);
        if (band != 0) {
            // an order the operator grows has at most its policy's leverage, as one it places
            _withinLeverage(owner, o, value, marginWad);
            _useBudget(owner, msg.sender, o, accountId, charge);
        }
    }

    function setDeadman(uint256 accountId, uint64 deadline) external {
        _authorize(accountId);
        if (deadline != 0 && deadline < block.timestamp + MIN_DEADMAN_DELAY) {
            revert DeadmanTooSoon(deadline, block.timestamp + MIN_DEADMAN_DELAY);
        }
        accounts[accountId].deadman = deadline;
        emit DeadmanSet(++seq, accountId, deadline);
    }

    function deadmanOf(uint256 accountId) external view returns (uint64) {
        return accounts[accountId].deadman;
    }

    /// Each item runs by delegatecall into this engine: the caller, its authorization and its
    /// operator policy are those of a call sent alone.
    /// Its placements' rate updates wait for its end (`_listDeferredRate`): one per market it placed in.
    /// A batch inside a batch is refused (that item fails).
    function batch(bytes[] calldata calls, bool atomic) external returns (bool[] memory ok, bytes[] memory results) {
        if (calls.length > MAX_BATCH) revert BatchTooLarge(calls.length, MAX_BATCH);
        if (_batching) revert InvalidParameters();
        ok = new bool[](calls.length);
        results = new bytes[](calls.length);
        _batching = true;
        for (uint256 i; i < calls.length; ++i) {
            (bool success, bytes memory ret) = address(this).delegatecall(calls[i]);
            if (!success && atomic) {
                assembly ("memory-safe") {
                    revert(add(ret, 32), mload(ret))
                }
            }
            (ok[i], results[i]) = (success, ret);
        }
        _batching = false;
        _settleDeferredRates();
    }

    /// A placement of the running batch in market `m`: `m` listed (once) for `_settleDeferredRates`.
    /// A failed item's listing is undone with it (a revert undoes transient storage too).
    function _listDeferredRate(address m) internal {
        uint256 n = _DEFERRED_RATES.asUint256().tload();
        for (uint256 i = 1; i <= n; ++i) {
            if (_DEFERRED_RATES.offset(i).asAddress().tload() == m) return;
        }
        _DEFERRED_RATES.offset(n + 1).asAddress().tstore(m);
        _DEFERRED_RATES.asUint256().tstore(n + 1);
    }

    function _settleDeferredRates() internal {
        uint256 n = _DEFERRED_RATES.asUint256().tload();
        if (n == 0) return;
        _DEFERRED_RATES.asUint256().tstore(0);
        for (uint256 i = 1; i <= n; ++i) IMarket(_DEFERRED_RATES.offset(i).asAddress().tload()).settleRate();
    }

    /// A cancel by an operator lowers its budget used as recorded by what the order was charged
    /// (it decays from there as before); no event: the next charge's OperatorBudgetUsed carries
    /// the figure (cancels stay cheap).
    function _release(address owner, Operator storage o, uint256 release) internal {
        if (owner != msg.sender && release != 0) {
            // `Operator`'s word (see the struct): usedWad at bit 112, read and written once
            uint256 w;
            assembly ("memory-safe") {
                w := sload(o.slot)
            }
            uint256 used = uint96(w >> 112);
            w = w & ~(uint256(type(uint96).max) << 112) | (used > release ? used - release : 0) << 112;
            assembly ("memory-safe") {
                sstore(o.slot, w)
            }
        }
    }

    function closePosition(uint256 accountId, bytes32 marketId, IMarket.OrderType orderType, uint256 limitPriceX18, bytes32 clientKey)
        external
        returns (uint256 orderId, bytes32 key, IMarket.Side closingSide, uint256 quantityQty)
    {
        IMarket m = _market(marketId);
        (address owner, Operator storage o) = _authorizeTrade(accountId);
        uint256 band = owner != msg.sender ? o.bandBps : 0;
        uint256 charge;
        (orderId, key, closingSide, quantityQty, charge) = m.closePosition(accountId, orderType, limitPriceX18, clientKey, band);
        if (band != 0) _useBudget(owner, msg.sender, o, accountId, charge);
    }

    function closePositionFor(uint256 accountId, bytes32 marketId, address operator, IMarket.OrderType orderType, uint256 limitPriceX18)
        external returns (uint256 orderId)
    {
        if (msg.sender != triggerBook) revert Unauthorized(msg.sender);
        IMarket m = _market(marketId);
        address owner = _requireAccount(accountId);
        Operator storage o = _operators[owner][operator];
        uint256 band;
        if (operator != address(0)) {
            if (o.expiry <= block.timestamp) revert OperatorNotApproved(owner, operator);
            band = o.bandBps;
        }
        uint256 charge;
        (orderId,,,, charge) = m.closePosition(accountId, orderType, limitPriceX18, bytes32(0), band);
        if (band != 0) _useBudget(owner, operator, o, accountId, charge);
    }

    /// An operator may add margin (it only lowers the position's risk) and remove it down to its
    /// policy's maxLeverage at the mark (docs/CONTRACTS.md "Operators"); no budget is charged.
    function movePositionMargin(uint256 accountId, bytes32 marketId, int256 delta6) external returns (uint256 marginWad) {
        IMarket m = _market(marketId);
        (address owner, Operator storage o) = _authorizeTrade(accountId);
        // 0, and beyond any balance (so `× 1e12` cannot overflow): InvalidAmount
        if (delta6 == 0 || delta6 > int256(uint256(type(uint128).max)) || delta6 < -int256(uint256(type(uint128).max))) {
            revert InvalidAmount();
        }
        uint256 value;
        (marginWad, value) = m.adjustMargin(accountId, delta6 * int256(TO_WAD));
        if (delta6 < 0 && owner != msg.sender) _withinLeverage(owner, o, value, marginWad);
    }

    /// Account 0 is the insurance fund's position in each market (docs/CONTRACTS.md "Backstop").
    function liquidatePosition(uint256 accountId, bytes32 marketId) external returns (uint256 closedQty) {
        return liquidatePositionRanked(accountId, marketId, new uint256[](0));
    }

    /// `adlCandidates`: whom auto-deleveraging may close if it comes to that (the market ranks
    /// them; docs/CONTRACTS.md "Backstop"), so it reaches every holder, not only accounts 0 .. 256.
    function liquidatePositionRanked(uint256 accountId, bytes32 marketId, uint256[] memory adlCandidates)
        public returns (uint256 closedQty)
    {
        IMarket m = _market(marketId);
        if (accountId != 0) _requireAccount(accountId);
        return m.liquidate(accountId, msg.sender, adlCandidates);
    }

    /// Liquidates every liquidatable position of the account. A market that cannot liquidate
    /// (no liquidity, stale price, ...) is skipped and reported (LiquidationSkipped), so it never
    /// shields the account's positions elsewhere; reverts only when nothing was liquidated.
    function liquidateAccount(uint256 accountId) external returns (uint256 positionsLiquidated) {
        _requireAccount(accountId);
        uint256 n = _marketIds.length;
        bytes memory firstFailure;
        for (uint256 i; i < n; ++i) {
            bytes32 marketId = _marketIds[i];
            try _market(marketId).liquidate(accountId, msg.sender, new uint256[](0)) {
                ++positionsLiquidated;
            } catch (bytes memory reason) {
                bytes4 selector = bytes4(reason);
                if (selector == NotLiquidatable.selector || selector == NoPosition.selector) continue;
                emit LiquidationSkipped(++seq, accountId, marketId, selector);
                if (firstFailure.length == 0) firstFailure = reason;
            }
        }
        if (positionsLiquidated == 0) {
            if (firstFailure.length != 0) {
                assembly {
                    revert(add(firstFailure, 32), mload(firstFailure))
                }
            }
            revert NotLiquidatable(accountId, bytes32(0));
        }
    }

    function pokeFunding(bytes32 marketId) external {
        _market(marketId).pokeFunding();
    }

    // ─── market hooks ────────────────────────────────────────────────────────────────────

    function applyMargin(uint256 accountId, int256 deltaAvailableWad, int256 deltaCommittedWad, MarginReason reason)
        external
    {
        bytes32 marketId = _onlyMarket();
        if (_deferFor == accountId + 1) {
            _deferAvailable += deltaAvailableWad;
            _deferCommitted += deltaCommittedWad;
            return;
        }
        _applyMargin(marketId, accountId, deltaAvailableWad, deltaCommittedWad, reason);
    }

    function _applyMargin(bytes32 marketId, uint256 accountId, int256 deltaAvailableWad, int256 deltaCommittedWad, MarginReason reason)
        internal
    {
        Account storage a = accounts[accountId];
        uint256 available = _add(a.availableWad, deltaAvailableWad);
        uint256 committed = _add(a.committedWad, deltaCommittedWad);
        a.availableWad = uint128(available);
        a.committedWad = uint128(committed);
        // a commit or release only moves margin within the account: the pool is untouched
        int256 pool = deltaAvailableWad + deltaCommittedWad;
        if (pool != 0) marketPoolWad[marketId] -= pool;
        emit MarginUpdated(++seq, accountId, marketId, reason, deltaAvailableWad, deltaCommittedWad, 0, available, committed);
    }

    function collect(uint256 feeWad, uint256 insuranceWad) external {
        bytes32 marketId = _onlyMarket();
        feesWad += feeWad;
        insuranceFundWad += insuranceWad;
        marketPoolWad[marketId] -= int256(feeWad + insuranceWad);
        _emitBalances(marketId);
    }

    function coverBadDebt(uint256 lossWad) external returns (uint256 uncoveredWad) {
        bytes32 marketId = _onlyMarket();
        uint256 covered = lossWad < insuranceFundWad ? lossWad : insuranceFundWad;
        insuranceFundWad -= covered;
        marketPoolWad[marketId] += int256(covered);
        uncoveredWad = lossWad - covered;
        badDebtWad += uncoveredWad;
        _emitBalances(marketId);
    }

    function settleInsurance(int256 deltaWad, int256 positionMarginDeltaWad) external {
        bytes32 marketId = _onlyMarket();
        if (deltaWad < 0 && uint256(-deltaWad) > insuranceFundWad) revert InsufficientMargin(insuranceFundWad, uint256(-deltaWad));
        insuranceFundWad = uint256(int256(insuranceFundWad) + deltaWad);
        marketPoolWad[marketId] -= deltaWad + positionMarginDeltaWad;
        _emitBalances(marketId);
    }

    function payLiquidator(address to, uint256 wad) external {
        bytes32 marketId = _onlyMarket();
        uint256 amount6 = wad / TO_WAD;
        // the sub-unit residue goes to the insurance fund
        insuranceFundWad += wad - amount6 * TO_WAD;
        marketPoolWad[marketId] -= int256(wad);
        _emitBalances(marketId);
        if (amount6 != 0) IERC20(depositToken).safeTransfer(to, amount6);
    }

    // ─── views ───────────────────────────────────────────────────────────────────────────

    function getAccount(uint256 accountId) external view returns (AccountView memory v) {
        Account storage a = accounts[accountId];
        if (a.owner == address(0)) revert AccountNotFound(accountId);
        v.accountId = accountId;
        v.owner = a.owner;
        v.accountAddress = accountAddressOf(accountId);
        v.availableWad = a.availableWad;
        v.committedWad = a.committedWad;
        v.totalWad = v.availableWad + v.committedWad;
    }

    function accountAddressOf(uint256 accountId) public view returns (address) {
        address owner = accounts[accountId].owner;
        if (owner == address(0)) return address(0);
        return Clones.predictDeterministicAddressWithImmutableArgs(
            accountImplementation, abi.encode(address(this), accountId, owner), bytes32(uint256(uint160(owner)))
        );
    }

    function availableMarginWad(uint256 accountId) external view returns (uint256) {
        return accounts[accountId].availableWad;
    }

    function ownerOf(uint256 accountId) external view returns (address) {
        return accounts[accountId].owner;
    }

    function isAuthorized(uint256 accountId, address caller) public view returns (bool) {
        address owner = accounts[accountId].owner;
        return owner != address(0) && (caller == owner || _operators[owner][caller].expiry > block.timestamp);
    }

    function marketIds() external view returns (bytes32[] memory) {
        return _marketIds;
    }

    // ─── internal ────────────────────────────────────────────────────────────────────────

    function _requireAccount(uint256 accountId) internal view returns (address owner) {
        owner = accounts[accountId].owner;
        if (owner == address(0)) revert AccountNotFound(accountId);
    }

    function _authorize(uint256 accountId) internal view returns (address owner) {
        (owner,) = _authorizeTrade(accountId);
    }

    /// The owner, and the caller's operator record (unused when the caller is the owner).
    function _authorizeTrade(uint256 accountId) internal view returns (address owner, Operator storage o) {
        bool trader;
        (owner, o, trader) = _trader(accountId);
        if (!trader) revert OperatorNotApproved(owner, msg.sender);
    }

    /// The owner, the caller's operator record, and whether the caller may trade for the account
    /// (its owner or an operator whose approval has not expired).
    function _trader(uint256 accountId) internal view returns (address owner, Operator storage o, bool trader) {
        owner = _requireAccount(accountId);
        o = _operators[owner][msg.sender];
        trader = msg.sender == owner || o.expiry > block.timestamp;
    }

    /// The operator's budget used, decayed to now, and its budget now (budgetBps of the account's value).
    function _budgetNow(Operator storage o, uint256 accountId) internal view returns (uint256 used, uint256 budget) {
        Account storage a = accounts[accountId];
        budget = (uint256(a.availableWad) + a.committedWad) * o.budgetBps / BPS;
        if (budget > type(uint96).max) budget = type(uint96).max;
        used = o.usedWad;
        uint256 at = o.usedAt;
        // an eth_call may run at a timestamp behind the state it reads (MarketBase._since): no decay then
        uint256 decay = block.timestamp > at ? budget * (block.timestamp - at) / BUDGET_PERIOD : 0;
        used = used > decay ? used - decay : 0;
    }

    /// Charges the operator's budget; a charge beyond it reverts.
    function _useBudget(address owner, address operator, Operator storage o, uint256 accountId, uint256 charge) internal {
        (uint256 used, uint256 budget) = _budgetNow(o, accountId);
        used += charge;
        if (used > budget) revert OperatorLimitExceeded(owner, operator, 2, used, budget);
        o.usedWad = uint96(used);
        o.usedAt = uint40(block.timestamp);
        emit OperatorBudgetUsed(++seq, owner, operator, used, budget);
    }

    /// A registered market, the callee of this transaction's entry point (`_onlyMarket`).
    function _market(bytes32 marketId) internal returns (IMarket m) {
        m = _marketOf(marketId);
        (_callee, _calleeId) = (address(m), marketId);
    }

    /// A registered market, for an entry point whose call never comes back into the Engine (a
    /// single cancel: the market returns what it releases instead).
    function _marketOf(bytes32 marketId) internal view returns (IMarket m) {
        m = IMarket(marketOf[marketId]);
        if (address(m) == address(0)) revert MarketNotFound(marketId);
    }

    /// A registered market's hook: the one this transaction's entry point called (transient), or
    /// any other by its registration (a market's own entry points: pokeFunding, reduceFundPosition).
    function _onlyMarket() internal view returns (bytes32 marketId) {
        if (msg.sender == _callee) return _calleeId;
        marketId = marketIdOfAddress[msg.sender];
        if (marketId == bytes32(0)) revert Unauthorized(msg.sender);
    }

    /// The operator's `maxLeverage` over what it leaves: `value` on `margin` (OperatorLimitExceeded,
    /// what = 1, with the leverage rounded up; no margin: the largest).
    function _withinLeverage(address owner, Operator storage o, uint256 value, uint256 margin) internal view {
        if (value > margin * o.maxLeverage) {
            revert OperatorLimitExceeded(owner, msg.sender, 1, margin == 0 ? type(uint256).max : (value + margin - 1) / margin, o.maxLeverage);
        }
    }

    function _add(uint128 x, int256 d) internal pure returns (uint256) {
        int256 r = int256(uint256(x)) + d;
        if (r < 0) revert InsufficientMargin(x, uint256(-d));
        return uint256(r);
    }

    function _emitBalances(bytes32 marketId) internal {
        emit VenueBalancesUpdated(++seq, marketId, insuranceFundWad, feesWad, badDebtWad, marketPoolWad[marketId]);
    }

    /// The venue's one authorization error (core/errors.ts maps it), instead of OpenZeppelin's.
    function _checkRole(bytes32 role, address account) internal view override {
        if (!hasRole(role, account)) revert Unauthorized(account);
    }
}
