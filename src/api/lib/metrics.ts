/**
 * Ponder's `/metrics` (Prometheus text) is served by Ponder's own server ahead of this app, so
 * it cannot be guarded by middleware here. Outside the local profile its public answer is
 * emptied (one comment line) and the real metrics move to `GET /ops/metrics`, which needs
 * `X-Admin-Token` (ADMIN_TOKEN, optional for the indexer: unset means no metrics route).
 */
import type { Hono } from "hono";
import { ApiError } from "../../../core/errors.js";
import { registry } from "../../../core/metrics.js";
import { profileFromEnv, secretProblems } from "../../../core/profiles.js";
import { sameSecret } from "../../../core/auth/service-tokens.js";
import { ponderMetrics } from "../../ponder/internals.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any sub-app Env
export function guardPonderMetrics(app: Hono<any>, env: Record<string, string | undefined> = process.env) {
  const profile = profileFromEnv(env);
  const metrics = ponderMetrics();
  if (!metrics) {
    if (profile.name === "local") return;
    throw new Error("Ponder's metrics registry is not where expected: refusing to leave /metrics public");
  }
  // the integration API's own series (core/metrics.ts: its rate-limit rejections, the sync
  // watchdog's) in the same scrape as Ponder's: this process serves one /metrics
  const real = async () => `${await metrics.read()}\n${await registry.metrics()}`;
  if (profile.name === "local") {
    metrics.serve(real);
    return;
  }
  metrics.serve(async () => "# metrics are not public outside the local profile: GET /ops/metrics with X-Admin-Token\n");
  const token = secretProblems(profile, env, ["ADMIN_TOKEN"]).length ? undefined : env.ADMIN_TOKEN;
  app.get("/ops/metrics", async (c) => {
    const given = c.req.header("X-Admin-Token");
    if (!token) throw new ApiError("NOT_FOUND", "metrics need ADMIN_TOKEN set on the indexer");
    if (!given || !sameSecret(given, token)) throw new ApiError("UNAUTHENTICATED", "missing or wrong X-Admin-Token");
    return c.text(await real(), 200, { "content-type": "text/plain; version=0.0.4" });
  });
}
