/**
 * The stream service's HTTP surface beside `/ws`: health, counters, the AsyncAPI document and the
 * reference page.
 */
import { Hono } from "hono";
import { asyncApiDocument } from "./asyncapi.js";

export type StreamsAppDeps = { ready: () => boolean; stats: () => Record<string, unknown> };

export function createStreamsApp(d: StreamsAppDeps) {
  const app = new Hono();
  app.get("/health", (c) => (d.ready() ? c.json({ success: true, data: { status: "ok" } }) : c.json({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: "waiting for the integration API" } }, 503)));
  app.get("/asyncapi.json", (c) => c.json(asyncApiDocument(new URL(c.req.url).origin)));
  app.get("/stats", (c) => c.json({ success: true, data: d.stats() }));
  app.notFound((c) => c.json({ success: false, error: { code: "NOT_FOUND", message: `no route ${c.req.path}: the stream is at /ws` } }, 404));
  return app;
}
