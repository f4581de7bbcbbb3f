/**
 * CORS of the integration API. Ponder answers every preflight itself with `*` (its server wraps
 * this app in `cors({ origin: "*" })`), so the policy is enforced on the actual responses: a
 * browser reads an answer only when `Access-Control-Allow-Origin` names its origin.
 *   CORS_ORIGINS  comma-separated allowed origins, or `*`. Default: `*` in the local profile,
 *                 none elsewhere (no browser origin may read the API until configured).
 * Either way the headers a frontend needs (X-Indexed-Block, X-Request-Id, Retry-After, RateLimit-*)
 * are exposed.
 */
import { createMiddleware } from "hono/factory";
import { profileFromEnv } from "../profiles.js";

const EXPOSED = ["X-Indexed-Block", "X-Request-Id", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "ETag"];
/** The value of `Access-Control-Expose-Headers` on every answer. */
export const EXPOSED_HEADERS = EXPOSED.join(", ");

export function corsOrigins(env: Record<string, string | undefined> = process.env): "*" | string[] {
  const raw = env.CORS_ORIGINS?.trim();
  if (!raw) return profileFromEnv(env).name === "local" ? "*" : [];
  if (raw === "*") return "*";
  return raw.split(",").map((o) => o.trim()).filter(Boolean).map((o) => new URL(o).origin);
}

export function corsPolicy(allowed: "*" | string[] = corsOrigins()) {
  return createMiddleware(async function corsPolicy(c, next) {
    await next();
    const origin = c.req.header("Origin");
    const h = c.res.headers;
    h.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    if (allowed === "*") {
      h.set("Access-Control-Allow-Origin", "*");
      return;
    }
    h.append("Vary", "Origin");
    if (origin && allowed.includes(origin)) h.set("Access-Control-Allow-Origin", origin);
    else h.delete("Access-Control-Allow-Origin");
  });
}
