import { afterEach, describe, expect, it, vi } from "vitest";
import pino from "pino";
import type { Hex } from "viem";
import type { IndexerReader, Snapshot } from "../indexer/reader.js";
import type { RelayerAnswer, RelayerClient } from "../relayer-client.js";
import type { MarketContext, PositionRow } from "./health.js";
import { LiquidationScanner, STALL_CALLS } from "./scanner.js";
import { RERUN_UNCHANGED_MS } from "../indexer/unchanged.js";

const E18 = 10n ** 18n;
const M1 = `0x${"11".repeat(32)}` as Hex;
const M2 = `0x${"22".repeat(32)}` as Hex;
const ctx = (marketId: Hex, index: bigint): MarketContext => ({
  marketId, symbol: marketId === M1 ? "EUR/USD" : "GBP/USD", marketAddress: `0x${"33".repeat(20)}`,
  maintenanceMarginBps: 100n, liquidationFeeBps: 50n, isActive: true,
  indexPriceX18: index, indexUpdatedAt: 1n,
  fundingRateX18PerHour: 0n, cumulativeFundingIndexX18: 0n, fundingLastUpdate: 1n, premiumX18: 0n, sampleBidX18: 0n, sampleAskX18: 0n, markClampBps: 50n,
});
// a 1,000-unit long bought at 1.00 with 20 of margin: liquidatable below ≈ 0.9899
const pos = (accountId: bigint, marketId: Hex): PositionRow => ({
  positionId: `0x${accountId.toString(16).padStart(2, "0").repeat(32)}` as Hex, accountId, marketId,
  sizeQty: 1_000n * E18, openNotionalWad: 1_000n * E18, marginWad: 20n * E18, lastFundingIndexX18: 0n,
  lastSettledAt: 1n, openBlock: 1n,
});

// Stand-ins for the indexer and the relayer (unit test only).
function setup(positions: PositionRow[], answer: (path: string) => RelayerAnswer) {
  const state = { block: 10n, index: 1n * E18 };
  const sent: string[] = [];
  const reads = { positions: 0 };
  const reader = {
    block: async () => ({ number: state.block, timestamp: 100n }),
    marketsAt: async (block: { number: bigint; timestamp: bigint }): Promise<Snapshot> => ({
      block, markets: new Map([[M1, ctx(M1, state.index)], [M2, ctx(M2, state.index)]]), seenBlock: 0n,
    }),
    openPositions: async () => {
      reads.positions++;
      return positions;
    },
  } as unknown as IndexerReader;
  const relayer = {
    liquidatePosition: async (accountId: bigint, marketId: string) => {
      sent.push(`position ${accountId} ${marketId === M1 ? "M1" : "M2"}`);
      return answer("position");
    },
    liquidateAccount: async (accountId: bigint) => {
      sent.push(`account ${accountId}`);
      return answer("account");
    },
  } as unknown as RelayerClient;
  const scanner = new LiquidationScanner(reader, relayer, "0x0000000000000000000000000000000000000001", pino({ level: "silent" }));
  return { scanner, state, sent, reads };
}

const mined = (block: number): RelayerAnswer => ({ status: 200, body: { success: true, data: { blockNumber: block, transactionHash: "0xab" } } });
const refused = (code: string): RelayerAnswer => ({ status: 409, body: { success: false, error: { code, message: code } } });

