/**
 * The oracle on the real stack: the devnet configuration (60 s staleness, 500 bps per update)
 * and the updaters as indexed, and a clamped update indexed with requested vs applied. The clamp
 * is shown on a price id no market uses, so no other file's market moves; so is a price id routed
 * to a feed (a Chainlink-style aggregator behind the ChainlinkFeedAdapter), whose moves the oracle
 * does not emit: the indexer reads it each block.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createClient } from "@ponder/client";
import { eq } from "drizzle-orm";
import { createWalletClient, http, keccak256, parseEventLogs, toBytes, zeroAddress, type Abi, type Address, type Hex } from "viem";
import { chainFor } from "../../core/chain/viem-chain.js";
import { oracleAbi } from "../../abis/index.js";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import * as schema from "../../ponder.schema.js";
import { retryingTakenNonce } from "../../scripts/lib/clients.js";
import { publicClient, waitIndexed, walletClient } from "./helpers/chain.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";

describe.each([sharedStack()])("oracle ($kind)", (s: StackInfo) => {
  const client = publicClient(s);
  const { oracle } = s.deployment.contracts;
  const sqlClient = () => createClient(`${s.integrationUrl}/sql`, { schema });

  it("indexes the devnet configuration and the updaters", async () => {
    expect(await client.readContract({ address: oracle, abi: oracleAbi, functionName: "maxAgeSeconds" })).toBe(60n);
    // by primary key: /sql refuses scans above SQL_MAX_COST
    const [config] = await sqlClient().db.select().from(schema.oracleConfig).where(eq(schema.oracleConfig.id, 0)).limit(10);
    expect(config).toMatchObject({ maxAgeSeconds: 60n, maxMoveBps: 100 });
    const feed = devAccount(KEY_INDEX.priceFeed).address.toLowerCase() as Hex;
    const [updater] = await sqlClient().db.select().from(schema.oracleUpdater).where(eq(schema.oracleUpdater.address, feed)).limit(10);
    expect(updater?.allowed).toBe(true);
  });

  it("clamps an update beyond the move bound and indexes requested vs applied", async () => {
    const deployer = walletClient(s, devAccount(KEY_INDEX.deployer).privateKey);
    const id = keccak256(toBytes(`E2E/CLAMP-${s.kind}-${Date.now()}`)) as Hex;
    // both updates in one transaction (setPrices): the first price is the reference of the second
    // whatever the seconds, and no other file's transaction from the shared deployer key can come
    // between (a nonce another file took first is read again)
    const hash = await retryingTakenNonce(() =>
      deployer.writeContract({ address: oracle, abi: oracleAbi, functionName: "setPrices", args: [[id, id], [10n ** 18n, 2n * 10n ** 18n]] }),
    );
    const r = await client.waitForTransactionReceipt({ hash });
    expect(r.status).toBe("success");
    const [ev] = parseEventLogs({ abi: oracleAbi, logs: r.logs, eventName: "IndexPriceClamped" });
    expect(ev?.args).toMatchObject({ requestedPriceX18: 2n * 10n ** 18n, appliedPriceX18: 101n * 10n ** 16n, referencePriceX18: 10n ** 18n });
    const [price] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [id] });
    expect(price).toBe(101n * 10n ** 16n);

    await waitIndexed(s, r.blockNumber, 90_000);
    const rows = await sqlClient().db.select().from(schema.indexPriceClamp).where(eq(schema.indexPriceClamp.marketId, id)).limit(10);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ requestedPriceX18: 2n * 10n ** 18n, appliedPriceX18: 101n * 10n ** 16n, referencePriceX18: 10n ** 18n, blockNumber: r.blockNumber });
    const [latest] = await sqlClient().db.select().from(schema.indexPrice).where(eq(schema.indexPrice.marketId, id)).limit(10);
    expect(latest?.priceX18).toBe(101n * 10n ** 16n);
  });

  it("follows a feed-routed price id each block: index_price as the oracle's window gives it, back to pushed prices when unrouted", async () => {
    // forge's artifacts (the forge phase compiles contracts/test before e2e runs)
    const artifact = (file: string, name: string) => {
      const path = new URL(`../../contracts/out/${file}/${name}.json`, import.meta.url);
      if (!existsSync(path)) throw new Error(`${name} is not compiled (${path.pathname}): run \`npm run test:forge\` (or \`npx tsx scripts/forge.ts build\`) before the e2e files alone`);
      const j = JSON.parse(readFileSync(path, "utf8"));
      return { abi: j.abi as Abi, bytecode: j.bytecode.object as Hex };
    };
    const deployer = walletClient(s, devAccount(KEY_INDEX.deployer).privateKey);
    const deploy = async (a: { abi: Abi; bytecode: Hex }, args: unknown[]) => {
      const hash = await retryingTakenNonce(() => deployer.deployContract({ ...a, args } as never));
      return (await client.waitForTransactionReceipt({ hash })).contractAddress as Address;
    };
    const aggregator = artifact("ChainlinkFeedAdapter.t.sol", "MockAggregator");
    const agg = await deploy(aggregator, [8]);
    const push = async (answer: bigint, at: bigint) => {
      const hash = await retryingTakenNonce(() => deployer.writeContract({ address: agg, abi: aggregator.abi, functionName: "push", args: [answer, at] } as never));
      return client.waitForTransactionReceipt({ hash });
    };
    const now = async () => (await client.getBlock({ blockTag: "latest", cacheTime: 0 } as never)).timestamp;
    const at1 = await now();
    await push(108_000_000n, at1); // 1.08 at 8 decimals
    const adapter = await deploy(artifact("ChainlinkFeedAdapter.sol", "ChainlinkFeedAdapter"), [agg]);
    const id = keccak256(toBytes(`E2E/FEED-${s.kind}-${Date.now()}`)) as Hex;
    // PARAMS_ROLE is the timelock's: on the local chain, as the timelock at once
    const timelock = s.deployment.contracts.timelock as Address;
    const setFeed = async (feed: Address) => {
      await client.request({ method: "anvil_impersonateAccount" as never, params: [timelock] as never });
      await client.request({ method: "anvil_setBalance" as never, params: [timelock, "0xde0b6b3a7640000"] as never });
      try {
        const w = createWalletClient({ account: timelock, chain: chainFor(s.chainId, s.rpcUrl), transport: http(s.rpcUrl) });
        const hash = await w.writeContract({ address: oracle, abi: oracleAbi, functionName: "setFeed", args: [id, feed] });
        return await client.waitForTransactionReceipt({ hash });
      } finally {
        await client.request({ method: "anvil_stopImpersonatingAccount" as never, params: [timelock] as never });
      }
    };
    const indexed = async (block: bigint) => {
      await waitIndexed(s, block, 90_000);
      const [row] = await sqlClient().db.select().from(schema.indexPrice).where(eq(schema.indexPrice.marketId, id)).limit(10);
      const [priceX18, freshSince, freshUntil] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "priceWindow", args: [id], blockNumber: block });
      return { row, chain: { priceX18, freshSince, updatedAt: freshUntil - 60n } };
    };

    const routed = await indexed((await setFeed(adapter)).blockNumber);
    expect(routed.chain).toEqual({ priceX18: 108n * 10n ** 16n, freshSince: at1, updatedAt: at1 });
    expect(routed.row).toMatchObject(routed.chain);
    // the aggregator moves: the oracle emits nothing, the indexer reads it at the next block
    const at2 = (await now()) + 1n;
    const moved = await indexed((await push(109_500_000n, at2)).blockNumber);
    expect(moved.chain).toEqual({ priceX18: 1095n * 10n ** 15n, freshSince: at2, updatedAt: at2 });
    expect(moved.row).toMatchObject(moved.chain);
    const events = await sqlClient().db.select().from(schema.indexPriceEvent).where(eq(schema.indexPriceEvent.marketId, id)).limit(10);
    expect(events.map((e) => e.priceX18).sort()).toEqual([108n * 10n ** 16n, 1095n * 10n ** 15n]);
    // unrouted: the oracle's pushed price for the id again (never pushed: none)
    const back = await indexed((await setFeed(zeroAddress)).blockNumber);
    expect(back.chain.priceX18).toBe(0n);
    expect(back.row).toMatchObject(back.chain);
  });
});
