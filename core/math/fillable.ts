/**
 * Whether a resting order could fill an ordinary taker now (MarketBase._fillable): the sweep's own
 * tests without side effects, in exact bigint as the contracts compute them. A reduce-only order
 * whose position is gone (flat, or on the order's own side) cannot fill, nor one at or past its
 * expiry (a good-til-time order, MarketBase._expired); outside OPEN every order
 * fills only up to what its position lets it reduce; and no fill may leave the maker below initial
 * margin at the mark (MarketBase._computeSettle, _trade, _meetsInitialMargin). The book's reads
 * count only such orders (core/reads/depth.ts), as `getFillableLevels` does.
 */
import { BPS, WAD, abs, ceilDiv, min } from "./ints.js";
import { pendingFunding } from "./funding.js";
import { fillFee } from "./orders.js";

/** WAD per 1e-6: an order's margin moves in whole units of the deposit token (MarketBase.MICRO). */
const MICRO = 10n ** 12n;

/**
 * The part of an order's margin that goes with `qty` of its `leftQty` (MarketBase._portion): all
 * of it on the last fill, else floor(margin6 × qty / left) whole 1e-6 units (an order's margin is
 * always a whole number of them: collateral6 × 1e12).
 */
export const marginPortion = (marginRemainingWad: bigint, qty: bigint, leftQty: bigint): bigint =>
  qty === leftQty ? marginRemainingWad : (((marginRemainingWad / MICRO) * qty) / leftQty) * MICRO;

/** A position as `_computeSettle` reads it (all zero: none). */
export type SettlePosition = {
  sizeQty: bigint;
  openNotionalWad: bigint;
  marginWad: bigint;
  lastFundingIndexX18: bigint;
};

export const NO_POSITION: SettlePosition = { sizeQty: 0n, openNotionalWad: 0n, marginWad: 0n, lastFundingIndexX18: 0n };

/** The position arithmetic of one fill (MarketBase._trade). */
export function positionTrade(size: bigint, on: bigint, margin: bigint, isBuy: boolean, q: bigint, notional: bigint, orderMargin: bigint) {
  const absSize = abs(size);
  const r = size !== 0n && size > 0n !== isBuy ? min(q, absSize) : 0n;
  let reducePart = 0n;
  let pnl = 0n;
  let released = 0n;
  if (r !== 0n) {
    let basis: bigint;
    if (size > 0n) {
      reducePart = r === q ? notional : (notional * r) / q;
      basis = ceilDiv(on * r, absSize);
      pnl = reducePart - basis;
    } else {
      reducePart = r === q ? notional : ceilDiv(notional * r, q);
      basis = (on * r) / absSize;
      pnl = basis - reducePart;
    }
    released = (margin * r) / absSize;
    on -= basis;
    size = size > 0n ? size - r : size + r;
  }
  const i = q - r;
  let mInc = 0n;
  if (i !== 0n) {
    mInc = i === q ? orderMargin : (orderMargin * i) / q;
    on += notional - reducePart;
    size = isBuy ? size + i : size - i;
  }
  if (size === 0n) on = 0n;
  return { size, openNotional: on, pnl, released, mInc };
}

export type Settlement = { oldSize: bigint; size: bigint; openNotional: bigint; margin: bigint; shortfall: bigint };

/**
 * A fill of `q` worth `notional` on a position (MarketBase._computeSettle without the fee cap):
 * pending funding at the stored cumulative index is netted first (a debt beyond the margin with
 * the fill's PnL), the fee comes out of what the fill releases, then out of the margin.
 */
export function computeSettle(pos: SettlePosition, cumulativeIndexX18: bigint, isBuy: boolean, q: bigint, notional: bigint, orderMargin: bigint, fee: bigint): Settlement {
  const funding = pendingFunding(pos.sizeQty, cumulativeIndexX18, pos.lastFundingIndexX18);
  const m0 = pos.marginWad - funding;
  const m0pos = m0 > 0n ? m0 : 0n;
  const t = positionTrade(pos.sizeQty, pos.openNotionalWad, m0pos, isBuy, q, notional, orderMargin);
  let margin = m0pos - t.released + t.mInc;
  let toAvailable = t.released + t.pnl + (orderMargin - t.mInc) + (m0 < 0n ? m0 : 0n) - fee;
  let shortfall = 0n;
  if (toAvailable < 0n) {
    const loss = -toAvailable;
    const take = min(loss, margin);
    margin -= take;
    shortfall = loss - take;
    toAvailable = 0n;
  }
  if (t.size === 0n && margin !== 0n) margin = 0n;
  return { oldSize: pos.sizeQty, size: t.size, openNotional: t.openNotional, margin, shortfall };
}

/** The market's numbers the check reads. */
export type MarginRules = { maxLeverage: bigint; maxPositionQty: bigint; upliftBps: bigint };

/**
 * MarketBase._meetsInitialMargin: no shortfall; a position opened, increased or flipped keeps
 * equity at the mark ≥ ceil(|size| × mark / 1e18 × uplift / (maxLeverage × 1e4)) and stays within
 * the position cap; one that only shrinks passes.
 */
export function meetsInitialMargin(st: Settlement, markX18: bigint, rules: MarginRules): boolean {
  if (st.shortfall !== 0n) return false;
  const size = st.size;
  if (size === 0n) return true;
  const old = st.oldSize;
  const increased = old === 0n || old > 0n !== size > 0n || abs(size) > abs(old);
  if (!increased) return true;
  const value = (abs(size) * markX18) / WAD;
  const upnl = size > 0n ? value - st.openNotional : st.openNotional - value;
  const equity = st.margin + upnl;
  return equity >= 0n && equity >= ceilDiv(value * rules.upliftBps, rules.maxLeverage * BPS) && abs(size) <= rules.maxPositionQty;
}

/** A resting order as `_fillable` reads it. */
export type RestingOrder = {
  isBid: boolean;
  reduceOnly: boolean;
  priceX18: bigint;
  leftQty: bigint; // original − filled
  marginRemainingWad: bigint;
  /** a good-til-time order's expiry, seconds (absent or 0: none) */
  expiresAt?: bigint;
};

/**
 * The market now: its rules, maker fee, stored cumulative funding index, whether the session is
 * OPEN, and the time (seconds: the block's, which `_expired` reads).
 */
export type FillableMarket = MarginRules & { makerFeeBps: bigint; cumulativeIndexX18: bigint; open: boolean; nowSeconds: bigint };

/** MarketBase._expired: a good-til-time order at or past its expiry never fills. */
export const isExpired = (expiresAt: bigint | undefined, nowSeconds: bigint) => !!expiresAt && expiresAt <= nowSeconds;

/** MarketBase._fillable(n, mark) of an ACTIVE order, its owner's position `pos` (NO_POSITION: none). */
export function fillable(o: RestingOrder, pos: SettlePosition, m: FillableMarket, markX18: bigint): boolean {
  if (isExpired(o.expiresAt, m.nowSeconds)) return false;
  let q = o.leftQty;
  if (o.reduceOnly || !m.open) {
    // _reduceRoom: what a fill on the order's side can take off the position
    const size = pos.sizeQty;
    const room = size === 0n || size > 0n === o.isBid ? 0n : abs(size);
    if (room === 0n) return false;
    q = min(q, room);
  }
  const notional = (q * o.priceX18) / WAD;
  const portion = marginPortion(o.marginRemainingWad, q, o.leftQty);
  const fee = fillFee(q, o.priceX18, m.makerFeeBps);
  return meetsInitialMargin(computeSettle(pos, m.cumulativeIndexX18, o.isBid, q, notional, portion, fee), markX18, m);
}
