/** Engine events: accounts, margin, operators, venue balances. */
import { on } from "./on";
import { account, marginUpdateEvent, operatorApproval, venueBalance } from "ponder:schema";
import { MARGIN_REASONS, enumName } from "./store";

on("Engine:AccountCreated", async ({ event, context }) => {
  const { accountId, owner, accountAddress } = event.args;
  await context.db.insert(account).values({
    accountId,
    owner,
    accountAddress,
    availableWad: 0n,
    committedWad: 0n,
    totalWad: 0n,
    createdBlock: event.block.number,
    createdAt: event.block.timestamp,
    updatedBlock: event.block.number,
  });
});

on("Engine:MarginUpdated", async ({ event, context }) => {
  const a = event.args;
  await context.db.insert(marginUpdateEvent).values({
    id: event.id,
    seq: BigInt(a.seq),
    accountId: a.accountId,
    marketId: a.marketId,
    reason: enumName(MARGIN_REASONS, a.reason),
    deltaAvailableWad: a.deltaAvailableWad,
    deltaCommittedWad: a.deltaCommittedWad,
    amount6: a.amount6,
    availableWad: a.availableWad,
    committedWad: a.committedWad,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
  // post-state values: the event says what the margin is now
  await context.db.update(account, { accountId: a.accountId }).set({
    availableWad: a.availableWad,
    committedWad: a.committedWad,
    totalWad: a.availableWad + a.committedWad,
    updatedBlock: event.block.number,
  });
});

on("Engine:OperatorSet", async ({ event, context }) => {
  const { owner, operator, expiry, bySignature } = event.args;
  const values = { expiry: BigInt(expiry), bySignature, updatedBlock: event.block.number };
  await context.db.insert(operatorApproval).values({ owner, operator, ...values }).onConflictDoUpdate(values);
});

on("Engine:VenueBalancesUpdated", async ({ event, context }) => {
  const { marketId, insuranceFundWad, feesWad, badDebtWad, marketPoolWad } = event.args;
  const values = { insuranceFundWad, feesWad, badDebtWad, marketPoolWad, updatedBlock: event.block.number };
  await context.db.insert(venueBalance).values({ marketId, ...values }).onConflictDoUpdate(values);
});
