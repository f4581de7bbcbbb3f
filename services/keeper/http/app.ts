/**
 * The keeper's HTTP API (docs/SERVICES.md "Keeper internal API"; the gateway proxies
 * `/v1/liquidation/*` here): liquidation reads at the latest indexed block, and the liquidate
 * actions forwarded to the relayer. Loopback by default; POST routes need `X-Internal-Token` =
 * the gateway's token (the keeper then calls the relayer with its own).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import { getAddress, isAddress } from "viem";
import { ApiError } from "../../../core/errors.js";
import { ok } from "../../../core/envelope.js";
import { errorEnvelope } from "../../../core/schemas/envelope.js";
import { httpMetrics, initMetrics, metricsHandler } from "../../../core/metrics.js";
import { AccountIdParam, Bytes32 } from "../../../core/schemas/writes.js";
import type { LiquidationService } from "../liquidation/service.js";
import { errorResponse, makeOnError, notFound, validationHook } from "./errors.js";
import { sameSecret } from "../../../core/auth/service-tokens.js";

export type KeeperAppDeps = {
  service: LiquidationService;
  /** the gateway's service token: the caller of the liquidate routes (for its keys' wallets) */
  gatewayToken: string;
  log: Logger;
  /** Liveness of the keeper's loops, reported by /health. */
  status: () => Record<string, unknown>;
  /** GET /metrics: open (local profile), else only with this admin token (none: never). */
  metrics?: { open: boolean; adminToken?: string };
};

const Envelope = z
  .object({ success: z.literal(true), data: z.record(z.string(), z.unknown()) })
  .openapi("KeeperSuccess");
const ErrorEnvelope = errorEnvelope("KeeperError");

const accountParams = z.object({ accountId: AccountIdParam });
const marketParams = z.object({
  marketId: Bytes32.openapi({ param: { name: "marketId", in: "path" }, description: "keccak256 of the symbol" }),
});
const positionParams = z.object({
  positionId: Bytes32.openapi({
    param: { name: "positionId", in: "path" },
    description: "keccak256(abi.encode(uint256 accountId, bytes32 marketId))",
  }),
});
const minBlock = z
  .string()
  .regex(/^\d{1,15}$/, { message: "must be a non-negative integer block number" })
  .optional()
  .openapi({ param: { name: "minBlock", in: "query" }, description: "wait (up to 5 s, then 503) until this block is indexed" });
const readQuery = z.object({ minBlock });
const marketQuery = z.object({
  minBlock,
  limit: z.coerce.number({ message: "must be an integer" }).int({ message: "must be an integer" }).min(1).max(1000).default(100)
    .openapi({ param: { name: "limit", in: "query" }, description: "positions listed (riskiest first), 1..1000, default 100" }),
  liquidatable: z.enum(["true", "false"]).optional()
    .openapi({ param: { name: "liquidatable", in: "query" }, description: "true: list only liquidatable positions" }),
});

const errors = {
  400: { description: "VALIDATION_ERROR (malformed id or query)", content: { "application/json": { schema: ErrorEnvelope } } },
  404: { description: "ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND or POSITION_NOT_FOUND", content: { "application/json": { schema: ErrorEnvelope } } },
  503: { description: "the indexer is unreachable", content: { "application/json": { schema: ErrorEnvelope } } },
};
const okResponse = (description: string) => ({ 200: { description, content: { "application/json": { schema: Envelope } } }, ...errors });

const routes = {
  accountHealth: createRoute({
    method: "get", path: "/liquidation/accounts/{accountId}/health", request: { params: accountParams, query: readQuery },
    summary: "Account health: margin, Σ equity against Σ maintenance over its open positions, margin ratio",
    responses: okResponse("account health at the latest indexed block"),
  }),
  market: createRoute({
    method: "get", path: "/liquidation/market/{marketId}", request: { params: marketParams, query: marketQuery },
    summary: "A market's open positions, riskiest first, with liquidation and insolvency prices; recent liquidations",
    responses: okResponse("liquidation data of the market"),
  }),
  account: createRoute({
    method: "get", path: "/liquidation/account/{accountId}", request: { params: accountParams, query: readQuery },
    summary: "An account's open positions with their health, and its recent liquidations",
    responses: okResponse("liquidation data of the account"),
  }),
  position: createRoute({
    method: "get", path: "/liquidation/position/{positionId}", request: { params: positionParams, query: readQuery },
    summary: "One position with its health (null once closed) and its liquidations",
    responses: okResponse("liquidation data of the position"),
  }),
  liquidateAccount: createRoute({
    method: "post", path: "/liquidation/account/{accountId}/liquidate", request: { params: accountParams },
    summary: "Liquidates every liquidatable position of the account (through the relayer)",
    responses: {
      ...okResponse("the relayer's answer: mined (200) or pending (202)"),
      401: { description: "missing or wrong X-Internal-Token", content: { "application/json": { schema: ErrorEnvelope } } },
      409: { description: "NOT_LIQUIDATABLE", content: { "application/json": { schema: ErrorEnvelope } } },
    },
  }),
  liquidatePosition: createRoute({
    method: "post", path: "/liquidation/position/{positionId}/liquidate", request: { params: positionParams },
    summary: "Liquidates one position (through the relayer)",
    responses: {
      ...okResponse("the relayer's answer: mined (200) or pending (202)"),
      401: { description: "missing or wrong X-Internal-Token", content: { "application/json": { schema: ErrorEnvelope } } },
      409: { description: "NOT_LIQUIDATABLE", content: { "application/json": { schema: ErrorEnvelope } } },
    },
  }),
};

