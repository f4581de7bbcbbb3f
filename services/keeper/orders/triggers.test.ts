/**
 * The keeper's trigger executor with stand-ins for the indexer, the chain and the signer: which
 * active triggers it fires (reached at the chain's mark, or void: their position gone), that it
 * never fires one short of its mark, and its hold until the index passes the call.
 */
import { describe, expect, it, vi } from "vitest";
import pino from "pino";
import { encodeAbiParameters, encodeEventTopics, type Address, type Hex, type Log, type PublicClient } from "viem";
import { triggerBookAbi } from "../../../abis/index.js";
import type { ActiveTrigger, IndexerReader } from "../indexer/reader.js";
import type { Signer } from "../chain/clients.js";
import type { MarketDirectory } from "../chain/markets.js";
import { TriggerExecutor, positionGone, reached } from "./triggers.js";
import { RERUN_UNCHANGED_MS } from "../indexer/unchanged.js";

const M1 = `0x${"11".repeat(32)}` as Hex;
const A1 = `0x${"a1".repeat(20)}` as Address;
const BOOK = `0x${"bb".repeat(20)}` as Address;
const log = pino({ level: "silent" });
const e18 = (n: number) => BigInt(Math.round(n * 1e6)) * 10n ** 12n;

const trig = (o: Partial<ActiveTrigger>): ActiveTrigger => ({
  accountId: 1n, marketId: M1, kind: "TAKE_PROFIT", triggerPriceX18: e18(1.09), positionSide: "LONG", openBlock: 5n,
  positionSize: 100n, positionOpenBlock: 5n, ...o,
});

function executedLog(accountId: bigint, kind: number, orderId: bigint): Log {
  const topics = encodeEventTopics({ abi: triggerBookAbi, eventName: "TriggerExecuted", args: { accountId, marketId: M1 } });
  const data = encodeAbiParameters(
    [{ type: "uint64" }, { type: "uint8" }, { type: "uint256" }, { type: "uint256" }, { type: "address" }],
    [1n, kind, orderId, e18(1.1), A1],
  );
  return { address: BOOK, topics, data, blockNumber: 1n, blockHash: "0x", logIndex: 0, transactionHash: "0x", transactionIndex: 0, removed: false } as unknown as Log;
}

