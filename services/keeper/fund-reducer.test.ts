import { describe, expect, it } from "vitest";
import pino from "pino";
import type { Address } from "viem";
import { reduceFundPositions, type FundReducerChain } from "./fund-reducer.js";

const log = pino({ level: "silent" });
const A = "0x00000000000000000000000000000000000000a1" as Address;
const B = "0x00000000000000000000000000000000000000b2" as Address;
const C = "0x00000000000000000000000000000000000000c3" as Address;

describe("fund reducer", () => {
  it("reduces wherever the fund holds a position and goes on past a refusal", async () => {
    const calls: Address[] = [];
    const sizes: Record<Address, bigint> = { [A]: 10n, [B]: -3n, [C]: 0n };
    const chain: FundReducerChain = {
      fundSize: async (m) => sizes[m]!,
      reduce: async (m) => {
        calls.push(m);
        if (m === A) throw new Error("NoLiquidity");
      },
    };
    const markets = [A, B, C].map((address, i) => ({ address, symbol: `M${i}` }));
    expect(await reduceFundPositions(chain, markets, log)).toBe(1);
    expect(calls).toEqual([A, B]); // none where the fund is flat
  });
});
