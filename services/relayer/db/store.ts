/**
 * The durable queue: every state change of a request is one statement (or one transaction),
 * so a crash between any two leaves a row the tracker can finish. Nonces are taken under the
 * signer row's lock (`UPDATE ... RETURNING` holds it to commit) in the same transaction that
 * records the signed transactions: a nonce is never taken without its transaction stored.
 */
import { and, asc, desc, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import type { RelayerDb } from "./client.js";
import { FINAL_STATUSES, IN_FLIGHT_STATUSES, MINED_STATUSES, OPEN_STATUSES, type RequestStatus } from "./schema.js";

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
  validUntil?: Date | null;
};

export type SignedTx = { hash: Hex; raw: Hex; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

export class Store {
  constructor(private readonly r: RelayerDb) {}
  private get db() { return this.r.db; }
  private get t() { return this.r.t; }

  /**
   * Inserts a request with its children (e.g. the operator approval sent with POST /accounts)
   * atomically, or returns the row holding its idempotency key. Requests without children go
   * through `insertMany` (group commit).
   */
  async insert(req: NewRequest, children: NewRequest[]): Promise<{ row: RequestRow; created: boolean }> {
    const { requests } = this.t;
    const inserted = await this.db.transaction(async (tx) => {
      const rows = await tx.insert(requests).values({ ...req, status: "QUEUED" }).onConflictDoNothing().returning();
      if (rows[0]) await tx.insert(requests).values(children.map((c) => ({ ...c, status: "QUEUED" as const })));
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

  async status(id: string): Promise<RequestRow["status"] | undefined> {
    const [row] = await this.db.select({ status: this.t.requests.status }).from(this.t.requests).where(eq(this.t.requests.id, id));
    return row?.status;
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
   * Final states, once, for a batch (one statement), and only from one of the `from` states: a
   * failed check applies to a row still QUEUED (another process may have sent it meanwhile), a
   * receipt to a signed one. Returns the ids it finished.
   */
  async finishMany(
    from: RequestStatus[],
    items: Array<{ id: string; status: RequestStatus; httpStatus: number; response: unknown; blockNumber?: bigint | null; blockHash?: string | null; txHash?: string | null; releaseKey?: boolean }>,
  ): Promise<Set<string>> {
    if (!items.length) return new Set();
    const { requests } = this.t;
    const values = sql.join(
      items.map((f) => sql`(${f.id}, ${f.status}, ${f.httpStatus}::integer, ${JSON.stringify(f.response)}::json, ${f.blockNumber?.toString() ?? null}::bigint, ${f.blockHash ?? null}::text, ${f.txHash ?? null}::text, ${!!f.releaseKey}::boolean)`),
      sql`, `,
    );
    const res = await this.db.execute(sql`UPDATE ${requests} SET status = v.status, http_status = v.http_status, response = v.response,
      block_number = COALESCE(v.block_number, ${requests.blockNumber}), block_hash = COALESCE(v.block_hash, ${requests.blockHash}), tx_hash = COALESCE(v.tx_hash, ${requests.txHash}), updated_at = now(),
      idempotency_key = CASE WHEN v.release_key THEN NULL ELSE ${requests.idempotencyKey} END
      FROM (VALUES ${values}) AS v(id, status, http_status, response, block_number, block_hash, tx_hash, release_key)
      WHERE ${requests.id} = v.id AND ${requests.status} IN (${sql.join(from.map((f) => sql`${f}`), sql`, `)})
      RETURNING ${requests.id} AS id`);
    return new Set((res as unknown as { rows: { id: string }[] }).rows.map((r) => r.id));
  }

  /** `insert` for a batch of requests without children (one statement, plus one for idempotent twins). */
  async insertMany(reqs: NewRequest[]): Promise<Array<{ row: RequestRow; created: boolean }>> {
    const { requests } = this.t;
    if (!reqs.length) return [];
    const inserted = await this.db.insert(requests).values(reqs.map((r) => ({ ...r, status: "QUEUED" as const }))).onConflictDoNothing().returning();
    const byId = new Map(inserted.map((r) => [r.id, r]));
    const missing = reqs.filter((r) => !byId.has(r.id));
    const twins = missing.length
      ? await this.db
          .select()
          .from(requests)
          .where(sql`(${requests.caller}, ${requests.idempotencyKey}) IN (${sql.join(missing.map((m) => sql`(${m.caller}, ${m.idempotencyKey})`), sql`, `)})`)
      : [];
    return reqs.map((r) => {
      const row = byId.get(r.id);
      if (row) return { row, created: true };
      const twin = twins.find((t) => t.caller === r.caller && t.idempotencyKey === r.idempotencyKey);
      if (!twin) throw new Error("idempotent insert found no row");
      return { row: twin, created: false };
    });
  }

  /** The row holding `key` for `caller`, if any. */
  async byKey(caller: string, key: string): Promise<RequestRow | undefined> {
    const { requests } = this.t;
    const [row] = await this.db.select().from(requests).where(and(eq(requests.caller, caller), eq(requests.idempotencyKey, key)));
    return row;
  }

  /** Frees the idempotency key of a final row (its outcome is no longer replayed). */
  async releaseKey(id: string) {
    const { requests } = this.t;
    await this.db.update(requests).set({ idempotencyKey: null }).where(and(eq(requests.id, id), inArray(requests.status, [...FINAL_STATUSES])));
  }

  /** Forgets idempotency keys of final rows older than `ttlMs` (one statement, partial index). */
  async expireKeys(ttlMs: number): Promise<number> {
    const { requests } = this.t;
    const rows = await this.db
      .update(requests)
      .set({ idempotencyKey: null })
      .where(and(isNotNull(requests.idempotencyKey), inArray(requests.status, [...FINAL_STATUSES]), lt(requests.createdAt, new Date(Date.now() - ttlMs))))
      .returning({ id: requests.id });
    return rows.length;
  }

  /** Writes not yet final in `lane` and of `caller` (the caps against starvation). */
  async openCounts(lane: string, caller: string): Promise<{ lane: number; caller: number }> {
    const res = await this.db.execute(sql`SELECT
        (SELECT count(*) FROM ${this.t.requests} WHERE lane = ${lane} AND status IN ('QUEUED', 'SIGNED', 'SENT'))::int AS lane,
        (SELECT count(*) FROM ${this.t.requests} WHERE caller = ${caller} AND status IN ('QUEUED', 'SIGNED', 'SENT'))::int AS caller`);
    const [r] = (res as unknown as { rows: Array<{ lane: number; caller: number }> }).rows;
    return { lane: Number(r?.lane ?? 0), caller: Number(r?.caller ?? 0) };
  }

  /**
   * The caller's writes not final (all: the per-caller cap bounds them) and its last `limit`,
   * newest first (the stream service's transactions snapshot; indexes request_open_caller and
   * request_caller_created).
   */
  async recentOf(caller: string, limit: number): Promise<RequestRow[]> {
    const { requests } = this.t;
    const [open, recent] = await Promise.all([
      this.db.select().from(requests).where(and(eq(requests.caller, caller), inArray(requests.status, [...OPEN_STATUSES]))),
      this.db.select().from(requests).where(eq(requests.caller, caller)).orderBy(desc(requests.createdAt)).limit(limit),
    ]);
    const byId = new Map([...recent, ...open].map((r) => [r.id, r]));
    return [...byId.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
  }

  /** Rows not final by state, and the age of the oldest (for /health and metrics). */
  async queueStats(): Promise<{ byStatus: Record<string, number>; oldestPendingAt: Date | null }> {
    const { requests } = this.t;
    const rows = await this.db
      .select({ status: requests.status, n: sql<string>`count(*)`, oldest: sql<string | null>`min(${requests.createdAt})` })
      .from(requests)
      .where(inArray(requests.status, [...OPEN_STATUSES]))
      .groupBy(requests.status);
    const byStatus: Record<string, number> = Object.fromEntries(OPEN_STATUSES.map((s) => [s, 0]));
    let oldest: Date | null = null;
    for (const r of rows) {
      byStatus[r.status] = Number(r.n);
      const d = r.oldest ? new Date(r.oldest) : null;
      if (d && (!oldest || d < oldest)) oldest = d;
    }
    return { byStatus, oldestPendingAt: oldest };
  }

  /**
   * The caller's cancel: a QUEUED row becomes CANCELLED at once (nothing was sent; its key is
   * freed); a SIGNED or SENT one is marked, and the tracker replaces its nonce with a no-op.
   * Returns the row as it is afterwards.
   */
  async cancel(id: string): Promise<{ row: RequestRow | undefined; cancelledNow: boolean }> {
    const { requests } = this.t;
    const now = new Date();
    const done = await this.db
      .update(requests)
      .set({
        status: "CANCELLED", cancelledAt: now, httpStatus: 409, updatedAt: now, idempotencyKey: null,
        response: { success: false, error: { code: "CANCELLED", message: "the write was cancelled by its caller before it was sent" } },
      })
      .where(and(eq(requests.id, id), eq(requests.status, "QUEUED")))
      .returning();
    if (done[0]) return { row: done[0], cancelledNow: true };
    await this.db
      .update(requests)
      .set({ cancelledAt: now, updatedAt: now })
      .where(and(eq(requests.id, id), inArray(requests.status, [...IN_FLIGHT_STATUSES])));
    return { row: await this.get(id), cancelledNow: false };
  }

  /** Refreshes updated_at of QUEUED rows (the process holding them is alive: no replica adopts them). */
  async touch(ids: string[]) {
    if (!ids.length) return;
    const { requests } = this.t;
    await this.db.update(requests).set({ updatedAt: new Date() }).where(and(inArray(requests.id, ids), eq(requests.status, "QUEUED")));
  }

  /**
   * Takes consecutive nonces of the signer for the still-QUEUED rows among `items`, signs with
   * them and records the signed transactions, in one database transaction (group commit: the
   * signer row is locked once per batch). Returns the signed ones by request id (rows another
   * process took meanwhile are absent).
   */
  async signBatch(
    signer: Address,
    items: Array<{ id: string; call: { to: Address; data: Hex; gas: bigint } }>,
    sign: (call: { to: Address; data: Hex; gas: bigint }, nonce: bigint) => Promise<SignedTx>,
  ): Promise<Map<string, { nonce: bigint; tx: SignedTx }>> {
    const { requests, signers, attempts } = this.t;
    const out = new Map<string, { nonce: bigint; tx: SignedTx }>();
    if (!items.length) return out;
    await this.db.transaction(async (tx) => {
      // Lock order: request rows (by id), then the signer row: no deadlock between replicas.
      const ids = [...new Set(items.map((i) => i.id))].sort();
      const eligible = new Set(
        (await tx.select({ id: requests.id }).from(requests).where(and(inArray(requests.id, ids), eq(requests.status, "QUEUED"))).orderBy(asc(requests.id)).for("update")).map((r) => r.id),
      );
      const todo = items.filter((i) => eligible.has(i.id) && eligible.delete(i.id));
      if (!todo.length) return;
      const [s] = await tx
        .update(signers)
        .set({ nextNonce: sql`${signers.nextNonce} + ${todo.length}`, updatedAt: new Date() })
        .where(eq(signers.address, signer.toLowerCase()))
        .returning({ base: sql<string>`${signers.nextNonce} - ${todo.length}` });
      if (!s) throw new Error(`signer ${signer} has no nonce row`);
      const base = BigInt(s.base);
      const signed = await Promise.all(todo.map((item, i) => sign(item.call, base + BigInt(i))));
      await tx.insert(attempts).values(
        todo.map((item, i) => ({ hash: signed[i]!.hash, requestId: item.id, nonce: base + BigInt(i), raw: signed[i]!.raw, maxFeePerGas: signed[i]!.maxFeePerGas, maxPriorityFeePerGas: signed[i]!.maxPriorityFeePerGas })),
      );
      const values = sql.join(
        todo.map((item, i) => sql`(${item.id}, ${(base + BigInt(i)).toString()}::bigint, ${item.call.to}, ${item.call.data}, ${item.call.gas.toString()}::bigint, ${signed[i]!.hash})`),
        sql`, `,
      );
      await tx.execute(sql`UPDATE ${requests} SET status = 'SIGNED', signer = ${signer.toLowerCase()}, nonce = v.nonce, to_address = v.to_address,
        data = v.data, gas = v.gas, tx_hash = v.hash, updated_at = now()
        FROM (VALUES ${values}) AS v(id, nonce, to_address, data, gas, hash) WHERE ${requests.id} = v.id`);
      todo.forEach((item, i) => out.set(item.id, { nonce: base + BigInt(i), tx: signed[i]! }));
    });
    return out;
  }

  /** Marks handed-to-the-node attempts (one statement for a batch): SIGNED or REORGED → SENT. */
  async markSentBatch(sent: Array<{ id: string; hash: string }>) {
    if (!sent.length) return;
    const { requests, attempts } = this.t;
    const now = new Date();
    await this.db.update(attempts).set({ sentAt: now }).where(inArray(attempts.hash, sent.map((x) => x.hash)));
    await this.db
      .update(requests)
      .set({ status: "SENT", updatedAt: now })
      .where(and(inArray(requests.id, sent.map((x) => x.id)), inArray(requests.status, ["SIGNED", "REORGED"])));
  }

  /**
   * Records a replacement (same nonce, higher fees) if `expectedHash` is still the latest
   * attempt: two processes never both bump the same transaction.
   */
  async addReplacement(id: string, expectedHash: string, signed: SignedTx, nonce: bigint, noop = false): Promise<boolean> {
    const { requests, attempts } = this.t;
    return this.db.transaction(async (tx) => {
      const [row] = await tx.select({ status: requests.status, txHash: requests.txHash }).from(requests).where(eq(requests.id, id)).for("update");
      if (!row || row.txHash !== expectedHash || (FINAL_STATUSES as string[]).includes(row.status)) return false;
      await tx.insert(attempts).values({ hash: signed.hash, requestId: id, nonce, raw: signed.raw, maxFeePerGas: signed.maxFeePerGas, maxPriorityFeePerGas: signed.maxPriorityFeePerGas, noop });
      await tx.update(requests).set({ txHash: signed.hash, updatedAt: new Date() }).where(eq(requests.id, id));
      return true;
    });
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
      .where(and(eq(requests.id, id), eq(requests.nonce, nonce), inArray(requests.status, [...IN_FLIGHT_STATUSES])));
  }

  /** Ids and nonces of `signer`'s rows with a nonce whose transaction is not mined (SIGNED, SENT, REORGED) (cheap: read every tick). */
  async inFlightNonces(signer: Address): Promise<Array<{ id: string; nonce: bigint }>> {
    const { requests } = this.t;
    const rows = await this.db
      .select({ id: requests.id, nonce: requests.nonce })
      .from(requests)
      .where(and(eq(requests.signer, signer.toLowerCase()), inArray(requests.status, [...IN_FLIGHT_STATUSES]), isNotNull(requests.nonce)));
    return rows.map((r) => ({ id: r.id, nonce: r.nonce! }));
  }

  /** Full rows (still SIGNED, SENT or REORGED) with their attempts, newest first. */
  async withAttempts(ids: string[]): Promise<Array<RequestRow & { attempts: AttemptRow[] }>> {
    const { requests, attempts } = this.t;
    if (!ids.length) return [];
    const rows = await this.db
      .select()
      .from(requests)
      .where(and(inArray(requests.id, ids), inArray(requests.status, [...IN_FLIGHT_STATUSES])))
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

  /**
   * Sets the signer's next nonce from the chain and our rows: the chain's pending count, or past
   * the highest nonce of our transactions not mined (SIGNED, SENT, REORGED), whichever is higher.
   * It may move DOWN (after the chain rewound, nonces the store handed out may be free again).
   * The signer row is locked first, so a replica's nonce batch is either seen or waits.
   */
  async reconcileNonce(signer: Address, chainPendingNonce: bigint): Promise<{ before: bigint | null; after: bigint }> {
    const { signers, requests } = this.t;
    const address = signer.toLowerCase();
    return this.db.transaction(async (tx) => {
      await tx.insert(signers).values({ address, nextNonce: chainPendingNonce }).onConflictDoNothing();
      const [s] = await tx.select().from(signers).where(eq(signers.address, address)).for("update");
      const [m] = await tx
        .select({ max: sql<string | null>`max(${requests.nonce})` })
        .from(requests)
        .where(and(eq(requests.signer, address), inArray(requests.status, [...IN_FLIGHT_STATUSES])));
      const open = m?.max != null ? BigInt(m.max) + 1n : 0n;
      const after = open > chainPendingNonce ? open : chainPendingNonce;
      if (s?.nextNonce !== after) await tx.update(signers).set({ nextNonce: after, updatedAt: new Date() }).where(eq(signers.address, address));
      return { before: s?.nextNonce ?? null, after };
    });
  }

  /** `signer`'s rows mined at or above `fromBlock` (their receipts are checked after a reorg). */
  async minedSince(signer: Address, fromBlock: bigint) {
    const { requests } = this.t;
    return this.db
      .select({ id: requests.id, txHash: requests.txHash, blockNumber: requests.blockNumber, blockHash: requests.blockHash, status: requests.status })
      .from(requests)
      .where(and(eq(requests.signer, signer.toLowerCase()), sql`${requests.blockNumber} >= ${fromBlock.toString()}::bigint`, inArray(requests.status, [...MINED_STATUSES])))
      .orderBy(asc(requests.nonce));
  }

  /**
   * A mined row whose receipt left the canonical chain: REORGED (its answer, block and block hash
   * cleared, its reorg count up; the transaction hash kept: that signed transaction is sent
   * again). Only from the state it was seen in. Returns the row when it changed it.
   */
  async markReorged(id: string, from: RequestStatus): Promise<RequestRow | undefined> {
    const { requests } = this.t;
    const [row] = await this.db
      .update(requests)
      .set({ status: "REORGED", response: null, httpStatus: null, blockNumber: null, blockHash: null, reorgs: sql`${requests.reorgs} + 1`, updatedAt: new Date() })
      .where(and(eq(requests.id, id), eq(requests.status, from)))
      .returning();
    return row;
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