describe("trigger executor", () => {
  it("reached: a long's take-profit and a short's stop-loss at or above the mark's rise, the others at or below", () => {
    expect(reached(trig({}), e18(1.09))).toBe(true);
    expect(reached(trig({}), e18(1.0899))).toBe(false);
    expect(reached(trig({ kind: "STOP_LOSS", triggerPriceX18: e18(1.07) }), e18(1.07))).toBe(true);
    expect(reached(trig({ kind: "STOP_LOSS", triggerPriceX18: e18(1.07) }), e18(1.0701))).toBe(false);
    expect(reached(trig({ positionSide: "SHORT", triggerPriceX18: e18(1.07) }), e18(1.06))).toBe(true);
    expect(reached(trig({ positionSide: "SHORT", kind: "STOP_LOSS" }), e18(1.08))).toBe(false);
  });

  it("void when the position it was set on is gone: flat, never indexed, turned, opened again", () => {
    expect(positionGone(trig({}))).toBe(false);
    expect(positionGone(trig({ positionSize: 0n }))).toBe(true);
    expect(positionGone(trig({ positionSize: null, positionOpenBlock: null }))).toBe(true);
    expect(positionGone(trig({ positionSize: -100n }))).toBe(true);
    expect(positionGone(trig({ positionOpenBlock: 9n }))).toBe(true);
  });

  it("fires the reached and the void ones (never one short of the mark), one call each, held until indexed", async () => {
    const state = { indexed: 10n, mark: e18(1.1) };
    const rows = [
      trig({ accountId: 1n }), // reached at 1.10
      trig({ accountId: 2n, triggerPriceX18: e18(1.2) }), // not reached
      trig({ accountId: 3n, kind: "STOP_LOSS", triggerPriceX18: e18(1.0), positionSize: 0n }), // void
    ];
    const reader = { block: async () => ({ number: state.indexed, timestamp: 1n }), activeTriggers: async () => rows } as unknown as IndexerReader;
    const reads: string[] = [];
    const client = {
      getBlock: async () => ({ number: state.indexed, timestamp: 1n }),
      readContract: async (r: { functionName: string }) => (reads.push(r.functionName), state.mark),
    } as unknown as PublicClient;
    const markets = { list: async () => [{ marketId: M1, address: A1 }] } as unknown as MarketDirectory;
    const sent: { address: Address; functionName: string; args: readonly unknown[] }[] = [];
    const signer = {
      write: async (req: { address: Address; functionName: string; args: readonly [bigint, Hex, number] }) => {
        sent.push(req);
        const [accountId, , kind] = req.args;
        return { blockNumber: 11n, transactionHash: "0xab", logs: accountId === 1n ? [executedLog(accountId, kind, 77n)] : [] };
      },
    } as unknown as Signer;
    const ex = new TriggerExecutor(reader, client, signer, BOOK, markets, log);
    expect(await ex.round()).toEqual({ active: 3, reached: 1, void: 1, fired: 1, voided: 1, failed: 0 });
    expect(sent.map((s) => [s.address, s.functionName, s.args])).toEqual([
      [BOOK, "executeTrigger", [1n, M1, 0]],
      [BOOK, "executeTrigger", [3n, M1, 1]],
    ]);
    expect(reads).toEqual(["markPrice"]); // one mark per market and round
    // the index has not passed the calls' block: held
    state.indexed = 11n;
    expect((await ex.round()).fired + (await ex.round()).voided).toBe(0);
    // the mark falls back: account 1's (still indexed active) is not reached any more
    state.indexed = 12n;
    state.mark = e18(1.05);
    const r = await ex.round();
    expect(r.reached).toBe(0);
    expect(sent).toHaveLength(3); // only the void one again
  });

  it("a refused call (no liquidity now) is tried again once the index moved", async () => {
    const state = { indexed: 5n };
    const reader = { block: async () => ({ number: state.indexed, timestamp: 1n }), activeTriggers: async () => [trig({})] } as unknown as IndexerReader;
    const client = { getBlock: async () => ({ number: 1n, timestamp: 1n }), readContract: async () => e18(1.2) } as unknown as PublicClient;
    const markets = { list: async () => [{ marketId: M1, address: A1 }] } as unknown as MarketDirectory;
    let calls = 0;
    const signer = { write: async () => { calls++; throw new Error("NoLiquidity"); } } as unknown as Signer;
    const ex = new TriggerExecutor(reader, client, signer, BOOK, markets, log);
    expect((await ex.round()).failed).toBe(1);
    expect((await ex.round()).failed).toBe(0);
    state.indexed = 6n;
    expect((await ex.round()).failed).toBe(1);
    expect(calls).toBe(2);
  });

  it("a round while neither the index nor the chain's head moved reads nothing (until RERUN_UNCHANGED_MS passed)", async () => {
    vi.useFakeTimers();
    try {
      const state = { indexed: 5n, head: 7n };
      let queries = 0;
      const reader = { block: async () => ({ number: state.indexed, timestamp: 1n }), activeTriggers: async () => (queries++, []) } as unknown as IndexerReader;
      const client = { getBlock: async () => ({ number: state.head, timestamp: 1n }) } as unknown as PublicClient;
      const markets = { list: async () => [] } as unknown as MarketDirectory;
      const ex = new TriggerExecutor(reader, client, {} as Signer, BOOK, markets, log);
      await ex.round();
      await ex.round();
      expect(queries).toBe(1);
      state.head = 8n; // a new block: the marks may have moved
      await ex.round();
      expect(queries).toBe(2);
      state.indexed = 6n;
      await ex.round();
      expect(queries).toBe(3);
      vi.advanceTimersByTime(RERUN_UNCHANGED_MS - 1);
      await ex.round();
      expect(queries).toBe(3);
      vi.advanceTimersByTime(1);
      await ex.round();
      expect(queries).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
