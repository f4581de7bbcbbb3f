import { describe, expect, it } from "vitest";
import pino from "pino";
import { decodeFunctionData, encodeErrorResult, type Hex, type PublicClient } from "viem";
import { engineAbi } from "../../../abis/index.js";
import { VenueClient } from "../../../packages/client/src/index.js";
import type { Signer } from "../chain/clients.js";
import { MarketMaker } from "./maker.js";
import { batchGas } from "./orders.js";
import { TIME_IN_FORCE_VALUE } from "../../../core/order-options.js";

describe("market maker before the integration API is up", () => {
  it("waits (one log line), never throws, and quotes once it answers", async () => {
    const lines: { msg: string }[] = [];
    const log = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    let up = false;
    const fetch = (async (input: string | URL | Request) => {
      if (!up) throw new TypeError("fetch failed: ECONNREFUSED");
      const path = new URL(String(input)).pathname;
      const data = path === "/markets" ? { markets: [] } : path.startsWith("/accounts/7/orders") ? { orders: [], totalCount: 0, hasMore: false, nextCursor: null } : { margin: { available: (10n ** 30n).toString() } };
      return new Response(JSON.stringify({ success: true, data }), { status: 200, headers: { "content-type": "application/json", "x-indexed-block": "5" } });
    }) as typeof globalThis.fetch;
    const api = new VenueClient({ baseUrl: "http://127.0.0.1:1", fetch });
    // accountIdOf: 7; deadmanOf: 0 (none armed; the switch is off here)
    const chain = {
      readContract: async ({ functionName }: { functionName: string }) => (functionName === "deadmanOf" ? 0n : 7n),
      getBlock: async () => ({ timestamp: 1_000n }),
    } as unknown as PublicClient;
    const signer = { address: "0x0000000000000000000000000000000000000001", write: async () => { throw new Error("no writes expected"); } } as unknown as Signer;
    const maker = new MarketMaker({ api, chain, maker: signer, deployer: signer, addresses: { engine: "0x0000000000000000000000000000000000000002", depositToken: "0x0000000000000000000000000000000000000003" }, log }, {
      levels: 1, spreadBps: 10n, levelStepBps: 10n, levelQty: 1n, leverage: 5n, requoteBps: 5n, depositUsd: 1n,
    });
    expect(await maker.round()).toBe(0);
    expect(await maker.round()).toBe(0);
    expect(lines.filter((l) => l.msg === "market maker waiting for the integration API")).toHaveLength(1);
    up = true;
    expect(await maker.round()).toBe(0);
    expect(maker.account).toBe(7n);
    expect(lines.at(-1)!.msg).toBe("market maker: the integration API answers, quoting");
  });
});

