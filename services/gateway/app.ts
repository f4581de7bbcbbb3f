/**
 * The gateway app: request id → timing/access log → body limit → (on /v1) API key → per-key
 * rate limit → routes.
 * Stateless apart from the key store; `createGatewayApp` takes its dependencies so tests can
 * call `app.request(...)` without a server.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler } from "hono";
import { except } from "hono/combine";
import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import { ApiError } from "../../core/errors";
import type { GatewayDeps, GatewayEnv } from "./context";
import { adminOnly } from "./middleware/admin-only";
import { apiKeyAuth } from "./middleware/api-key";
import { rateLimit } from "./middleware/rate-limit";
import { gatewayNotFound, gatewayOnError } from "./on-error";
import { registerAccountRoutes } from "./routes/accounts";
import { registerAdminRoutes } from "./routes/admin";
import { registerDocsRoutes } from "./routes/docs";
import { registerHealthRoutes } from "./routes/health";
import { registerLiquidationRoutes } from "./routes/liquidation";
import { registerMarketRoutes } from "./routes/markets";
import { registerOperatorRoutes } from "./routes/operators";
import { validationError } from "./schemas";

/** The socket peer under @hono/node-server; undefined elsewhere (app.request in tests). */
export function nodeRemoteAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** Paths under /v1 that need no key at all. */
const OPEN_PATHS = /^\/v1\/(openapi\.json|docs(\/.*)?)$/;

export function createGatewayApp(deps: GatewayDeps) {
  const { config, keys, log } = deps;
  const remoteAddress = deps.remoteAddress ?? nodeRemoteAddress;

  const app = new OpenAPIHono<GatewayEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });
  app.onError(gatewayOnError(log));
  app.notFound(gatewayNotFound);

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
  app.use(
    bodyLimit({
      maxSize: config.bodyLimitBytes,
      onError: () => {
        throw new ApiError("VALIDATION_ERROR", `request body is larger than ${config.bodyLimitBytes} bytes`);
      },
    }),
  );

  app.use("/admin/*", adminOnly({ token: config.adminToken, remoteAddress }));

  const auth = apiKeyAuth({
    verify: (key) => keys.verify(key),
    isOptional: (c) => c.req.method === "GET" && (c.req.path === "/v1/markets" || c.req.path === "/v1/markets/"),
  });
  const limiter = rateLimit({
    limit: config.rateLimit.limit,
    windowMs: config.rateLimit.windowMs,
    key: (c) => {
      const id = (c as Context<GatewayEnv>).get("apiKey");
      return id ? `key:${id.keyId}` : `ip:${remoteAddress(c) ?? "unknown"}`;
    },
  });
  // Guessing keys costs a lookup each: an address with too many 401s is refused for a while.
  const authFailures = rateLimit({
    limit: config.rateLimit.authFailures,
    windowMs: config.rateLimit.windowMs,
    key: (c) => `auth:${remoteAddress(c) ?? "unknown"}`,
    countsIf: (c) => c.res.status === 401,
    headers: false,
  });
  app.use("/v1/*", except((c) => OPEN_PATHS.test(c.req.path), authFailures, auth as MiddlewareHandler, limiter));

  registerHealthRoutes(app, deps);
  registerMarketRoutes(app, deps);
  registerAccountRoutes(app, deps);
  registerOperatorRoutes(app, deps);
  registerLiquidationRoutes(app, deps);
  registerDocsRoutes(app, deps);
  registerAdminRoutes(app, deps);
  return app;
}
