/**
 * The tracker's idle tick (Relayer.tick) on a real PGlite store against a JSON-RPC stand-in for
 * the node that counts what it is asked: the signer's mined nonce is read when the head moved,
 * not on every tick (an idle relayer polls the node once per TRACK_INTERVAL_MS, not twice).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import type { Deployment } from "../../core/deployment.js";
import { Chain } from "./chain.js";
import { loadConfig } from "./config.js";
import { openDb, type RelayerDb } from "./db/client.js";
import { Store } from "./db/store.js";
import { Relayer } from "./relayer.js";

const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const ZERO = `0x${"00".repeat(20)}`;

/** A node whose head is `head` (number and hash), counting each method it is asked. */
function node() {
  const calls = new Map<string, number>();
  const head = { number: 7n, hash: `0x${"a1".repeat(32)}` };
  const block = () => ({
    number: hex(head.number), hash: head.hash, parentHash: `0x${"00".repeat(32)}`, timestamp: hex(1_700_000_000n + head.number),
    baseFeePerGas: "0x1", gasLimit: "0x1c9c380", gasUsed: "0x0", miner: ZERO, nonce: "0x0000000000000000", difficulty: "0x0",
    extraData: "0x", logsBloom: `0x${"00".repeat(256)}`, receiptsRoot: `0x${"00".repeat(32)}`, sha3Uncles: `0x${"00".repeat(32)}`,
    stateRoot: `0x${"00".repeat(32)}`, transactionsRoot: `0x${"00".repeat(32)}`, size: "0x0", transactions: [], uncles: [],
  });
  const answer = (method: string): unknown => {
    calls.set(method, (calls.get(method) ?? 0) + 1);
    switch (method) {
      case "eth_getBlockByNumber": return block();
      case "eth_getTransactionCount": return "0x3";
      case "eth_getBalance": return hex(10n ** 20n);
      case "eth_chainId": return "0x7a69";
      default: throw new Error(`unexpected ${method}`);
    }
  };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const one = (r: { id: number; method: string }) => {
        try {
          return { jsonrpc: "2.0", id: r.id, result: answer(r.method) };
        } catch (e) {
          return { jsonrpc: "2.0", id: r.id, error: { code: -32601, message: (e as Error).message } };
        }
      };
      const parsed = JSON.parse(body);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(one) : one(parsed)));
    });
  });
  return { server, calls, head };
}

describe("the relayer's tracker when nothing happens", () => {
  let dir: string;
  let db: RelayerDb;
  let n: ReturnType<typeof node>;
  let relayer: Relayer;

  beforeAll(async () => {
    n = node();
    await new Promise<void>((r) => n.server.listen(0, "127.0.0.1", r));
    const rpcUrl = `http://127.0.0.1:${(n.server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), "relayer-idle-"));
    db = await openDb({ pgliteDir: dir, schema: "relayer" });
    const privateKey = devAccount(KEY_INDEX.relayer).privateKey;
    const cfg = loadConfig({ PROFILE: "local", RPC_URL: rpcUrl, CHAIN_ID: "31337", RELAYER_PRIVATE_KEY: privateKey, TRACK_INTERVAL_MS: "100" });
    const deployment = {
      chainId: 31337, deployBlock: 0,
      contracts: { engine: ZERO, depositToken: ZERO, oracle: ZERO, marketFactory: ZERO, marketImplementation: ZERO, venueLens: ZERO, triggerBook: ZERO, timelock: ZERO },
      markets: [],
    } as unknown as Deployment;
    const chain = new Chain({ rpcUrl, chainId: 31337, privateKey, deployment });
    relayer = new Relayer(cfg, chain, new Store(db), pino({ level: "silent" }));
  }, 300_000);
  afterAll(async () => {
    await db?.close();
    await new Promise((r) => n?.server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads the signer's mined nonce once per head, and again when the head moves", async () => {
    for (let i = 0; i < 12; i++) await relayer.tick();
    expect(n.calls.get("eth_getBlockByNumber")).toBe(12);
    expect(n.calls.get("eth_getTransactionCount")).toBe(1);
    // a new block, then a block of the same height with another hash (a rewound chain)
    n.head.number = 8n;
    n.head.hash = `0x${"b2".repeat(32)}`;
    for (let i = 0; i < 5; i++) await relayer.tick();
    expect(n.calls.get("eth_getTransactionCount")).toBe(2);
    n.head.hash = `0x${"c3".repeat(32)}`;
    await relayer.tick();
    expect(n.calls.get("eth_getTransactionCount")).toBe(3);
    expect(n.calls.get("eth_getBlockByNumber")).toBeGreaterThanOrEqual(18);
  });
});
