/**
 * The integration API (served by Ponder): read routes over the indexed tables, the write and
 * sign-in routes (forwarded to the relayer), the OpenAPI document and its docs page, and
 * Ponder's SQL over HTTP for the services.
 */
import { db } from "ponder:api";
import schema from "ponder:schema";
import { client } from "ponder";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createApiApp } from "./lib/app.js";
import { notFound, onError } from "./lib/errors.js";
import { docsRoutes } from "./lib/docs.js";
import { sqlGuard } from "./lib/sqlGuard.js";
import { accountRoutes } from "./routes/accounts.js";
import { authRoutes } from "./routes/auth.js";
import { marketRoutes } from "./routes/markets.js";
import { orderRoutes } from "./routes/orders.js";
import { positionRoutes } from "./routes/positions.js";
import { writeRoutes } from "./routes/writes.js";

const app = createApiApp();

app.use("/sql/*", sqlGuard(), client({ db, schema }));

// one list of every resource (reads, writes, sign-in), all at the root
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each sub-app has its own Env
const resources: OpenAPIHono<any, any, any>[] = [accountRoutes, positionRoutes, orderRoutes, marketRoutes, authRoutes, writeRoutes];
for (const routes of resources) app.route("/", routes);

app.doc31("/openapi.json", {
  openapi: "3.1.0",
  info: {
    title: "Venue integration API",
    version: "1.0.0",
    description:
      "Envelope API of the margin-trading venue. Amounts are integer decimal strings with `...Formatted` exact decimals; units per field in each description. Reads describe the state at the latest indexed block (header `X-Indexed-Block`; `?minBlock=N` waits up to 5 s, else 503).",
  },
});
app.route("/", docsRoutes);

if (process.env.BENCH === "1") {
  // baseline for bench/reads.ts: the same server, no database
  app.get("/bench/bare", (c) => c.json({ success: true, data: { ok: true } }));
}

// Ponder mounts this app inside its own (which keeps /health, /ready, /status, /metrics first);
// a catch-all is the only way our envelope reaches an unknown path
app.all("*", (c) => notFound(c));
app.onError(onError);
app.notFound(notFound);

export default app;
