/**
 * Where a measured transaction's gas goes (`npm run bench:gas -- --profile limitOrderExistingLevel,cancel`):
 * anvil's step trace (`debug_traceTransaction`, anvil started with `--steps-tracing`) summed per
 * opcode, per contract (a delegatecall's steps count for the contract whose storage they run on)
 * and per storage slot touched. A call's own cost (access, value, memory) is its gas less what
 * its callee used; the callee's steps count where they ran.
 */
import type { Hex } from "viem";

type Step = { op: string; gas: number; gasCost: number; depth: number; stack?: Hex[] };
export type GasProfile = {
  gasUsed: number;
  intrinsic: number;
  byOp: Map<string, { gas: number; count: number }>;
  byContract: Map<string, number>;
  bySlot: Map<string, { gas: number; count: number }>;
};

const CALLS = new Set(["CALL", "DELEGATECALL", "STATICCALL", "CALLCODE"]);

/** Sums one transaction's steps; `names` labels addresses (lower case) in the output. */
export function profileSteps(steps: Step[], to: Hex, gasLimit: number, gasUsed: number, names: Record<string, string>): GasProfile {
  const label = (a: string) => names[a] ?? `${a.slice(0, 10)}…`;
  const byOp = new Map<string, { gas: number; count: number }>();
  const byContract = new Map<string, number>();
  const bySlot = new Map<string, { gas: number; count: number }>();
  const bump = (m: Map<string, { gas: number; count: number }>, k: string, g: number) => {
    const e = m.get(k) ?? { gas: 0, count: 0 };
    e.gas += g;
    e.count += 1;
    m.set(k, e);
  };
  // the storage context of each depth: a delegatecall keeps its caller's
  const frames: string[] = [to.toLowerCase()];
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    const next = steps[i + 1];
    const self = frames[s.depth - 1] ?? "?";
    let cost: number;
    let key = s.op.startsWith("LOG") ? "LOG" : s.op.replace(/^(PUSH|DUP|SWAP)\d+$/, "$1");
    if (CALLS.has(s.op) && next && next.depth === s.depth + 1) {
      const stack = s.stack!;
      const target = `0x${BigInt(stack[stack.length - 2]!).toString(16).padStart(40, "0")}`;
      frames[s.depth] = s.op === "DELEGATECALL" ? self : target;
      let j = i + 1;
      while (j < steps.length && steps[j]!.depth > s.depth) j++;
      const last = steps[j - 1]!;
      const calleeUsed = next.gas - (last.gas - last.gasCost);
      cost = s.gas - (steps[j]?.gas ?? 0) - calleeUsed;
      key = `${s.op} → ${label(target)}`;
    } else {
      cost = next && next.depth === s.depth ? s.gas - next.gas : s.gasCost;
      if (s.op === "SLOAD" || s.op === "SSTORE") {
        const slot = BigInt(s.stack![s.stack!.length - 1]!).toString(16);
        bump(bySlot, `${s.op} ${label(self)} ${slot.length > 12 ? `${slot.slice(0, 10)}…` : `0x${slot}`}`, cost);
      }
    }
    bump(byOp, key, cost);
    byContract.set(label(self), (byContract.get(label(self)) ?? 0) + cost);
  }
  return { gasUsed, intrinsic: gasLimit - (steps[0]?.gas ?? gasLimit), byOp, byContract, bySlot };
}

/** The profile as text: opcodes and slots costing at least `min` gas, largest first. */
export function formatProfile(name: string, p: GasProfile, min = 300): string {
  const rows = (m: Map<string, { gas: number; count: number }>) =>
    [...m].filter(([, v]) => v.gas >= min).sort((a, b) => b[1].gas - a[1].gas)
      .map(([k, v]) => `  ${k.padEnd(44)}${v.gas.toLocaleString("en-US").padStart(10)}  ×${v.count}`);
  return [
    `\n${name}: gasUsed ${p.gasUsed.toLocaleString("en-US")} (intrinsic ${p.intrinsic.toLocaleString("en-US")})`,
    `by contract: ${[...p.byContract].map(([k, v]) => `${k} ${v.toLocaleString("en-US")}`).join(", ")}`,
    "by opcode:",
    ...rows(p.byOp),
    "by storage slot:",
    ...rows(p.bySlot),
  ].join("\n");
}

/** Traces `hash` on `rpcUrl` (anvil with --steps-tracing); the answer can pass viem's body limit, so plain fetch. */
export async function traceSteps(rpcUrl: string, hash: Hex): Promise<Step[]> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "debug_traceTransaction", params: [hash, { disableStorage: true, disableMemory: true }] }),
  });
  const body = (await res.json()) as { result?: { structLogs: Step[] }; error?: { message: string } };
  if (!body.result) throw new Error(`debug_traceTransaction ${hash}: ${body.error?.message ?? "no result"}`);
  if (body.result.structLogs.length === 0) throw new Error("no steps: anvil needs --steps-tracing");
  return body.result.structLogs;
}
