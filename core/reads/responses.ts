/**
 * Rows → response objects of the read routes, in one place for both of their servers: Ponder's
 * routes (src/api/routes/) and the read service's builds on Postgres (services/reads/tables.ts),
 * so the two give the same bytes. bigint stays bigint until here; every amount leaves as a
 * decimal string with its `...Formatted` (exact, unit from core/fields.ts), `...Percent` or
 * `...ISO` companion.
 */
import { marketStatus } from "../market-status.js";
import { getAddress, type Hex } from "viem";
import type { z } from "@hono/zod-openapi";
import { formatField, formatUnit } from "../fields.js";
import {

  WAD,
  abs,
  entryPrice,
  fillPercent,
  marketFundingDirection,
  pendingFunding,
  positionFundingDirection,
  positionHealth,
  positionLeverage,
  annualizeHourlyRate,
  positionIdOf,
  MARK_PERIOD_SECONDS,
  isExpired,
} from "../math/index.js";
import type { TimeInForceName } from "../order-options.js";
import { TRIGGER_KIND_NAME, type TriggerEndName, type TriggerKindName, type TriggerStatus } from "../triggers.js";
import { bpsToPercent, secondsToISO, x18ToPercent } from "../units.js";
import type * as S from "../schemas/reads.js";
import type { AccountRow, LevelRow, MarketSnapshot, OperatorRow, PositionRow, TriggerRow } from "./snapshot.js";

type Out<T extends z.ZodType> = z.infer<T>;
type OrderRow = {
  orderId: bigint;
  marketId: Hex;
  clientKey: Hex;
  side: string;
  orderType: string;
  status: string;
  reduceOnly: boolean;
  priceX18: bigint;
  originalQty: bigint;
  filledQty: bigint;
  remainingQty: bigint;
  marginAllocatedWad: bigint;
  createdAt: bigint;
  createdBlock: bigint;
  timeInForce: string;
  expiresAt: bigint;
  triggerKind?: string | null;
  modificationCount: number;
  modifiedAt: bigint | null;
  modifiedBlock: bigint | null;
};

/** An order's modifications as every order answer shows them (the orders list, the order history): how many, the last one's time and block. */
export function orderModifications(o: Pick<OrderRow, "modificationCount" | "modifiedAt" | "modifiedBlock">) {
  return {
    modificationCount: o.modificationCount,
    modifiedAt: o.modifiedAt === null ? null : num(o.modifiedAt),
    modifiedAtISO: o.modifiedAt === null ? null : secondsToISO(o.modifiedAt),
    modifiedBlock: o.modifiedBlock === null ? null : num(o.modifiedBlock),
  };
}

/**
 * An order as the reads show it at `now` (the indexed block's time): an active good-til-time
 * order at or past its expiry never fills again (MarketBase._expired), so it shows cancelled, its
 * remaining quantity 0, from that second, before anyone removes it (its OrderClosed, EXPIRED,
 * then says the same). The SQL filter on status reads the same rule (plans.ts `shownStatusSql`).
 */
export function shownOrder<O extends { status: string; expiresAt: bigint; remainingQty: bigint }>(o: O, now: bigint): O & { expiredUnremoved: boolean } {
  const expired = o.status === "active" && isExpired(o.expiresAt, now);
  return expired ? { ...o, status: "cancelled", remainingQty: 0n, expiredUnremoved: true } : { ...o, expiredUnremoved: false };
}

const num = (v: bigint | number) => Number(v);

export function accountResponse(a: AccountRow): Out<typeof S.Account> {
  return {
    accountId: num(a.accountId),
    accountAddress: getAddress(a.accountAddress),
    owner: getAddress(a.owner),
    margin: {
      available: a.availableWad.toString(),
      availableFormatted: formatField("available", a.availableWad),
      committed: a.committedWad.toString(),
      committedFormatted: formatField("committed", a.committedWad),
      total: a.totalWad.toString(),
      totalFormatted: formatField("total", a.totalWad),
    },
    deadman: deadmanAnswer(a.deadman),
  };
}

/** An account's dead-man deadline as the answers show it (the account read and the relayer's setDeadman result). */
export const deadmanAnswer = (deadline: bigint) => ({
  deadline: num(deadline),
  deadlineISO: deadline === 0n ? null : secondsToISO(deadline),
  enabled: deadline !== 0n,
});

