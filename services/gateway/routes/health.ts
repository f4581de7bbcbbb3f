/**
 * GET /health (the gateway and a summary of its dependencies) and GET /health/{service}. Public
 * answers carry statuses only; with `X-Admin-Token` they add the details (latency, blocks behind,
 * versions, error text with URLs redacted). Checks are cached (HealthMonitor), never one fan-out
 * per request.
 */
import { z } from "@hono/zod-openapi";
import { snakeKeys } from "../../../core/case.js";
import { fail } from "../../../core/envelope.js";
import { ApiError } from "../../../core/errors.js";
import type { GatewayApp, GatewayContext, GatewayDeps } from "../context.js";
import { HealthMonitor, publicHealth, SERVICES, type ServiceName } from "../health.js";
import { defineRoute } from "./define.js";
import { sameSecret } from "../../../core/auth/service-tokens.js";

const started = Date.now();

export const gatewayHealth = defineRoute({
  method: "get",
  path: "/health",
  tag: "Health",
  summary: "Health of the gateway",
  description:
    "200 while the gateway serves; `status` is `degraded` when a dependency is down or degraded (see `services`). With `X-Admin-Token`: also profile, uptime and each dependency's details. Results are at most HEALTH_CACHE_MS (1 s) old.",
  isPublic: true,
  ok: { status: 200, name: "GatewayHealth", description: "service, status, services { name: status }" },
});

export const serviceHealth = defineRoute({
  method: "get",
  path: "/health/{service}",
  tag: "Health",
  summary: "Health of one internal service",
  description:
    "indexer, relayer, keeper, database, chain: `service` and `status`. 200 when ok, syncing or degraded (the relayer: out of funds, or its oldest write not final older than STUCK_AFTER_MS while its signer's nonce does not move), 503 SERVICE_UNAVAILABLE when down. With `X-Admin-Token`: the details (indexer: ready, indexed_block, head_block, blocks_behind; latency_ms; error).",
  isPublic: true,
  request: {
    params: z.object({
      service: z.string().openapi({ param: { name: "service", in: "path" }, enum: [...SERVICES], example: "indexer" }),
    }),
  },
  ok: { status: 200, name: "ServiceHealth", description: "service and status (details with X-Admin-Token)" },
  errors: [404],
});

/** true with the right X-Admin-Token, false without one; a wrong one is a 401. */
function isAdmin(c: GatewayContext, token: string): boolean {
  const given = c.req.header("X-Admin-Token");
  if (given === undefined) return false;
  if (!sameSecret(given, token)) throw new ApiError("UNAUTHENTICATED", "wrong X-Admin-Token");
  return true;
}

export function registerHealthRoutes(app: GatewayApp, deps: GatewayDeps) {
  const monitor = new HealthMonitor(deps);

  app.openapi(gatewayHealth, async (c) => {
    const admin = isAdmin(c, deps.config.adminToken);
    const checks = await monitor.all();
    const services = Object.fromEntries(checks.map((h) => [h.service, h.status]));
    const degraded = checks.some((h) => h.status === "down" || h.status === "degraded");
    const data = { service: "gateway", status: degraded ? "degraded" : "ok", services };
    const details = admin
      ? { profile: deps.config.profile.name, uptimeSeconds: Math.floor((Date.now() - started) / 1000), details: Object.fromEntries(checks.map((h) => [h.service, h])) }
      : {};
    return c.json({ success: true as const, data: snakeKeys({ ...data, ...details }) as Record<string, unknown> }, 200);
  });

  app.openapi(serviceHealth, async (c) => {
    const name = c.req.valid("param").service;
    if (!(SERVICES as readonly string[]).includes(name)) {
      throw new ApiError("NOT_FOUND", `unknown service "${name}": one of ${SERVICES.join(", ")}`);
    }
    const admin = isAdmin(c, deps.config.adminToken);
    const h = await monitor.check(name as ServiceName);
    if (h.status === "down") {
      const why = admin ? `: ${h.error ?? "unknown"}` : "";
      return c.json(fail("SERVICE_UNAVAILABLE", `${name} is down${why}`), 503) as never;
    }
    return c.json({ success: true as const, data: snakeKeys(admin ? h : publicHealth(h)) as Record<string, unknown> }, 200);
  });
}
