/**
 * Every write the relayer performs, one entry per kind: its lane (writes on one account run one
 * at a time), the checks made before sending (the spec's error table), the contract call, and the
 * response data read from the receipt's logs.
 */
import {
  decodeFunctionResult, encodeFunctionData, getAbiItem, getAddress, parseEventLogs, RawContractError, toFunctionSelector, zeroHash,
  type AbiFunction, type Address, type Hex, type Log, type TransactionReceipt,
} from "viem";
import { engineAbi, depositTokenAbi, marketAbi, triggerBookAbi } from "../../abis/index.js";
import { ApiError } from "../../core/errors.js";
import { formatAmount6, formatWad, toWad } from "../../core/units.js";
import { ORDER_TYPE_NAME, ORDER_TYPE_VALUE, SIDE_NAME, SIDE_VALUE } from "../../core/schemas/writes.js";
import { VENUE_ABI, type Chain } from "./chain.js";
import type { OperatorPolicy } from "../../core/operator-policy.js";
import { policyOf } from "../../core/schemas/writes.js";
import { MAX_BATCH_ITEMS, MIN_DEADMAN_DELAY_S } from "../../core/schemas/writes.js";
import { revertToApiError } from "../../core/chain/revert.js";
import { TIME_IN_FORCE_NAME, TIME_IN_FORCE_VALUE, appliedTimeInForce, expiryProblem, type TimeInForceName } from "../../core/order-options.js";
import { orderQuantity } from "../../core/math/orders.js";
import { deadmanAnswer } from "../../core/reads/responses.js";
import { cancelOrdersRequest } from "../../core/chain/cancel-orders.js";
import { batchOutcome, type BatchItemOutcome } from "../../core/chain/batch-outcome.js";
import { triggerResponse } from "../../core/reads/responses.js";
import { TRIGGER_END_NAME, TRIGGER_KIND_NAME, triggerId, triggerKindValue, triggerSideProblem, type TriggerKindName } from "../../core/triggers.js";

export type Kind =
  | "createAccount"
  | "deposit"
  | "withdraw"
  | "placeOrder"
  | "cancelOrder"
  | "modifyOrder"
  | "closePosition"
  | "adjustMargin"
  | "liquidatePosition"
  | "liquidateAccount"
  | "approveOperator"
  | "setDeadman"
  | "cancelAll"
  | "batchOrders"
  | "setTrigger"
  | "cancelTrigger";

/** Stored parameters of each kind (decimal strings, as validated). */
export type Params = {
  createAccount: { userAddress: Address };
  deposit: { accountId: string; amount: string };
  withdraw: { accountId: string; amount: string };
  placeOrder: {
    accountId: string; marketId: Hex; collateralAmount: string; side: "LONG" | "SHORT"; leverage: number;
    orderType: "MARKET" | "LIMIT"; limitPrice?: string; clientKey: Hex;
    /** Market v2 options, stored only when the request gave them (absent: GTC, false, none) */
    timeInForce?: TimeInForceName; reduceOnly?: boolean; expiresAt?: string;
  };
  cancelOrder: { accountId: string; marketId: Hex; clientKey: Hex };
  /** by orderId or by clientKey (exactly one); price 18 decimals, quantity the new remaining size */
  modifyOrder: { accountId: string; marketId: Hex; orderId?: string; clientKey?: Hex; price: string; quantity: string };
  closePosition: { accountId: string; marketId: Hex; orderType: "MARKET" | "LIMIT"; limitPrice?: string; clientKey: Hex };
  adjustMargin: { accountId: string; marketId: Hex; action: "ADD" | "REMOVE"; amount: string };
  liquidatePosition: { accountId: string; marketId: Hex; adlCandidates?: string[] };
  liquidateAccount: { accountId: string };
  approveOperator: { owner: Address; operator: Address; expiry: string; deadline: string; signature: Hex } & OperatorPolicy;
  /** deadline: unix seconds (chain time), "0" = off */
  setDeadman: { accountId: string; deadline: string };
  /** every open order of the account (of `marketId` when given), read from the index when the write's turn comes */
  cancelAll: { accountId: string; marketId?: Hex };
  batchOrders: { accountId: string; atomic: boolean; items: BatchItemParams[] };
  /** a position's take-profit or stop-loss (TriggerBook.setTrigger); prices 18 decimals, limitPrice only for LIMIT */
  setTrigger: { accountId: string; marketId: Hex; kind: TriggerKindName; triggerPrice: string; orderType: "MARKET" | "LIMIT"; limitPrice?: string; oco: boolean };
  cancelTrigger: { accountId: string; marketId: Hex; kind: TriggerKindName };
};

/** One item of a batch as stored: a place (the placeOrder params, clientKey always set), a cancel or a modify (the modifyOrder params). */
export type BatchItemParams =
  | ({ action: "PLACE" } & Params["placeOrder"])
  | { action: "CANCEL"; accountId: string; marketId: Hex; clientKey?: Hex; orderId?: string }
  | ({ action: "MODIFY" } & Params["modifyOrder"]);

export type Call = { to: Address; data: Hex };
/** Success status of each kind (the spec's). */
export const SUCCESS_STATUS: Record<Kind, 200 | 201> = {
  createAccount: 201,
  deposit: 200,
  withdraw: 200,
  placeOrder: 201,
  cancelOrder: 200,
  modifyOrder: 200,
  closePosition: 201,
  adjustMargin: 200,
  liquidatePosition: 200,
  liquidateAccount: 200,
  approveOperator: 200,
  setDeadman: 200,
  cancelAll: 200,
  batchOrders: 200,
  setTrigger: 200,
  cancelTrigger: 200,
};

type Op<K extends Kind> = {
  lane: (p: Params[K]) => string;
  /** Throws the spec's ApiError when the write cannot succeed. `caller` is the authenticated wallet. */
  precheck: (chain: Chain, caller: Address, p: Params[K]) => Promise<void>;
  call: (chain: Chain, p: Params[K]) => Promise<Call>;
  result: (chain: Chain, p: Params[K], logs: Log[], receipt?: TransactionReceipt) => Promise<Record<string, unknown>>;
  /** The result's fields known before mining (a 202 answers them), every other one null. */
  pending: (p: Params[K]) => Record<string, unknown>;
  /** The gas limit to sign with, given the simulation's (estimate × 1.25 + 25k); default: that one. */
  gas?: (chain: Chain, p: Params[K], call: Call, gasLimit: bigint) => Promise<bigint>;
  /** A MARKET order or a close: its default validUntil is VALID_FOR_MARKET_S (else VALID_FOR_OTHER_S). */
  urgent?: (p: Params[K]) => boolean;
};

/**
 * Checks made before a write is queued: the caller owns the account and approved the relayer
 * (cached reads). A stranger's writes are refused here and never occupy an owner's lane.
 */
export async function authorize(kind: Kind, chain: Chain, caller: Address, params: unknown): Promise<void> {
  const p = params as { accountId?: string; userAddress?: Address };
  switch (kind) {
    case "createAccount":
      if (!same(caller, p.userAddress!)) throw new ApiError("UNAUTHORIZED", "userAddress must be the caller's own wallet");
      return;
    case "placeOrder":
      await ownerActs(chain, caller, p.accountId!);
      checkExpiry(chain, (params as Params["placeOrder"]).expiresAt);
      return;
    case "deposit":
    case "withdraw":
    case "cancelOrder":
    case "modifyOrder":
    case "closePosition":
    case "adjustMargin":
    case "setDeadman":
    case "cancelAll":
    case "batchOrders":
    case "setTrigger":
    case "cancelTrigger":
      await ownerActs(chain, caller, p.accountId!);
      return;
    case "liquidatePosition":
    case "liquidateAccount":
      await chain.ownerOf(p.accountId!); // ACCOUNT_NOT_FOUND before queueing
      return;
    case "approveOperator":
      return;
  }
}

