/** GET /docs: Swagger UI over /openapi.json, its assets served from node_modules (no CDN). */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono } from "hono";

const ASSETS = new Map([
  ["swagger-ui.css", "text/css; charset=utf-8"],
  ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
  ["swagger-ui-standalone-preset.js", "text/javascript; charset=utf-8"],
  ["favicon-32x32.png", "image/png"],
]);

function assetDir(): string {
  try {
    return dirname(createRequire(join(process.cwd(), "package.json")).resolve("swagger-ui-dist/package.json"));
  } catch {
    return join(process.cwd(), "node_modules", "swagger-ui-dist");
  }
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<title>Venue integration API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
<link rel="icon" href="/docs/assets/favicon-32x32.png" />
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>`;

// a separate file, not inline, so a strict Content-Security-Policy can stay script-src 'self'
const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" });`;

export const docsRoutes = new Hono()
  .get("/docs", (c) => c.html(PAGE))
  .get("/docs/assets/init.js", (c) => c.body(INIT, 200, { "Content-Type": "text/javascript; charset=utf-8" }))
  .get("/docs/assets/:file", async (c) => {
    const file = c.req.param("file");
    const type = ASSETS.get(file);
    if (!type) return c.notFound();
    const body = await readFile(join(assetDir(), file));
    return c.body(body, 200, { "Content-Type": type, "Cache-Control": "public, max-age=86400" });
  });
