/**
 * The relayer's tables (schema `relayer` by default). One row per write request (the durable
 * queue), one row per signed transaction attempt (a gas bump adds one with the same nonce), one
 * row per signer (its next nonce, locked while a nonce is taken), and the closed-beta registry.
 */
import { bigint, boolean, integer, json, jsonb, pgSchema, text, timestamp, uniqueIndex, index } from "drizzle-orm/pg-core";

/**
 * Request states. Final: CONFIRMED, REVERTED, FAILED (refused before sending), EXPIRED (its
 * validUntil passed: nothing sent, or its nonce went to a no-op that was mined), CANCELLED (the
 * same, at its caller's request). REORGED: a mined write whose receipt left the canonical chain
 * (a reorg, or a node restarted from an older state); its signed transaction is broadcast again
 * at the same nonce, and the row goes on as SENT (docs/SERVICES.md, "A write's lifecycle").
 * "Final" here means "answered"; a mined row's chain finality is `confirmations` ≥ CONFIRMATIONS.
 */
export const REQUEST_STATUS = ["QUEUED", "SIGNED", "SENT", "REORGED", "CONFIRMED", "REVERTED", "FAILED", "EXPIRED", "CANCELLED"] as const;
export type RequestStatus = (typeof REQUEST_STATUS)[number];
export const FINAL_STATUSES: readonly RequestStatus[] = ["CONFIRMED", "REVERTED", "FAILED", "EXPIRED", "CANCELLED"];
export const OPEN_STATUSES: readonly RequestStatus[] = ["QUEUED", "SIGNED", "SENT", "REORGED"];
/** States of a row holding a nonce whose transaction is not (or no longer) mined. */
export const IN_FLIGHT_STATUSES: readonly RequestStatus[] = ["SIGNED", "SENT", "REORGED"];
/** Final states that a mined transaction gave (their receipt is watched for reorgs). */
export const MINED_STATUSES: readonly RequestStatus[] = ["CONFIRMED", "REVERTED", "EXPIRED", "CANCELLED"];