const orderPending = (p: { clientKey: Hex; marketId: Hex; orderType: string; limitPrice?: string }) => ({
  clientKey: p.clientKey, orderId: null, marketId: p.marketId, size: null, sizeFormatted: null, orderType: p.orderType, status: null,
  price: p.limitPrice ?? null, priceFormatted: p.limitPrice !== undefined ? formatWad(BigInt(p.limitPrice)) : null,
  filledQuantity: null, filledQuantityFormatted: null, orderStatus: null,
});

/** The order's echo of its options: the time in force the market applies (a MARKET's GTC is IOC), reduce-only, the expiry (null: none). */
const optionsPending = (p: Params["placeOrder"]) => ({
  timeInForce: appliedTimeInForce(p.orderType, p.timeInForce),
  reduceOnly: p.reduceOnly === true || BigInt(p.collateralAmount) === 0n,
  expiresAt: p.expiresAt !== undefined ? Number(p.expiresAt) : null,
});

/** An expiry not after the chain's time (its head): 400 VALIDATION_ERROR naming the field, nothing queued or sent. */
function checkExpiry(chain: Chain, expiresAt: string | undefined) {
  const bad = expiryProblem(expiresAt, chain.nowSeconds());
  if (bad) throw new ApiError("VALIDATION_ERROR", `expiresAt: ${bad}`, { field: "expiresAt" });
}

/**
 * A FOK reduce-only order sized beyond the position would revert ReduceOnlyExceedsPosition: its
 * quantity as Market._sizeAndCommit sizes it (collateral × leverage / price, down to the lot; a
 * MARKET order at the best opposite price), against |position|. NO_POSITION for none, or one on
 * the order's own side.
 */
async function checkReduceOnly(chain: Chain, p: Params["placeOrder"], m: { address: Address; symbol: string }) {
  if (p.reduceOnly !== true || BigInt(p.collateralAmount) === 0n) return;
  const pos = await openPosition(chain, p.accountId, p.marketId);
  if ((pos.sizeQty > 0n) === (p.side === "LONG"))
    throw new ApiError("NO_POSITION", `a reduce-only ${p.side} order needs a ${p.side === "LONG" ? "short" : "long"} position in ${m.symbol}`);
  if (p.timeInForce !== "FOK") return;
  const params = await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "params" });
  let price = p.orderType === "LIMIT" ? BigInt(p.limitPrice ?? "0") : 0n;
  if (p.orderType === "MARKET") {
    // the best opposite price (getLevels' first): the sizing price of a MARKET order
    const [prices] = await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "getLevels", args: [p.side === "LONG" ? 1 : 0, 1n] });
    price = prices[0] ?? 0n;
    if (price === 0n) return; // NO_LIQUIDITY: the simulation says so
  }
  const qty = orderQuantity(toWad(BigInt(p.collateralAmount)), BigInt(p.leverage), price, params.lotSizeQty);
  const size = pos.sizeQty < 0n ? -pos.sizeQty : pos.sizeQty;
  if (qty > size)
    throw new ApiError("REDUCE_ONLY_EXCEEDS_POSITION", `the fill-or-kill reduce-only order's quantity ${formatWad(qty)} is larger than the position ${formatWad(size)} in ${m.symbol}`, { field: "collateralAmount" });
}

const ZERO_ADDRESS = /^0x0{40}$/i;
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

async function accountOf(chain: Chain, accountId: string) {
  try {
    const a = await chain.client.readContract({ address: chain.engine, abi: engineAbi, functionName: "getAccount", args: [BigInt(accountId)] });
    if (a.accountId === 0n || ZERO_ADDRESS.test(a.owner)) throw new ApiError("ACCOUNT_NOT_FOUND", `account ${accountId} does not exist`);
    return a;
  } catch (e) {
    if (e instanceof ApiError) throw e;
    // getAccount reverts AccountNotFound for unknown ids
    throw new ApiError("ACCOUNT_NOT_FOUND", `account ${accountId} does not exist`);
  }
}

/**
 * The caller owns the account and has approved the relayer as its operator (cached reads: an
 * owner never changes, an approval is re-read after APPROVAL_CACHE_MS). Returns the owner.
 * Runs before a write is queued (a stranger's writes never reach an owner's lane) and again in
 * the lane (an approval may have been revoked meanwhile).
 */
export async function ownerActs(chain: Chain, caller: Address, accountId: string): Promise<Address> {
  const owner = await chain.ownerOf(accountId);
  if (!same(owner, caller)) throw new ApiError("UNAUTHORIZED", `caller ${getAddress(caller)} is not the owner of account ${accountId}`);
  if ((await chain.operatorExpiry(owner)) <= chain.nowSeconds())
    throw new ApiError("OPERATOR_NOT_APPROVED", `the owner ${owner} has not approved the relayer ${chain.account.address} as operator (GET /operators/typed-data)`);
  return owner;
}

/** The account's position in the market (`NO_POSITION` when it has none). */
async function openPosition(chain: Chain, accountId: string, marketId: Hex) {
  const m = await chain.market(marketId);
  const pos = await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "getPosition", args: [BigInt(accountId)] });
  if (pos.sizeQty === 0n) throw new ApiError("NO_POSITION", `account ${accountId} has no open position in ${m.symbol}`);
  return pos;
}

/** The market, unless it is paused and the order is not reduce-only (a paused market takes reduce-only orders: docs/CONTRACTS.md "Market status"). */
async function activeMarket(chain: Chain, marketId: Hex, reduceOnly: boolean) {
  const m = await chain.market(marketId);
  if (reduceOnly) return m;
  const active = await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "isActive" });
  if (!active) throw new ApiError("MARKET_NOT_ACTIVE", `market ${m.symbol} is paused: it takes only reduce-only orders and closes`);
  return m;
}

/**
 * A modify's new price and size against the market's rules, as `MarketOrders._checkModify` checks
 * them (the single write's and an atomic batch's MODIFY item before sending; a failed item of a
 * non-atomic batch, for its code): on the tick (INVALID_PRICE), in lots
 * (VALIDATION_ERROR), at least the minimum unless reduce-only (ORDER_TOO_SMALL). The band, the
 * crossing and the position cap are the simulation's.
 */
async function checkModify(chain: Chain, p: { marketId: Hex; price: string; quantity: string }, reduceOnly: boolean) {
  const m = await chain.market(p.marketId);
  const params = await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "params" });
  const price = BigInt(p.price);
  if (price === 0n || price % params.tickSizeX18 !== 0n)
    throw new ApiError("INVALID_PRICE", `price ${formatWad(price)} is not on ${m.symbol}'s tick ${formatWad(params.tickSizeX18)}`, { field: "price" });
  const qty = BigInt(p.quantity);
  if (qty === 0n || qty % params.lotSizeQty !== 0n)
    throw new ApiError("VALIDATION_ERROR", `quantity: ${formatWad(qty)} is not a positive multiple of ${m.symbol}'s lot ${formatWad(params.lotSizeQty)}`, { field: "quantity" });
  if (!reduceOnly && qty < params.minOrderQty)
    throw new ApiError("ORDER_TOO_SMALL", `quantity ${formatWad(qty)} is below ${m.symbol}'s minimum ${formatWad(params.minOrderQty)}`, { field: "quantity" });
}

