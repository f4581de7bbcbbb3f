/** GET /health (the gateway and a summary of its dependencies) and GET /health/{service}. */
import { z } from "@hono/zod-openapi";
import { snakeKeys } from "../../../core/case";
import { fail } from "../../../core/envelope";
import { ApiError } from "../../../core/errors";
import type { GatewayApp, GatewayDeps } from "../context";
import { checkService, SERVICES, type ServiceName } from "../health";
import { defineRoute } from "./define";

const started = Date.now();

export const gatewayHealth = defineRoute({
  method: "get",
  path: "/health",
  tag: "Health",
  summary: "Health of the gateway",
  description: "200 while the gateway serves; `status` is `degraded` when a dependency is down (see `services`).",
  isPublic: true,
  ok: { status: 200, name: "GatewayHealth", description: "service, status, profile, uptime_seconds, services { name: status }" },
});

export const serviceHealth = defineRoute({
  method: "get",
  path: "/health/{service}",
  tag: "Health",
  summary: "Health of one internal service",
  description:
    "indexer (ready, indexed_block, head_block, blocks_behind), relayer, keeper, database, chain. 200 when ok or syncing, 503 SERVICE_UNAVAILABLE when down.",
  isPublic: true,
  request: {
    params: z.object({
      service: z.string().openapi({ param: { name: "service", in: "path" }, enum: [...SERVICES], example: "indexer" }),
    }),
  },
  ok: { status: 200, name: "ServiceHealth", description: "service, status, latency_ms and the service's details" },
  errors: [404],
});

export function registerHealthRoutes(app: GatewayApp, deps: GatewayDeps) {
  app.openapi(gatewayHealth, async (c) => {
    const checks = await Promise.all(SERVICES.map((s) => checkService(s, deps)));
    const services = Object.fromEntries(checks.map((h) => [h.service, h.status]));
    const degraded = checks.some((h) => h.status === "down");
    return c.json(
      {
        success: true as const,
        data: snakeKeys({
          service: "gateway",
          status: degraded ? "degraded" : "ok",
          profile: deps.config.profile.name,
          uptimeSeconds: Math.floor((Date.now() - started) / 1000),
          services,
        }) as Record<string, unknown>,
      },
      200,
    );
  });

  app.openapi(serviceHealth, async (c) => {
    const name = c.req.valid("param").service;
    if (!(SERVICES as readonly string[]).includes(name)) {
      throw new ApiError("NOT_FOUND", `unknown service "${name}": one of ${SERVICES.join(", ")}`);
    }
    const h = await checkService(name as ServiceName, deps);
    if (h.status === "down") {
      return c.json(fail("SERVICE_UNAVAILABLE", `${name} is down: ${h.error ?? "unknown"}`), 503) as never;
    }
    return c.json({ success: true as const, data: snakeKeys(h) as Record<string, unknown> }, 200);
  });
}