export function relayerTables(schemaName: string) {
  const s = pgSchema(schemaName);
  const requests = s.table(
    "request",
    {
      id: text("id").primaryKey(),
      caller: text("caller").notNull(),
      idempotencyKey: text("idempotency_key"),
      bodyHash: text("body_hash").notNull(),
      kind: text("kind").notNull(),
      /** Validated parameters (decimal strings), including a generated clientKey. */
      params: jsonb("params").notNull(),
      /** Serialisation key: writes on one account run one at a time. */
      lane: text("lane").notNull(),
      status: text("status").$type<RequestStatus>().notNull(),
      signer: text("signer"),
      nonce: bigint("nonce", { mode: "bigint" }),
      toAddress: text("to_address"),
      data: text("data"),
      gas: bigint("gas", { mode: "bigint" }),
      txHash: text("tx_hash"),
      blockNumber: bigint("block_number", { mode: "bigint" }),
      /** Hash of the block that mined it (a different hash at that height: the receipt is checked again). */
      blockHash: text("block_hash"),
      /** Times its receipt left the canonical chain (each: REORGED, then sent again). */
      reorgs: integer("reorgs").notNull().default(0),
      httpStatus: integer("http_status"),
      /** The full envelope answered when final. */
      response: json("response"),
      requestIdHeader: text("request_id_header"),
      /** Parent request (an operator approval sent with POST /accounts). */
      parentId: text("parent_id"),
      /** Not mined by then: the nonce is replaced by a no-op (EXPIRED); not signed by then: never sent. */
      validUntil: timestamp("valid_until", { withTimezone: true, mode: "date" }),
      /** The caller asked to cancel (a no-op then replaces the nonce, as for expiry). */
      cancelledAt: timestamp("cancelled_at", { withTimezone: true, mode: "date" }),
      createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
      updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    },
    (t) => [
      uniqueIndex("request_caller_idempotency_key").on(t.caller, t.idempotencyKey),
      index("request_status").on(t.status),
      uniqueIndex("request_signer_nonce").on(t.signer, t.nonce),
    ],
  );
  const attempts = s.table("tx_attempt", {
    hash: text("hash").primaryKey(),
    requestId: text("request_id").notNull(),
    nonce: bigint("nonce", { mode: "bigint" }).notNull(),
    raw: text("raw").notNull(),
    maxFeePerGas: bigint("max_fee_per_gas", { mode: "bigint" }).notNull(),
    maxPriorityFeePerGas: bigint("max_priority_fee_per_gas", { mode: "bigint" }).notNull(),
    /** A self-transfer of 0 that takes the nonce of an expired or cancelled write. */
    noop: boolean("noop").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** Last time it was handed to the node (null: signed, never sent). */
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }),
  });
  const signers = s.table("signer", {
    address: text("address").primaryKey(),
    nextNonce: bigint("next_nonce", { mode: "bigint" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  });
  const registry = s.table("registered_wallet", {
    address: text("address").primaryKey(),
    note: text("note"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  });
  return { requests, attempts, signers, registry };
}
export type RelayerTables = ReturnType<typeof relayerTables>;

/** Idempotent DDL (run at start). Kept beside the table definitions above. */
export function ddl(schema: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS "${schema}"`,
    `CREATE TABLE IF NOT EXISTS "${schema}".request (
      id text PRIMARY KEY, caller text NOT NULL, idempotency_key text, body_hash text NOT NULL,
      kind text NOT NULL, params jsonb NOT NULL, lane text NOT NULL, status text NOT NULL,
      signer text, nonce bigint, to_address text, data text, gas bigint, tx_hash text,
      block_number bigint, http_status integer, response json, request_id_header text, parent_id text,
      created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE UNIQUE INDEX IF NOT EXISTS request_caller_idempotency_key ON "${schema}".request (caller, idempotency_key)`,
    `CREATE INDEX IF NOT EXISTS request_status ON "${schema}".request (status)`,
    `CREATE UNIQUE INDEX IF NOT EXISTS request_signer_nonce ON "${schema}".request (signer, nonce)`,
    `CREATE TABLE IF NOT EXISTS "${schema}".tx_attempt (
      hash text PRIMARY KEY, request_id text NOT NULL, nonce bigint NOT NULL, raw text NOT NULL,
      max_fee_per_gas bigint NOT NULL, max_priority_fee_per_gas bigint NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(), sent_at timestamptz)`,
    `ALTER TABLE "${schema}".request ADD COLUMN IF NOT EXISTS valid_until timestamptz`,
    `ALTER TABLE "${schema}".request ADD COLUMN IF NOT EXISTS cancelled_at timestamptz`,
    `ALTER TABLE "${schema}".tx_attempt ADD COLUMN IF NOT EXISTS noop boolean NOT NULL DEFAULT false`,
    `ALTER TABLE "${schema}".request ADD COLUMN IF NOT EXISTS block_hash text`,
    `ALTER TABLE "${schema}".request ADD COLUMN IF NOT EXISTS reorgs integer NOT NULL DEFAULT 0`,
    // mined writes of the last blocks: their receipts are watched for reorgs
    `CREATE INDEX IF NOT EXISTS request_block ON "${schema}".request (block_number) WHERE block_number IS NOT NULL`,
    // lane depth and a caller's pending writes are counted on every write (caps: 429)
    `CREATE INDEX IF NOT EXISTS request_open_lane ON "${schema}".request (lane) WHERE status IN ('QUEUED', 'SIGNED', 'SENT')`,
    `CREATE INDEX IF NOT EXISTS request_open_caller ON "${schema}".request (caller) WHERE status IN ('QUEUED', 'SIGNED', 'SENT')`,
    // a caller's recent writes (the stream service's transactions snapshot)
    `CREATE INDEX IF NOT EXISTS request_caller_created ON "${schema}".request (caller, created_at DESC)`,
    `CREATE INDEX IF NOT EXISTS request_key_created ON "${schema}".request (created_at) WHERE idempotency_key IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS tx_attempt_request ON "${schema}".tx_attempt (request_id)`,
    `CREATE TABLE IF NOT EXISTS "${schema}".signer (
      address text PRIMARY KEY, next_nonce bigint NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE IF NOT EXISTS "${schema}".registered_wallet (
      address text PRIMARY KEY, note text, created_at timestamptz NOT NULL DEFAULT now())`,
    // every state change of a write, pushed after its commit (the stream service's transactions
    // channel, through GET /internal/transactions/stream): one NOTIFY per changed row
    `CREATE OR REPLACE FUNCTION "${schema}".notify_request() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND OLD.status IS NOT DISTINCT FROM NEW.status AND OLD.tx_hash IS NOT DISTINCT FROM NEW.tx_hash THEN RETURN NULL; END IF;
      PERFORM pg_notify('${requestChannel(schema)}', json_build_object(
        'requestId', NEW.id, 'caller', NEW.caller, 'kind', NEW.kind, 'status', NEW.status,
        'transactionHash', NEW.tx_hash, 'blockNumber', NEW.block_number::text, 'httpStatus', NEW.http_status,
        'code', NEW.response->'error'->>'code', 'message', left(NEW.response->'error'->>'message', 500),
        'clientKey', NEW.params->>'clientKey', 'parentId', NEW.parent_id, 'reorgs', NEW.reorgs, 'updatedAt', NEW.updated_at)::text);
      RETURN NULL;
    END $$`,
    `DROP TRIGGER IF EXISTS request_notify ON "${schema}".request`,
    `CREATE TRIGGER request_notify AFTER INSERT OR UPDATE ON "${schema}".request FOR EACH ROW EXECUTE FUNCTION "${schema}".notify_request()`,
  ];
}

/** The NOTIFY channel of the writes' state changes (payload: the JSON built by notify_request). */
export const requestChannel = (schema: string) => `${schema}_request`;
