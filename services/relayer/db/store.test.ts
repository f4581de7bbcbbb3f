/**
 * Nonce reconciliation at start (Store.reconcileNonce) on a real PGlite database: the stored
 * next nonce follows the chain's pending nonce up and DOWN (a chain rewound or restarted from an
 * older state), but never below a nonce one of our in-flight writes holds (its signed
 * transaction is broadcast again at that nonce).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type RelayerDb } from "./client.js";
import { Store } from "./store.js";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
let dir: string;
let r: RelayerDb;
let store: Store;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "relayer-store-"));
  r = await openDb({ pgliteDir: dir, schema: "relayer" });
  store = new Store(r);
}, 300_000);
afterAll(async () => {
  await r?.close();
  rmSync(dir, { recursive: true, force: true });
});

const row = (id: string, status: string, nonce: bigint) => ({
  id, caller: "0xcaller", bodyHash: id, kind: "deposit", params: {}, lane: id, status: status as never, signer: SIGNER.toLowerCase(), nonce,
});

describe("relayer store: nonce reconciliation", () => {
  it("starts at the chain's nonce, follows it up, and moves down when nothing of ours holds the higher nonces", async () => {
    // a first start stores the chain's nonce (reported as unchanged)
    expect(await store.reconcileNonce(SIGNER, 5n)).toEqual({ before: 5n, after: 5n });
    expect(await store.reconcileNonce(SIGNER, 12n)).toEqual({ before: 5n, after: 12n });
    // the chain was rewound to nonce 5; our rows at 5..11 are all answered without a mined transaction left
    await r.db.insert(r.t.requests).values([row("a", "FAILED", 9n), row("b", "EXPIRED", 11n)]);
    expect(await store.reconcileNonce(SIGNER, 5n)).toEqual({ before: 12n, after: 5n });
    expect(await store.nextNonce(SIGNER)).toBe(5n);
  });

  it("never moves below a nonce an in-flight write holds (SIGNED, SENT or REORGED): it is sent again there", async () => {
    await r.db.insert(r.t.requests).values([row("c", "REORGED", 7n), row("d", "SENT", 6n)]);
    expect(await store.reconcileNonce(SIGNER, 5n)).toEqual({ before: 5n, after: 8n });
    expect(await store.reconcileNonce(SIGNER, 9n)).toEqual({ before: 8n, after: 9n });
  });
});
