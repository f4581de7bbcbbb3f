/**
 * The keeper's order jobs with stand-ins for the indexer, the chain and the signer: the dead-man
 * executor's grouping (one transaction per account: a single cancelOrders, or an atomic batch of
 * one call per market and chunk of 32) and its hold until the index passes the cancel; the
 * expired-order remover's chunks of 32 per market and its hold.
 */
import { describe, expect, it } from "vitest";
import pino from "pino";
import { decodeFunctionData, encodeEventTopics, encodeAbiParameters, type Address, type Hex, type Log, type PublicClient } from "viem";
import { engineAbi, marketAbi } from "../../../abis/index.js";
import type { IndexerReader } from "../indexer/reader.js";
import type { Signer } from "../chain/clients.js";
import type { MarketDirectory } from "../chain/markets.js";
import { CLOSE_REASON_DEADMAN, DeadmanExecutor } from "./deadman.js";
import { CLOSE_REASON_EXPIRED, ExpiredOrderRemover } from "./expired.js";

const M1 = `0x${"11".repeat(32)}` as Hex;
const M2 = `0x${"22".repeat(32)}` as Hex;
const A1 = `0x${"a1".repeat(20)}` as Address;
const A2 = `0x${"a2".repeat(20)}` as Address;
const ENGINE = `0x${"ee".repeat(20)}` as Address;
const log = pino({ level: "silent" });

/** A mined log of `address` with these topics and data. */
function logOf(address: Address, topics: ReturnType<typeof encodeEventTopics>, data: Hex): Log {
  return { address, topics, data, blockNumber: 1n, blockHash: "0x", logIndex: 0, transactionHash: "0x", transactionIndex: 0, removed: false } as unknown as Log;
}

/** An OrderClosed log of `orderId` (account, reason). */
function closedLog(address: Address, orderId: bigint, accountId: bigint, reason: number): Log {
  const topics = encodeEventTopics({ abi: marketAbi, eventName: "OrderClosed", args: { orderId, accountId } });
  const data = encodeAbiParameters(
    [{ type: "uint64" }, { type: "uint8" }, { type: "uint8" }, { type: "uint256" }, { type: "uint256" }, { type: "uint256" }],
    [1n, 3, reason, 0n, 1n, 5n],
  );
  return logOf(address, topics, data);
}

/** The OrdersCancelled log of a cancelOrders of `orderIds` (account, reason). */
function cancelledLog(address: Address, orderIds: bigint[], accountId: bigint, reason: number): Log {
  const topics = encodeEventTopics({ abi: marketAbi, eventName: "OrdersCancelled", args: { accountId } });
  const data = encodeAbiParameters(
    [{ type: "uint64" }, { type: "uint8" }, { type: "uint256" }, { type: "uint256[]" }],
    [1n, reason, 5n * BigInt(orderIds.length), orderIds],
  );
  return logOf(address, topics, data);
}

type Sent = { address: Address; functionName: string; args: readonly unknown[] };

function signerOf(block: () => bigint, logsOf: (s: Sent) => Log[], fail = false) {
  const sent: Sent[] = [];
  const signer = {
    write: async (req: Sent) => {
      sent.push(req);
      if (fail) throw new Error("OperatorNotApproved");
      return { blockNumber: block(), transactionHash: "0xab", logs: logsOf(req) };
    },
  } as unknown as Signer;
  return { signer, sent };
}

