/**
 * GET /v1/openapi.json (generated from the route definitions) and GET /v1/docs (Swagger UI with
 * its assets served from node_modules/swagger-ui-dist: no CDN).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { GatewayApp, GatewayDeps } from "../context.js";
import { asyncApiDocument } from "../../../core/streams/asyncapi.js";

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const assetDir = () => dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const cache = new Map<string, Buffer>();

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Venue gateway /v1</title>
  <link rel="stylesheet" href="/v1/docs/assets/swagger-ui.css" />
  <link rel="icon" type="image/png" href="/v1/docs/assets/favicon-32x32.png" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/v1/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/v1/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/v1/docs/init.js"></script>
</body>
</html>`;

// A separate script (not inline) so a strict Content-Security-Policy can stay on.
const INIT = `window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: "StandaloneLayout",
  persistAuthorization: true
});`;

export function registerDocsRoutes(app: GatewayApp, { config }: GatewayDeps) {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "API key of a registered wallet (see docs/GATEWAY.md: npm run keys -- create <wallet>)",
  });
  app.doc31("/v1/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Venue gateway",
      version: "1.0.0",
      description:
        "The /v1 trading surface: X-API-Key, snake_case keys, side/leverage/order_type as JSON integers, amounts and prices as decimal strings, the envelope { success, data } / { success: false, error: { code, message } }. Every answer carries X-Request-Id; reads carry X-Indexed-Block.",
    },
    servers: [{ url: config.profile.gatewayBaseUrl, description: `${config.profile.name} profile` }],
  });
  // the streams at /v1/ws (services/streams/asyncapi.ts), snake_case as /v1 sends them
  app.get("/v1/asyncapi.json", (c) => c.json(asyncApiDocument(config.profile.gatewayBaseUrl, true)));
  app.get("/v1/docs", (c) => c.html(PAGE));
  app.get("/v1/docs/init.js", (c) => c.body(INIT, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get("/v1/docs/assets/:file", (c) => {
    const file = c.req.param("file");
    const type = ASSETS[file];
    if (!type) return c.notFound();
    let buf = cache.get(file);
    if (!buf) {
      buf = readFileSync(join(assetDir(), file));
      cache.set(file, buf);
    }
    return c.body(new Uint8Array(buf), 200, { "content-type": type, "cache-control": "public, max-age=86400" });
  });
}