export function accountByAddressResponse(a: AccountRow | undefined): Out<typeof S.AccountByAddress> {
  if (!a) return { accountId: 0, exists: false };
  return { accountId: num(a.accountId), accountAddress: getAddress(a.accountAddress), owner: getAddress(a.owner), exists: true };
}

export function positionResponse(
  accountId: bigint,
  snap: MarketSnapshot,
  p: PositionRow | undefined,
): Out<typeof S.Position> {
  const marketId = snap.market.marketId;
  const base = { accountId: num(accountId), marketId, positionId: positionIdOf(accountId, marketId) };
  if (!p || p.sizeQty === 0n) {
    return {
      ...base,
      isOpen: false,
      side: null,
      size: "0",
      sizeFormatted: "0",
      entryPrice: "0",
      entryPriceFormatted: "0",
      margin: "0",
      marginFormatted: "0",
      leverage: 0,
      openBlock: 0,
      health: null,
    };
  }
  const pending = pendingFunding(p.sizeQty, snap.cumulativeIndexNowX18, p.lastFundingIndexX18);
  const h = positionHealth(p, snap.markX18, pending, BigInt(snap.market.maintenanceMarginBps));
  const size = abs(p.sizeQty);
  const entry = entryPrice(p);
  return {
    ...base,
    isOpen: true,
    side: p.sizeQty > 0n ? "LONG" : "SHORT",
    size: size.toString(),
    sizeFormatted: formatField("size", size),
    entryPrice: entry.toString(),
    entryPriceFormatted: formatField("entryPrice", entry),
    margin: p.marginWad.toString(),
    marginFormatted: formatField("margin", p.marginWad),
    leverage: num(positionLeverage(h.positionValueWad, p.marginWad)),
    openBlock: num(p.openBlock),
    health: {
      markPrice: h.markPriceX18.toString(),
      markPriceFormatted: formatField("markPrice", h.markPriceX18),
      positionValue: h.positionValueWad.toString(),
      positionValueFormatted: formatField("positionValue", h.positionValueWad),
      unrealizedPnL: h.unrealizedPnlWad.toString(),
      unrealizedPnLFormatted: formatField("unrealizedPnL", h.unrealizedPnlWad),
      marginRatioBps: num(h.marginRatioBps),
      marginRatioPercent: bpsToPercent(h.marginRatioBps),
      liquidationPrice: h.liquidationPriceX18.toString(),
      liquidationPriceFormatted: formatField("liquidationPrice", h.liquidationPriceX18),
      insolvencyPrice: h.insolvencyPriceX18.toString(),
      insolvencyPriceFormatted: formatField("insolvencyPrice", h.insolvencyPriceX18),
      isLiquidatable: h.isLiquidatable,
    },
  };
}

export function positionFundingResponse(
  accountId: bigint,
  snap: MarketSnapshot,
  p: PositionRow | undefined,
): Out<typeof S.PositionFunding> {
  const pending = p && p.sizeQty !== 0n ? pendingFunding(p.sizeQty, snap.cumulativeIndexNowX18, p.lastFundingIndexX18) : 0n;
  const lastSettled = p?.lastSettledAt ?? 0n;
  return {
    accountId: num(accountId),
    marketId: snap.market.marketId,
    pendingFunding: pending.toString(),
    pendingFundingFormatted: formatField("pendingFunding", pending),
    direction: positionFundingDirection(pending),
    lastSettled: num(lastSettled),
    lastSettledISO: lastSettled === 0n ? null : secondsToISO(lastSettled),
  };
}

export function orderResponse(row: OrderRow, now: bigint): Out<typeof S.Order> {
  const o = shownOrder(row, now);
  return {
    clientKey: o.clientKey,
    orderId: o.orderId.toString(),
    marketId: o.marketId,
    side: o.side as "LONG" | "SHORT",
    orderType: o.orderType as "MARKET" | "LIMIT",
    status: o.status as "active" | "filled" | "cancelled",
    reduceOnly: o.reduceOnly,
    price: o.priceX18.toString(),
    priceFormatted: formatField("price", o.priceX18),
    originalQuantity: o.originalQty.toString(),
    originalQuantityFormatted: formatField("originalQuantity", o.originalQty),
    filledQuantity: o.filledQty.toString(),
    filledQuantityFormatted: formatField("filledQuantity", o.filledQty),
    remainingQuantity: o.remainingQty.toString(),
    remainingQuantityFormatted: formatField("remainingQuantity", o.remainingQty),
    marginAllocated: o.marginAllocatedWad.toString(),
    marginAllocatedFormatted: formatField("marginAllocated", o.marginAllocatedWad),
    isActive: o.status === "active",
    fillPercent: num(fillPercent(o.filledQty, o.originalQty)),
    createdAt: num(o.createdAt),
    createdAtISO: secondsToISO(o.createdAt),
    createdBlock: num(o.createdBlock),
    timeInForce: o.timeInForce as TimeInForceName,
    expiresAt: o.expiresAt === 0n ? null : num(o.expiresAt),
    expiresAtISO: o.expiresAt === 0n ? null : secondsToISO(o.expiresAt),
    triggerKind: (o.triggerKind ?? null) as TriggerKindName | null,
    ...orderModifications(o),
  };
}

