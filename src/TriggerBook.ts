/**
 * TriggerBook events (docs/CONTRACTS.md "Triggers"): a position's take-profit and stop-loss as they
 * are now (`position_trigger`, one row per account, market and kind), every change of them
 * (`trigger_event`), and the order a fired trigger placed (`orders.trigger_kind`).
 */
import { on } from "./on.js";
import { order, positionTrigger, triggerEvent } from "ponder:schema";
import type { Hex } from "viem";
import { ORDER_TYPES, SIDES, enumName } from "./store.js";
import { TRIGGER_END_NAME, TRIGGER_KIND_NAME, triggerId } from "../core/triggers.js";

const ZERO_ADDRESS = `0x${"00".repeat(20)}`;
const kindName = (kind: number) => enumName(TRIGGER_KIND_NAME, kind);

type Ev = { id: string; block: { number: bigint; timestamp: bigint }; log: { logIndex: number }; transaction: { hash: Hex } };
const eventColumns = (event: Ev) => ({
  id: event.id,
  blockNumber: event.block.number,
  logIndex: event.log.logIndex,
  timestamp: event.block.timestamp,
  transactionHash: event.transaction.hash,
});
const NO_EVENT_FIELDS = {
  triggerPriceX18: null,
  orderType: null,
  limitPriceX18: null,
  oco: null,
  positionSide: null,
  openBlock: null,
  operator: null,
  reason: null,
  orderId: null,
  markPriceX18: null,
  executor: null,
};

// A set (or a replacement of the same kind): the row active again, its end fields cleared.
on("TriggerBook:TriggerSet", async ({ event, context }) => {
  const a = event.args;
  const kind = kindName(a.kind);
  const marketId = a.marketId.toLowerCase() as Hex;
  const operator = a.operator.toLowerCase() === ZERO_ADDRESS ? null : (a.operator.toLowerCase() as Hex);
  const fields = {
    triggerPriceX18: a.triggerPriceX18,
    orderType: enumName(ORDER_TYPES, a.orderType),
    limitPriceX18: a.limitPriceX18,
    oco: a.oco,
    positionSide: enumName(SIDES, a.positionSide),
    openBlock: a.openBlock,
    operator,
  };
  const state = {
    ...fields,
    status: "active",
    endReason: null,
    orderId: null,
    executedMarkX18: null,
    executor: null,
    createdAt: event.block.timestamp,
    updatedAt: event.block.timestamp,
    setBlock: event.block.number,
    updatedBlock: event.block.number,
  };
  await context.db
    .insert(positionTrigger)
    .values({ id: triggerId(a.accountId, marketId, kind), accountId: a.accountId, marketId, kind, ...state })
    .onConflictDoUpdate(state);
  await context.db.insert(triggerEvent).values({
    ...eventColumns(event),
    ...NO_EVENT_FIELDS,
    ...fields,
    seq: BigInt(a.seq),
    event: "SET",
    accountId: a.accountId,
    marketId,
    kind,
  });
});

on("TriggerBook:TriggerRemoved", async ({ event, context }) => {
  const a = event.args;
  const kind = kindName(a.kind);
  const marketId = a.marketId.toLowerCase() as Hex;
  const reason = enumName(TRIGGER_END_NAME, a.reason);
  // a removal always follows its TriggerSet (the contract removes only a set trigger)
  await context.db.update(positionTrigger, { id: triggerId(a.accountId, marketId, kind) }).set({
    status: "cancelled",
    endReason: reason,
    updatedAt: event.block.timestamp,
    updatedBlock: event.block.number,
  });
  await context.db.insert(triggerEvent).values({
    ...eventColumns(event),
    ...NO_EVENT_FIELDS,
    reason,
    seq: BigInt(a.seq),
    event: "REMOVED",
    accountId: a.accountId,
    marketId,
    kind,
  });
});

// Fired: the order it placed (its OrderPlaced came first in the same transaction) is marked with the kind.
on("TriggerBook:TriggerExecuted", async ({ event, context }) => {
  const a = event.args;
  const kind = kindName(a.kind);
  const marketId = a.marketId.toLowerCase() as Hex;
  const executor = a.executor.toLowerCase() as Hex;
  await context.db.update(positionTrigger, { id: triggerId(a.accountId, marketId, kind) }).set({
    status: "executed",
    endReason: null,
    orderId: a.orderId,
    executedMarkX18: a.markPriceX18,
    executor,
    updatedAt: event.block.timestamp,
    updatedBlock: event.block.number,
  });
  if (await context.db.find(order, { orderId: a.orderId })) {
    await context.db.update(order, { orderId: a.orderId }).set({ triggerKind: kind });
  }
  await context.db.insert(triggerEvent).values({
    ...eventColumns(event),
    ...NO_EVENT_FIELDS,
    orderId: a.orderId,
    markPriceX18: a.markPriceX18,
    executor,
    seq: BigInt(a.seq),
    event: "EXECUTED",
    accountId: a.accountId,
    marketId,
    kind,
  });
});
