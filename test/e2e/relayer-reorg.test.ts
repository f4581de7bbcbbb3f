/**
 * Writes after the chain rewinds, on a private anvil (rewound, reorganised and killed here):
 * a snapshot/revert sends the same signed transactions again (each executed once) and gives
 * the no-op to a write past its validUntil; a reorg deeper than CONFIRMATIONS is counted as a
 * finality violation; a relayer whose oldest write waits while the signer's nonce does not move
 * says degraded; anvil killed (-9) and restarted from an older state, then the relayer
 * restarted: the stored nonce follows the chain and every write completes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { engineAbi } from "../../abis/index.js";
import { startAnvil, type Anvil } from "../../core/chain/anvil.js";
import { readSseData } from "../../core/http/sse.js";
import { walletClientFor } from "../../scripts/lib/clients.js";
import { dropSchema, INTERNAL_TOKEN, POSTGRES_URL, RELAYER, relayerCall, rpc, startRelayer, startTestChain, uniqueSchema, type RelayerProc, type TestChain } from "./relayer-harness.js";

let chain: TestChain;
/** the anvil now serving chain.rpcUrl (test (b) replaces it) */
let anvil: Anvil;
const schema = uniqueSchema("reorg");
const db = { url: POSTGRES_URL, schema };

beforeAll(async () => {
  chain = await startTestChain({ prepared: 3 });
  anvil = chain.anvil;
});
afterAll(async () => {
  await anvil?.stop();
  await dropSchema(schema).catch(() => {});
});

const until = async <T>(what: string, f: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const v = await f().catch((e) => ((last = e), undefined));
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (${String(last)})` : ""}`);
    await new Promise((r) => setTimeout(r, 150));
  }
};

const status = async (url: string, id: string) => (await relayerCall(url, "GET", `/internal/transactions/${id}`)).body.data;
const deposit = (url: string, i: number, amount: bigint, validUntil?: number) =>
  relayerCall(url, "POST", `/internal/accounts/${chain.accounts[i]!.accountId}/deposit`, {
    caller: chain.accounts[i]!.address,
    body: { amount: amount.toString(), ...(validUntil ? { validUntil } : {}) },
  });

/** Deposits of exactly `amount6` into `accountId` on the canonical chain (an execution each). */
async function executions(accountId: number, amount6: bigint) {
  const logs = await chain.client.getContractEvents({
    address: chain.deployment.contracts.engine, abi: engineAbi, eventName: "MarginUpdated", args: { accountId: BigInt(accountId) }, fromBlock: 0n,
  });
  return logs.filter((l) => (l.args as { reason: number; amount6: bigint }).reason === 0 && (l.args as { amount6: bigint }).amount6 === amount6).length;
}

/** Every write event the relayer publishes, as received. */
function follow(url: string) {
  const events: Array<{ requestId: string; status: string; blockNumber: string | null; reorgs?: number }> = [];
  const ac = new AbortController();
  void fetch(`${url}/internal/transactions/stream`, { headers: { "X-Internal-Token": INTERNAL_TOKEN }, signal: ac.signal })
    .then((res) => readSseData(res.body!, (d) => events.push(JSON.parse(d))))
    .catch(() => {});
  return { events, close: () => ac.abort() };
}

const metric = async (url: string, name: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
};

const chainNonce = async () => BigInt(await chain.client.getTransactionCount({ address: RELAYER.address, blockTag: "latest" }));