/**
 * An atomic batch's CANCEL and MODIFY items, checked in order before anything is sent, as their
 * single writes check them: the order is the account's open one (by id or key; not expired, for a
 * modify), and a modify's price and size keep the market's rules (`checkModify`). What earlier
 * items do is followed: an order a PLACE item gives a client key may be cancelled or modified
 * by a later item (its size rules by that item's reduceOnly), an order an earlier CANCEL took is
 * gone. The first failing item answers its single write's code, its message naming the item
 * (`items.<index> (<action>)`). What depends on the book (crossing, band, cap, margin) is the
 * simulation's, which runs next on the whole batch.
 */
async function precheckBatchItems(chain: Chain, items: readonly BatchItemParams[]) {
  const keyOf = (marketId: Hex, what: string) => `${marketId.toLowerCase()}:${what.toLowerCase()}`;
  const placed = new Map<string, { reduceOnly: boolean }>(); // market:clientKey of PLACE items so far (not cancelled since)
  const gone = new Set<string>(); // market:clientKey and market:#orderId taken by CANCEL items so far
  for (const [i, item] of items.entries()) {
    try {
      if (item.action === "PLACE") {
        placed.set(keyOf(item.marketId, item.clientKey), { reduceOnly: item.reduceOnly === true });
        gone.delete(keyOf(item.marketId, item.clientKey));
        continue;
      }
      const m = await chain.market(item.marketId);
      const byKey = item.clientKey !== undefined ? keyOf(item.marketId, item.clientKey) : undefined;
      const named = item.clientKey !== undefined ? `clientKey ${item.clientKey}` : `id ${item.orderId}`;
      const missing = () => new ApiError("ORDER_NOT_FOUND", `no open order with ${named} of account ${item.accountId} in ${m.symbol}`);
      const earlier = byKey !== undefined ? placed.get(byKey) : undefined;
      if (byKey !== undefined && earlier === undefined && gone.has(byKey)) throw missing();
      if (item.orderId !== undefined && gone.has(keyOf(item.marketId, `#${item.orderId}`))) throw missing();
      let reduceOnly: boolean;
      if (earlier) {
        // placed by an earlier item: its id is not known before mining
        reduceOnly = earlier.reduceOnly;
      } else {
        const o = await openOrderOf(chain, item);
        if (item.action === "MODIFY" && o.expiresAt !== 0n && o.expiresAt <= chain.nowSeconds()) throw missing();
        reduceOnly = o.reduceOnly;
        if (item.action === "CANCEL") gone.add(keyOf(item.marketId, `#${o.orderId}`));
      }
      if (item.action === "CANCEL") {
        if (byKey !== undefined) {
          placed.delete(byKey);
          gone.add(byKey);
        }
        continue;
      }
      await checkModify(chain, item, reduceOnly);
    } catch (e) {
      if (e instanceof ApiError) {
        const field = e.details?.field;
        throw new ApiError(e.code, `items.${i} (${item.action}): ${e.message}`, { ...e.details, field: `items.${i}${typeof field === "string" ? `.${field}` : ""}` });
      }
      throw e;
    }
  }
}

/** The account's open order in the market named by id or by client key, as the chain has it (ORDER_NOT_FOUND otherwise). */
async function openOrderOf(chain: Chain, p: { accountId: string; marketId: Hex; orderId?: string; clientKey?: Hex }) {
  const m = await chain.market(p.marketId);
  const named = p.clientKey ? `clientKey ${p.clientKey}` : `id ${p.orderId}`;
  const id = p.clientKey
    ? await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "orderIdOf", args: [BigInt(p.accountId), p.clientKey] })
    : BigInt(p.orderId ?? "0");
  const o = id === 0n ? null : await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "getOrder", args: [id] });
  // status 1: ACTIVE (resting); an order of another account is not the caller's to name
  if (!o || Number(o.status) !== 1 || o.accountId !== BigInt(p.accountId))
    throw new ApiError("ORDER_NOT_FOUND", `no open order with ${named} of account ${p.accountId} in ${m.symbol}`);
  return o;
}

const engineCall = (chain: Chain, data: Hex): Call => ({ to: chain.engine, data });
/** The relayer's one other target: the trigger book (setTrigger, cancelTrigger only; the engine checks the relayer is the owner's operator). */
const triggerBookCall = (chain: Chain, data: Hex): Call => ({ to: chain.triggerBook, data });
const decode = (logs: Log[]) => parseEventLogs({ abi: VENUE_ABI, logs }) as unknown as Array<{ eventName: string; address: Address; args: Record<string, any> }>;

function marginEvent(logs: Log[], accountId: string, reason: number) {
  const ev = decode(logs).find((l) => l.eventName === "MarginUpdated" && l.args.accountId === BigInt(accountId) && Number(l.args.reason) === reason);
  if (!ev) throw new Error("receipt has no MarginUpdated event");
  return ev.args as { amount6: bigint; availableWad: bigint; committedWad: bigint };
}

const MARGIN_REASON = { DEPOSIT: 0, WITHDRAW: 1, POSITION_MARGIN: 6 } as const;

