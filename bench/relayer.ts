/**
 * Relayer throughput: writes per second from ONE signer to anvil mining a block every second
 * (`--block-time 1`), through the real relayer process on Postgres (nonces pipelined: many
 * transactions of the signer per block), beside the naive way in the same run (one key: send,
 * wait for the receipt, send the next). The write is `createAccount` for fresh wallets (each
 * its own account, so nothing serialises them but the signer's nonce).
 *   npm run bench -- relayer          (BENCH_RELAYER_WRITES=600 BENCH_RELAYER_CONCURRENCY=300)
 * Then lane starvation: an owner's writes (deposits, one after another, each waiting to be mined)
 * alone, then under a flood of writes on that account by another wallet (refused before queueing):
 * the owner's p50/p99 both ways (BENCH_RELAYER_OWNER_WRITES=30, BENCH_RELAYER_FLOOD_CONCURRENCY=50).
 * Prints figures; asserts nothing (the nonce checks are printed too).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Address, PublicClient } from "viem";
import { engineAbi } from "../abis/index.js";
import { startAnvil } from "../core/chain/anvil.js";
import { KEY_INDEX, devAccount } from "../core/config.js";
import { deployVenue, writeDeployment } from "../scripts/deploy.js";
import { publicClientFor, walletClientFor } from "../scripts/lib/clients.js";
import { mintTo, prepareWallet, usd } from "../scripts/lib/demo-wallets.js";
import { dropSchema, POSTGRES_URL, query, relayerCall, RELAYER, startRelayer, uniqueSchema, type TestChain } from "../test/e2e/relayer-harness.js";

const WRITES = Number(process.env.BENCH_RELAYER_WRITES ?? 600);
const CONCURRENCY = Number(process.env.BENCH_RELAYER_CONCURRENCY ?? 300);
const NAIVE_WRITES = Number(process.env.BENCH_RELAYER_NAIVE_WRITES ?? 5);
const OWNER_WRITES = Number(process.env.BENCH_RELAYER_OWNER_WRITES ?? 30);
const FLOOD_CONCURRENCY = Number(process.env.BENCH_RELAYER_FLOOD_CONCURRENCY ?? 50);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const freshAddresses = (n: number): Address[] => Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()).address);

async function pool<T>(items: T[], concurrency: number, f: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await f(items[next++]!);
  }));
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), "bench-relayer-"));
  const anvil = await startAnvil({ blockTime: 1, logFile: join(dir, "anvil.log"), extraArgs: ["--gas-limit", "300000000"] });
  const schema = uniqueSchema("bench");
  let relayer: Awaited<ReturnType<typeof startRelayer>> | undefined;
  try {
    const chainId = 31337;
    const client = publicClientFor(anvil.rpcUrl, chainId) as PublicClient;
    const deployer = walletClientFor(anvil.rpcUrl, chainId, devAccount(KEY_INDEX.deployer).privateKey);
    console.log("deploying (blocks every 1 s)...");
    const deployment = await deployVenue(deployer, client, { maxAgeSeconds: 3600n }); // no price feed here
    const deploymentFile = writeDeployment(deployment, join(dir, "deployment.json"));
    const chain = { rpcUrl: anvil.rpcUrl, deploymentFile, dir } as unknown as TestChain;
    const engine = deployment.contracts.engine;

    // ── naive: one key, send → wait for the receipt → send the next ─────────────────────────
    const naiveKey = devAccount(15).privateKey;
    const naive = walletClientFor(anvil.rpcUrl, chainId, naiveKey);
    const n0 = Date.now();
    for (const owner of freshAddresses(NAIVE_WRITES)) {
      const hash = await naive.writeContract({ address: engine, abi: engineAbi, functionName: "createAccount", args: [owner] });
      await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    }
    const naiveSeconds = (Date.now() - n0) / 1000;
    const naiveRate = NAIVE_WRITES / naiveSeconds;

    // ── the relayer: queue, simulate, pipelined nonces, receipts ────────────────────────────
    relayer = await startRelayer(chain, { url: POSTGRES_URL, schema }, {
      WRITE_TIMEOUT_MS: "60000", TRACK_INTERVAL_MS: "100", DB_POOL_SIZE: "40", LOG_LEVEL: process.env.BENCH_RELAYER_LOG_LEVEL ?? "warn", BUMP_AFTER_MS: "30000",
    }, { name: "bench-relayer", nodeArgs: process.env.BENCH_RELAYER_NODE_ARGS?.split(" ").filter(Boolean) });
    // warm-up (connections, JIT)
    await pool(freshAddresses(20), 20, async (owner) => {
      await relayerCall(relayer!.url, "POST", "/internal/accounts", { caller: owner, body: { userAddress: owner } });
    });
    const startNonce = await client.getTransactionCount({ address: RELAYER.address, blockTag: "latest" });
    const owners = freshAddresses(WRITES);
    const statuses = new Map<number, number>();
    const latencies: number[] = [];
    const b0 = Date.now();
    const firstBlock = await client.getBlockNumber();
    await pool(owners, CONCURRENCY, async (owner) => {
      const t = Date.now();
      const r = await relayerCall(relayer!.url, "POST", "/internal/accounts", { caller: owner, body: { userAddress: owner } });
      latencies.push(Date.now() - t);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    });
    const seconds = (Date.now() - b0) / 1000;
    const lastBlock = await client.getBlockNumber();
    const rate = WRITES / seconds;

    // ── checks: nonces ────────────────────────────────────────────────────────────────────
    const endNonce = await client.getTransactionCount({ address: RELAYER.address, blockTag: "latest" });
    const rows = await query<{ nonce: string }>(`SELECT nonce FROM "${schema}".request WHERE nonce IS NOT NULL ORDER BY nonce`);
    const contiguous = rows.every((r, i) => Number(r.nonce) === i);
    const log = readFileSync(relayer.logFile, "utf8");
    const nonceErrors = (log.match(/nonce too (low|high)|broadcast failed/gi) ?? []).length;
    const attempts = await query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".tx_attempt`);
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => percentile(latencies, p);

    console.log("");
    console.log("relayer throughput, one signer, anvil --block-time 1, Postgres queue");
    console.log(`  naive (send, wait for receipt, send next):  ${NAIVE_WRITES} writes in ${naiveSeconds.toFixed(1)} s = ${naiveRate.toFixed(2)} writes/s`);
    console.log(`  relayer (pipelined nonces, ${CONCURRENCY} in flight): ${WRITES} writes in ${seconds.toFixed(1)} s = ${rate.toFixed(1)} writes/s (${(rate / naiveRate).toFixed(0)}× naive)`);
    console.log(`  HTTP statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(", ")}; latency p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${pct(100)} ms`);
    console.log(`  blocks used: ${Number(lastBlock - firstBlock)}; signer nonce ${startNonce} → ${endNonce} (+${endNonce - startNonce})`);
    console.log(`  nonces in the database: ${rows.length}, contiguous from 0: ${contiguous}; transactions signed: ${attempts[0]!.n}; nonce errors: ${nonceErrors}`);
    console.log(`  relayer log: ${relayer.logFile}`);

    // ── lane starvation: the owner's writes alone, then under another wallet's flood ─────────
    const ctx = { rpcUrl: anvil.rpcUrl, chainId, deployment };
    const owner = devAccount(16);
    const attacker = devAccount(17).address;
    await mintTo(ctx, devAccount(KEY_INDEX.deployer).privateKey, [{ address: owner.address, amount6: usd("1000000") }]);
    const accountId = await prepareWallet(ctx, owner.privateKey, { approve: true, createAccount: true, deposit6: usd("1000"), operator: RELAYER.address });
    const ownerWrites = async () => {
      const ms: number[] = [];
      const codes = new Map<number, number>();
      for (let i = 0; i < OWNER_WRITES; i++) {
        const t = performance.now();
        const r = await relayerCall(relayer!.url, "POST", `/internal/accounts/${accountId}/deposit`, { caller: owner.address, body: { amount: "1000000" } });
        ms.push(performance.now() - t);
        codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
      }
      return { ms: ms.sort((a, b) => a - b), codes };
    };
    const alone = await ownerWrites();
    let flooding = true;
    const floodCodes = new Map<string, number>();
    let floodCount = 0;
    const flood = Promise.all(
      Array.from({ length: FLOOD_CONCURRENCY }, async (_, i) => {
        while (flooding) {
          const path = i % 2 ? "withdraw" : "deposit";
          const r = await relayerCall(relayer!.url, "POST", `/internal/accounts/${accountId}/${path}`, { caller: attacker, body: { amount: "1" } });
          floodCount++;
          const k = `${r.status} ${r.body?.error?.code ?? ""}`.trim();
          floodCodes.set(k, (floodCodes.get(k) ?? 0) + 1);
        }
      }),
    );
    const f0 = Date.now();
    const flooded = await ownerWrites();
    flooding = false;
    await flood;
    const floodSeconds = (Date.now() - f0) / 1000;
    const [attackerRows] = await query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".request WHERE caller = $1`, [attacker.toLowerCase()]);
    const fmt = (r: { ms: number[]; codes: Map<number, number> }) =>
      `p50 ${percentile(r.ms, 50).toFixed(0)} ms, p99 ${percentile(r.ms, 99).toFixed(0)} ms, max ${r.ms[r.ms.length - 1]!.toFixed(0)} ms (${[...r.codes].map(([c, n]) => `${c}×${n}`).join(", ")})`;
    console.log("");
    console.log(`owner's writes on its account (${OWNER_WRITES} deposits one after another, each mined; blocks every 1 s)`);
    console.log(`  alone:                   ${fmt(alone)}`);
    console.log(`  under another's flood:   ${fmt(flooded)}`);
    console.log(`  flood: ${floodCount} writes by another wallet in ${floodSeconds.toFixed(1)} s (${(floodCount / floodSeconds).toFixed(0)}/s, ${FLOOD_CONCURRENCY} in flight): ${[...floodCodes].map(([k, n]) => `${k}×${n}`).join(", ")}; queue rows of the flooder: ${attackerRows!.n}`);
    return {
      naiveRate, rate, nonceErrors, contiguous,
      ownerP99AloneMs: percentile(alone.ms, 99), ownerP99FloodedMs: percentile(flooded.ms, 99), floodRate: floodCount / floodSeconds,
    };
  } finally {
    await relayer?.stop();
    await anvil.stop();
    await dropSchema(schema).catch(() => {});
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then(() => process.exit(0), (e) => {
    console.error(e);
    process.exit(1);
  });
}