describe("liquidation scan", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("skips a scan at the indexed block of the previous one until the rescan interval passed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { scanner, state, sent, reads } = setup([pos(1n, M1)], () => mined(10));
    state.index = 98n * E18 / 100n;
    expect(await scanner.scan()).toEqual({ scanned: 1, liquidatable: 1, sent: 1 });
    expect(await scanner.scan()).toEqual({ scanned: 1, liquidatable: 1, sent: 0 });
    expect(reads.positions).toBe(1);
    vi.advanceTimersByTime(RERUN_UNCHANGED_MS - 1);
    await scanner.scan();
    expect(reads.positions).toBe(1);
    vi.advanceTimersByTime(1); // the same block for RERUN_UNCHANGED_MS: scanned anyway (still held: not sent)
    expect(await scanner.scan()).toEqual({ scanned: 1, liquidatable: 0, sent: 0 });
    expect(reads.positions).toBe(2);
    state.block = 11n; // a newer block than the liquidation's: scanned and sent again
    expect(await scanner.scan()).toEqual({ scanned: 1, liquidatable: 1, sent: 1 });
    expect(reads.positions).toBe(3);
    expect(sent).toHaveLength(2);
  });

  it("leaves healthy positions alone", async () => {
    const { scanner, sent } = setup([pos(1n, M1)], () => mined(11));
    expect(await scanner.scan()).toEqual({ scanned: 1, liquidatable: 0, sent: 0 });
    expect(sent).toEqual([]);
  });

  it("sends one position liquidation, or one account liquidation for several positions", async () => {
    const { scanner, state, sent } = setup([pos(1n, M1), pos(2n, M1), pos(2n, M2)], () => mined(11));
    state.index = 98n * E18 / 100n;
    const r = await scanner.scan();
    expect(r).toEqual({ scanned: 3, liquidatable: 3, sent: 2 });
    expect(sent.sort()).toEqual(["account 2", "position 1 M1"]);
  });

  it("liquidates the insurance fund's positions (account 0) one by one, never as an account", async () => {
    const { scanner, state, sent } = setup([pos(0n, M1), pos(0n, M2)], () => mined(11));
    state.index = (98n * E18) / 100n;
    expect(await scanner.scan()).toEqual({ scanned: 2, liquidatable: 2, sent: 2 });
    expect(sent).toEqual(["position 0 M1", "position 0 M2"]);
  });

  it("does not send again until the index has passed the liquidation's block", async () => {
    const { scanner, state, sent } = setup([pos(1n, M1)], () => mined(15));
    state.index = 98n * E18 / 100n;
    await scanner.scan();
    state.block = 15n; // the liquidation's block itself: the row may still be the old one
    await scanner.scan();
    expect(sent).toHaveLength(1);
    state.block = 16n; // indexed past it and still liquidatable (e.g. a partial close): again
    await scanner.scan();
    expect(sent).toHaveLength(2);
  });

  it("retries NOT_LIQUIDATABLE on the next block, other refusals after a pause", async () => {
    const a = setup([pos(1n, M1)], () => refused("NOT_LIQUIDATABLE"));
    a.state.index = 98n * E18 / 100n;
    await a.scanner.scan();
    await a.scanner.scan(); // same block: held
    expect(a.sent).toHaveLength(1);
    a.state.block = 11n;
    await a.scanner.scan();
    expect(a.sent).toHaveLength(2);

    const b = setup([pos(1n, M1)], () => refused("NO_LIQUIDITY"));
    b.state.index = 98n * E18 / 100n;
    await b.scanner.scan();
    b.state.block = 11n;
    await b.scanner.scan(); // newer block but inside the back-off
    expect(b.sent).toHaveLength(1);
  });

  it("falls back market by market when an account liquidation is refused as a whole", async () => {
    const { scanner, state, sent } = setup([pos(2n, M1), pos(2n, M2)], (path) => (path === "account" ? refused("NO_LIQUIDITY") : mined(11)));
    state.index = 98n * E18 / 100n;
    expect(await scanner.scan()).toEqual({ scanned: 2, liquidatable: 2, sent: 3 });
    expect(sent).toEqual(["account 2", "position 2 M1", "position 2 M2"]);
  });

  it("survives a relayer that is down", async () => {
    const { scanner, state, sent } = setup([pos(1n, M1)], () => {
      throw new Error("ECONNREFUSED");
    });
    state.index = 98n * E18 / 100n;
    await expect(scanner.scan()).resolves.toMatchObject({ sent: 1 });
    expect(sent).toHaveLength(1);
  });

  it("a call that closed nothing but cancelled unfillable orders: warned with the count, sent again past its block", async () => {
    const lines: { level: number; msg: string; cancelledOrders?: number }[] = [];
    const { scanner, state, sent } = setup([pos(1n, M1)], () => ({
      status: 200,
      body: { success: true, data: { blockNumber: 11, transactionHash: "0xab", liquidations: [{ closedQuantity: "0", cancelledOrders: 100 }] } },
    }));
    (scanner as unknown as { log: pino.Logger }).log = pino({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    state.index = 98n * E18 / 100n;
    await scanner.scan();
    expect(lines.find((l) => l.msg.startsWith("liquidation closed nothing"))).toMatchObject({ level: 40, cancelledOrders: 100 });
    state.block = 12n;
    await scanner.scan();
    expect(sent).toEqual(["position 1 M1", "position 1 M1"]);
  });

  it("a liquidation closing nothing STALL_CALLS times in a row is reported stalled; healthy again, it is not", async () => {
    const { scanner, state } = setup([pos(1n, M1)], () => ({
      status: 200,
      body: { success: true, data: { blockNumber: 11, transactionHash: "0xab", liquidations: [{ closedQuantity: "0", cancelledOrders: 100 }] } },
    }));
    (scanner as unknown as { log: pino.Logger }).log = pino({ level: "silent" });
    state.index = 98n * E18 / 100n;
    for (let i = 0; i < STALL_CALLS; i++) {
      expect(scanner.stalled(), `after ${i} calls`).toEqual([]);
      state.block = 20n + BigInt(i) * 2n; // past the previous call's block
      await scanner.scan();
    }
    expect(scanner.stalled()).toEqual([{ positionId: expect.stringMatching(/^0x/), calls: STALL_CALLS }]);
    state.index = E18; // the price came back: not liquidatable
    state.block += 2n;
    await scanner.scan();
    expect(scanner.stalled()).toEqual([]);
  });
});
