/**
 * The oracle on the real stack: the devnet configuration (60 s staleness, 500 bps per update)
 * and the updaters as indexed, and a clamped update indexed with requested vs applied. The clamp
 * is shown on a price id no market uses, so no other file's market moves.
 */
import { describe, expect, it } from "vitest";
import { createClient } from "@ponder/client";
import { eq } from "drizzle-orm";
import { keccak256, parseEventLogs, toBytes, type Hex } from "viem";
import { oracleAbi } from "../../abis/index.js";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import * as schema from "../../ponder.schema.js";
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
    const push = async (p: bigint) => {
      const hash = await deployer.writeContract({ address: oracle, abi: oracleAbi, functionName: "setPrice", args: [id, p] });
      return client.waitForTransactionReceipt({ hash });
    };
    await push(10n ** 18n); // the first price is the reference
    const r = await push(2n * 10n ** 18n);
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
});
