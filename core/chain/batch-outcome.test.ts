import { describe, expect, it } from "vitest";
import { encodeFunctionResult, type Hex } from "viem";
import { engineAbi } from "../../abis/index.js";
import { batchOutcome } from "./batch-outcome.js";

const A = "0x00000000000000000000000000000000000000a1" as Hex;
const log = (n: number, position: number) => ({ address: A, topics: [`0x${n.toString(16).padStart(64, "0")}`] as Hex[], data: "0x" as Hex, position: `0x${position.toString(16)}` });
const output = (ok: boolean[]) => encodeFunctionResult({ abi: engineAbi, functionName: "batch", result: [ok, ok.map(() => "0x" as Hex)] });
const node = (trace: unknown) => ({ request: async () => trace }) as never;
const topics = (logs: { topics: readonly Hex[] }[] | null) => logs?.map((l) => Number(BigInt(l.topics[0]!)));

describe("batchOutcome: each item's events from the call tracer's frames", () => {
  it("an item's own logs and its subcalls', in the order they were emitted; a failed item has none", async () => {
    const trace = {
      output: output([true, false, true]),
      calls: [
        // item 0: logs 1, then a call emitting 2 and 3, then 4
        { logs: [log(1, 0), log(4, 1)], calls: [{ logs: [log(2, 0)], calls: [{ logs: [log(3, 0)] }] }] },
        // item 1 reverted: whatever it logged is gone
        { error: "execution reverted", logs: [log(9, 0)] },
        // item 2: a reverted subcall's logs are gone, the rest stay
        { logs: [log(5, 0), log(7, 1)], calls: [{ error: "execution reverted", logs: [log(6, 0)] }] },
        // the batch's deferred rate update after the items: no item's
        { logs: [log(8, 0)] },
      ],
    };
    const out = await batchOutcome(node(trace), "0x01");
    expect(out!.map((o) => [o.ok, topics(o.logs)])).toEqual([[true, [1, 2, 3, 4]], [false, []], [true, [5, 7]]]);
  });

  it("a tracer without logs (no withLog): null, so the caller matches the receipt's events; no tracer: null", async () => {
    const out = await batchOutcome(node({ output: output([true]), calls: [{}] }), "0x01");
    expect(out).toEqual([{ ok: true, data: "0x", logs: null }]);
    expect(await batchOutcome({ request: async () => { throw new Error("method not found"); } } as never, "0x01")).toBeNull();
  });
});