export const OPS: { [K in Kind]: Op<K> } = {
  createAccount: {
    lane: (p) => `owner:${p.userAddress.toLowerCase()}`,
    // ACCOUNT_EXISTS comes from the simulation (AccountExists), which runs right after.
    async precheck(_chain, caller, p) {
      if (!same(caller, p.userAddress)) throw new ApiError("UNAUTHORIZED", "userAddress must be the caller's own wallet");
    },
    pending: (p) => ({ accountId: null, accountAddress: null, owner: getAddress(p.userAddress) }),
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({ abi: engineAbi, functionName: "createAccount", args: [p.userAddress] })),
    async result(_chain, p, logs) {
      const ev = decode(logs).find((l) => l.eventName === "AccountCreated" && same(l.args.owner, p.userAddress));
      if (!ev) throw new Error("receipt has no AccountCreated event");
      return { accountId: Number(ev.args.accountId), accountAddress: getAddress(ev.args.accountAddress), owner: getAddress(ev.args.owner) };
    },
  },

  deposit: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      const owner = await ownerActs(chain, caller, p.accountId);
      const amount = BigInt(p.amount);
      const [balance, allowance] = await Promise.all([
        chain.client.readContract({ address: chain.depositToken, abi: depositTokenAbi, functionName: "balanceOf", args: [owner] }),
        chain.client.readContract({ address: chain.depositToken, abi: depositTokenAbi, functionName: "allowance", args: [owner, chain.engine] }),
      ]);
      if (balance < amount) throw new ApiError("INSUFFICIENT_BALANCE", `the owner holds ${formatAmount6(balance)} of the deposit token, needs ${formatAmount6(amount)}`);
      if (allowance < amount) throw new ApiError("INSUFFICIENT_ALLOWANCE", `the engine may spend ${formatAmount6(allowance)} of the owner's deposit token, needs ${formatAmount6(amount)}`);
    },
    pending: (p) => ({
      accountId: Number(p.accountId), depositedAmount: p.amount, depositedAmountFormatted: formatAmount6(BigInt(p.amount)),
      newAvailableMargin: null, newAvailableMarginFormatted: null,
    }),
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({ abi: engineAbi, functionName: "deposit", args: [BigInt(p.accountId), BigInt(p.amount)] })),
    async result(_chain, p, logs) {
      const ev = marginEvent(logs, p.accountId, MARGIN_REASON.DEPOSIT);
      return {
        accountId: Number(p.accountId),
        depositedAmount: ev.amount6.toString(),
        depositedAmountFormatted: formatAmount6(ev.amount6),
        newAvailableMargin: ev.availableWad.toString(),
        newAvailableMarginFormatted: formatWad(ev.availableWad),
      };
    },
  },

  withdraw: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      const acct = await accountOf(chain, p.accountId);
      const needed = toWad(BigInt(p.amount));
      if (acct.availableWad < needed)
        throw new ApiError("INSUFFICIENT_MARGIN", `available margin ${formatWad(acct.availableWad)} is below ${formatWad(needed)}`);
    },
    pending: (p) => ({
      accountId: Number(p.accountId), withdrawnAmount: p.amount, withdrawnAmountFormatted: formatAmount6(BigInt(p.amount)),
      newAvailableMargin: null, newAvailableMarginFormatted: null,
    }),
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({ abi: engineAbi, functionName: "withdraw", args: [BigInt(p.accountId), BigInt(p.amount)] })),
    async result(_chain, p, logs) {
      const ev = marginEvent(logs, p.accountId, MARGIN_REASON.WITHDRAW);
      return {
        accountId: Number(p.accountId),
        withdrawnAmount: ev.amount6.toString(),
        withdrawnAmountFormatted: formatAmount6(ev.amount6),
        newAvailableMargin: ev.availableWad.toString(),
        newAvailableMarginFormatted: formatWad(ev.availableWad),
      };
    },
  },

  placeOrder: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      const acct = await accountOf(chain, p.accountId);
      checkExpiry(chain, p.expiresAt);
      // collateral 0: the whole position, reduce-only (the spec's)
      const m = await activeMarket(chain, p.marketId, p.reduceOnly === true || BigInt(p.collateralAmount) === 0n);
      if (p.leverage < 1 || BigInt(p.leverage) > m.maxLeverage)
        throw new ApiError("EXCEEDS_MAX_LEVERAGE", `leverage must be between 1 and ${m.maxLeverage} on ${m.symbol}`);
      await checkReduceOnly(chain, p, m);
      // a reduce-only order commits no margin (its collateral only sizes it)
      const needed = p.reduceOnly === true ? 0n : toWad(BigInt(p.collateralAmount));
      if (acct.availableWad < needed)
        throw new ApiError("INSUFFICIENT_MARGIN", `available margin ${formatWad(acct.availableWad)} is below the collateral ${formatWad(needed)}`);
      const open = await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "orderIdOf", args: [BigInt(p.accountId), p.clientKey] });
      if (open !== 0n) throw new ApiError("CLIENT_KEY_IN_USE", `order ${open} is open with clientKey ${p.clientKey}`);
    },
    pending: (p) => ({ ...orderPending(p), side: p.side, ...optionsPending(p) }),
    urgent: (p) => p.orderType === "MARKET",
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({
        abi: engineAbi, functionName: "placeOrder",
        args: [{
          accountId: BigInt(p.accountId), marketId: p.marketId, side: SIDE_VALUE[p.side], orderType: ORDER_TYPE_VALUE[p.orderType],
          collateral6: BigInt(p.collateralAmount), leverage: BigInt(p.leverage),
          limitPriceX18: p.orderType === "LIMIT" ? BigInt(p.limitPrice ?? "0") : 0n, clientKey: p.clientKey,
          timeInForce: TIME_IN_FORCE_VALUE[p.timeInForce ?? "GTC"], reduceOnly: p.reduceOnly === true, expiresAt: BigInt(p.expiresAt ?? "0"),
        }],
      })),
    async result(chain, p, logs) {
      const m = await chain.market(p.marketId);
      const events = decode(logs).filter((l) => same(l.address, m.address));
      const placed = events.find((l) => l.eventName === "OrderPlaced" && l.args.accountId === BigInt(p.accountId));
      if (!placed) throw new Error("receipt has no OrderPlaced event");
      return orderData(p.marketId, placed.args, events, p.orderType, { sideKey: "side" });
    },
  },

  cancelOrder: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      const m = await chain.market(p.marketId);
      const open = await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "orderIdOf", args: [BigInt(p.accountId), p.clientKey] });
      if (open === 0n) throw new ApiError("ORDER_NOT_FOUND", `no open order with clientKey ${p.clientKey} in ${m.symbol}`);
    },
    pending: (p) => ({
      clientKey: p.clientKey, orderId: null, marketId: p.marketId, marginReturned: null, marginReturnedFormatted: null,
      cancelledQuantity: null, filledQuantity: null,
    }),
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({ abi: engineAbi, functionName: "cancelOrder", args: [BigInt(p.accountId), p.marketId, p.clientKey] })),
    async result(chain, p, logs) {
      const m = await chain.market(p.marketId);
      const ev = decode(logs).find((l) => l.eventName === "OrderCancelled" && same(l.address, m.address) && l.args.accountId === BigInt(p.accountId));
      if (!ev) throw new Error("receipt has no OrderCancelled event");
      return cancelData(p.marketId, p.clientKey, ev.args);
    },
  },

  // Market v2 (docs/CONTRACTS.md "Modify"): the order is the account's open one, the price on the
  // tick, the size in lots and at least the minimum (a reduce-only order: any); the band, the
  // crossing (POST_ONLY_WOULD_CROSS) and the position cap come from the simulation.
  modifyOrder: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      const o = await openOrderOf(chain, p);
      await checkModify(chain, p, o.reduceOnly);
    },
    pending: (p) => ({
      orderId: p.orderId ?? null, clientKey: p.clientKey ?? null, marketId: p.marketId,
      price: p.price, priceFormatted: formatWad(BigInt(p.price)), originalQuantity: null, originalQuantityFormatted: null,
      remainingQuantity: p.quantity, remainingQuantityFormatted: formatWad(BigInt(p.quantity)),
      marginRemaining: null, marginRemainingFormatted: null, fromPrice: null, fromPriceFormatted: null,
    }),
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({
        abi: engineAbi, functionName: "modifyOrder",
        args: [BigInt(p.accountId), p.marketId, BigInt(p.orderId ?? "0"), p.clientKey ?? zeroHash, BigInt(p.price), BigInt(p.quantity)],
      })),
    async result(chain, p, logs) {
      const m = await chain.market(p.marketId);
      const ev = decode(logs).find((l) => l.eventName === "OrderModified" && same(l.address, m.address) && l.args.accountId === BigInt(p.accountId));
      if (!ev) throw new Error("receipt has no OrderModified event");
      return modifyData(p, ev.args);
    },
  },

  closePosition: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      await openPosition(chain, p.accountId, p.marketId);
    },
    pending: (p) => ({ ...orderPending(p), closingSide: null, timeInForce: appliedTimeInForce(p.orderType, undefined), reduceOnly: true, expiresAt: null }),
    urgent: () => true,
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({
        abi: engineAbi, functionName: "closePosition",
        args: [BigInt(p.accountId), p.marketId, ORDER_TYPE_VALUE[p.orderType], p.orderType === "LIMIT" ? BigInt(p.limitPrice ?? "0") : 0n, p.clientKey],
      })),
    async result(chain, p, logs) {
      const m = await chain.market(p.marketId);
      const events = decode(logs).filter((l) => same(l.address, m.address));
      const placed = events.find((l) => l.eventName === "OrderPlaced" && l.args.accountId === BigInt(p.accountId));
      if (!placed) throw new Error("receipt has no OrderPlaced event");
      return orderData(p.marketId, placed.args, events, p.orderType, { sideKey: "closingSide" });
    },
  },

  // Isolated margin (docs/CONTRACTS.md "Position margin"): the chain decides what a removal may
  // take (initial margin at the mark, funding settled first); the checks here only spare a
  // transaction that cannot succeed.
  adjustMargin: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      const pos = await openPosition(chain, p.accountId, p.marketId);
      const amount = toWad(BigInt(p.amount));
      if (p.action === "ADD") {
        const acct = await accountOf(chain, p.accountId);
        if (acct.availableWad < amount)
          throw new ApiError("INSUFFICIENT_MARGIN", `available margin ${formatWad(acct.availableWad)} is below ${formatWad(amount)}`);
      } else if (pos.marginWad < amount) {
        throw new ApiError("INSUFFICIENT_MARGIN", `the position's margin ${formatWad(pos.marginWad)} is below ${formatWad(amount)}`);
      }
    },
    pending: (p) => ({
      accountId: Number(p.accountId), marketId: p.marketId, action: p.action, amount: p.amount, amountFormatted: formatAmount6(BigInt(p.amount)),
      positionMargin: null, positionMarginFormatted: null, newAvailableMargin: null, newAvailableMarginFormatted: null,
    }),
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({
        abi: engineAbi, functionName: "movePositionMargin",
        args: [BigInt(p.accountId), p.marketId, p.action === "ADD" ? BigInt(p.amount) : -BigInt(p.amount)],
      })),
    async result(chain, p, logs) {
      const m = await chain.market(p.marketId);
      const margin = marginEvent(logs, p.accountId, MARGIN_REASON.POSITION_MARGIN);
      const pos = decode(logs).find((l) => l.eventName === "PositionUpdated" && same(l.address, m.address) && l.args.accountId === BigInt(p.accountId));
      if (!pos) throw new Error("receipt has no PositionUpdated event");
      return {
        accountId: Number(p.accountId),
        marketId: p.marketId,
        action: p.action,
        amount: p.amount,
        amountFormatted: formatAmount6(BigInt(p.amount)),
        positionMargin: (pos.args.marginWad as bigint).toString(),
        positionMarginFormatted: formatWad(pos.args.marginWad),
        newAvailableMargin: margin.availableWad.toString(),
        newAvailableMarginFormatted: formatWad(margin.availableWad),
      };
    },
  },

  // Liquidations run outside the owner's lane: a flood of them never delays the owner's own close.
  liquidatePosition: {
    lane: (p) => `liquidation:${p.accountId}`,
    async precheck(chain, _caller, p) {
      await accountOf(chain, p.accountId);
      await chain.market(p.marketId);
    },
    pending: (p) => ({ accountId: Number(p.accountId), marketId: p.marketId, liquidations: null }),
    call: async (chain, p) =>
      engineCall(
        chain,
        p.adlCandidates?.length
          ? encodeFunctionData({ abi: engineAbi, functionName: "liquidatePositionRanked", args: [BigInt(p.accountId), p.marketId, p.adlCandidates.map(BigInt)] })
          : encodeFunctionData({ abi: engineAbi, functionName: "liquidatePosition", args: [BigInt(p.accountId), p.marketId] }),
      ),
    async result(chain, p, logs) {
      const liquidations = await liquidationData(chain, logs);
      const first = liquidations[0];
      return { accountId: Number(p.accountId), marketId: p.marketId, ...(first ?? {}), liquidations };
    },
  },

  liquidateAccount: {
    lane: (p) => `liquidation:${p.accountId}`,
    async precheck(chain, _caller, p) {
      await accountOf(chain, p.accountId);
    },
    pending: (p) => ({ accountId: Number(p.accountId), positionsLiquidated: null, liquidations: null }),
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({ abi: engineAbi, functionName: "liquidateAccount", args: [BigInt(p.accountId)] })),
    async result(chain, p, logs) {
      const liquidations = await liquidationData(chain, logs);
      return { accountId: Number(p.accountId), positionsLiquidated: liquidations.length, liquidations };
    },
  },

  approveOperator: {
    lane: (p) => `owner:${p.owner.toLowerCase()}`,
    async precheck(chain, _caller, p) {
      if (BigInt(p.deadline) < chain.nowSeconds()) throw new ApiError("INVALID_SIGNATURE", "the signature's deadline has passed");
    },
    pending: (p) => ({
      owner: getAddress(p.owner), operator: getAddress(p.operator), expiry: Number(p.expiry), expiryISO: new Date(Number(p.expiry) * 1000).toISOString(),
      ...policyOf(p),
    }),
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({
        abi: engineAbi, functionName: "setOperatorWithSig",
        args: [p.owner, p.operator, BigInt(p.expiry), policyOf(p), BigInt(p.deadline), p.signature],
      })),
    async result(_chain, p, logs) {
      const ev = decode(logs).find((l) => l.eventName === "OperatorSet" && same(l.args.owner, p.owner));
      if (!ev) throw new Error("receipt has no OperatorSet event");
      const expiry = BigInt(ev.args.expiry);
      return {
        owner: getAddress(ev.args.owner), operator: getAddress(ev.args.operator), expiry: Number(expiry), expiryISO: new Date(Number(expiry) * 1000).toISOString(),
        maxLeverage: Number(ev.args.maxLeverage), bandBps: Number(ev.args.bandBps), budgetBps: Number(ev.args.budgetBps),
      };
    },
  },

  // ─── Market v2: dead-man switch, cancel-all, batch ───────────────────────────────────────

  setDeadman: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      assertDeadman(chain, p.deadline);
    },
    pending: (p) => deadmanData(p.accountId, BigInt(p.deadline)),
    call: async (chain, p) =>
      engineCall(chain, encodeFunctionData({ abi: engineAbi, functionName: "setDeadman", args: [BigInt(p.accountId), BigInt(p.deadline)] })),
    async result(_chain, p, logs) {
      const ev = decode(logs).find((l) => l.eventName === "DeadmanSet" && l.args.accountId === BigInt(p.accountId));
      if (!ev) throw new Error("receipt has no DeadmanSet event");
      return deadmanData(p.accountId, BigInt(ev.args.deadline));
    },
  },

  // The open order ids come from the index (services/relayer/indexed.ts) once it holds the chain
  // head seen when the write's turn came: the account's earlier writes, mined before in its lane,
  // are in it. One transaction: one cancelOrders, or an Engine.batch (atomic=false) of them.
  cancelAll: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      if (p.marketId) await chain.market(p.marketId);
    },
    pending: (p) => ({ accountId: Number(p.accountId), marketId: p.marketId ?? null, cancelled: null, marginReturned: null, marginReturnedFormatted: null, markets: null }),
    async call(chain, p) {
      if (!chain.indexed) throw new ApiError("SERVICE_UNAVAILABLE", "this relayer has no indexer to read open orders from (INDEXER_URL)");
      const head = await chain.refreshHead();
      const open = await chain.indexed.openOrders(p.accountId, p.marketId, head.number);
      const byMarket = new Map<Hex, bigint[]>();
      for (const o of open) byMarket.set(o.marketId, [...(byMarket.get(o.marketId) ?? []), o.orderId]);
      // beyond 32 × 32 orders the rest waits for another cancel-all (an account holds at most 100 per market)
      const req = cancelOrdersRequest(BigInt(p.accountId), byMarket, false);
      return engineCall(chain, req.functionName === "cancelOrders"
        ? encodeFunctionData({ abi: engineAbi, functionName: "cancelOrders", args: req.args })
        : encodeFunctionData({ abi: engineAbi, functionName: "batch", args: req.args }));
    },
    gas: (chain, _p, call, gasLimit) => (call.data.startsWith(BATCH_SELECTOR) ? batchGas(chain, call, gasLimit) : Promise.resolve(gasLimit)),
    async result(chain, p, logs) {
      // each market's cancelOrders: one OrdersCancelled (its ids and their margins' sum)
      const batches = decode(logs).filter((l) => l.eventName === "OrdersCancelled" && l.args.accountId === BigInt(p.accountId));
      const markets = new Map<string, { marketId: Hex | null; cancelled: number; marginReturnedWad: bigint; orderIds: string[] }>();
      if (p.marketId) markets.set(p.marketId.toLowerCase(), { marketId: p.marketId, cancelled: 0, marginReturnedWad: 0n, orderIds: [] });
      for (const e of batches) {
        const m = await chain.marketAt(e.address);
        const key = (m?.marketId ?? e.address).toLowerCase();
        const row = markets.get(key) ?? { marketId: m?.marketId ?? null, cancelled: 0, marginReturnedWad: 0n, orderIds: [] };
        const ids = e.args.orderIds as readonly bigint[];
        row.cancelled += ids.length;
        row.marginReturnedWad += e.args.marginReturnedWad as bigint;
        row.orderIds.push(...ids.map((id) => id.toString()));
        markets.set(key, row);
      }
      const rows = [...markets.values()];
      const cancelled = rows.reduce((n, r) => n + r.cancelled, 0);
      const total = rows.reduce((a, r) => a + r.marginReturnedWad, 0n);
      return {
        accountId: Number(p.accountId),
        marketId: p.marketId ?? null,
        cancelled,
        marginReturned: total.toString(),
        marginReturnedFormatted: formatWad(total),
        markets: rows.map((r) => ({
          marketId: r.marketId, cancelled: r.cancelled, marginReturned: r.marginReturnedWad.toString(), marginReturnedFormatted: formatWad(r.marginReturnedWad), orderIds: r.orderIds,
        })),
      };
    },
  },

  // ─── Market v2: position triggers (TriggerBook; docs/CONTRACTS.md "Triggers") ─────────────
  // Checked before sending, as TriggerBook.setTrigger would refuse: the account's open position
  // (NO_POSITION), the trigger price beyond the mark in the direction it fires (VALIDATION_ERROR
  // on triggerPrice: it would fire at once), a LIMIT's price on the tick (INVALID_PRICE). The
  // relayer sets it as the owner's operator: when it fires, the relayer's band and budget apply.
  setTrigger: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      await checkTrigger(chain, p);
    },
    pending: (p) => ({
      triggerId: triggerId(p.accountId, p.marketId, p.kind), accountId: Number(p.accountId), marketId: p.marketId, kind: p.kind, status: "active",
      triggerPrice: p.triggerPrice, triggerPriceFormatted: formatWad(BigInt(p.triggerPrice)), orderType: p.orderType,
      limitPrice: p.limitPrice ?? null, limitPriceFormatted: p.limitPrice !== undefined ? formatWad(BigInt(p.limitPrice)) : null, oco: p.oco,
      positionSide: null, openBlock: null, operator: null, endReason: null, orderId: null, executedMarkPrice: null, executedMarkPriceFormatted: null, executor: null,
      createdAt: null, createdAtISO: null, updatedAt: null, updatedAtISO: null, setBlock: null, updatedBlock: null,
    }),
    call: async (chain, p) =>
      triggerBookCall(chain, encodeFunctionData({
        abi: triggerBookAbi, functionName: "setTrigger",
        args: [BigInt(p.accountId), p.marketId, triggerKindValue(p.kind), BigInt(p.triggerPrice), ORDER_TYPE_VALUE[p.orderType], BigInt(p.limitPrice ?? "0"), p.oco],
      })),
    async result(chain, p, logs, receipt) {
      const ev = decode(logs).find((l) => l.eventName === "TriggerSet" && same(l.address, chain.triggerBook) && l.args.accountId === BigInt(p.accountId));
      if (!ev) throw new Error("receipt has no TriggerSet event");
      const a = ev.args;
      const block = receipt ? await chain.client.getBlock({ blockHash: receipt.blockHash }) : await chain.refreshHead();
      const kind = TRIGGER_KIND_NAME[Number(a.kind)]!;
      const marketId = (a.marketId as Hex).toLowerCase() as Hex;
      const operator = ZERO_ADDRESS.test(a.operator) ? null : ((a.operator as string).toLowerCase() as Hex);
      // the row the indexer makes of this event (src/TriggerBook.ts), answered as the reads answer it
      return triggerResponse({
        id: triggerId(p.accountId, marketId, kind), accountId: BigInt(p.accountId), marketId, kind, status: "active",
        triggerPriceX18: a.triggerPriceX18, orderType: ORDER_TYPE_NAME[Number(a.orderType)]!, limitPriceX18: a.limitPriceX18, oco: a.oco,
        positionSide: SIDE_NAME[Number(a.positionSide)]!, openBlock: a.openBlock, operator, endReason: null, orderId: null, executedMarkX18: null, executor: null,
        createdAt: block.timestamp, updatedAt: block.timestamp, setBlock: block.number!, updatedBlock: block.number!,
      });
    },
  },

  cancelTrigger: {
    lane: (p) => `account:${p.accountId}`,
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      await chain.market(p.marketId);
      const t = await chain.client.readContract({ address: chain.triggerBook, abi: triggerBookAbi, functionName: "triggerOf", args: [BigInt(p.accountId), p.marketId, triggerKindValue(p.kind)] });
      if (!t.set) throw new ApiError("TRIGGER_NOT_FOUND", `account ${p.accountId} has no ${p.kind} on its position in this market`);
    },
    pending: (p) => ({ accountId: Number(p.accountId), marketId: p.marketId, kind: p.kind, endReason: "CANCELLED" }),
    call: async (chain, p) =>
      triggerBookCall(chain, encodeFunctionData({ abi: triggerBookAbi, functionName: "cancelTrigger", args: [BigInt(p.accountId), p.marketId, triggerKindValue(p.kind)] })),
    async result(chain, p, logs) {
      const ev = decode(logs).find((l) => l.eventName === "TriggerRemoved" && same(l.address, chain.triggerBook) && l.args.accountId === BigInt(p.accountId));
      if (!ev) throw new Error("receipt has no TriggerRemoved event");
      return { accountId: Number(p.accountId), marketId: p.marketId, kind: TRIGGER_KIND_NAME[Number(ev.args.kind)]!, endReason: TRIGGER_END_NAME[Number(ev.args.reason)]! };
    },
  },

  // Each item is the calldata its single write sends; the chain runs them in order, as if the
  // relayer sent each alone. atomic: the simulation answers the first failing item's error.
  batchOrders: {
    lane: (p) => `account:${p.accountId}`,
    // a MARKET placement in it: the batch is as short-lived as that order sent alone
    urgent: (p) => p.items.some((i) => i.action === "PLACE" && i.orderType === "MARKET"),
    async precheck(chain, caller, p) {
      await ownerActs(chain, caller, p.accountId);
      if (p.items.length > MAX_BATCH_ITEMS) throw new ApiError("BATCH_TOO_LARGE", `at most ${MAX_BATCH_ITEMS} items in one batch (got ${p.items.length})`);
      // all or nothing: a CANCEL or MODIFY item that cannot succeed answers its error, nothing sent;
      // atomic=false: every item is sent and answers for itself (OK, or FAILED with its code), as a PLACE item does
      if (p.atomic) await precheckBatchItems(chain, p.items);
    },
    pending: (p) => ({ accountId: Number(p.accountId), atomic: p.atomic, items: p.items.map((i) => ({ action: i.action, status: null, marketId: i.marketId, clientKey: i.clientKey ?? null, orderId: i.action !== "PLACE" ? (i.orderId ?? null) : null })), succeeded: null, failed: null }),
    async call(chain, p) {
      const calls: Hex[] = [];
      for (const item of p.items) calls.push((await batchItemCall(chain, item)).data);
      return engineCall(chain, encodeFunctionData({ abi: engineAbi, functionName: "batch", args: [calls, p.atomic] }));
    },
    // atomic: an item out of gas reverts the whole, so the node's estimate covers every item
    gas: (chain, p, call, gasLimit) => (p.atomic ? Promise.resolve(gasLimit) : batchGas(chain, call, gasLimit)),
    async result(chain, p, logs, receipt) {
      const outcome = receipt ? await batchOutcome(chain.client, receipt.transactionHash) : null;
      const items: Record<string, unknown>[] = [];
      for (const [i, item] of p.items.entries()) items.push({ index: i, action: item.action, ...(await batchItemResult(chain, item, logs, outcome?.[i] ?? null)) });
      return {
        accountId: Number(p.accountId),
        atomic: p.atomic,
        items,
        succeeded: items.filter((i) => i.status === "OK").length,
        failed: items.filter((i) => i.status === "FAILED").length,
      };
    },
  },
};

