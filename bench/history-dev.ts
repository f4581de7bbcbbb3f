/**
 * Development harness for the history lists' cost (not part of `npm run bench`): one venue,
 * indexer and generated dataset kept up (Postgres), so that a read service under test
 * (a profile, a branch) can be started against it again and again and loaded on one URL.
 *   BENCH_HISTORY_FILLS=200000 BENCH_HISTORY_DEEP_PAGE=200 npx tsx bench/history-dev.ts /tmp/hdev.json
 * writes {databaseUrl, schema, indexerUrl, urls: {list: [first, deep]}} to the file, then holds
 * the stack until SIGINT/SIGTERM (which drops its database).
 */
import { writeFileSync } from "node:fs";
import type { Hex } from "viem";
import { startVenue, waitForBlock } from "../test/e2e/reads-env.js";
import { HOT_ACCOUNT } from "./history-data.js";
import { generate, thousandthPage } from "./history.js";

const out = process.argv[2] ?? "/tmp/history-dev.json";
const v = await startVenue("postgres");
const stop = () => void v.stop().finally(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
const ix = await v.startIndexer("hdev");
await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }), 600_000);
const t0 = await generate(v, ix, console.log);
const rd = await v.startReads(ix);
const eur = v.deployment.markets[0]!.marketId as Hex;
const a = HOT_ACCOUNT;
const lists = [
  ["trades", `/markets/${eur}/trades`, "trades"],
  ["funding history", `/markets/${eur}/funding/history`, "funding"],
  ["candles 1m", `/markets/${eur}/candles?resolution=1m&from=${t0}`, "candles"],
  ["fills", `/accounts/${a}/fills`, "fills"],
  ["funding payments", `/accounts/${a}/funding-payments`, "fundingPayments"],
  ["transfers", `/accounts/${a}/transfers`, "transfers"],
  ["liquidations", `/accounts/${a}/liquidations`, "liquidations"],
  ["order history", `/accounts/${a}/orders/history`, "orders"],
] as const;
const urls: Record<string, [string, string]> = {};
for (const [list, path, key] of lists) {
  const deep = await thousandthPage(rd.url, path, key);
  urls[list] = [`${path}${path.includes("?") ? "&" : "?"}limit=100`, deep.path];
}
await rd.proc.stop();
writeFileSync(out, JSON.stringify({ databaseUrl: v.databaseUrl, schema: ix.schema, indexerUrl: ix.url, urls }, null, 2));
console.log(`ready: ${out}`);
setInterval(() => {}, 1 << 30);
