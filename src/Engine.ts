/** Engine events: accounts, margin, operators, venue balances. */
import { on } from "./on.js";
import {
  account,
  feeWithdrawalEvent,
  insuranceFund,
  insuranceFundEvent,
  liquidationSkipEvent,
  operatorApproval,
  operatorNonce,
  venueBalance,
} from "ponder:schema";
import { MARGIN_REASONS, applyMargin, enumName } from "./store.js";
import { toWad } from "../core/units.js";

on("Engine:AccountCreated", async ({ event, context }) => {
  const { accountId, owner, accountAddress } = event.args;
  await context.db.insert(account).values({
    accountId,
    owner,
    accountAddress,
    availableWad: 0n,
    committedWad: 0n,
    totalWad: 0n,
    deadman: 0n,
    createdBlock: event.block.number,
    createdAt: event.block.timestamp,
    updatedBlock: event.block.number,
  });
});

on("Engine:MarginUpdated", async ({ event, context }) => {
  const a = event.args;
  const change = {
    accountId: a.accountId,
    marketId: a.marketId,
    reason: enumName(MARGIN_REASONS, a.reason),
    deltaAvailableWad: a.deltaAvailableWad,
    deltaCommittedWad: a.deltaCommittedWad,
    amount6: a.amount6,
  };
  await applyMargin(context, event, change, { availableWad: a.availableWad, committedWad: a.committedWad });
});

on("Engine:OperatorSet", async ({ event, context }) => {
  const { owner, operator, expiry, maxLeverage, bandBps, budgetBps, bySignature } = event.args;
  const values = { expiry: BigInt(expiry), maxLeverage, bandBps, budgetBps, bySignature, updatedBlock: event.block.number };
  await context.db
    .insert(operatorApproval)
    .values({ owner, operator, ...values, budgetUsedWad: 0n, budgetWad: 0n, budgetAt: 0n })
    .onConflictDoUpdate(values);
});

/** An operator's budget use after a charge (an order it placed); a release (its cancel) emits nothing, so the row may overstate the use until the next charge. */
on("Engine:OperatorBudgetUsed", async ({ event, context }) => {
  const { owner, operator, usedWad, budgetWad } = event.args;
  const values = { budgetUsedWad: usedWad, budgetWad, budgetAt: event.block.timestamp, updatedBlock: event.block.number };
  // an OperatorSet always came first (only an approved operator is charged)
  await context.db.update(operatorApproval, { owner, operator }).set(values);
});

const FUND = "venue";
const ZERO_ID = `0x${"00".repeat(32)}`;

on("Engine:VenueBalancesUpdated", async ({ event, context }) => {
  const { seq, marketId, insuranceFundWad, feesWad, badDebtWad, marketPoolWad } = event.args;
  const values = { insuranceFundWad, feesWad, badDebtWad, marketPoolWad, updatedBlock: event.block.number };
  await context.db.insert(venueBalance).values({ marketId, ...values }).onConflictDoUpdate(values);
  const fund = await context.db.find(insuranceFund, { id: FUND });
  const before = fund?.balanceWad ?? 0n;
  const state = { balanceWad: insuranceFundWad, feesWad, badDebtWad, updatedBlock: event.block.number };
  await context.db
    .insert(insuranceFund)
    .values({ id: FUND, donatedWad: 0n, feesWithdrawnWad: 0n, ...state })
    .onConflictDoUpdate(state);
  // donations are recorded by InsuranceDonated (emitted just before, with the donor)
  if (insuranceFundWad !== before && marketId !== ZERO_ID) {
    await context.db.insert(insuranceFundEvent).values({
      id: event.id,
      seq: BigInt(seq),
      kind: "CHANGE",
      marketId,
      donor: null,
      deltaWad: insuranceFundWad - before,
      balanceWad: insuranceFundWad,
      blockNumber: event.block.number,
      logIndex: event.log.logIndex,
      timestamp: event.block.timestamp,
      transactionHash: event.transaction.hash,
    });
  }
});

on("Engine:InsuranceDonated", async ({ event, context }) => {
  const { seq, donor, amount6, insuranceFundWad } = event.args;
  const wad = toWad(amount6);
  await context.db.insert(insuranceFundEvent).values({
    id: event.id,
    seq: BigInt(seq),
    kind: "DONATION",
    marketId: null,
    donor,
    deltaWad: wad,
    balanceWad: insuranceFundWad,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
  await context.db
    .insert(insuranceFund)
    .values({ id: FUND, balanceWad: insuranceFundWad, donatedWad: wad, feesWad: 0n, feesWithdrawnWad: 0n, badDebtWad: 0n, updatedBlock: event.block.number })
    .onConflictDoUpdate((r) => ({ balanceWad: insuranceFundWad, donatedWad: r.donatedWad + wad, updatedBlock: event.block.number }));
});

on("Engine:FeesWithdrawn", async ({ event, context }) => {
  const { seq, to, amount6, feesWad } = event.args;
  await context.db.insert(feeWithdrawalEvent).values({
    id: event.id,
    seq: BigInt(seq),
    to,
    amount6,
    feesWad,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
  const wad = toWad(amount6);
  await context.db
    .insert(insuranceFund)
    .values({ id: FUND, balanceWad: 0n, donatedWad: 0n, feesWad, feesWithdrawnWad: wad, badDebtWad: 0n, updatedBlock: event.block.number })
    .onConflictDoUpdate((r) => ({ feesWad, feesWithdrawnWad: r.feesWithdrawnWad + wad, updatedBlock: event.block.number }));
});

on("Engine:NonceInvalidated", async ({ event, context }) => {
  const { owner, nonce } = event.args;
  const values = { nonce, updatedBlock: event.block.number };
  await context.db.insert(operatorNonce).values({ owner, ...values }).onConflictDoUpdate(values);
});

on("Engine:LiquidationSkipped", async ({ event, context }) => {
  const { seq, accountId, marketId, reason } = event.args;
  await context.db.insert(liquidationSkipEvent).values({
    id: event.id,
    seq: BigInt(seq),
    accountId,
    marketId,
    reason,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});

/** The account's dead-man deadline (0 = off): past it anyone may cancel its open orders (the keeper does). */
on("Engine:DeadmanSet", async ({ event, context }) => {
  const { accountId, deadline } = event.args;
  await context.db.update(account, { accountId }).set({ deadman: BigInt(deadline), updatedBlock: event.block.number });
});