type DecodedEvent = { eventName: string; address: Address; args: Record<string, any> };

/** Response data of a modify from its OrderModified (the single write's and a batch item's). */
function modifyData(p: { marketId: Hex; clientKey?: Hex }, a: Record<string, any>) {
  return {
    orderId: (a.orderId as bigint).toString(), clientKey: p.clientKey ?? null, marketId: p.marketId,
    price: (a.priceX18 as bigint).toString(), priceFormatted: formatWad(a.priceX18),
    originalQuantity: (a.originalQty as bigint).toString(), originalQuantityFormatted: formatWad(a.originalQty),
    remainingQuantity: (a.remainingQty as bigint).toString(), remainingQuantityFormatted: formatWad(a.remainingQty),
    marginRemaining: (a.marginRemainingWad as bigint).toString(), marginRemainingFormatted: formatWad(a.marginRemainingWad),
    fromPrice: (a.fromPriceX18 as bigint).toString(), fromPriceFormatted: formatWad(a.fromPriceX18),
  };
}

/** Response data of a placed order (place or close) from its OrderPlaced and what followed. */
function orderData(marketId: Hex, placed: Record<string, any>, events: DecodedEvent[], orderType: string, opts: { sideKey: "side" | "closingSide" }) {
  const orderId = placed.orderId as bigint;
  const fills = events.filter((l) => l.eventName === "OrderFilled" && l.args.takerOrderId === orderId);
  const closed = events.find((l) => l.eventName === "OrderClosed" && l.args.orderId === orderId);
  const filled = fills.length ? (fills[fills.length - 1]!.args.takerFilledQty as bigint) : 0n;
  const qty = placed.quantityQty as bigint;
  return {
    clientKey: placed.clientKey as Hex,
    orderId: orderId.toString(),
    marketId,
    [opts.sideKey]: SIDE_NAME[Number(placed.side)],
    size: qty.toString(),
    sizeFormatted: formatWad(qty),
    orderType: ORDER_TYPE_NAME[Number(placed.orderType)] ?? orderType,
    status: "PLACED",
    price: (placed.priceX18 as bigint).toString(),
    priceFormatted: formatWad(placed.priceX18),
    filledQuantity: filled.toString(),
    filledQuantityFormatted: formatWad(filled),
    /** the order's state after this transaction: active (resting), filled or cancelled */
    orderStatus: closed ? (Number(closed.args.status) === 2 ? "filled" : "cancelled") : "active",
    // its options as the market applied them (OrderPlaced: a MARKET order's GTC is IOC)
    timeInForce: TIME_IN_FORCE_NAME[Number(placed.timeInForce)] ?? "GTC",
    reduceOnly: placed.reduceOnly as boolean,
    expiresAt: (placed.expiresAt as bigint) === 0n ? null : Number(placed.expiresAt),
  };
}

