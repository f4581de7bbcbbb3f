/**
 * The relayer's internal HTTP API (docs/SERVICES.md, "Relayer internal API"). Bodies and answers
 * are the integration API's: camelCase envelope, same status codes. A write is validated with the
 * shared schemas, checked against the access policy, queued (Idempotency-Key: one row per caller
 * and key), and answered once final or, after WRITE_TIMEOUT_MS, with 202 and its requestId.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { Hono, type Context } from "hono";
import { getAddress, isAddress, verifyMessage, type Address, type Hex } from "viem";
import type { Logger } from "pino";
import { engineAbi } from "../../../abis/index.js";
import { ApiError } from "../../../core/errors.js";
import { ok } from "../../../core/envelope.js";
import { httpMetrics, metricsHandler } from "../../../core/metrics.js";
import { profileFromEnv } from "../../../core/profiles.js";
import { parseOrThrow } from "../../../core/schemas/validation.js";
import {
  AccountIdParam, AmountBody, CancelOrderQuery, ClientKey, ClosePositionBody, CreateAccountBody, PositionMarginBody, LiquidateAccountBody,
  LiquidatePositionBody, MarketId, OperatorApproveBody, OperatorTypedDataQuery, PlaceOrderBody,
} from "../../../core/schemas/writes.js";
import { BatchOrdersBody, CancelAllBody, CancelTriggerBody, DeadmanBody, ModifyOrderBody, SetTriggerBody } from "../../../core/schemas/writes.js";
import type { Relayer } from "../relayer.js";
import { isFinal, shortMessage, toApiError } from "../relayer.js";
import type { Kind, Params } from "../ops.js";
import type { NewRequest, RequestRow } from "../db/store.js";
import { assertDeadman, authorize, OPS, type BatchItemParams } from "../ops.js";
import { errorJson, onError } from "./errors.js";
import { identifyService, requireScope, sameSecret, selfRegistrationMessage, type ServiceVariables } from "../../../core/auth/service-tokens.js";
import { operatorTypedData } from "../typed-data.js";
import { policyOf } from "../../../core/schemas/writes.js";
import type { WriteEvent, WriteEvents } from "../events.js";
import { streamSSE } from "hono/streaming";

/** Stable JSON (sorted keys) for the idempotency body hash. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const PLAIN_REQUEST_ID = /^[\w\-=]{1,255}$/;

async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("VALIDATION_ERROR", "body: malformed JSON");
  }
}

function callerOf(c: Context): Address {
  const h = c.req.header("X-Caller-Address");
  if (!h) throw new ApiError("UNAUTHENTICATED", "X-Caller-Address is required (the authenticated wallet)");
  if (!isAddress(h, { strict: false })) throw new ApiError("VALIDATION_ERROR", "X-Caller-Address: must be an address");
  return getAddress(h);
}

const randomClientKey = () => `0x${randomBytes(32).toString("hex")}` as Hex;

export function relayerApp(relayer: Relayer, log: Logger, events?: WriteEvents) {
  const { cfg, store, chain } = relayer;
  const app = new Hono<{ Variables: ServiceVariables }>();
  app.onError(onError(log));
  app.notFound((c) => errorJson(c, new ApiError("NOT_FOUND", `no route ${c.req.method} ${c.req.path}`)));
  app.use(httpMetrics());
  // Prometheus: open locally, else the admin token (not the internal token: scrapers are not services)
  app.get("/metrics", metricsHandler({ open: profileFromEnv().name === "local", adminToken: cfg.adminToken }));
  // Each calling service has its own token and scopes (core/auth/service-tokens.ts): only the
  // gateway and the integration API act for users (X-Caller-Address); the keeper liquidates.
  app.use("*", identifyService(cfg.serviceTokens));
  app.use("/health", requireScope("health"));
  for (const path of ["/internal/accounts", "/internal/accounts/*", "/internal/operators/*", "/internal/transactions", "/internal/transactions/*"])
    app.use(path, requireScope("act-for-users"));
  app.use("/internal/liquidations/*", requireScope("liquidate"));

  app.get("/health", async (c) => {
    const head = await chain.refreshHead().catch(() => null);
    const stats = await relayer.stats().catch(() => null);
    // 503 when the chain or the database is unreachable; out of funds it still serves (status, cancel): 200, degraded;
    // stuck (the oldest write not final older than STUCK_AFTER_MS while the signer's mined nonce has not moved as long): 200, degraded
    const up = !!head && stats?.nextNonce != null;
    const stuck = !!stats?.stuck;
    return c.json(
      ok({
        status: up && !relayer.fundsLow && !stuck ? "ok" : "degraded",
        degradedReasons: [...(relayer.fundsLow ? ["out-of-funds"] : []), ...(stuck ? ["nonce-stuck"] : [])],
        signer: relayer.signer,
        chainId: chain.chainId,
        blockNumber: head ? Number(head.number) : null,
        nextNonce: stats?.nextNonce?.toString() ?? null,
        accessPolicy: cfg.accessPolicy,
        database: relayer.dbKind,
        // the signer's funds: below the minimum, writes are refused (503 RELAYER_OUT_OF_FUNDS)
        signerBalance: relayer.balance?.toString() ?? null,
        minSignerBalance: cfg.MIN_SIGNER_BALANCE_WEI.toString(),
        outOfFunds: relayer.fundsLow,
        // writes not final yet, and how long the oldest has waited
        pendingWrites: stats ? Object.values(stats.queue).reduce((a, b) => a + b, 0) : null,
        queue: stats?.queue ?? null,
        oldestPendingAgeMs: stats?.oldestPendingAgeMs ?? null,
        // the degraded rule's inputs: the signer's mined nonce and how long it has not moved
        minedNonce: stats?.minedNonce?.toString() ?? null,
        minedNonceStillMs: stats?.minedNonceStillMs ?? null,
        stuckAfterMs: cfg.STUCK_AFTER_MS,
        confirmations: cfg.CONFIRMATIONS,
        feeCaps: { maxFeePerGas: cfg.MAX_FEE_PER_GAS_WEI.toString(), maxPriorityFeePerGas: cfg.MAX_PRIORITY_FEE_WEI.toString() },
      }),
      up ? 200 : 503,
    );
  });

  /** validUntil of a new write: the request's (in the future, at most a day ahead) or the kind's default. */
  function validUntilOf(kind: Kind, params: unknown, requested: string | undefined): Date {
    const now = Date.now();
    if (requested === undefined) return new Date(now + relayer.validForSeconds(kind, params) * 1000);
    const ms = Number(requested) * 1000;
    if (ms <= now) throw new ApiError("VALIDATION_ERROR", "validUntil: must be in the future (unix seconds)");
    if (ms > now + 86_400_000) throw new ApiError("VALIDATION_ERROR", "validUntil: at most one day ahead");
    return new Date(ms);
  }

  /**
   * Queues a write (or finds its idempotent twin) and answers its result. Before anything is
   * stored: the closed-beta registry, the signer's funds (503), the caller's right to act on the
   * account (cached chain reads: a stranger's writes never enter an owner's lane), and the caps of
   * the lane and of the caller (429).
   */
  async function write<K extends Kind>(
    c: Context,
    kind: K,
    input: { hashOf: unknown; params: Params[K]; validUntil?: string; children?: Array<{ kind: Kind; params: unknown }> },
  ) {
    const caller = callerOf(c);
    if (cfg.accessPolicy === "invite-only" && !(await store.isRegistered(caller)))
      throw new ApiError("NOT_REGISTERED", `wallet ${caller} is not registered for the closed beta`);
    const key = c.req.header("Idempotency-Key") ?? null;
    if (key !== null && !IDEMPOTENCY_KEY.test(key)) throw new ApiError("VALIDATION_ERROR", "Idempotency-Key: 1 to 255 printable characters");
    const bodyHash = createHash("sha256").update(canonicalJson({ kind, input: input.hashOf })).digest("hex");
    const lane = OPS[kind].lane(input.params as never);
    let twin = key !== null ? await store.byKey(caller.toLowerCase(), key) : undefined;
    if (twin && isFinal(twin) && Date.now() - twin.createdAt.getTime() > cfg.IDEMPOTENCY_TTL_MS) {
      await store.releaseKey(twin.id); // the key expired: a new request
      twin = undefined;
    }
    if (!twin) {
      await relayer.assertFunded();
      await authorize(kind, chain, caller, input.params).catch((e) => {
        throw toApiError(e);
      });
      const open = await store.openCounts(lane, caller.toLowerCase());
      if (open.lane >= cfg.LANE_MAX_PENDING)
        throw new ApiError("RATE_LIMITED", `${open.lane} writes on this account are not mined yet (at most ${cfg.LANE_MAX_PENDING}); retry when they are`);
      if (open.caller >= cfg.CALLER_MAX_PENDING)
        throw new ApiError("RATE_LIMITED", `${open.caller} of your writes are not mined yet (at most ${cfg.CALLER_MAX_PENDING}); retry when they are`);
    }
    const validUntil = validUntilOf(kind, input.params, input.validUntil);
    const id = randomUUID();
    // logged and stored: only a plain id (hono's requestId rule), else none
    const rawRequestId = c.req.header("X-Request-Id");
    const requestIdHeader = rawRequestId && PLAIN_REQUEST_ID.test(rawRequestId) ? rawRequestId : null;
    const req: NewRequest = { id, caller: caller.toLowerCase(), idempotencyKey: key, bodyHash, kind, params: input.params, lane, requestIdHeader, validUntil };
    const children: NewRequest[] = (input.children ?? []).map((ch, i) => ({
      id: `${id}.${i + 1}`, caller: req.caller, idempotencyKey: null, bodyHash, kind: ch.kind, params: ch.params,
      lane: OPS[ch.kind].lane(ch.params as never), requestIdHeader, parentId: id, validUntil,
    }));
    const tInsert = performance.now();
    const { row, created } = twin
      ? { row: twin, created: false }
      : children.length ? await store.insert(req, children) : await relayer.inserts$.push(req);
    const insertMs = Math.round(performance.now() - tInsert);
    if (!created && row.bodyHash !== bodyHash)
      throw new ApiError("IDEMPOTENCY_CONFLICT", "this Idempotency-Key was used with another request");
    if (created) {
      log.info({ requestId: id, kind, caller, idempotencyKey: key, xRequestId: requestIdHeader, insertMs, validUntil }, "queued");
      relayer.crashPoint("queued");
      relayer.submit(row);
      if (children.length) for (const ch of await store.children(id)) relayer.submit(ch);
    }
    const deadline = Date.now() + cfg.WRITE_TIMEOUT_MS;
    const final = await relayer.waitFinal(row.id, cfg.WRITE_TIMEOUT_MS, created && !children.length);
    if (!final) throw new ApiError("INTERNAL_ERROR", "request row vanished");
    if (!isFinal(final)) return c.json(ok(await pendingOf(final.id)), 202);
    const response = final.response as { success: boolean; data?: Record<string, unknown> };
    const kids = kind === "createAccount" ? await store.children(final.id) : [];
    if (kids.length && response.success && response.data) {
      // e.g. the operator approval sent with POST /accounts
      const results = await Promise.all(kids.map((k) => relayer.waitFinal(k.id, Math.max(0, deadline - Date.now()))));
      const k = results[0];
      if (k) response.data.operatorApproval = isFinal(k) ? { ...(k.response as object), requestId: k.id } : await pendingOf(k.id);
    }
    return c.json(response, final.httpStatus as 200);
  }

  /** A 202's data: every field of the result known before mining, the rest null. */
  async function pendingOf(id: string) {
    const row = await store.get(id);
    if (!row) throw new ApiError("INTERNAL_ERROR", "request row vanished");
    return pendingData(row);
  }

  app.post("/internal/accounts", async (c) => {
    const raw = await jsonBody(c);
    const body = parseOrThrow(CreateAccountBody, raw);
    const userAddress = getAddress(body.userAddress);
    const children = body.operatorApproval
      ? [{
        kind: "approveOperator" as const,
        params: { owner: userAddress, operator: relayer.signer, ...body.operatorApproval, ...policyOf(body.operatorApproval) },
      }]
      : [];
    return write(c, "createAccount", { hashOf: raw, params: { userAddress }, children, validUntil: body.validUntil });
  });

  const accountIdOf = (c: Context) => parseOrThrow(AccountIdParam, c.req.param("accountId"));

  app.post("/internal/accounts/:accountId/deposit", async (c) => {
    const accountId = accountIdOf(c);
    const raw = await jsonBody(c);
    const { amount, validUntil } = parseOrThrow(AmountBody, raw);
    return write(c, "deposit", { hashOf: { accountId, raw }, params: { accountId, amount }, validUntil });
  });

  app.post("/internal/accounts/:accountId/withdraw", async (c) => {
    const accountId = accountIdOf(c);
    const raw = await jsonBody(c);
    const { amount, validUntil } = parseOrThrow(AmountBody, raw);
    return write(c, "withdraw", { hashOf: { accountId, raw }, params: { accountId, amount }, validUntil });
  });

  app.post("/internal/accounts/:accountId/orders", async (c) => {
    const accountId = accountIdOf(c);
    const raw = await jsonBody(c);
    const b = parseOrThrow(PlaceOrderBody, raw);
    const params: Params["placeOrder"] = {
      accountId, marketId: b.marketId.toLowerCase() as Hex, collateralAmount: b.collateralAmount, side: b.side, leverage: b.leverage,
      orderType: b.orderType, ...(b.orderType === "LIMIT" ? { limitPrice: b.limitPrice } : {}),
      clientKey: (b.clientKey?.toLowerCase() as Hex | undefined) ?? randomClientKey(),
      // the order options (Market v2), only when given: an order without them is stored as before
      ...(b.timeInForce !== undefined ? { timeInForce: b.timeInForce } : {}),
      ...(b.reduceOnly !== undefined ? { reduceOnly: b.reduceOnly } : {}),
      ...(b.expiresAt !== undefined ? { expiresAt: b.expiresAt } : {}),
    };
    return write(c, "placeOrder", { hashOf: { accountId, raw }, params, validUntil: b.validUntil });
  });

  app.delete("/internal/accounts/:accountId/orders/:clientKey", async (c) => {
    const accountId = accountIdOf(c);
    const clientKey = parseOrThrow(ClientKey, c.req.param("clientKey")).toLowerCase() as Hex;
    const { marketId, validUntil } = parseOrThrow(CancelOrderQuery, { marketId: c.req.query("marketId"), validUntil: c.req.query("validUntil") });
    return write(c, "cancelOrder", {
      validUntil,
      hashOf: { accountId, clientKey, marketId, ...(validUntil ? { validUntil } : {}) },
      params: { accountId, clientKey, marketId: marketId.toLowerCase() as Hex },
    });
  });

  app.post("/internal/accounts/:accountId/positions/:marketId/close", async (c) => {
    const accountId = accountIdOf(c);
    const marketId = parseOrThrow(MarketId, c.req.param("marketId")).toLowerCase() as Hex;
    const raw = await jsonBody(c);
    const b = parseOrThrow(ClosePositionBody, raw);
    return write(c, "closePosition", {
      validUntil: b.validUntil,
      hashOf: { accountId, marketId, raw },
      params: {
        accountId, marketId, orderType: b.orderType, ...(b.orderType === "LIMIT" ? { limitPrice: b.limitPrice } : {}),
        clientKey: (b.clientKey?.toLowerCase() as Hex | undefined) ?? randomClientKey(),
      },
    });
  });

  app.post("/internal/accounts/:accountId/positions/:marketId/margin", async (c) => {
    const accountId = accountIdOf(c);
    const marketId = parseOrThrow(MarketId, c.req.param("marketId")).toLowerCase() as Hex;
    const raw = await jsonBody(c);
    const { action, amount, validUntil } = parseOrThrow(PositionMarginBody, raw);
    return write(c, "adjustMargin", { hashOf: { accountId, marketId, raw }, params: { accountId, marketId, action, amount }, validUntil });
  });

  // ─── Market v2: dead-man switch, cancel-all, batch ─────────────────────────────────────────

  app.post("/internal/accounts/:accountId/deadman", async (c) => {
    const accountId = accountIdOf(c);
    const raw = await jsonBody(c);
    const { deadline, validUntil } = parseOrThrow(DeadmanBody, raw);
    assertDeadman(chain, deadline); // before anything is stored: nothing sent
    return write(c, "setDeadman", { hashOf: { accountId, raw }, params: { accountId, deadline }, validUntil });
  });

  app.post("/internal/accounts/:accountId/orders/modify", async (c) => {
    const accountId = accountIdOf(c);
    const raw = await jsonBody(c);
    const b = parseOrThrow(ModifyOrderBody, raw);
    const params: Params["modifyOrder"] = {
      accountId, marketId: b.marketId.toLowerCase() as Hex, price: b.price, quantity: b.quantity,
      ...(b.clientKey !== undefined ? { clientKey: b.clientKey.toLowerCase() as Hex } : { orderId: b.orderId! }),
    };
    return write(c, "modifyOrder", { hashOf: { accountId, raw }, params, validUntil: b.validUntil });
  });

  // ─── Market v2: position triggers (TriggerBook) ─────────────────────────────────────────────

  app.post("/internal/accounts/:accountId/triggers", async (c) => {
    const accountId = accountIdOf(c);
    const raw = await jsonBody(c);
    const b = parseOrThrow(SetTriggerBody, raw);
    const params: Params["setTrigger"] = {
      accountId, marketId: b.marketId.toLowerCase() as Hex, kind: b.kind, triggerPrice: b.triggerPrice, orderType: b.orderType,
      ...(b.limitPrice !== undefined ? { limitPrice: b.limitPrice } : {}), oco: b.oco ?? false,
    };
    return write(c, "setTrigger", { hashOf: { accountId, raw }, params, validUntil: b.validUntil });
  });

  app.post("/internal/accounts/:accountId/triggers/cancel", async (c) => {
    const accountId = accountIdOf(c);
    const raw = await jsonBody(c);
    const b = parseOrThrow(CancelTriggerBody, raw);
    const params: Params["cancelTrigger"] = { accountId, marketId: b.marketId.toLowerCase() as Hex, kind: b.kind };
    return write(c, "cancelTrigger", { hashOf: { accountId, raw }, params, validUntil: b.validUntil });
  });

  app.post("/internal/accounts/:accountId/orders/cancel-all", async (c) => {
    const accountId = accountIdOf(c);
    const raw = await jsonBody(c);
    const { marketId, validUntil } = parseOrThrow(CancelAllBody, raw);
    const params = { accountId, ...(marketId ? { marketId: marketId.toLowerCase() as Hex } : {}) };
    return write(c, "cancelAll", { hashOf: { accountId, raw }, params, validUntil });
  });

  app.post("/internal/accounts/:accountId/orders/batch", async (c) => {
    const accountId = accountIdOf(c);
    const raw = await jsonBody(c);
    const b = parseOrThrow(BatchOrdersBody, raw);
    const items: BatchItemParams[] = b.items.map((item) => {
      if (item.action === "CANCEL")
        return {
          action: "CANCEL", accountId, marketId: item.marketId.toLowerCase() as Hex,
          ...(item.clientKey ? { clientKey: item.clientKey.toLowerCase() as Hex } : { orderId: item.orderId! }),
        };
      if (item.action === "MODIFY")
        return {
          action: "MODIFY", accountId, marketId: item.marketId.toLowerCase() as Hex, price: item.price, quantity: item.quantity,
          ...(item.clientKey !== undefined ? { clientKey: item.clientKey.toLowerCase() as Hex } : { orderId: item.orderId! }),
        };
      // the place-order body as the single write takes it (any field it gains comes along)
      const { action: _a, validUntil: _v, limitPrice, ...rest } = item;
      return {
        action: "PLACE", ...rest, accountId, marketId: item.marketId.toLowerCase() as Hex,
        ...(item.orderType === "LIMIT" ? { limitPrice } : {}),
        clientKey: (item.clientKey?.toLowerCase() as Hex | undefined) ?? randomClientKey(),
      };
    });
    return write(c, "batchOrders", { hashOf: { accountId, raw }, params: { accountId, atomic: b.atomic ?? false, items }, validUntil: b.validUntil });
  });

  app.post("/internal/liquidations/position", async (c) => {
    const raw = await jsonBody(c);
    const b = parseOrThrow(LiquidatePositionBody, raw);
    const params = { accountId: b.accountId, marketId: b.marketId.toLowerCase() as Hex, ...(b.adlCandidates?.length ? { adlCandidates: b.adlCandidates } : {}) };
    return write(c, "liquidatePosition", { hashOf: raw, params, validUntil: b.validUntil });
  });

  app.post("/internal/liquidations/account", async (c) => {
    const raw = await jsonBody(c);
    const b = parseOrThrow(LiquidateAccountBody, raw);
    return write(c, "liquidateAccount", { hashOf: raw, params: { accountId: b.accountId }, validUntil: b.validUntil });
  });

  app.get("/internal/operators/typed-data", async (c) => {
    const q = parseOrThrow(OperatorTypedDataQuery, c.req.query());
    const owner = getAddress(q.owner);
    const now = chain.nowSeconds();
    const expiry = q.expiry !== undefined ? BigInt(q.expiry) : now + 365n * 86_400n;
    const deadline = q.deadline !== undefined ? BigInt(q.deadline) : now + 3_600n;
    const nonce = await chain.client.readContract({ address: chain.engine, abi: engineAbi, functionName: "operatorNonce", args: [owner] });
    const policy = policyOf(q);
    return c.json(ok(operatorTypedData({ chainId: chain.chainId, engine: chain.engine, owner, operator: relayer.signer, expiry, deadline, nonce, policy })));
  });

  app.post("/internal/operators/approve", async (c) => {
    const raw = await jsonBody(c);
    const b = parseOrThrow(OperatorApproveBody, raw);
    const params: Params["approveOperator"] = {
      owner: getAddress(b.owner), operator: getAddress(b.operator ?? relayer.signer), expiry: b.expiry, deadline: b.deadline,
      ...policyOf(b), signature: b.signature as Hex,
    };
    return write(c, "approveOperator", { hashOf: raw, params, validUntil: b.validUntil });
  });

  /** The caller's own write (404 for another caller's: its existence is not disclosed). */
  async function ownRow(c: Context, id: string, required: boolean) {
    const row = id.length <= 80 ? await store.get(id) : undefined;
    const callerHeader = c.req.header("X-Caller-Address");
    if (required && !callerHeader) throw new ApiError("UNAUTHENTICATED", "X-Caller-Address is required (the authenticated wallet)");
    // Scoped to the caller when the caller is known (integration API, gateway).
    if (!row || (callerHeader && row.caller !== callerHeader.toLowerCase()))
      throw new ApiError("TRANSACTION_NOT_FOUND", `no write with requestId ${id}`);
    return row;
  }

  async function statusJson(row: RequestRow) {
    const attempts = await store.attempts(row.id);
    const response = row.response as { success: boolean; data?: unknown; error?: unknown } | null;
    // confirmations and final as of the latest head (the stored answer holds them at inclusion)
    const depth = row.blockNumber !== null ? relayer.confirmationsOf(row.blockNumber) : { confirmations: 0, final: false };
    return {
      requestId: row.id,
      kind: row.kind,
      transactionStatus: publicStatus(row),
      transactionHash: row.txHash,
      blockNumber: row.blockNumber !== null ? Number(row.blockNumber) : null,
      ...depth,
      reorgs: row.reorgs,
      nonce: row.nonce !== null ? Number(row.nonce) : null,
      transactionHashes: attempts.map((a) => a.hash),
      result: response?.success ? { ...(response.data as object), ...depth } : isFinal(row) ? null : pendingData(row),
      error: response && !response.success ? response.error : null,
      httpStatus: row.httpStatus,
      validUntil: row.validUntil ? Math.floor(row.validUntil.getTime() / 1000) : null,
      validUntilISO: row.validUntil?.toISOString() ?? null,
      cancelRequested: !!row.cancelledAt,
      createdAtISO: row.createdAt.toISOString(),
      updatedAtISO: row.updatedAt.toISOString(),
    };
  }

  /**
   * Every write's state changes of every caller as they commit (server-sent events, `data:` the
   * change as JSON: requestId, caller, kind, status, transactionHash, blockNumber, code…): the
   * stream service's feed of its transactions channel, which filters them per caller.
   */
  app.get("/internal/transactions/stream", (c) => {
    if (!events) throw new ApiError("SERVICE_UNAVAILABLE", "this relayer publishes no write events");
    return streamSSE(c, async (stream) => {
      const unsubscribe = events.subscribe((json) => void stream.writeSSE({ event: "write", data: json }).catch(() => {}));
      stream.onAbort(unsubscribe);
      await stream.write(": connected\n\n");
      while (!stream.aborted) {
        await stream.sleep(15_000);
        if (!stream.aborted) await stream.write(": keep-alive\n\n").catch(() => {});
      }
      unsubscribe();
    });
  });

  /**
   * The caller's writes not final and its last `limit` (≤ 100, default 20), newest first, in the
   * write events' form (the stream service's transactions snapshot: a client that reconnects
   * sees where its in-flight writes stand).
   */
  app.get("/internal/transactions", async (c) => {
    const caller = callerOf(c).toLowerCase();
    const raw = c.req.query("limit") ?? "20";
    const limit = Number(raw);
    if (!/^\d{1,3}$/.test(raw) || limit < 1 || limit > 100) throw new ApiError("VALIDATION_ERROR", "limit: an integer from 1 to 100");
    const rows = await store.recentOf(caller, limit);
    return c.json(ok({ transactions: rows.map(writeEventOf) }));
  });

  app.get("/internal/transactions/:requestId", async (c) => c.json(ok(await statusJson(await ownRow(c, c.req.param("requestId"), false)))));

  /**
   * Cancels one of the caller's writes not mined yet: not signed yet → CANCELLED at once, nothing
   * sent (200); signed or sent → its nonce is replaced by a no-op (202; the status ends CANCELLED,
   * or CONFIRMED if the write was mined first); final → 409 NOT_CANCELLABLE.
   */
  app.post("/internal/transactions/:requestId/cancel", async (c) => {
    const row = await ownRow(c, c.req.param("requestId"), true);
    if (isFinal(row)) throw new ApiError("NOT_CANCELLABLE", `write ${row.id} is already ${publicStatus(row)}`);
    const { row: after, cancelledNow } = await store.cancel(row.id);
    if (!after) throw new ApiError("TRANSACTION_NOT_FOUND", `no write with requestId ${row.id}`);
    if (cancelledNow) {
      relayer.emitFinal({ id: after.id, status: after.status, httpStatus: after.httpStatus, response: after.response, txHash: after.txHash });
      log.info({ requestId: row.id }, "cancelled before sending");
      return c.json(ok(await statusJson(after)), 200);
    }
    if (isFinal(after)) throw new ApiError("NOT_CANCELLABLE", `write ${row.id} is already ${publicStatus(after)}`);
    log.info({ requestId: row.id }, "cancel requested: the nonce will go to a no-op");
    return c.json(ok(await statusJson(after)), 202);
  });

  const walletJson = (r: { address: string; note: string | null; createdAt: Date }) => ({
    address: getAddress(r.address), note: r.note, createdAtISO: r.createdAt.toISOString(),
  });

  // ─── closed-beta registry (admin) ────────────────────────────────────────────────────────
  // A wallet registers itself with the registration-only token and a signature of its key
  // (the keeper under invite-only): no admin token, and no other wallet.
  app.post("/internal/registration", requireScope("registry:self"), async (c) => {
    const b = (await jsonBody(c)) as { address?: unknown; issuedAt?: unknown; signature?: unknown; note?: unknown };
    if (typeof b.address !== "string" || !isAddress(b.address, { strict: false })) throw new ApiError("VALIDATION_ERROR", "address: must be an address");
    if (typeof b.issuedAt !== "number" || !Number.isInteger(b.issuedAt)) throw new ApiError("VALIDATION_ERROR", "issuedAt: unix seconds");
    if (typeof b.signature !== "string" || !/^0x[0-9a-fA-F]{130}$/.test(b.signature)) throw new ApiError("VALIDATION_ERROR", "signature: 65-byte hex");
    if (Math.abs(Date.now() / 1000 - b.issuedAt) > 300) throw new ApiError("INVALID_SIGNATURE", "issuedAt is more than 5 minutes away");
    const valid = await verifyMessage({ address: b.address as Address, message: selfRegistrationMessage(b.address, b.issuedAt), signature: b.signature as Hex }).catch(() => false);
    if (!valid) throw new ApiError("INSUFFICIENT_SCOPE", "the registration token registers only the wallet that signs the request (itself)");
    const note = typeof b.note === "string" ? b.note.slice(0, 200) : "self-registered";
    return c.json(ok(walletJson(await store.register(b.address, note))), 201);
  });

  const admin = new Hono<{ Variables: ServiceVariables }>();
  admin.use("*", async function adminAuth(c, next) {
    // the gateway may ask whether a wallet is invited (before it makes a key), nothing more
    if (c.req.method === "GET" && /^\/internal\/registry\/[^/]+$/.test(c.req.path) && c.get("service")?.scopes.includes("registry:read"))
      return next();
    const t = c.req.header("X-Admin-Token");
    if (!t || !sameSecret(t, cfg.adminToken)) throw new ApiError("UNAUTHENTICATED", "missing or invalid X-Admin-Token");
    await next();
  });
  admin.get("/", async (c) => c.json(ok({ accessPolicy: cfg.accessPolicy, wallets: (await store.registered()).map(walletJson) })));
  admin.get("/:address", async (c) => {
    const a = c.req.param("address");
    if (!isAddress(a, { strict: false })) throw new ApiError("VALIDATION_ERROR", "address: must be an address");
    return c.json(ok({ address: getAddress(a), registered: await store.isRegistered(a) }));
  });
  admin.post("/", async (c) => {
    const b = (await jsonBody(c)) as { address?: unknown; note?: unknown };
    if (typeof b.address !== "string" || !isAddress(b.address, { strict: false })) throw new ApiError("VALIDATION_ERROR", "address: must be an address");
    if (b.note !== undefined && typeof b.note !== "string") throw new ApiError("VALIDATION_ERROR", "note: must be a string");
    return c.json(ok(walletJson(await store.register(b.address, (b.note as string | undefined) ?? null))), 201);
  });
  admin.delete("/:address", async (c) => {
    const a = c.req.param("address");
    if (!isAddress(a, { strict: false })) throw new ApiError("VALIDATION_ERROR", "address: must be an address");
    if (!(await store.unregister(a))) throw new ApiError("NOT_FOUND", `wallet ${a} is not registered`);
    return c.json(ok({ address: getAddress(a), registered: false }));
  });
  app.route("/internal/registry", admin);

  return app;
}

