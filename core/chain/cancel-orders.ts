/**
 * The one transaction that cancels an account's listed orders in several markets (the relayer's
 * cancel-all, the keeper's dead-man cancels): Engine.cancelOrders per market and chunk of
 * MAX_BATCH_ITEMS ids, alone when there is one such call, else Engine.batch of them (at most
 * MAX_BATCH_ITEMS calls: beyond, the rest waits for the next transaction).
 */
import { encodeFunctionData, type Hex } from "viem";
import { MAX_BATCH_ITEMS } from "../schemas/writes.js";
import { engineAbi } from "../../abis/index.js";

export type CancelOrdersRequest =
  | { functionName: "cancelOrders"; args: readonly [bigint, Hex, readonly bigint[]] }
  | { functionName: "batch"; args: readonly [readonly Hex[], boolean] };

/** `byMarket`: order ids by market id; `atomic`: the batch's (one failing call reverts all). */
export function cancelOrdersRequest(accountId: bigint, byMarket: Map<Hex, readonly bigint[]>, atomic: boolean): CancelOrdersRequest {
  const calls: Array<readonly [bigint, Hex, readonly bigint[]]> = [];
  for (const [marketId, ids] of byMarket)
    for (let i = 0; i < ids.length; i += MAX_BATCH_ITEMS) calls.push([accountId, marketId, ids.slice(i, i + MAX_BATCH_ITEMS)] as const);
  if (calls.length === 1) return { functionName: "cancelOrders", args: calls[0]! };
  const data = calls.slice(0, MAX_BATCH_ITEMS).map((args) => encodeFunctionData({ abi: engineAbi, functionName: "cancelOrders", args }));
  return { functionName: "batch", args: [data, atomic] };
}