/** OrderClosed reasons of makers a liquidation cancelled instead of filling (IMarket.CloseReason:
 *  REDUCE_ONLY_EXPIRED, LIQUIDATION (the account's own), MARGIN, REDUCE_ONLY_SESSION, OPERATOR_BAND). */
const LIQUIDATION_CANCEL_REASONS = new Set([3, 5, 7, 8, 9]);

async function liquidationData(chain: Chain, logs: Log[]) {
  const out: Record<string, unknown>[] = [];
  const events = decode(logs);
  for (const l of events.filter((e) => e.eventName === "Liquidated")) {
    const m = await chain.marketAt(l.address);
    const a = l.args;
    // a call that met only makers it could not fill closes 0 and keeps their cancellations
    // (the next call goes on behind them): how many it cleared
    const cancelledOrders = events.filter(
      (e) => e.eventName === "OrderClosed" && same(e.address, l.address) && LIQUIDATION_CANCEL_REASONS.has(Number(e.args.reason)),
    ).length;
    out.push({
      marketId: m?.marketId ?? null,
      closedQuantity: (a.closedQty as bigint).toString(),
      closedQuantityFormatted: formatWad(a.closedQty),
      closedNotional: (a.closedNotionalWad as bigint).toString(),
      liquidatorFee: (a.liquidatorFeeWad as bigint).toString(),
      insuranceFee: (a.insuranceFeeWad as bigint).toString(),
      badDebt: (a.badDebtWad as bigint).toString(),
      remainingSize: (a.remainingSizeQty as bigint).toString(),
      liquidator: getAddress(a.liquidator),
      cancelledOrders,
    });
  }
  return out;
}