describe("the relayer after the chain rewinds (private anvil)", () => {
  it("(a) snapshot/revert: REORGED, the same signed transactions again (executed once each), the no-op past validUntil, new writes confirm", async () => {
    const relayer = await startRelayer(chain, db, { CONFIRMATIONS: "3", WRITE_TIMEOUT_MS: "20000" }, { name: "revert" });
    const feed = follow(relayer.url);
    try {
      const snap = await rpc(chain.rpcUrl, "evm_snapshot");
      const amounts = [1_100_001n, 1_100_002n, 1_100_003n];
      const a = await deposit(relayer.url, 0, amounts[0]!);
      const b = await deposit(relayer.url, 0, amounts[1]!);
      const validUntil = Math.floor(Date.now() / 1000) + 2;
      const c = await deposit(relayer.url, 1, amounts[2]!, validUntil);
      for (const r of [a, b, c]) {
        expect(r.status).toBe(200);
        expect(r.body.data.transactionStatus).toBe("CONFIRMED");
        // answered at inclusion: one confirmation, not final under CONFIRMATIONS=3
        expect(r.body.data.confirmations).toBe(1);
        expect(r.body.data.final).toBe(false);
      }
      const before = await Promise.all([a, b, c].map((r) => status(relayer.url, r.body.data.requestId)));
      // c's validUntil passes (wall clock: the relayer's deadline) before the chain rewinds
      await until("c's validUntil to pass", async () => Date.now() > validUntil * 1000 + 500);
      await rpc(chain.rpcUrl, "evm_revert", [snap]);

      const [sa, sb] = await Promise.all(
        [a, b].map((r) => until(`${r.body.data.requestId} confirmed again`, async () => {
          const s = await status(relayer.url, r.body.data.requestId);
          return s.transactionStatus === "CONFIRMED" && s.reorgs >= 1 ? s : null;
        })),
      );
      for (const [s, prev] of [[sa, before[0]], [sb, before[1]]] as const) {
        // the same signed transaction, at the same nonce
        expect(s.transactionHash).toBe(prev.transactionHash);
        expect(s.nonce).toBe(prev.nonce);
        expect(s.transactionHashes).toEqual(prev.transactionHashes);
        const receipt = await chain.client.getTransactionReceipt({ hash: s.transactionHash as Hex });
        expect(receipt.status).toBe("success");
        expect(s.blockNumber).toBe(Number(receipt.blockNumber));
        expect(s.result.blockNumber).toBe(Number(receipt.blockNumber));
      }
      const sc = await until("c expired", async () => {
        const s = await status(relayer.url, c.body.data.requestId);
        return s.transactionStatus === "EXPIRED" ? s : null;
      });
      expect(sc.reorgs).toBe(1);
      expect(sc.error.code).toBe("EXPIRED");
      expect(sc.nonce).toBe(before[2].nonce);
      // its nonce went to the no-op (a self-transfer of 0), which is on chain
      const noop = await chain.client.getTransaction({ hash: sc.transactionHash as Hex });
      expect(noop.to?.toLowerCase()).toBe(RELAYER.address.toLowerCase());
      expect(noop.nonce).toBe(before[2].nonce);
      // executed once each on the canonical chain; the expired one not at all
      expect(await executions(chain.accounts[0]!.accountId, amounts[0]!)).toBe(1);
      expect(await executions(chain.accounts[0]!.accountId, amounts[1]!)).toBe(1);
      expect(await executions(chain.accounts[1]!.accountId, amounts[2]!)).toBe(0);

      // the transactions stream saw CONFIRMED → REORGED → (SENT) → CONFIRMED with the new block
      const ofA = feed.events.filter((e) => e.requestId === a.body.data.requestId).map((e) => e.status);
      expect(ofA.slice(ofA.indexOf("REORGED"))).toEqual(["REORGED", "SENT", "CONFIRMED"]);
      const lastA = feed.events.filter((e) => e.requestId === a.body.data.requestId).at(-1)!;
      expect(lastA.blockNumber).toBe(String(sa.blockNumber));
      expect(feed.events.filter((e) => e.requestId === c.body.data.requestId).map((e) => e.status)).toContain("REORGED");

      // a new write from another wallet confirms (no nonce left in the future)
      const d = await deposit(relayer.url, 2, 1_100_004n);
      expect(d.status).toBe(200);
      expect(d.body.data.transactionStatus).toBe("CONFIRMED");
      expect(await executions(chain.accounts[2]!.accountId, 1_100_004n)).toBe(1);
      expect((await relayerCall(relayer.url, "GET", "/health")).body.data.nextNonce).toBe(String(await chainNonce()));
    } finally {
      feed.close();
      await relayer.stop();
    }
  });

  it("(c) a reorg deeper than CONFIRMATIONS: handled the same way and counted in venue_relayer_finality_violations_total", async () => {
    const relayer = await startRelayer(chain, db, { CONFIRMATIONS: "2", WRITE_TIMEOUT_MS: "20000" }, { name: "deep" });
    try {
      expect(await metric(relayer.url, "venue_relayer_finality_violations_total")).toBe(0);
      const snap = await rpc(chain.rpcUrl, "evm_snapshot");
      const e = await deposit(relayer.url, 0, 1_200_001n);
      expect(e.status).toBe(200);
      for (let i = 0; i < 4; i++) await rpc(chain.rpcUrl, "evm_mine");
      const final = await until("final", async () => {
        const s = await status(relayer.url, e.body.data.requestId);
        return s.final === true ? s : null;
      });
      expect(final.confirmations).toBeGreaterThanOrEqual(2);
      await rpc(chain.rpcUrl, "evm_revert", [snap]);
      const again = await until("confirmed again", async () => {
        const s = await status(relayer.url, e.body.data.requestId);
        return s.transactionStatus === "CONFIRMED" && s.reorgs === 1 ? s : null;
      });
      expect(again.transactionHash).toBe(final.transactionHash);
      expect(await executions(chain.accounts[0]!.accountId, 1_200_001n)).toBe(1);
      expect(await metric(relayer.url, "venue_relayer_finality_violations_total")).toBe(1);
      expect(await metric(relayer.url, "venue_relayer_reorged_total")).toBe(1);
    } finally {
      await relayer.stop();
    }
  });

  it("(d) the oldest write waits while the signer's nonce does not move: degraded on /health and /metrics, ok again once it moves", async () => {
    const relayer = await startRelayer(chain, db, { STUCK_AFTER_MS: "1500", WRITE_TIMEOUT_MS: "1000", BUMP_AFTER_MS: "600000" }, { name: "stuck" });
    try {
      const h0 = (await relayerCall(relayer.url, "GET", "/health")).body.data;
      expect(h0.status).toBe("ok");
      await rpc(chain.rpcUrl, "evm_setAutomine", [false]);
      const f = await deposit(relayer.url, 1, 1_400_001n);
      expect(f.status).toBe(202);
      const h = await until("degraded", async () => {
        const r = await relayerCall(relayer.url, "GET", "/health");
        return r.body.data.status === "degraded" ? r : null;
      });
      expect(h.status).toBe(200);
      expect(h.body.data.degradedReasons).toEqual(["nonce-stuck"]);
      expect(await metric(relayer.url, "venue_relayer_degraded")).toBe(1);
      await rpc(chain.rpcUrl, "evm_setAutomine", [true]);
      await rpc(chain.rpcUrl, "evm_mine");
      await until("confirmed", async () => (await status(relayer.url, f.body.data.requestId)).transactionStatus === "CONFIRMED");
      await until("ok again", async () => (await relayerCall(relayer.url, "GET", "/health")).body.data.status === "ok");
      // (metrics share one stats read per 500 ms)
      await until("metric back to 0", async () => (await metric(relayer.url, "venue_relayer_degraded")) === 0);
    } finally {
      await rpc(chain.rpcUrl, "evm_setAutomine", [true]).catch(() => {});
      await relayer.stop();
    }
  });

  it("(e) a nonce gap (the rewind removed a foreign use of the signer's key below our write): filled with a no-op, the write mined again once", async () => {
    // the foreign use is recognised after 1 s (10 s by default): the test waits on evidence, not on the default
    const relayer = await startRelayer(chain, db, { WRITE_TIMEOUT_MS: "40000", REBROADCAST_AFTER_MS: "500", FOREIGN_NONCE_AFTER_MS: "1000" }, { name: "gap" });
    try {
      const snap = await rpc(chain.rpcUrl, "evm_snapshot");
      const n = await chainNonce();
      // the signer's key used outside the relayer: nonce n taken behind its back
      const foreign = walletClientFor(chain.rpcUrl, 31337, RELAYER.privateKey);
      await chain.client.waitForTransactionReceipt({ hash: await foreign.sendTransaction({ to: RELAYER.address, value: 0n, chain: null, nonce: Number(n) }) });
      // the relayer's write finds n used by someone else and is signed again at n + 1
      const y = await deposit(relayer.url, 0, 1_500_001n);
      expect(y.status).toBe(200);
      const first = await status(relayer.url, y.body.data.requestId);
      expect(first.nonce).toBe(Number(n) + 1);
      await rpc(chain.rpcUrl, "evm_revert", [snap]);
      // n is free again and nothing of ours holds it: Y (same signed transaction at n + 1) would wait forever without the fill
      const again = await until("mined again", async () => {
        const s = await status(relayer.url, y.body.data.requestId);
        return s.transactionStatus === "CONFIRMED" && s.reorgs === 1 ? s : null;
      });
      expect(again.transactionHash).toBe(first.transactionHash);
      expect(again.nonce).toBe(Number(n) + 1);
      expect(await executions(chain.accounts[0]!.accountId, 1_500_001n)).toBe(1);
      expect(await metric(relayer.url, "venue_relayer_nonce_gap_fills_total")).toBeGreaterThanOrEqual(1);
      expect((await relayerCall(relayer.url, "GET", "/health")).body.data.nextNonce).toBe(String(await chainNonce()));
    } finally {
      await relayer.stop();
    }
  });

  it("(b) anvil killed (-9) and restarted from an older state, the relayer restarted: the stored nonce follows the chain, every write completes once", async () => {
    let relayer: RelayerProc | undefined = await startRelayer(chain, db, { WRITE_TIMEOUT_MS: "1000", REBROADCAST_AFTER_MS: "500", BUMP_AFTER_MS: "600000" }, { name: "old-state-1" });
    try {
      const state = await rpc(chain.rpcUrl, "anvil_dumpState");
      const n0 = await chainNonce();
      const g = await deposit(relayer.url, 0, 1_300_001n);
      const h = await deposit(relayer.url, 1, 1_300_002n);
      expect([g.status, h.status]).toEqual([200, 200]);
      // a write still in the pool when anvil dies
      await rpc(chain.rpcUrl, "evm_setAutomine", [false]);
      const k = await deposit(relayer.url, 2, 1_300_003n);
      expect(k.status).toBe(202);
      await until("k sent", async () => (await status(relayer!.url, k.body.data.requestId)).nonce !== null && (await rpc(chain.rpcUrl, "eth_getTransactionByHash", [(await status(relayer!.url, k.body.data.requestId)).transactionHash])) !== null);
      const stored = BigInt((await relayerCall(relayer.url, "GET", "/health")).body.data.nextNonce);
      expect(stored).toBe(n0 + 3n);
      await relayer.stop();
      relayer = undefined;

      anvil.process.kill("SIGKILL");
      await new Promise((r) => (anvil.process.exitCode !== null || anvil.process.signalCode !== null ? r(null) : anvil.process.once("exit", r)));
      anvil = await startAnvil({ port: anvil.port, logFile: `${chain.dir}/anvil-2.log` });
      expect(await rpc(anvil.rpcUrl, "anvil_loadState", [state])).toBe(true);
      expect(await chainNonce()).toBe(n0);

      relayer = await startRelayer(chain, db, { WRITE_TIMEOUT_MS: "20000", REBROADCAST_AFTER_MS: "500" }, { name: "old-state-2" });
      for (const [r, i, amount] of [[g, 0, 1_300_001n], [h, 1, 1_300_002n], [k, 2, 1_300_003n]] as const) {
        const s = await until(`${r.body.data.requestId} confirmed on the restored chain`, async () => {
          const x = await status(relayer!.url, r.body.data.requestId);
          return x.transactionStatus === "CONFIRMED" && (await chain.client.getTransactionReceipt({ hash: x.transactionHash as Hex }).catch(() => null)) ? x : null;
        });
        expect(s.transactionHashes.length).toBe(1); // the same signed transaction, never re-signed
        expect(await executions(chain.accounts[i]!.accountId, amount)).toBe(1);
      }
      const fresh = await deposit(relayer.url, 0, 1_300_004n);
      expect(fresh.status).toBe(200);
      expect(fresh.body.data.transactionStatus).toBe("CONFIRMED");
      // the store and the chain agree on the next nonce
      expect((await relayerCall(relayer.url, "GET", "/health")).body.data.nextNonce).toBe(String(await chainNonce()));
    } finally {
      await relayer?.stop();
    }
  });
});