/** A position trigger as the reads show it (GET /accounts/{accountId}/triggers, the account stream). */
export function triggerResponse(t: TriggerRow): Out<typeof S.Trigger> {
  const limit = t.orderType === "LIMIT";
  return {
    triggerId: t.id,
    accountId: num(t.accountId),
    marketId: t.marketId,
    kind: t.kind as TriggerKindName,
    status: t.status as TriggerStatus,
    triggerPrice: t.triggerPriceX18.toString(),
    triggerPriceFormatted: formatField("triggerPrice", t.triggerPriceX18),
    orderType: t.orderType as "MARKET" | "LIMIT",
    limitPrice: limit ? t.limitPriceX18.toString() : null,
    limitPriceFormatted: limit ? formatField("limitPrice", t.limitPriceX18) : null,
    oco: t.oco,
    positionSide: t.positionSide as "LONG" | "SHORT",
    openBlock: num(t.openBlock),
    operator: t.operator === null ? null : getAddress(t.operator),
    endReason: t.endReason as TriggerEndName | null,
    orderId: t.orderId === null ? null : t.orderId.toString(),
    executedMarkPrice: t.executedMarkX18 === null ? null : t.executedMarkX18.toString(),
    executedMarkPriceFormatted: t.executedMarkX18 === null ? null : formatField("executedMarkPrice", t.executedMarkX18),
    executor: t.executor === null ? null : getAddress(t.executor),
    createdAt: num(t.createdAt),
    createdAtISO: secondsToISO(t.createdAt),
    updatedAt: num(t.updatedAt),
    updatedAtISO: secondsToISO(t.updatedAt),
    setBlock: num(t.setBlock),
    updatedBlock: num(t.updatedBlock),
  };
}

/** An account's triggers (rows in any order): by market, then take-profit first. */
export function triggerListResponse(accountId: bigint, rows: TriggerRow[]): Out<typeof S.TriggerList> {
  const sorted = [...rows].sort((a, b) => (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : TRIGGER_KIND_NAME.indexOf(a.kind as TriggerKindName) - TRIGGER_KIND_NAME.indexOf(b.kind as TriggerKindName)));
  return { accountId: num(accountId), triggers: sorted.map(triggerResponse) };
}

