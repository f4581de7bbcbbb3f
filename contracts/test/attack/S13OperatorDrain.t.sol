// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AttackBase} from "./AttackBase.sol";
import {RiskChecks} from "../utils/RiskChecks.sol";
import {IEngine} from "../../src/interfaces/IEngine.sol";
import {OrderScan} from "../utils/OrderScan.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IVenueErrors} from "../../src/interfaces/IVenueErrors.sol";
import {approvalStructHash} from "../utils/OperatorPolicies.sol";

/// Issue 26, finding 3: the relayer is every account's operator, and the operator band bounds one
/// trade, not the sum. Whoever holds the relayer's key rests an ask at mark + band from an
/// account of its own, buys it for the user at 32x, rests a bid at mark − band and closes the
/// user into it: 11 rounds took a user's 1,000.00 to 0.047.
/// Property: under the policy the owner set (Engine.setOperator), the user loses at most its
/// budget (budgetBps of its value; the budget refills over 24 h, so a drain spread over time loses
/// at most budget × (1 + elapsed / 24 h)), whatever the operator tries; every step may be refused.
contract Scenario13OperatorDrainAttack is AttackBase {
    address internal thief = address(0x7E1A7E2); // the stolen relayer key
    uint256 internal user;
    uint256 internal own; // the thief's own account
    address internal ownWallet;

    function _approve(uint256 coll6, uint16 maxLev, uint16 band, uint16 budget) internal {
        user = _account(alice, coll6);
        (ownWallet, own) = _attacker("thief-own", 5_000_000e6);
        vm.prank(alice);
        engine.setOperator(thief, uint64(block.timestamp + 30 days), IEngine.OperatorPolicy(maxLev, band, budget));
    }

    function _valueWad() internal view returns (uint256) {
        return RiskChecks.accountValueWad(engine, lens, user) + token.balanceOf(alice) * TO_WAD;
    }

    function _effBand(IMarket m, uint16 band) internal view returns (uint256) {
        uint256 b = m.params().operatorBandBps;
        return band < b ? band : b;
    }

    function _cancelAll(address who, uint256 id, IMarket m) internal {
        bytes32 mid = m.marketId();
        uint256[] memory all = OrderScan.ids(m);
        for (uint256 j; j < all.length; ++j) {
            IMarket.OrderView memory o = m.getOrder(all[j]);
            if (o.accountId != id || o.status != IMarket.OrderStatus.ACTIVE) continue;
            vm.prank(who);
            try engine.cancelOrderById(id, mid, all[j]) {}
            catch (bytes memory r) {
                _requireVenueRefusal(r, "cancel");
            }
        }
    }

    /// The thief places for the user as much as the policy lets it: the whole free margin, halved
    /// on each refusal.
    function _greedy(IEngine.PlaceOrderParams memory p, string memory step) internal returns (bool ok) {
        uint256 free = engine.getAccount(user).availableWad / TO_WAD;
        for (uint256 c = free; c >= 1e6; c /= 2) {
            p.collateral6 = c;
            (ok,,) = _tryPlace(thief, p, step);
            if (ok) return true;
        }
    }

    /// One round of the drain. Taker side (the issue's): the thief's own ask at the band's top,
    /// bought for the user; its own bid at the bottom, the user closed into it. Maker side: the
    /// user's ask rested at the bottom and lifted by the thief's own account, the user's closing
    /// bid rested at the top and hit.
    function _round(IMarket m, uint256 lev, uint256 band, bool makerSide) internal {
        bytes32 mid = m.marketId();
        uint256 mark = m.markPrice();
        uint256 up = (mark * (1e4 + band) / 1e4) / TICK * TICK;
        uint256 dn = _ceilDiv(mark * (1e4 - band) / 1e4, TICK) * TICK;
        if (!makerSide) {
            _tryLimit(ownWallet, own, mid, SHORT, 100_000e6, 10, up, "own ask");
            _greedy(_params(user, mid, LONG, LMT, 0, lev, up, bytes32(0)), "buy for the user");
            _cancelAll(ownWallet, own, m);
            _tryLimit(ownWallet, own, mid, LONG, 100_000e6, 10, dn, "own bid");
            _tryClose(thief, user, mid, LMT, dn, "close the user into it");
        } else {
            _greedy(_params(user, mid, SHORT, LMT, 0, lev, dn, bytes32(0)), "rest the user's ask low");
            _tryLimit(ownWallet, own, mid, LONG, 100_000e6, 10, dn, "lift it");
            _cancelAll(ownWallet, own, m);
            _tryClose(thief, user, mid, LMT, up, "rest the user's closing bid high");
            _tryLimit(ownWallet, own, mid, SHORT, 100_000e6, 10, up, "hit it");
        }
        _cancelAll(ownWallet, own, m);
        _cancelAll(thief, user, m);
    }

    /// 20 rounds in one second (no refill): the user loses at most its budget.
    function _drain(IMarket m, uint256 coll6, uint16 maxLev, uint16 band, uint16 budgetBps) internal {
        _approve(coll6, maxLev, band, budgetBps);
        uint256 v0 = _valueWad();
        uint256 budget = v0 * budgetBps / 1e4;
        uint256 ml = m.params().maxLeverage;
        uint256 lev = 32 < ml ? 32 : ml;
        uint256 eff = _effBand(m, band);
        for (uint256 i; i < 20; ++i) _round(m, lev, eff, i % 2 == 1);
        _tryClose(thief, user, m.marketId(), MKT, 0, "leave the user flat");
        uint256 v1 = _valueWad();
        uint256 loss = v0 > v1 ? v0 - v1 : 0;
        assertLe(loss, budget, "the user lost more than its budget (WAD)");
        assertLe(engine.operatorState(alice, thief).usedWad, budget, "budget used beyond the budget");
        _assertStrictSolvency();
    }

    function test_attack_drain_EUR_1000_budget1pct() public {
        _drain(market, 1_000e6, 40, 90, 100);
    }

    function test_attack_drain_EUR_10000_budget3pct() public {
        _drain(market, 10_000e6, 50, 90, 300);
    }

    function test_attack_drain_EUR_250_budget25bps() public {
        _drain(market, 250e6, 40, 50, 25);
    }

    function test_attack_drain_GBP_1000_budget1pct() public {
        _drain(gbp, 1_000e6, 40, 90, 100);
    }

    function test_attack_drain_GBP_5000_budget50bps_narrowBand() public {
        _drain(gbp, 5_000e6, 25, 30, 50);
    }

    /// The same drain spread over 38 h (a round every 2 h): the budget refills at budget / 24 h,
    /// so the user loses at most budget × (1 + 38 / 24).
    function test_attack_drain_spreadOverTime() public {
        _approve(1_000e6, 40, 90, 100);
        uint256 v0 = _valueWad();
        uint256 budget = v0 * 100 / 1e4;
        uint256 t0 = block.timestamp;
        for (uint256 i; i < 20; ++i) {
            if (i != 0) {
                vm.warp(block.timestamp + 2 hours);
                vm.roll(block.number + 1);
                _refresh(EUR);
                _refresh(GBP);
            }
            _round(market, 32, 90, i % 2 == 1);
        }
        uint256 elapsed = block.timestamp - t0;
        uint256 v1 = _valueWad();
        uint256 loss = v0 > v1 ? v0 - v1 : 0;
        assertLe(loss, budget + budget * elapsed / 1 days, "loss beyond the refilled budget (WAD)");
        assertGt(loss, 0, "the scenario should spend some budget");
    }

    // ─── a stolen key: each limit on its own ──────────────────────────────────────────────

    function _expectLimit(bytes memory r, uint256 what) internal pure {
        assertEq(bytes4(r), IVenueErrors.OperatorLimitExceeded.selector, "not OperatorLimitExceeded");
        uint256 w;
        assembly {
            w := mload(add(r, 100)) // selector (4) + owner + operator
        }
        assertEq(w, what, "which limit");
    }

    function test_attack_stolenKey_leverageAboveThePolicy() public {
        _approve(1_000e6, 5, 90, 10_000);
        _tryLimit(ownWallet, own, EUR, SHORT, 100_000e6, 10, EUR_PX + 10 * TICK, "own ask");
        vm.prank(thief);
        try engine.placeOrder(_params(user, EUR, LONG, MKT, 100e6, 32, 0, bytes32(0))) {
            revert("32x opened under a 5x policy");
        } catch (bytes memory r) {
            _expectLimit(r, 1);
        }
        (bool ok,,) = _tryMarket(thief, user, EUR, LONG, 100e6, 5, "5x");
        assertTrue(ok, "5x within the policy");
    }

    /// A stolen key cannot place above the policy's leverage, so it grows an order the owner rested
    /// at her own (higher) leverage: a modify keeps the order's leverage (its margin follows its
    /// notional). Property, for owner orders at 5, 10, 20 and 50x grown 2, 30 and 300-fold under a
    /// 10x policy: the grown order (and the position it opens) is at most 10x, or the modify is
    /// refused (`OperatorLimitExceeded`, leverage) and the order is as it was. Shrinking is never
    /// refused, and the owner herself is not bound by her operator's policy.
    function test_attack_stolenKey_growsOwnersOrderBeyondThePolicy() public {
        _approve(20_000e6, 10, 90, 10_000);
        uint256 px = EUR_PX - 20 * TICK;
        uint8[4] memory levs = [5, 10, 20, 50];
        uint16[3] memory growths = [2, 30, 300];
        for (uint256 i; i < levs.length; ++i) {
            for (uint256 j; j < growths.length; ++j) {
                uint256 id = _limit(alice, user, LONG, 10e6, levs[i], px);
                IMarket.OrderView memory before = _order(id);
                uint256 grown = before.remainingQty * growths[j];
                vm.prank(thief);
                try engine.modifyOrder(user, EUR, id, bytes32(0), px, grown) {
                    IMarket.OrderView memory o = _order(id);
                    assertEq(o.remainingQty, grown);
                    assertLe(grown * px / 1e18, o.marginRemainingWad * 10, "an order the operator grew is above its policy's leverage");
                } catch (bytes memory r) {
                    _expectLimit(r, 1);
                    assertGt(levs[i], 10, "refused within the policy");
                    assertEq(keccak256(abi.encode(_order(id))), keccak256(abi.encode(before)), "a refused modify changed the order");
                }
                // shrinking: never refused
                uint256 half = _order(id).remainingQty / 2 / LOT * LOT;
                vm.prank(thief);
                engine.modifyOrder(user, EUR, id, bytes32(0), px, half);
                vm.prank(thief);
                engine.cancelOrderById(user, EUR, id);
            }
        }
        // the owner grows her own 50x order as she likes
        uint256 own50 = _limit(alice, user, LONG, 10e6, 50, px);
        uint256 thirtyFold = _order(own50).remainingQty * 30;
        vm.prank(alice);
        engine.modifyOrder(user, EUR, own50, bytes32(0), px, thirtyFold);
        assertEq(_order(own50).remainingQty, thirtyFold);
    }

    function test_attack_stolenKey_priceBeyondThePolicyBand() public {
        _approve(1_000e6, 50, 40, 10_000);
        uint256 mark = market.markPrice();
        uint256 px = (mark * (1e4 + 60) / 1e4) / TICK * TICK; // inside the market's 90, outside the owner's 40
        vm.prank(thief);
        try engine.placeOrder(_params(user, EUR, LONG, LMT, 100e6, 10, px, bytes32(0))) {
            revert("priced beyond the owner's band");
        } catch (bytes memory r) {
            assertEq(bytes4(r), IVenueErrors.OperatorPriceTooFar.selector, "not OperatorPriceTooFar");
        }
        // MARKET: the sweep stops at the owner's band edge, the ask beyond it stays
        _tryLimit(ownWallet, own, EUR, SHORT, 100_000e6, 10, px, "own ask beyond the owner's band");
        vm.prank(thief);
        try engine.placeOrder(_params(user, EUR, LONG, MKT, 100e6, 10, 0, bytes32(0))) {
            revert("MARKET filled beyond the owner's band");
        } catch (bytes memory r) {
            _requireVenueRefusal(r, "market beyond the band");
        }
        assertEq(market.getPosition(user).sizeQty, int256(0), "filled beyond the band");
    }

    /// A bid rested at the mark (charged only its fee), then the mark falls 2 %: met by the thief's
    /// own sell, it is cancelled (OPERATOR_BAND) instead of buying 1 % above the mark.
    function test_attack_stolenKey_restingOrderOutsideItsBandAtFillTime() public {
        _approve(1_000e6, 50, 50, 100);
        uint256 mark = market.markPrice();
        uint256 px = mark / TICK * TICK;
        (bool ok, uint256 oid,) = _tryLimit(thief, user, EUR, LONG, 100e6, 10, px, "bid at the mark");
        assertTrue(ok, "a bid at the mark");
        _walkIndex(EUR, EUR_PX * 98 / 100);
        vm.warp(block.timestamp + 1 hours); // the mark's premium average settles on the new index
        _refresh(EUR);
        _refresh(GBP);
        uint256 v0 = _valueWad();
        _tryMarket(ownWallet, own, EUR, SHORT, 1_000e6, 10, "the thief sells into it");
        IMarket.OrderView memory o = market.getOrder(oid);
        assertEq(uint256(o.status), uint256(IMarket.OrderStatus.CANCELLED), "not cancelled");
        assertEq(o.filledQty, 0, "filled outside its band");
        assertEq(market.getPosition(user).sizeQty, int256(0), "position opened");
        assertGe(_valueWad(), v0, "the user lost");
    }

    /// Withdrawals pay the owner's wallet only; the operator gets nothing, and nothing it can call
    /// moves margin elsewhere.
    function test_attack_stolenKey_withdrawPaysOnlyTheOwner() public {
        _approve(1_000e6, 50, 90, 100);
        uint256 before = token.balanceOf(alice);
        _tryWithdraw(thief, user, 600e6, "withdraw for the owner");
        assertEq(token.balanceOf(thief), 0, "the operator was paid");
        assertEq(token.balanceOf(alice), before + 600e6, "the owner was not paid");
        assertEq(engine.getAccount(user).totalWad, 400e6 * TO_WAD, "account");
    }

    /// Only the owner sets the policy: the thief's own setOperator sets its own approvals; a signed
    /// approval cannot be re-used or re-scoped to a looser policy.
    function test_attack_stolenKey_cannotLoosenThePolicy() public {
        _approve(1_000e6, 5, 50, 100);
        vm.prank(thief);
        engine.setOperator(thief, uint64(block.timestamp + 365 days), IEngine.OperatorPolicy(50, 10_000, 10_000));
        IEngine.OperatorView memory v = engine.operatorState(alice, thief);
        assertEq(v.maxLeverage, 5, "leverage loosened");
        assertEq(v.bandBps, 50, "band loosened");
        assertEq(v.budgetBps, 100, "budget loosened");
        // a conservative approval the owner signed, submitted with a looser policy
        uint64 exp = uint64(block.timestamp + 30 days);
        uint256 deadline = block.timestamp + 1 hours;
        IEngine.OperatorPolicy memory signed = IEngine.OperatorPolicy(5, 50, 100);
        bytes memory sig = _sign(ALICE_PK, alice, exp, signed, engine.operatorNonce(alice), deadline);
        vm.prank(thief);
        try engine.setOperatorWithSig(alice, thief, exp, IEngine.OperatorPolicy(50, 90, 10_000), deadline, sig) {
            revert("a looser policy than signed");
        } catch (bytes memory r) {
            assertEq(bytes4(r), IVenueErrors.InvalidSignature.selector, "not InvalidSignature");
        }
        vm.prank(thief);
        engine.setOperatorWithSig(alice, thief, exp, signed, deadline, sig);
        vm.prank(thief);
        try engine.setOperatorWithSig(alice, thief, exp, signed, deadline, sig) {
            revert("a signature used twice");
        } catch (bytes memory r) {
            assertEq(bytes4(r), IVenueErrors.InvalidSignature.selector, "not InvalidSignature");
        }
    }

    function _sign(uint256 pk, address owner, uint64 exp, IEngine.OperatorPolicy memory p, uint256 nonce, uint256 deadline)
        internal
        view
        returns (bytes memory)
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
        bytes32 h = approvalStructHash(engine.OPERATOR_APPROVAL_TYPEHASH(), owner, thief, exp, p, nonce, deadline);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(pk, keccak256(abi.encodePacked("\x19\x01", domain, h)));
        return abi.encodePacked(r, s, v);
    }

    /// Placing and cancelling gives budget back (the fee part), never more than was charged: a
    /// place-cancel loop does not grow the budget, and a spent budget refills after 24 h.
    function test_attack_budgetReleaseAndRefill() public {
        _approve(1_000e6, 50, 90, 100);
        uint256 px = (market.markPrice() * 995 / 1000) / TICK * TICK; // a bid 0.5 % below the mark
        for (uint256 i; i < 5; ++i) {
            (bool ok,,) = _tryLimit(thief, user, EUR, LONG, 500e6, 10, px, "bid");
            assertTrue(ok, "an honest bid");
            assertGt(engine.operatorState(alice, thief).usedWad, 0, "not charged");
            _cancelAll(thief, user, market);
            assertLe(engine.operatorState(alice, thief).usedWad, i + 1, "cancel: not released (1 wei of rounding a cycle)");
        }
        // spend it: the drain until refused, then wait a day
        uint256 budget = engine.operatorState(alice, thief).budgetWad;
        for (uint256 i; i < 10; ++i) _round(market, 32, 90, false);
        IEngine.OperatorView memory v = engine.operatorState(alice, thief);
        assertLe(v.usedWad, budget, "over budget");
        vm.warp(block.timestamp + 1 days);
        _refresh(EUR);
        _refresh(GBP);
        assertEq(engine.operatorState(alice, thief).usedWad, 0, "not refilled after 24 h");
        (bool ok2,,) = _tryLimit(thief, user, EUR, LONG, 100e6, 10, px, "a bid after a day");
        assertTrue(ok2, "refused after the refill");
    }

    /// The owner itself is not bounded by its operator's policy.
    function test_ownerUnbounded() public {
        _approve(1_000e6, 2, 10, 0);
        _tryLimit(ownWallet, own, EUR, SHORT, 100_000e6, 10, EUR_PX + 50 * TICK, "own ask");
        vm.prank(alice);
        engine.placeOrder(_params(user, EUR, LONG, MKT, 500e6, 40, 0, bytes32(0)));
        assertGt(market.getPosition(user).sizeQty, int256(0), "owner order");
        vm.prank(thief);
        try engine.placeOrder(_params(user, EUR, LONG, LMT, 10e6, 2, EUR_PX - 100 * TICK, bytes32(0))) {
            revert("a zero budget let the operator place");
        } catch (bytes memory r) {
            _expectLimit(r, 2);
        }
    }
}
