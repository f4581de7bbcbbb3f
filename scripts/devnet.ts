/**
 * `npm run devnet`: a local chain with the venue deployed and nothing else running.
 * anvil (20 accounts; ANVIL_PORT, default 8545; `-- --state <file>` to persist) → deploy →
 * three USD markets with index prices → anvil's ten well-known accounts (0–9) get 1,000,000
 * USDV each and approve the engine. Writes deployments/31337.json. Ctrl-C stops anvil.
 */
import { join } from "node:path";
import type { PublicClient } from "viem";
import { startAnvil } from "../core/chain/anvil.js";
import { KEY_INDEX, LOCAL_CHAIN_ID, devAccount } from "../core/config.js";
import { deployVenue, writeDeployment } from "./deploy.js";
import { publicClientFor, walletClientFor } from "./lib/clients.js";
import { DEMO_MINT_6, mintTo, prepareWallet, usd } from "./lib/demo-wallets.js";
import { PROJECT_ROOT } from "../core/deployment.js";

async function main() {
  const args = process.argv.slice(2);
  const stateAt = args.indexOf("--state");
  const anvil = await startAnvil({
    port: Number(process.env.ANVIL_PORT ?? 8545),
    stateFile: stateAt >= 0 ? args[stateAt + 1] : undefined,
    logFile: process.env.ANVIL_LOG,
  });
  const stop = async (code: number) => {
    await anvil.stop();
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  try {
    const chainId = LOCAL_CHAIN_ID;
    const client = publicClientFor(anvil.rpcUrl, chainId);
    const deployer = walletClientFor(anvil.rpcUrl, chainId, devAccount(KEY_INDEX.deployer).privateKey);
    const deployment = await deployVenue(deployer, client as PublicClient, {
      updaters: [devAccount(KEY_INDEX.priceFeed).address],
      log: (m) => console.log(`  ${m}`),
    });
    const file = writeDeployment(deployment, process.env.DEPLOYMENT_FILE ?? join(PROJECT_ROOT, "deployments", `${chainId}.json`));
    const ctx = { rpcUrl: anvil.rpcUrl, chainId, deployment };
    const demo = Array.from({ length: 10 }, (_, i) => devAccount(i));
    await mintTo(ctx, devAccount(KEY_INDEX.deployer).privateKey, [
      ...demo.map((a) => ({ address: a.address, amount6: DEMO_MINT_6 })),
      { address: devAccount(KEY_INDEX.marketMaker).address, amount6: usd("20000000") },
    ]);
    await Promise.all(demo.map((a) => prepareWallet(ctx, a.privateKey, { approve: true })));
    console.log(`\ndevnet ready: ${anvil.rpcUrl} (chain ${chainId}), deployment ${file}`);
    console.log("accounts 0–9 hold 1,000,000 USDV each and approved the engine. Ctrl-C stops.");
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    await stop(1);
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