export function marketResponse(snap: MarketSnapshot): Out<typeof S.Market> {
  const m = snap.market;
  const s = snap.state;
  return {
    marketId: m.marketId,
    symbol: m.symbol,
    marketAddress: getAddress(m.marketAddress),
    marketIndex: num(m.marketIndex),
    baseFxToken: getAddress(m.baseFxToken),
    baseFxTokenSymbol: m.baseFxTokenSymbol,
    quoteFxToken: getAddress(m.quoteFxToken),
    quoteFxTokenSymbol: m.quoteFxTokenSymbol,
    maxLeverage: m.maxLeverage,
    maintenanceMarginBps: m.maintenanceMarginBps,
    maintenanceMarginPercent: bpsToPercent(BigInt(m.maintenanceMarginBps)),
    liquidationFeeBps: m.liquidationFeeBps,
    liquidationFeePercent: bpsToPercent(BigInt(m.liquidationFeeBps)),
    // the spec's isActive: true only when the market accepts every order (status ACTIVE)
    isActive: marketStatus(s) === "ACTIVE",
    status: marketStatus(s),
    openInterest: {
      long: s.longOpenInterestQty.toString(),
      longFormatted: formatField("long", s.longOpenInterestQty),
      short: s.shortOpenInterestQty.toString(),
      shortFormatted: formatField("short", s.shortOpenInterestQty),
    },
    tickSize: m.tickSizeX18.toString(),
    tickSizeFormatted: formatField("tickSize", m.tickSizeX18),
    lotSize: m.lotSizeQty.toString(),
    lotSizeFormatted: formatField("lotSize", m.lotSizeQty),
    minOrderSize: m.minOrderQty.toString(),
    minOrderSizeFormatted: formatField("minOrderSize", m.minOrderQty),
    makerFeeBps: m.makerFeeBps,
    makerFeePercent: bpsToPercent(BigInt(m.makerFeeBps)),
    takerFeeBps: m.takerFeeBps,
    takerFeePercent: bpsToPercent(BigInt(m.takerFeeBps)),
    priceBandBps: m.priceBandBps,
    markClampBps: m.markClampBps,
    operatorBandBps: m.operatorBandBps,
    maxPositionSize: m.maxPositionQty.toString(),
    maxPositionSizeFormatted: formatField("maxPositionSize", m.maxPositionQty),
    maxOpenInterest: m.maxOpenInterestQty.toString(),
    maxOpenInterestFormatted: formatField("maxOpenInterest", m.maxOpenInterestQty),
    session: {
      state: s.session as Out<typeof S.MarketSession>["state"],
      marginUpliftBps: s.marginUpliftBps,
      marginUpliftPercent: bpsToPercent(BigInt(s.marginUpliftBps)),
      closeUpliftBps: s.closeUpliftBps,
      updatedAt: s.sessionUpdatedAt === null ? null : num(s.sessionUpdatedAt),
      updatedAtISO: s.sessionUpdatedAt === null ? null : secondsToISO(s.sessionUpdatedAt),
      nextSession: snap.nextSession?.session ?? null,
      nextSessionAt: snap.nextSession === null ? null : num(snap.nextSession.at),
      nextSessionAtISO: snap.nextSession === null ? null : secondsToISO(snap.nextSession.at),
    },
  };
}

export function fundingResponse(snap: MarketSnapshot): Out<typeof S.Funding> {
  const s = snap.state;
  const rate = snap.rateNowX18PerHour;
  const staleSince = s.rateStaleSince === 0n ? null : s.rateStaleSince;
  const pendingIndex = snap.cumulativeIndexNowX18 - s.cumulativeFundingIndexX18;
  const premium = snap.indexX18 === 0n ? 0n : ((snap.markX18 - snap.indexX18) * WAD) / snap.indexX18;
  return {
    marketId: snap.market.marketId,
    currentRate: rate.toString(),
    currentRateFormatted: formatField("currentRate", rate),
    currentRatePercent: x18ToPercent(rate),
    currentRateAnnualized: x18ToPercent(annualizeHourlyRate(rate)),
    cumulativeFunding: s.cumulativeFundingIndexX18.toString(),
    cumulativeFundingFormatted: formatField("cumulativeFunding", s.cumulativeFundingIndexX18),
    pendingFunding: pendingIndex.toString(),
    pendingFundingFormatted: formatUnit("indexX18", pendingIndex),
    lastUpdate: num(s.fundingLastUpdate),
    lastUpdateISO: secondsToISO(s.fundingLastUpdate),
    rateStaleSince: staleSince === null ? null : num(staleSince),
    rateStaleSinceISO: staleSince === null ? null : secondsToISO(staleSince),
    prices: {
      perpPrice: snap.markX18.toString(),
      perpPriceFormatted: formatField("perpPrice", snap.markX18),
      indexPrice: snap.indexX18.toString(),
      indexPriceFormatted: formatField("indexPrice", snap.indexX18),
      premium: premium.toString(),
      premiumPercent: x18ToPercent(premium),
    },
    components: {
      premiumComponent: s.premiumComponentX18.toString(),
      skewComponent: s.skewComponentX18.toString(),
      skew: s.skewX18.toString(),
      skewPercent: x18ToPercent(s.skewX18),
    },
    direction: marketFundingDirection(rate),
  };
}

/** A level of the book as shown: its price, and the size and count of its orders that could fill now (depth.ts). */
type BookLevel = Pick<LevelRow, "priceX18" | "quantityQty" | "orderCount">;

const levelResponse = (l: BookLevel) => ({
  price: l.priceX18.toString(),
  priceFormatted: formatField("price", l.priceX18),
  quantity: l.quantityQty.toString(),
  quantityFormatted: formatField("quantity", l.quantityQty),
  orderCount: l.orderCount,
});