// ─── Market v2 helpers ───────────────────────────────────────────────────────────────────────

const deadmanData = (accountId: string, deadline: bigint) => ({ accountId: Number(accountId), ...deadmanAnswer(deadline) });

/** DEADMAN_TOO_SOON unless 0 (off) or at least MIN_DEADMAN_DELAY after the chain's time. */
export function assertDeadman(chain: Pick<Chain, "nowSeconds">, deadline: string) {
  const d = BigInt(deadline);
  const earliest = chain.nowSeconds() + BigInt(MIN_DEADMAN_DELAY_S);
  if (d !== 0n && d < earliest)
    throw new ApiError("DEADMAN_TOO_SOON", `deadline ${d} is before the earliest allowed, ${earliest} (the chain's time + ${MIN_DEADMAN_DELAY_S} s); 0 turns the switch off`);
}

/** The calldata of one batch item: its single write's. */
async function batchItemCall(chain: Chain, item: BatchItemParams): Promise<Call> {
  if (item.action === "PLACE") {
    const { action: _a, ...params } = item;
    return OPS.placeOrder.call(chain, params);
  }
  if (item.action === "MODIFY") {
    const { action: _a, ...params } = item;
    return OPS.modifyOrder.call(chain, params);
  }
  if (item.clientKey) return OPS.cancelOrder.call(chain, { accountId: item.accountId, marketId: item.marketId, clientKey: item.clientKey });
  return engineCall(chain, encodeFunctionData({ abi: engineAbi, functionName: "cancelOrderById", args: [BigInt(item.accountId), item.marketId, BigInt(item.orderId!)] }));
}

