/**
 * The gateway app: metrics → request id → timing/access log → 405 → body limit → (on /v1)
 * failed-key limiter → API key → per-key rate limit → routes.
 * Stateless apart from the key store (and the rate-limit counters, in Redis when `REDIS_URL` is
 * set); `createGatewayApp` takes its dependencies so tests can call `app.request(...)` without a
 * server.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { except } from "hono/combine";
import { requestId } from "hono/request-id";
import { bodyLimitEnvelope, refuseOversizedBody } from "../../core/http/body-limit.js";
import { clientAddressOf, socketAddress, trustedProxies } from "../../core/http/client-address.js";
import { methodNotAllowed } from "../../core/http/method-not-allowed.js";
import { failureLimit, rateLimit, rateLimitStore } from "../../core/http/rate-limit.js";
import { httpMetrics, initMetrics, metricsHandler } from "../../core/metrics.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { BlockFeed } from "../../core/indexer/blocks.js";
import type { LastWrites } from "../../core/indexer/last-writes.js";
import type { GatewayDeps, GatewayEnv } from "./context.js";
import { HeldByUrl, fastGateway } from "./held-copies-listener.js";
import { adminOnly } from "./middleware/admin-only/index.js";
import { apiKeyAuth } from "./middleware/api-key/index.js";
import { gatewayNotFound, gatewayOnError } from "./on-error.js";
import { registerAccountRoutes } from "./routes/accounts.js";
import { registerAdminRoutes } from "./routes/admin.js";
import { registerDocsRoutes } from "./routes/docs.js";
import { registerHealthRoutes } from "./routes/health.js";
import { registerHistoryRoutes } from "./routes/history.js";
import { registerInsuranceRoutes } from "./routes/insurance.js";
import { registerLiquidationRoutes } from "./routes/liquidation.js";
import { registerMarketRoutes } from "./routes/markets.js";
import { registerOperatorRoutes } from "./routes/operators.js";
import { validationError } from "./schemas.js";

/** The socket peer under @hono/node-server; undefined elsewhere (app.request in tests). */
export const nodeRemoteAddress = socketAddress;

/** Paths under /v1 that need no key at all. */
const OPEN_PATHS = /^\/v1\/(openapi\.json|asyncapi\.json|docs(\/.*)?)$/;

/**
 * The gateway's node request listener: the hot path (held-copies-listener.ts) for a read answered from the
 * per-block copy, the app for everything else; both count in one per-key limit store.
 */
export function createGatewayListener(deps: GatewayDeps & { feed: BlockFeed; lastWrites: LastWrites }) {
  const { config } = deps;
  const limitStore = deps.limitStore ?? rateLimitStore(config.redisUrl, "venue:gw:req:");
  const generation = deps.upstreams.integration.generation;
  const carried = deps.upstreams.integration.carried;
  const hot = generation ? new HeldByUrl(generation, carried) : undefined;
  const app = createGatewayApp({ ...deps, limitStore, hot });
  // a declared body over the limit: 413 before anything, the connection kept (core/http/body-limit.ts)
  const inApp = getRequestListener(app.fetch);
  const slow = (req: IncomingMessage, res: ServerResponse) => void (refuseOversizedBody(req, res, config.bodyLimitBytes) || inApp(req, res));
  if (!hot) return { app, listener: slow };
  const fast = fastGateway({
    copies: hot,
    keys: deps.keys,
    feed: deps.feed,
    lastWrites: deps.lastWrites,
    limit: { store: limitStore, limit: config.rateLimit.limit, windowMs: config.rateLimit.windowMs, trusted: trustedProxies(config.trustedProxies) },
  });
  return { app, listener: (req: IncomingMessage, res: ServerResponse) => void (fast(req, res) || slow(req, res)) };
}

export function createGatewayApp(deps: GatewayDeps) {
  const { config, keys, log } = deps;
  const remoteAddress = deps.remoteAddress ?? nodeRemoteAddress;
  // the client behind trusted proxies (X-Forwarded-For), else the socket peer
  const clientOf = clientAddressOf(trustedProxies(config.trustedProxies), remoteAddress);
  initMetrics("gateway");

  const app = new OpenAPIHono<GatewayEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });
  app.onError(gatewayOnError(log));
  app.notFound(gatewayNotFound);

  app.use(httpMetrics());
  // answers from the per-block copy: their bytes kept for the hot path below Hono (held-copies-listener.ts)
  const hot = deps.hot;
  if (hot) app.use("/v1/*", async (c, next) => {
    await next();
    if (c.req.method === "GET") hot.capture(c);
  });
  app.use(requestId());
  // Server-Timing (the gateway's own time apart from the upstream's) and an access log:
  // failures always (they say which request), everything at debug.
  app.use(async function accessLog(c, next) {
    const t0 = performance.now();
    await next();
    const total = performance.now() - t0;
    const upstream = c.get("upstreamMs");
    c.res.headers.set(
      "Server-Timing",
      upstream === undefined ? `gateway;dur=${total.toFixed(2)}` : `upstream;dur=${upstream.toFixed(2)}, gateway;dur=${(total - upstream).toFixed(2)}`,
    );
    const status = c.res.status;
    if (status < 500 && !log.isLevelEnabled("debug")) return;
    const entry = {
      requestId: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round(total * 100) / 100,
      upstreamMs: upstream === undefined ? undefined : Math.round(upstream * 100) / 100,
      keyId: c.get("apiKey")?.keyId,
    };
    if (status >= 500) log.warn(entry, "request failed");
    else log.debug(entry, "request");
  });
  app.use(methodNotAllowed(app));
  app.use(bodyLimitEnvelope(config.bodyLimitBytes));

  app.use("/admin/*", adminOnly({ token: config.adminToken, remoteAddress }));
  app.get("/metrics", metricsHandler({ open: config.profile.name === "local", adminToken: config.adminToken }));

  const auth = apiKeyAuth({
    verify: (key) => keys.verify(key),
    isOptional: (c) => c.req.method === "GET" && (c.req.path === "/v1/markets" || c.req.path === "/v1/markets/"),
  });
  const limiter = rateLimit({
    name: "gateway",
    limit: config.rateLimit.limit,
    windowMs: config.rateLimit.windowMs,
    store: deps.limitStore ?? rateLimitStore(config.redisUrl, "venue:gw:req:"),
    key: (c) => {
      const id = (c as Context<GatewayEnv>).get("apiKey");
      return id ? `key:${id.keyId}` : `ip:${clientOf(c) ?? "unknown"}`;
    },
  });
  // Guessing keys costs a lookup each: an address with too many 401s gets 429 instead, for the
  // rest of the window. Only failures count and only failures are refused, so a valid key behind
  // the same load balancer or NAT keeps working.
  const authFailures = failureLimit({
    name: "gateway-auth-failures",
    limit: config.rateLimit.authFailures,
    windowMs: config.rateLimit.windowMs,
    store: rateLimitStore(config.redisUrl, "venue:gw:authfail:"),
    key: (c) => `auth:${clientOf(c) ?? "unknown"}`,
    isFailure: (status) => status === 401,
  });
  app.use("/v1/*", except((c) => OPEN_PATHS.test(c.req.path), authFailures, auth as MiddlewareHandler, limiter));

  registerHealthRoutes(app, deps);
  registerMarketRoutes(app, deps);
  registerAccountRoutes(app, deps);
  registerHistoryRoutes(app, deps);
  registerInsuranceRoutes(app, deps);
  registerOperatorRoutes(app, deps);
  registerLiquidationRoutes(app, deps);
  registerDocsRoutes(app, deps);
  registerAdminRoutes(app, deps);
  return app;
}