/** The caller the gateway authenticated (X-Caller-Address); required on the liquidate routes. */
function forwardHeaders(c: Context) {
  const caller = c.req.header("x-caller-address");
  if (!caller || !isAddress(caller, { strict: false })) {
    throw new ApiError("VALIDATION_ERROR", "X-Caller-Address: must be the caller's wallet address");
  }
  return {
    callerAddress: getAddress(caller) as Address,
    requestId: c.req.header("x-request-id"),
    idempotencyKey: c.req.header("idempotency-key"),
  };
}

export function createKeeperApp(deps: KeeperAppDeps) {
  const { service, gatewayToken, log } = deps;
  const app = new OpenAPIHono({ defaultHook: validationHook as never });
  app.onError(makeOnError(log));
  app.notFound(notFound);
  initMetrics("keeper");
  app.use(httpMetrics());
  app.get("/metrics", metricsHandler(deps.metrics ?? { open: false }));
  // Actions need the internal token before anything else is looked at.
  app.on("POST", "/liquidation/*", async function requireInternalToken(c, next) {
    const token = c.req.header("x-internal-token");
    if (!token || !sameSecret(token, gatewayToken)) {
      c.header("WWW-Authenticate", 'Token realm="keeper", header="X-Internal-Token"');
      return errorResponse(c, new ApiError("UNAUTHENTICATED", "missing or invalid X-Internal-Token"));
    }
    await next();
  });

  const answer = (c: Context, r: { data: unknown; block: bigint }) => {
    c.header("X-Indexed-Block", r.block.toString());
    return c.json(ok(r.data), 200);
  };
  // The relayer's answer as is; a relayer failure (500) is a bad gateway from here.
  const relay = (c: Context, a: { status: number; body: unknown }) =>
    c.json(a.body as object, (a.status === 500 ? 502 : a.status) as 200);

  const minBlockOf = (q: { minBlock?: string }) => (q.minBlock === undefined ? undefined : BigInt(q.minBlock));
  app.openapi(routes.accountHealth, async (c) =>
    answer(c, await service.accountHealth(BigInt(c.req.valid("param").accountId), minBlockOf(c.req.valid("query")))) as never);
  app.openapi(routes.account, async (c) =>
    answer(c, await service.account(BigInt(c.req.valid("param").accountId), minBlockOf(c.req.valid("query")))) as never);
  app.openapi(routes.position, async (c) =>
    answer(c, await service.position(c.req.valid("param").positionId as Hex, minBlockOf(c.req.valid("query")))) as never);
  app.openapi(routes.market, async (c) => {
    const q = c.req.valid("query");
    return answer(c, await service.market(c.req.valid("param").marketId as Hex, q.limit, q.liquidatable === "true", minBlockOf(q))) as never;
  });
  app.openapi(routes.liquidatePosition, async (c) => {
    const h = forwardHeaders(c);
    return relay(c, await service.liquidatePosition(c.req.valid("param").positionId as Hex, h)) as never;
  });
  app.openapi(routes.liquidateAccount, async (c) => {
    const h = forwardHeaders(c);
    return relay(c, await service.liquidateAccount(BigInt(c.req.valid("param").accountId), h)) as never;
  });

  // 200 while the process serves; "degraded" when a loop's last run failed (indexer or chain down)
  // or a liquidation has made no progress in several calls in a row (`stalledLiquidations`).
  app.get("/health", (c) => {
    const st = deps.status();
    const loops = (st.loops ?? {}) as Record<string, { lastError: string | null }>;
    const stalled = (st.stalledLiquidations ?? []) as unknown[];
    const degraded = Object.values(loops).some((l) => l.lastError !== null) || stalled.length > 0;
    return c.json(ok({ service: "keeper", status: degraded ? "degraded" : "ok", ...st }), 200);
  });
  app.doc31("/openapi.json", { openapi: "3.1.0", info: { title: "Venue keeper (internal)", version: "1" } });
  return app;
}