export function orderBookResponse(
  marketId: Hex,
  bids: BookLevel[],
  asks: BookLevel[],
  block: { number: bigint; timestamp: bigint },
): Out<typeof S.OrderBook> {
  const bid = bids[0]?.priceX18;
  const ask = asks[0]?.priceX18;
  const both = bid !== undefined && ask !== undefined;
  const mid = both ? (bid + ask) / 2n : null;
  const spread = both ? ask - bid : null;
  return {
    marketId,
    timestamp: num(block.timestamp * 1000n),
    blockNumber: num(block.number),
    bids: bids.map(levelResponse),
    asks: asks.map(levelResponse),
    spread:
      spread === null || mid === null
        ? null
        : {
            absolute: spread.toString(),
            absoluteFormatted: formatField("absolute", spread),
            percent: mid === 0n ? "0" : x18ToPercent((spread * WAD) / mid),
          },
    midPrice: mid === null ? null : mid.toString(),
    midPriceFormatted: mid === null ? null : formatField("midPrice", mid),
  };
}

export function markPriceResponse(snap: MarketSnapshot, block: { timestamp: bigint }): Out<typeof S.MarkPrice> {
  return {
    marketId: snap.market.marketId,
    markPrice: snap.markX18.toString(),
    markPriceFormatted: formatField("markPrice", snap.markX18),
    indexPrice: snap.indexX18.toString(),
    indexPriceFormatted: formatField("indexPrice", snap.indexX18),
    ...markComponents(snap),
    timestamp: num(block.timestamp),
  };
}

/** What the mark is made of, as the contracts compute it (core/math/price.ts, docs/CONTRACTS.md "Mark"). */
function markComponents(snap: MarketSnapshot) {
  const clampBps = BigInt(snap.market.markClampBps);
  const sample = snap.premiumSampleNowX18;
  const premium = snap.premiumNowX18;
  const price = (v: bigint) => (v === 0n ? null : v.toString());
  return {
    bestBid: price(snap.bestBidX18),
    bestBidFormatted: snap.bestBidX18 === 0n ? null : formatField("bestBid", snap.bestBidX18),
    bestAsk: price(snap.bestAskX18),
    bestAskFormatted: snap.bestAskX18 === 0n ? null : formatField("bestAsk", snap.bestAskX18),
    premiumSample: sample.toString(),
    premiumSamplePercent: x18ToPercent(sample),
    premium: premium.toString(),
    premiumPercent: x18ToPercent(premium),
    markClampBps: Number(clampBps),
    averagingPeriodSeconds: Number(MARK_PERIOD_SECONDS),
  };
}



/** The operator budget's rolling period (Engine.BUDGET_PERIOD). */
const BUDGET_PERIOD_SECONDS = 86_400n;

/** An account's operators, their policies and budget use, at the indexed block's time `now` (seconds). */
export function accountOperatorsResponse(a: AccountRow, rows: OperatorRow[], now: bigint): Out<typeof S.AccountOperators> {
  return {
    accountId: num(a.accountId),
    owner: getAddress(a.owner),
    operators: [...rows]
      .sort((x, y) => (x.operator < y.operator ? -1 : x.operator > y.operator ? 1 : 0))
      .map((r) => {
        // as the engine decays it (Engine._budgetNow), with the budget recorded at the last charge
        const decay = now > r.budgetAt ? (r.budgetWad * (now - r.budgetAt)) / BUDGET_PERIOD_SECONDS : 0n;
        const usedNow = r.budgetUsedWad > decay ? r.budgetUsedWad - decay : 0n;
        return {
          operator: getAddress(r.operator),
          expiry: num(r.expiry),
          expiresAtISO: secondsToISO(r.expiry),
          active: r.expiry > now,
          bySignature: r.bySignature,
          policy: { maxLeverage: r.maxLeverage, bandBps: r.bandBps, budgetBps: r.budgetBps },
          budgetUsed: r.budgetUsedWad.toString(),
          budgetUsedFormatted: formatField("budgetUsed", r.budgetUsedWad),
          budgetUsedNow: usedNow.toString(),
          budgetUsedNowFormatted: formatField("budgetUsedNow", usedNow),
          budget: r.budgetWad.toString(),
          budgetFormatted: formatField("budget", r.budgetWad),
          budgetAtISO: r.budgetAt === 0n ? null : secondsToISO(r.budgetAt),
        };
      }),
  };
}
