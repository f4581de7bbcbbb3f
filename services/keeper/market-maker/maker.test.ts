import { describe, expect, it } from "vitest";
import pino from "pino";
import type { PublicClient } from "viem";
import { VenueClient } from "../../../packages/client/src/index.js";
import type { Signer } from "../chain/clients.js";
import { MarketMaker } from "./maker.js";

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
