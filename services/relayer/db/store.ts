/**
 * The durable queue: every state change of a request is one statement (or one transaction),
 * so a crash between any two leaves a row the tracker can finish. Nonces are taken under the
 * signer row's lock (`UPDATE ... RETURNING` holds it to commit) in the same transaction that
 * records the signed transaction: a nonce is never taken without its transaction stored.
 */
import { and, asc, desc, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import type { RelayerDb } from "./client.js";
import { FINAL_STATUSES, type RequestStatus } from "./schema.js";

export type RequestRow = RelayerDb["t"]["requests"]["$inferSelect"];
export type AttemptRow = RelayerDb["t"]["attempts"]["$inferSelect"];

export type NewRequest = {
  id: string;
  caller: string;
  idempotencyKey: string | null;
  bodyHash: string;
  kind: string;
  params: unknown;
  lane: string;
  requestIdHeader: string | null;
  parentId?: string | null;
};

export type SignedTx = { hash: Hex; raw: Hex; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

export class Store {
  constructor(private readonly r: RelayerDb) {}
  private get db() { return this.r.db; }
  private get t() { return this.r.t; }

  /** Inserts the request (and its children, atomically), or returns the row holding its idempotency key. */
  async insert(req: NewRequest, children: NewRequest[] = []): Promise<{ row: RequestRow; created: boolean }> {
    const { requests } = this.t;
    const inserted = await this.db.transaction(async (tx) => {
      const rows = await tx
        .insert(requests)
        .values({ ...req, status: "QUEUED" })
        .onConflictDoNothing()
        .returning();
      if (rows[0]) for (const c of children) await tx.insert(requests).values({ ...c, status: "QUEUED" });
      return rows[0];
    });
    if (inserted) return { row: inserted, created: true };
    const [existing] = await this.db
      .select()
      .from(requests)
      .where(and(eq(requests.caller, req.caller), eq(requests.idempotencyKey, req.idempotencyKey!)));
    if (!existing) throw new Error("idempotent insert found no row");
    return { row: existing, created: false };
  }

  async get(id: string): Promise<RequestRow | undefined> {
    const [row] = await this.db.select().from(this.t.requests).where(eq(this.t.requests.id, id));
    return row;
  }

  async children(parentId: string): Promise<RequestRow[]> {
    return this.db.select().from(this.t.requests).where(eq(this.t.requests.parentId, parentId));
  }

  async attempts(requestId: string): Promise<AttemptRow[]> {
    return this.db.select().from(this.t.attempts).where(eq(this.t.attempts.requestId, requestId)).orderBy(asc(this.t.attempts.createdAt));
  }

  /**
   * Final state, once, and only from one of the `from` states: a failed check applies to a row
   * still QUEUED (another process may have sent it meanwhile), a receipt to a signed one.
   */
  async finish(
    id: string,
    from: RequestStatus[],
    f: { status: RequestStatus; httpStatus: number; response: unknown; blockNumber?: bigint | null; txHash?: string | null },
  ) {
    const { requests } = this.t;
    const rows = await this.db
      .update(requests)
      .set({
        status: f.status,
        httpStatus: f.httpStatus,
        response: f.response,
        ...(f.blockNumber != null ? { blockNumber: f.blockNumber } : {}),
        ...(f.txHash ? { txHash: f.txHash } : {}),
        updatedAt: new Date(),
      })
      .where(and(eq(requests.id, id), inArray(requests.status, from)))
      .returning({ id: requests.id });
    return rows.length > 0;
  }

  /** Refreshes updated_at of a QUEUED row (the process working on it is alive). */
  async touch(id: string) {
    await this.db.update(this.t.requests).set({ updatedAt: new Date() }).where(eq(this.t.requests.id, id));
  }

  /**
   * Takes the signer's next nonce, signs with it and records the transaction, in one database
   * transaction. Returns null when the row is no longer QUEUED (another process signed it).
   */
  async signWithNextNonce(
    id: string,
    signer: Address,
    call: { to: Address; data: Hex; gas: bigint },
    sign: (nonce: bigint) => Promise<SignedTx>,
  ): Promise<{ nonce: bigint; tx: SignedTx } | null> {
    const { requests, signers, attempts } = this.t;
    return this.db.transaction(async (tx) => {
      const [row] = await tx.select({ status: requests.status }).from(requests).where(eq(requests.id, id)).for("update");
      if (!row || row.status !== "QUEUED") return null;
      const [s] = await tx
        .update(signers)
        .set({ nextNonce: sql`${signers.nextNonce} + 1`, updatedAt: new Date() })
        .where(eq(signers.address, signer.toLowerCase()))
        .returning({ nonce: sql<string>`${signers.nextNonce} - 1` });
      if (!s) throw new Error(`signer ${signer} has no nonce row`);
      const nonce = BigInt(s.nonce);
      const signed = await sign(nonce);
      await tx.insert(attempts).values({ hash: signed.hash, requestId: id, nonce, raw: signed.raw, maxFeePerGas: signed.maxFeePerGas, maxPriorityFeePerGas: signed.maxPriorityFeePerGas });
      await tx
        .update(requests)
        .set({ status: "SIGNED", signer: signer.toLowerCase(), nonce, toAddress: call.to, data: call.data, gas: call.gas, txHash: signed.hash, updatedAt: new Date() })
        .where(eq(requests.id, id));
      return { nonce, tx: signed };
    });
  }

  /**
   * Records a replacement (same nonce, higher fees) if `expectedHash` is still the latest
   * attempt: two processes never both bump the same transaction.
   */
  async addReplacement(id: string, expectedHash: string, signed: SignedTx, nonce: bigint): Promise<boolean> {
    const { requests, attempts } = this.t;
    return this.db.transaction(async (tx) => {
      const [row] = await tx.select({ status: requests.status, txHash: requests.txHash }).from(requests).where(eq(requests.id, id)).for("update");
      if (!row || row.txHash !== expectedHash || (FINAL_STATUSES as string[]).includes(row.status)) return false;
      await tx.insert(attempts).values({ hash: signed.hash, requestId: id, nonce, raw: signed.raw, maxFeePerGas: signed.maxFeePerGas, maxPriorityFeePerGas: signed.maxPriorityFeePerGas });
      await tx.update(requests).set({ txHash: signed.hash, updatedAt: new Date() }).where(eq(requests.id, id));
      return true;
    });
  }

  async markSent(id: string, hash: string) {
    const { requests, attempts } = this.t;
    await this.db.update(attempts).set({ sentAt: new Date() }).where(eq(attempts.hash, hash));
    await this.db.update(requests).set({ status: "SENT", updatedAt: new Date() }).where(and(eq(requests.id, id), eq(requests.status, "SIGNED")));
  }

  /**
   * The nonce was used by a transaction that is not ours (the key was used elsewhere): the
   * request goes back to the queue to be signed again with a new nonce.
   */
  async requeue(id: string, nonce: bigint) {
    const { requests } = this.t;
    await this.db
      .update(requests)
      .set({ status: "QUEUED", nonce: null, signer: null, txHash: null, updatedAt: new Date() })
      .where(and(eq(requests.id, id), eq(requests.nonce, nonce), inArray(requests.status, ["SIGNED", "SENT"])));
  }

  /** Rows of `signer` with a nonce and no final state, with their attempts (newest first). */
  async inFlight(signer: Address): Promise<Array<RequestRow & { attempts: AttemptRow[] }>> {
    const { requests, attempts } = this.t;
    const rows = await this.db
      .select()
      .from(requests)
      .where(and(eq(requests.signer, signer.toLowerCase()), inArray(requests.status, ["SIGNED", "SENT"]), isNotNull(requests.nonce)))
      .orderBy(asc(requests.nonce));
    if (!rows.length) return [];
    const all = await this.db.select().from(attempts).where(inArray(attempts.requestId, rows.map((r) => r.id))).orderBy(desc(attempts.createdAt));
    return rows.map((r) => ({ ...r, attempts: all.filter((a) => a.requestId === r.id) }));
  }

  /** QUEUED rows not touched since `before` (all of them when `before` is null). */
  async queued(before: Date | null): Promise<RequestRow[]> {
    const { requests } = this.t;
    const where = before ? and(eq(requests.status, "QUEUED"), lt(requests.updatedAt, before)) : eq(requests.status, "QUEUED");
    return this.db.select().from(requests).where(where).orderBy(asc(requests.createdAt));
  }

  /** Makes sure the signer has a nonce row, never lowering it; raises it to the chain's pending count. */
  async reconcileNonce(signer: Address, chainPendingNonce: bigint) {
    const { signers } = this.t;
    await this.db
      .insert(signers)
      .values({ address: signer.toLowerCase(), nextNonce: chainPendingNonce })
      .onConflictDoUpdate({
        target: signers.address,
        set: { nextNonce: sql`GREATEST(${signers.nextNonce}, ${chainPendingNonce.toString()}::bigint)`, updatedAt: new Date() },
      });
  }

  async nextNonce(signer: Address): Promise<bigint | null> {
    const [s] = await this.db.select().from(this.t.signers).where(eq(this.t.signers.address, signer.toLowerCase()));
    return s?.nextNonce ?? null;
  }

  // ─── closed-beta registry ───────────────────────────────────────────────────────────────
  async isRegistered(address: string): Promise<boolean> {
    const { registry } = this.t;
    const [r] = await this.db.select({ a: registry.address }).from(registry).where(eq(registry.address, address.toLowerCase()));
    return !!r;
  }
  async register(address: string, note: string | null) {
    const { registry } = this.t;
    const [r] = await this.db
      .insert(registry)
      .values({ address: address.toLowerCase(), note })
      .onConflictDoUpdate({ target: registry.address, set: { note } })
      .returning();
    return r!;
  }
  async unregister(address: string): Promise<boolean> {
    const { registry } = this.t;
    const rows = await this.db.delete(registry).where(eq(registry.address, address.toLowerCase())).returning();
    return rows.length > 0;
  }
  async registered() {
    return this.db.select().from(this.t.registry).orderBy(asc(this.t.registry.createdAt));
  }
}
