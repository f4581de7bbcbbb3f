/**
 * Prometheus metrics of the venue's services (prom-client): one registry per process with the
 * service's name as a default label, HTTP requests by route and status with a latency histogram,
 * rate-limit rejections, and `GET /metrics` (open in the local profile, else only with the admin
 * token). Each service adds its own series with `counter`/`gauge`/`histogram`; the list and the
 * alerts to set are in docs/SERVICES.md.
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration } from "prom-client";
import { sameSecret } from "./auth/service-tokens.js";

/** This process's registry (Ponder keeps its own for the indexer). */
export const registry = new Registry();
let started = false;

/** Names the service on every series and adds Node's process metrics (once per process). */
export function initMetrics(service: string): Registry {
  if (!started) {
    started = true;
    registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: registry, prefix: "venue_" });
  }
  return registry;
}

// get-or-create: app factories may run more than once in a process (tests)
export function counter<T extends string>(cfg: Omit<CounterConfiguration<T>, "registers">): Counter<T> {
  return (registry.getSingleMetric(cfg.name) as Counter<T> | undefined) ?? new Counter({ ...cfg, registers: [registry] });
}
export function gauge<T extends string>(cfg: Omit<GaugeConfiguration<T>, "registers">): Gauge<T> {
  return (registry.getSingleMetric(cfg.name) as Gauge<T> | undefined) ?? new Gauge({ ...cfg, registers: [registry] });
}
export function histogram<T extends string>(cfg: Omit<HistogramConfiguration<T>, "registers">): Histogram<T> {
  return (registry.getSingleMetric(cfg.name) as Histogram<T> | undefined) ?? new Histogram({ ...cfg, registers: [registry] });
}

export const rateLimitRejections = () =>
  counter({ name: "venue_rate_limit_rejections_total", help: "Requests answered 429 RATE_LIMITED, by limiter", labelNames: ["limiter"] });

export const httpDuration = () =>
  histogram({
    name: "venue_http_request_duration_seconds",
    help: "HTTP requests by method, route pattern and status, with their latency",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30],
  });

/**
 * Observes every request: labels are the matched route pattern (never the raw path, so ids do not
 * explode the series), `unmatched` for a 404 outside any route. Install first, before the routes.
 */
export function httpMetrics(): MiddlewareHandler {
  const h = httpDuration();
  return async function httpMetrics(c, next) {
    const end = h.startTimer();
    try {
      await next();
    } finally {
      // the route that matched this method (middleware and catch-alls are registered as ALL)
      const route = matchedRoutes(c).filter((r) => r.method !== "ALL").at(-1)?.path ?? "unmatched";
      end({ method: c.req.method, route, status: String(c.res.status) });
    }
  };
}

/**
 * `GET /metrics` in Prometheus' text format. Outside the local profile only with the admin token
 * (`Authorization: Bearer <ADMIN_TOKEN>`, as Prometheus' `authorization` sends it, or
 * `X-Admin-Token`); otherwise 404, as if there were no such route. No token configured: never.
 */
export function metricsHandler(opts: { open: boolean; adminToken?: string }) {
  return async (c: Context) => {
    if (!opts.open) {
      const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
      const given = bearer ?? c.req.header("x-admin-token");
      if (!opts.adminToken || !given || !sameSecret(given, opts.adminToken)) {
        return c.json({ success: false, error: { code: "NOT_FOUND", message: `no route GET ${c.req.path}` } }, 404);
      }
    }
    return c.body(await registry.metrics(), 200, { "Content-Type": registry.contentType });
  };
}
