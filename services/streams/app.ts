/**
 * The stream service's HTTP surface beside `/ws`: health, counters (`/stats`, Prometheus'
 * `/metrics`), the AsyncAPI document and the reference page (`/live`: one HTML page and one
 * module, its charting libraries served from node_modules: nothing is fetched from elsewhere).
 * The page's stream client is the TypeScript client's (packages/client, `@venue-indexer/client`):
 * its stream module bundled for the browser by esbuild (the client package's own build tool) at
 * the first request of `/live/client.js`, so a clean clone serves it with no build step. The
 * stream part imports nothing of viem; isows (the platform's WebSocket in a browser) is bundled in.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { metricsHandler } from "../../core/metrics.js";
import { asyncApiDocument } from "../../core/streams/asyncapi.js";

export type StreamsAppDeps = {
  ready: () => boolean;
  /** Whether the relayer's write-events feed (the transactions channel) is connected: else /health says degraded. */
  writeEvents: () => boolean;
  stats: () => Record<string, unknown>;
  markets: () => string[];
  /** GET /metrics: open (local profile), else only with this admin token (none: never). */
  metrics?: { open: boolean; adminToken?: string };
};

const pkg = (name: string) => dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
const here = dirname(fileURLToPath(import.meta.url));
/** path under /live → [file, content type] */
const assets: Record<string, [string, string]> = {
  "live.js": [join(here, "page/live.js"), "text/javascript"],
  "vendor/lightweight-charts.mjs": [join(pkg("lightweight-charts"), "dist/lightweight-charts.standalone.production.mjs"), "text/javascript"],
  "vendor/uPlot.esm.js": [join(pkg("uplot"), "dist/uPlot.esm.js"), "text/javascript"],
  "vendor/uPlot.min.css": [join(pkg("uplot"), "dist/uPlot.min.css"), "text/css"],
};
const cache = new Map<string, string>();
/** the client's stream module as one browser ES module (built once, on first use) */
let clientBundle: Promise<string> | undefined;
function buildClientBundle(): Promise<string> {
  const client = pkg("@venue-indexer/client");
  const { build } = createRequire(join(client, "package.json"))("esbuild") as typeof import("esbuild");
  return build({
    entryPoints: [join(client, "src/streams.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "silent",
    legalComments: "none",
  }).then((r) => r.outputFiles[0]!.text);
}
const read = (file: string) => cache.get(file) ?? (cache.set(file, readFileSync(file, "utf8")), cache.get(file)!);

export function createStreamsApp(d: StreamsAppDeps) {
  const app = new Hono();
  // 503 until the markets and the block feed are read; 200 after, `degraded` while the write-events feed is down
  app.get("/health", (c) => {
    if (!d.ready()) return c.json({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: "waiting for the integration API" } }, 503);
    const writeEvents = d.writeEvents() ? "up" : "down";
    return c.json({ success: true, data: { service: "streams", status: writeEvents === "up" ? "ok" : "degraded", services: { integration: "up", writeEvents } } });
  });
  app.get("/asyncapi.json", (c) => c.json(asyncApiDocument(new URL(c.req.url).origin)));
  app.get("/stats", (c) => c.json({ success: true, data: d.stats() }));
  app.get("/metrics", metricsHandler(d.metrics ?? { open: false }));
  app.get("/", (c) => c.redirect("/live"));
  app.get("/live", (c) => {
    const ids = JSON.stringify(d.markets()).replace(/</g, "\\u003c");
    return c.html(read(join(here, "page/index.html")).replace("__MARKET_IDS__", ids), 200, { "Cache-Control": "no-store" });
  });
  app.get("/live/client.js", async (c) => {
    const js = await (clientBundle ??= buildClientBundle().catch((e) => {
      clientBundle = undefined;
      throw e;
    }));
    return c.body(js, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" });
  });
  app.get("/live/*", (c) => {
    const a = assets[c.req.path.slice("/live/".length)];
    if (!a) return c.json({ success: false, error: { code: "NOT_FOUND", message: `no file ${c.req.path}` } }, 404);
    return c.body(read(a[0]), 200, { "Content-Type": `${a[1]}; charset=utf-8`, "Cache-Control": "public, max-age=300" });
  });
  app.notFound((c) => c.json({ success: false, error: { code: "NOT_FOUND", message: `no route ${c.req.path}: the stream is at /ws, the reference page at /live` } }, 404));
  return app;
}
