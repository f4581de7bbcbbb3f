/**
 * What each item of a mined Engine.batch did: its success, its return (or revert) data and the
 * events it emitted, from the node's call tracer (the exact run inside its block). The relayer
 * answers a batch's items from it, each from its own events (two items that place under one key,
 * or modify one order, each answer for itself); the market maker tells a race (an item that failed
 * at mining for a known reason) from a bug. null when the node has no tracer.
 */
import { decodeFunctionResult, type Hex, type Log, type PublicClient } from "viem";
import { engineAbi } from "../../abis/index.js";

/** `logs`: the item's events in the order it emitted them (none when it failed); null when the tracer gives no logs (no `withLog`). */
export type BatchItemOutcome = { ok: boolean; data: Hex; logs: Log[] | null };

/** A frame of the call tracer with `withLog`: its own logs carry `position`, the number of its subcalls run before each. */
type Frame = { output?: Hex; error?: string; calls?: Frame[]; logs?: { address: Hex; topics: Hex[]; data: Hex; position?: Hex }[] };

/** A frame's events and its subcalls', in the order they were emitted. */
function logsOf(f: Frame): Log[] {
  if (f.error) return [];
  const own = f.logs ?? [];
  const calls = f.calls ?? [];
  const out: Log[] = [];
  const at = (k: number) => {
    for (const l of own) if (Number(l.position ?? 0) === k) out.push({ address: l.address, topics: l.topics, data: l.data } as unknown as Log);
  };
  for (const [k, c] of calls.entries()) {
    at(k);
    out.push(...logsOf(c));
  }
  at(calls.length);
  return out;
}

/** Whether the tracer gave logs anywhere in the transaction (a node without `withLog` gives none; a batch emits at least one event). */
const hasLogs = (f: Frame): boolean => (f.logs?.length ?? 0) > 0 || (f.calls ?? []).some(hasLogs);

export async function batchOutcome(client: Pick<PublicClient, "request">, hash: Hex): Promise<BatchItemOutcome[] | null> {
  try {
    const trace = (await client.request({
      method: "debug_traceTransaction" as never,
      params: [hash, { tracer: "callTracer", tracerConfig: { withLog: true } }] as never,
    })) as Frame | null;
    if (!trace?.output || trace.output === "0x") return null;
    const [ok, results] = decodeFunctionResult({ abi: engineAbi, functionName: "batch", data: trace.output }) as readonly [readonly boolean[], readonly Hex[]];
    // the batch's own frame: one delegatecall per item, in order, then the deferred rate updates
    const items = trace.calls ?? [];
    const withLogs = hasLogs(trace);
    return ok.map((o, i) => ({ ok: o, data: results[i] ?? "0x", logs: !withLogs ? null : o && items[i] ? logsOf(items[i]!) : [] }));
  } catch {
    return null;
  }
}