/** An item's answer: its single write's result data (status OK), or the code its single write would fail with (status FAILED). */
async function batchItemResult(chain: Chain, item: BatchItemParams, logs: Log[], outcome: BatchItemOutcome | null): Promise<Record<string, unknown>> {
  if (outcome && !outcome.ok) {
    // a MODIFY's price off the tick or size off the lot answers as its single write does (the
    // chain names both OrderTooSmall); the minimum, which depends on the order, is the chain's
    const input = item.action === "MODIFY" ? await checkModify(chain, item, true).then(() => null, (e: unknown) => (e instanceof ApiError ? e : null)) : null;
    const err = input ?? revertToApiError(new RawContractError({ data: outcome.data }), VENUE_ABI) ?? new ApiError("TRANSACTION_REVERTED", "the item reverted");
    return { status: "FAILED", code: err.code, message: err.message, marketId: item.marketId, clientKey: item.clientKey ?? null };
  }
  const m = await chain.market(item.marketId);
  // the item's own events (the tracer's); without a tracer, the receipt's matched by account, key and id
  const own = outcome?.logs ?? null;
  const events = decode(own ?? logs).filter((l) => same(l.address, m.address));
  if (item.action === "PLACE") {
    const placed = events.find((l) => l.eventName === "OrderPlaced" && l.args.accountId === BigInt(item.accountId) && same(l.args.clientKey, item.clientKey));
    if (!placed) return { status: outcome ? "OK" : "UNKNOWN", marketId: item.marketId, clientKey: item.clientKey };
    return { ...orderData(item.marketId, placed.args, events, item.orderType, { sideKey: "side" }), status: "OK" };
  }
  if (item.action === "MODIFY") {
    // its OrderModified; without a tracer, the receipt's last of its order (by key: the key still
    // leads to it, the order is open after its modify)
    const id = own ? undefined : item.orderId !== undefined
      ? BigInt(item.orderId)
      : await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "orderIdOf", args: [BigInt(item.accountId), item.clientKey!] });
    const modified = events.filter((l) => l.eventName === "OrderModified" && (own || l.args.orderId === id)).at(-1);
    if (!modified) return { status: outcome ? "OK" : "UNKNOWN", marketId: item.marketId, clientKey: item.clientKey ?? null, orderId: item.orderId ?? null };
    return { ...modifyData(item, modified.args), status: "OK" };
  }
  let orderId = item.orderId !== undefined ? BigInt(item.orderId) : undefined;
  if (orderId === undefined && outcome) {
    const [id] = decodeFunctionResult({ abi: engineAbi, functionName: "cancelOrder", data: outcome.data }) as readonly [bigint, bigint];
    orderId = id;
  }
  const ev = orderId !== undefined ? events.find((l) => l.eventName === "OrderCancelled" && l.args.orderId === orderId) : undefined;
  if (!ev) return { status: outcome ? "OK" : "UNKNOWN", marketId: item.marketId, clientKey: item.clientKey ?? null, orderId: orderId?.toString() ?? null };
  return { status: "OK", ...cancelData(item.marketId, item.clientKey ?? null, ev.args) };
}

/** Response data of a cancelled order, from its OrderCancelled (a single cancel's one event). */
function cancelData(marketId: Hex, clientKey: Hex | null, a: Record<string, any>) {
  return {
    clientKey,
    orderId: (a.orderId as bigint).toString(),
    marketId,
    marginReturned: (a.marginReturnedWad as bigint).toString(),
    marginReturnedFormatted: formatWad(a.marginReturnedWad),
    cancelledQuantity: ((a.originalQty as bigint) - (a.filledQty as bigint)).toString(),
    filledQuantity: (a.filledQty as bigint).toString(),
  };
}

const BATCH_SELECTOR = toFunctionSelector(getAbiItem({ abi: engineAbi, name: "batch" }) as AbiFunction);

/**
 * Gas limit = what a simulation needed × 1.25 + 25k: between simulation and mining the book may
 * change, and a new second costs more (the first write of a second accrues the market's funding).
 */
export const gasLimitOf = (needed: bigint) => (needed * 125n) / 100n + 25_000n;

/**
 * The gas limit of an Engine.batch(atomic=false). It never reverts as a whole, so the node's
 * estimate (the least gas at which the transaction succeeds) may starve an item: out of gas inside
 * its delegatecall, it counts as a failed item. The limit is doubled until every item's outcome at
 * it (eth_call) is its outcome with the block's whole gas, then given the same headroom as a single
 * write (gasLimitOf): the least such limit at the latest block's second left an item out of gas
 * when it was mined in a later second (a MODIFY answered TRANSACTION_REVERTED in CI).
 */
export async function batchGas(chain: Chain, call: Call, gasLimit: bigint): Promise<bigint> {
  const ample = (await chain.client.getBlock({ blockTag: "latest" })).gasLimit;
  const outcome = async (gas: bigint) => {
    const r = await chain.client.call({ account: chain.account.address, to: call.to, data: call.data, gas });
    const [ok] = decodeFunctionResult({ abi: engineAbi, functionName: "batch", data: r.data ?? "0x" }) as readonly [readonly boolean[], readonly Hex[]];
    return ok.join(",");
  };
  const want = await outcome(ample);
  let g = gasLimit;
  while (g < ample) {
    if ((await outcome(g).catch(() => null)) === want) return gasLimitOf(g) < ample ? gasLimitOf(g) : ample;
    g *= 2n;
  }
  return ample;
}

/**
 * What TriggerBook.setTrigger would refuse, before anything is sent: the market (MARKET_NOT_FOUND),
 * the position (NO_POSITION), the trigger price on the wrong side of the mark now (VALIDATION_ERROR
 * naming triggerPrice), a LIMIT price off the market's tick (INVALID_PRICE naming limitPrice).
 */
export async function checkTrigger(chain: Chain, p: Params["setTrigger"]) {
  const m = await chain.market(p.marketId);
  const pos = await openPosition(chain, p.accountId, p.marketId);
  const side = pos.sizeQty > 0n ? "LONG" : "SHORT";
  const mark = await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "markPrice" });
  const bad = triggerSideProblem(p.kind, side, BigInt(p.triggerPrice), mark);
  if (bad) throw new ApiError("VALIDATION_ERROR", `triggerPrice: ${bad} (mark ${formatWad(mark)} in ${m.symbol})`, { field: "triggerPrice" });
  if (p.orderType === "LIMIT") {
    const params = await chain.client.readContract({ address: m.address, abi: marketAbi, functionName: "params" });
    const limit = BigInt(p.limitPrice ?? "0");
    if (limit === 0n || limit % params.tickSizeX18 !== 0n)
      throw new ApiError("INVALID_PRICE", `limitPrice ${formatWad(limit)} is not on ${m.symbol}'s tick ${formatWad(params.tickSizeX18)}`, { field: "limitPrice" });
  }
}