/** A row in the form of its write events (the NOTIFY payload of db/schema.ts's notify_request), without the caller. */
function writeEventOf(row: RequestRow): Omit<WriteEvent, "caller"> {
  const error = (row.response as { success?: boolean; error?: { code?: string; message?: string } } | null)?.error;
  return {
    requestId: row.id,
    kind: row.kind,
    status: row.status,
    transactionHash: row.txHash,
    blockNumber: row.blockNumber !== null ? row.blockNumber.toString() : null,
    httpStatus: row.httpStatus,
    code: error?.code ?? null,
    message: error?.message?.slice(0, 500) ?? null,
    clientKey: (row.params as { clientKey?: string } | null)?.clientKey ?? null,
    parentId: row.parentId,
    reorgs: row.reorgs,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * PENDING until mined (QUEUED, SIGNED and SENT alike), then CONFIRMED, REVERTED, FAILED, EXPIRED
 * or CANCELLED; REORGED while a mined write's receipt has left the chain and it is not sent again yet.
 */
function publicStatus(row: Pick<RequestRow, "status">): string {
  return isFinal(row) || row.status === "REORGED" ? row.status : "PENDING";
}

/** A write not mined yet: the result's fields known before mining (the rest null), and where it stands. */
function pendingData(row: RequestRow) {
  return {
    ...OPS[row.kind as Kind].pending(row.params as never),
    requestId: row.id,
    transactionHash: row.txHash,
    transactionStatus: "PENDING",
    blockNumber: null,
    validUntil: row.validUntil ? Math.floor(row.validUntil.getTime() / 1000) : null,
  };
}

export { shortMessage };
