/**
 * What each item of a mined Engine.batch did: its success and its return (or revert) data, from
 * the batch's own return read with the node's call tracer (the exact run inside its block). The
 * relayer answers a batch's items from it; the market maker tells a race (an item that failed at
 * mining for a known reason) from a bug. null when the node has no tracer.
 */
import { decodeFunctionResult, type Hex, type PublicClient } from "viem";
import { engineAbi } from "../../abis/index.js";

export type BatchItemOutcome = { ok: boolean; data: Hex };

export async function batchOutcome(client: Pick<PublicClient, "request">, hash: Hex): Promise<BatchItemOutcome[] | null> {
  try {
    const trace = (await client.request({ method: "debug_traceTransaction" as never, params: [hash, { tracer: "callTracer" }] as never })) as { output?: Hex } | null;
    if (!trace?.output || trace.output === "0x") return null;
    const [ok, results] = decodeFunctionResult({ abi: engineAbi, functionName: "batch", data: trace.output }) as readonly [readonly boolean[], readonly Hex[]];
    return ok.map((o, i) => ({ ok: o, data: results[i] ?? "0x" }));
  } catch {
    return null;
  }
}