describe("market maker's batch (one per market)", () => {
  const EUR = `0x${"ab".repeat(32)}` as Hex;
  const TICK = 10n ** 13n;
  const market = {
    marketId: EUR, symbol: "EUR/USD", maxLeverage: 20, tickSize: TICK.toString(), lotSize: (10n ** 16n).toString(), isActive: true, session: { state: "OPEN" },
  };
  const INDEX = 1_080_000_000_000_000_000n;

  /** A maker against stand-ins: `simulate` answers each item of a simulated batch. */
  function setup(simulate: (fn: string, args: readonly unknown[]) => { ok: boolean; data: Hex }, deadman = { current: 0n, seconds: 60 }) {
    const lines: { level: number; msg: string; lost?: string[] }[] = [];
    const log = pino({ level: "debug" }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const fetch = (async (input: string | URL | Request) => {
      const path = new URL(String(input)).pathname;
      const data = path === "/markets" ? { markets: [market] }
        : path.endsWith("/price") ? { indexPrice: INDEX.toString(), markPrice: INDEX.toString() }
          : path.startsWith("/accounts/7/orders") ? { orders: [], totalCount: 0, hasMore: false, nextCursor: null }
            : { margin: { available: (10n ** 30n).toString() } };
      return new Response(JSON.stringify({ success: true, data }), { status: 200, headers: { "content-type": "application/json", "x-indexed-block": "5" } });
    }) as typeof globalThis.fetch;
    const simulated: { fns: string[]; gas: bigint }[] = [];
    const chain = {
      readContract: async ({ functionName }: { functionName: string }) => (functionName === "deadmanOf" ? deadman.current : 7n),
      getBlock: async () => ({ timestamp: 1_000n }),
      simulateContract: async ({ args, gas }: { args: [Hex[], boolean]; gas: bigint }) => {
        const items = args[0].map((d) => decodeFunctionData({ abi: engineAbi, data: d }));
        simulated.push({ fns: items.map((i) => i.functionName), gas });
        const r = items.map((i) => simulate(i.functionName, i.args as readonly unknown[]));
        return { result: [r.map((x) => x.ok), r.map((x) => x.data)] };
      },
    } as unknown as PublicClient;
    const writes: { functionName: string; args: readonly unknown[]; gas?: bigint }[] = [];
    const signer = {
      address: "0x0000000000000000000000000000000000000001",
      write: async (req: { functionName: string; args: readonly unknown[]; gas?: bigint }) => {
        writes.push(req);
        return { blockNumber: 9n, logs: [], gasUsed: 1n, transactionHash: "0x01" };
      },
    } as unknown as Signer;
    const api = new VenueClient({ baseUrl: "http://127.0.0.1:1", fetch });
    const maker = new MarketMaker({ api, chain, maker: signer, deployer: signer, addresses: { engine: "0x0000000000000000000000000000000000000002", depositToken: "0x0000000000000000000000000000000000000003" }, log }, {
      levels: 2, spreadBps: 10n, levelStepBps: 10n, levelQty: 1n, leverage: 5n, requoteBps: 5n, depositUsd: 1n, deadmanSeconds: deadman.seconds,
    });
    return { maker, writes, simulated, lines };
  }
  const ok = { ok: true, data: "0x" as Hex };

  it("sends the ladder as one non-atomic batch of POST_ONLY places and the dead-man at chain time + period, with the gas budget", async () => {
    const { maker, writes, simulated, lines } = setup(() => ok);
    expect(await maker.round()).toBe(1);
    expect(writes).toHaveLength(1);
    const w = writes[0]!;
    expect(w.functionName).toBe("batch");
    const [calls, atomic] = w.args as [Hex[], boolean];
    expect(atomic).toBe(false);
    const items = calls.map((d) => decodeFunctionData({ abi: engineAbi, data: d }));
    expect(items.map((i) => i.functionName)).toEqual(["placeOrder", "placeOrder", "placeOrder", "placeOrder", "setDeadman"]);
    expect(items.slice(0, 4).every((i) => (i.args[0] as { timeInForce: number }).timeInForce === TIME_IN_FORCE_VALUE.POST_ONLY)).toBe(true);
    expect(items[4]!.args).toEqual([7n, 1_060n]);
    expect(w.gas).toBe(batchGas(["place", "place", "place", "place", "deadman"]));
    // simulated with the gas it is sent with
    expect(simulated[0]!.gas).toBe(w.gas);
    // the stand-in's receipt has no events: every item is "lost", logged at error
    expect(lines.some((l) => l.level === 50 && l.lost?.length === 5)).toBe(true);
  });

  it("reads each item: refused places skipped, a filled order's cancel fine, empty data logged as a bug; nothing sent when nothing would take effect", async () => {
    const { maker, writes, lines } = setup((fn) => fn === "placeOrder"
      ? { ok: false, data: encodeErrorResult({ abi: engineAbi, errorName: "PostOnlyWouldCross", args: [1n, 2n] }) }
      : ok);
    await maker.round();
    // no place would succeed: no batch; the quiet round arms the dead-man alone
    expect(writes.map((w) => w.functionName)).toEqual(["setDeadman"]);
    expect(writes[0]!.args).toEqual([7n, 1_060n]);
    expect(lines.filter((l) => l.msg === "quote skipped")).toHaveLength(4);

    const empty = setup((fn) => (fn === "placeOrder" ? { ok: false, data: "0x" } : ok));
    await empty.maker.round();
    expect(empty.lines.filter((l) => l.level === 50 && l.msg.startsWith("BUG"))).toHaveLength(4);
  });

  it("takes the block time from DeadmanTooSoon (an idle chain) and sets it again", async () => {
    let tries = 0;
    const { maker, writes } = setup((fn, args) => {
      if (fn !== "setDeadman") return ok;
      tries++;
      return args[1] === 1_060n
        ? { ok: false, data: encodeErrorResult({ abi: engineAbi, errorName: "DeadmanTooSoon", args: [1_060n, 1_505n] }) }
        : ok;
    });
    await maker.round();
    expect(tries).toBe(2);
    const [calls] = writes[0]!.args as [Hex[]];
    expect(decodeFunctionData({ abi: engineAbi, data: calls.at(-1)! }).args).toEqual([7n, 1_560n]);
  });

  it("off: no dead-man item, an armed deadline of an earlier run cleared", async () => {
    const off = setup(() => ok, { current: 0n, seconds: 0 });
    await off.maker.round();
    const [calls] = off.writes[0]!.args as [Hex[]];
    expect(calls.map((d) => decodeFunctionData({ abi: engineAbi, data: d }).functionName)).not.toContain("setDeadman");
    const armed = setup(() => ok, { current: 1_030n, seconds: 0 });
    await armed.maker.round();
    const [c2] = armed.writes[0]!.args as [Hex[]];
    expect(decodeFunctionData({ abi: engineAbi, data: c2.at(-1)! }).args).toEqual([7n, 0n]);
  });
});
