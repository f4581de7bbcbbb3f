/**
 * The integration API (served by Ponder): read routes over the indexed tables, the write and
 * sign-in routes (forwarded to the relayer), the OpenAPI document and its docs page, and
 * Ponder's SQL over HTTP for the services.
 */
import { db } from "ponder:api";
import schema from "ponder:schema";
import { client } from "ponder";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { requestId } from "hono/request-id";
import { createApiApp } from "./lib/app.js";
import { corsPolicy } from "../../core/http/cors.js";
import { notFound, onError } from "./lib/errors.js";
import { docsRoutes } from "./lib/docs.js";
import { installApiLimits } from "../../core/http/limits.js";
import { guardPonderMetrics } from "./lib/metrics.js";
import { planCost, sqlGuard, sqlQueryGuard, type ExplainCost } from "./lib/sqlGuard.js";
import { tableCatalog } from "./lib/sqlPolicy.js";
import { blockStreamRoutes } from "./lib/blockStream.js";
import { startSyncWatchdog, stallBoundMs } from "./lib/syncWatchdog.js";
import { assertMultichainOrdering, installPgliteGate, installRevertSignal, ponderDialect, ponderSchema } from "../ponder/internals.js";
import { revertedChannel } from "../../core/indexer/feed.js";
import { accountRoutes } from "./routes/accounts.js";
import { answersRoutes } from "./routes/answers.js";
import { authRoutes } from "./routes/auth.js";
import { marketRoutes } from "./routes/markets.js";
import { orderRoutes } from "./routes/orders.js";
import { positionRoutes } from "./routes/positions.js";
import { triggerRoutes } from "./routes/triggers.js";
import { historyRoutes } from "./routes/history.js";
import { insuranceRoutes } from "./routes/insurance.js";
import { writeRoutes } from "../../core/http/write-routes.js";

const app = createApiApp();

// the venue's Ponder patch changes the multichain runtime only (src/ponder/internals.ts)
assertMultichainOrdering();
// PGlite (the default): no read sees part of a block (Ponder's PGlite "transactions" are not
// transactions: src/api/lib/pgliteGate.ts); installed before Ponder starts indexing
installPgliteGate();
// the revert signal's trigger (src/ponder/internals.ts), once Ponder's tables exist
void installRevertSignal(revertedChannel(ponderSchema()));
// a live sync that stops silently degrades /health (src/api/lib/syncWatchdog.ts)
startSyncWatchdog({ rpcUrl: process.env.RPC_URL ?? "http://127.0.0.1:8545", boundMs: stallBoundMs() });

app.use(corsPolicy());
// a client's X-Request-Id is kept only when short and plain (≤ 255 of [A-Za-z0-9_=-]), else replaced
app.use(requestId());
// 405, body limit, rate limits (core/http/limits.ts): before every route, after CORS so a 429 carries it
installApiLimits(app);

/**
 * The planner's cost of a /sql query on Postgres (only queries already judged from their parse
 * tree get here: src/api/lib/sqlGuard.ts; PGlite answers only a bounded shape and plans nothing).
 */
const explainCost: ExplainCost = async ({ sql, params }) => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- drizzle's session is internal; Ponder's client() uses it the same way
  const result = await (db as any)._.session.prepareQuery({ sql: `EXPLAIN (FORMAT JSON) ${sql}`, params }, undefined, undefined, false).execute();
  const rows = (result?.rows ?? result) as Array<Record<string, unknown>>;
  const plan = Object.values(rows[0] ?? {})[0];
  const parsed = (typeof plan === "string" ? JSON.parse(plan) : plan) as Array<{ Plan: Parameters<typeof planCost>[0] }>;
  return planCost(parsed[0]!.Plan);
};
app.use("/sql/*", sqlGuard(), sqlQueryGuard({ catalog: tableCatalog(schema), dialect: ponderDialect, explain: explainCost }), client({ db, schema }));
guardPonderMetrics(app);

// one list of every resource (reads, writes, sign-in; the read service's POST /internal/answers), all at the root
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each sub-app has its own Env
const resources: OpenAPIHono<any, any, any>[] = [accountRoutes, positionRoutes, triggerRoutes, orderRoutes, marketRoutes, historyRoutes, insuranceRoutes, authRoutes, writeRoutes, answersRoutes];
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
// the indexed-block push of the read service and the streams (not part of the public API)
app.route("/", blockStreamRoutes);

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
