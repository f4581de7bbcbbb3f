/**
 * The local market maker on a private chain (anvil + the real contracts): a re-quote that runs out
 * of margin still cancels its stale orders (before, the first place that failed for margin ended
 * the market's round, leaving every stale quote resting and its margin locked), and the round
 * tops the account up, so the next round quotes the new index.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import type { Hex } from "viem";
import { engineAbi, marketAbi, oracleAbi } from "../../abis/index.js";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import { AMOUNT6_TO_WAD } from "../../core/units.js";
import { Signer } from "../../services/keeper/chain/clients.js";
import { MarketDirectory } from "../../services/keeper/chain/markets.js";
import { MarketMaker } from "../../services/keeper/market-maker/maker.js";
import { quoteClientKey, SIDE_LONG, SIDE_SHORT, SLOTS } from "../../services/keeper/market-maker/quotes.js";
import { startTestChain, type TestChain } from "./relayer-harness.js";

const LEVELS = 2;
const ACTIVE = 1;

describe("market maker", () => {
  let chain: TestChain;
  beforeAll(async () => {
    chain = await startTestChain({ prepared: 1 });
  });
  afterAll(async () => {
    await chain?.stop();
  });

  it("a round short of margin cancels its stale quotes and tops up; the next one quotes the new index", async () => {
    const { client, rpcUrl, deployment } = chain;
    const { engine, oracle, depositToken } = deployment.contracts;
    const log = pino({ level: "silent" });
    const signer = (role: string, index: number) => new Signer(role, devAccount(index).privateKey, client, rpcUrl, 31337, log);
    const makerKey = signer("market-maker", KEY_INDEX.marketMaker);
    const markets = new MarketDirectory(client, engine);
    const maker = new MarketMaker(client, makerKey, signer("deployer", KEY_INDEX.deployer), { engine, oracle, depositToken }, markets, {
      levels: LEVELS, spreadBps: 10n, levelStepBps: 10n, levelQty: 1_000n, leverage: 5n, requoteBps: 5n, depositUsd: 1_000_000n,
    }, log);
    // one market only: the others' rounds would spend the margin this test takes away
    const [m] = await markets.list();
    (markets as unknown as { list: () => Promise<unknown[]> }).list = async () => [m];
    const market = m!;

    /** The maker's active orders in this market, by client key. */
    const active = async () => {
      const id = maker.account;
      const out = new Map<Hex, bigint>();
      for (const side of [SIDE_LONG, SIDE_SHORT] as const)
        for (let level = 0; level < LEVELS; level++)
          for (const slot of SLOTS) {
            const key = quoteClientKey(market.marketId, side, level, slot);
            const orderId = await client.readContract({ address: market.address, abi: marketAbi, functionName: "orderIdOf", args: [id, key] });
            if (orderId === 0n) continue;
            const o = await client.readContract({ address: market.address, abi: marketAbi, functionName: "getOrder", args: [orderId] });
            if (Number(o.status) === ACTIVE) out.set(key, o.priceX18);
          }
      return out;
    };

    expect(await maker.round()).toBeGreaterThan(0);
    const first = await active();
    expect(first.size).toBe(2 * LEVELS);

    // the index moves 1 % (every quote stale) while the account has no margin left to place with
    const available = async () => (await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [maker.account] })).availableWad;
    await makerKey.write({ address: engine, abi: engineAbi, functionName: "withdraw", args: [maker.account, (await available()) / AMOUNT6_TO_WAD] });
    expect(await available()).toBeLessThan(AMOUNT6_TO_WAD);
    const [index] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [market.marketId] });
    const moved = ((index * 10_100n) / 10_000n / market.tickX18) * market.tickX18;
    await signer("price-feed", KEY_INDEX.priceFeed).write({ address: oracle, abi: oracleAbi, functionName: "setPrices", args: [[market.marketId], [moved]] });

    await maker.round();
    // every stale quote is gone (its margin free again), though none of the new ones could be placed
    const afterShort = await active();
    for (const key of first.keys()) expect(afterShort.has(key), `stale quote ${key} still resting`).toBe(false);
    // and the round topped the account up
    expect(await available()).toBeGreaterThan(0n);

    await maker.round();
    const requoted = await active();
    expect(requoted.size).toBe(2 * LEVELS);
    for (const price of requoted.values()) expect(price > moved ? price - moved : moved - price).toBeLessThan(moved / 100n);
  });
});