describe("dead-man executor", () => {
  it("one transaction per account: a single cancelOrders, or an atomic batch per market and chunk of 32; held until the index passes it", async () => {
    const state = { indexed: 10n };
    const rows = [
      ...Array.from({ length: 3 }, (_, i) => ({ accountId: 7n, marketId: M1, orderId: 100n + BigInt(i) })),
      ...Array.from({ length: 40 }, (_, i) => ({ accountId: 8n, marketId: M1, orderId: 200n + BigInt(i) })),
      { accountId: 8n, marketId: M2, orderId: 300n },
    ];
    const reader = {
      block: async () => ({ number: state.indexed, timestamp: 1_000n }),
      deadmanOrders: async (_b: unknown, now: bigint) => (expect(now).toBe(2_000n), rows),
    } as unknown as IndexerReader;
    const client = { getBlock: async () => ({ timestamp: 2_000n }) } as unknown as PublicClient;
    const { signer, sent } = signerOf(() => 11n, (s) => {
      const [accountId] = s.args as [bigint];
      if (s.functionName === "cancelOrders") return [cancelledLog(A1, s.args[2] as bigint[], accountId, CLOSE_REASON_DEADMAN)];
      // the batch: every item's ids
      const items = (s.args[0] as Hex[]).map((d) => decodeFunctionData({ abi: engineAbi, data: d }).args as readonly [bigint, Hex, bigint[]]);
      return items.map(([acct, , ids]) => cancelledLog(A1, ids, acct, CLOSE_REASON_DEADMAN));
    });
    const ex = new DeadmanExecutor(reader, client, signer, ENGINE, log);
    const r = await ex.round();
    expect(r).toEqual({ accounts: 2, sent: 2, cancelled: 44 });
    expect(sent.map((s) => s.functionName)).toEqual(["cancelOrders", "batch"]);
    expect(sent[0]!.args).toEqual([7n, M1, [100n, 101n, 102n]]);
    const [items, atomic] = sent[1]!.args as [Hex[], boolean];
    expect(atomic).toBe(true);
    const decoded = items.map((d) => decodeFunctionData({ abi: engineAbi, data: d }));
    expect(decoded.map((d) => [d.functionName, (d.args![2] as bigint[]).length, d.args![1]])).toEqual([
      ["cancelOrders", 32, M1], ["cancelOrders", 8, M1], ["cancelOrders", 1, M2],
    ]);
    // the index has not passed the cancels' block: nothing again
    state.indexed = 11n;
    expect(await ex.round()).toEqual({ accounts: 0, sent: 0, cancelled: 0 });
    state.indexed = 12n;
    expect((await ex.round()).sent).toBe(2);
  });

  it("a refused cancel (the deadline moved) waits for the next indexed block", async () => {
    const state = { indexed: 5n };
    const reader = {
      block: async () => ({ number: state.indexed, timestamp: 1n }),
      deadmanOrders: async () => [{ accountId: 7n, marketId: M1, orderId: 1n }],
    } as unknown as IndexerReader;
    const client = { getBlock: async () => ({ timestamp: 2n }) } as unknown as PublicClient;
    const { signer, sent } = signerOf(() => 6n, () => [], true);
    const ex = new DeadmanExecutor(reader, client, signer, ENGINE, log);
    expect(await ex.round()).toEqual({ accounts: 1, sent: 0, cancelled: 0 });
    expect(await ex.round()).toEqual({ accounts: 0, sent: 0, cancelled: 0 });
    state.indexed = 6n;
    await ex.round();
    expect(sent).toHaveLength(2);
  });
});

describe("expired-order remover", () => {
  it("removes the indexed orders at or past their expiry in chunks of 32 per market, holds them until indexed", async () => {
    const state = { indexed: 10n, now: 1_000n };
    const expiry = new Map<bigint, bigint>([
      ...Array.from({ length: 34 }, (_, i) => [BigInt(i + 1), 900n] as [bigint, bigint]), // expired, M1
      [50n, 0n], // no expiry
      [51n, 5_000n], // later
      [60n, 1_000n], // exactly now, M2
    ]);
    let rows = [...expiry.keys()].map((orderId) => ({ orderId, marketId: orderId === 60n ? M2 : M1 }));
    const asked: bigint[] = [];
    const reader = {
      block: async () => ({ number: state.indexed, timestamp: 1n }),
      // as the SQL filters: expires_at in 1..now
      expiredOrders: async (_b: unknown, now: bigint) => {
        asked.push(now);
        return rows.filter((r) => expiry.get(r.orderId)! > 0n && expiry.get(r.orderId)! <= now);
      },
    } as unknown as IndexerReader;
    const client = { getBlock: async () => ({ timestamp: state.now }) } as unknown as PublicClient;
    const markets = { list: async () => [{ marketId: M1, address: A1 }, { marketId: M2, address: A2 }] } as unknown as MarketDirectory;
    const { signer, sent } = signerOf(() => 11n, (s) => (s.args[0] as bigint[]).map((id) => closedLog(s.address, id, 1n, CLOSE_REASON_EXPIRED)));
    const rm = new ExpiredOrderRemover(reader, client, signer, markets, log);
    expect(await rm.round()).toEqual({ candidates: 35, sent: 3, removed: 35 });
    expect(sent.map((s) => [s.address, s.functionName, (s.args[0] as bigint[]).length])).toEqual([
      [A1, "removeExpired", 32], [A1, "removeExpired", 2], [A2, "removeExpired", 1],
    ]);
    expect(asked).toEqual([1_000n]);
    // not indexed yet: held
    state.indexed = 11n;
    expect(await rm.round()).toEqual({ candidates: 0, sent: 0, removed: 0 });
    // indexed: the removed ones are gone from the index; the later one expires
    state.indexed = 12n;
    state.now = 6_000n;
    rows = rows.filter((r) => r.orderId === 50n || r.orderId === 51n);
    expect(await rm.round()).toEqual({ candidates: 1, sent: 1, removed: 1 });
    expect(sent.at(-1)!.args[0]).toEqual([51n]);
  });
});
