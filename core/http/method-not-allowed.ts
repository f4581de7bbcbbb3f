/**
 * 405 METHOD_NOT_ALLOWED with `Allow` for a path that exists under other methods (instead of
 * Hono's 404). A middleware installed before authentication, so a wrong method is said as such
 * whatever the credentials; it costs a look at the routes Hono already matched.
 */
import type { Hono, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { ApiError } from "../errors.js";

type RouteLike = { method: string; path: string };

/** Hono path pattern → anchored regex (`:id`, `:id{re}`, `*`). */
function patternRegex(path: string): RegExp {
  const parts = path.split("/").map((seg) => {
    if (seg === "*") return ".*";
    const param = /^:\w+(?:\{(.+)\})?(\?)?$/.exec(seg);
    if (param) return param[1] ? `(?:${param[1]})` : "[^/]+";
    return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  });
  return new RegExp(`^${parts.join("/")}/?$`);
}

/** Methods with a handler (not middleware) for `path` among `routes`; HEAD wherever GET is. */
export function allowedMethods(routes: readonly RouteLike[], path: string): string[] {
  const methods = new Set<string>();
  for (const r of routes) {
    if (r.method === "ALL" || methods.has(r.method)) continue;
    if (patternRegex(r.path).test(path)) methods.add(r.method);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any app's env
export function methodNotAllowed(app: Hono<any, any, any>): MiddlewareHandler {
  return async function methodNotAllowed(c, next) {
    // a handler for this method matched (the usual case), or a CORS preflight: nothing to check
    if (c.req.method === "OPTIONS" || matchedRoutes(c).some((r) => r.method !== "ALL")) return next();
    const allow = allowedMethods(app.routes, c.req.path);
    if (allow.length === 0) return next(); // no such path: the 404
    c.header("Allow", allow.join(", "));
    throw new ApiError("METHOD_NOT_ALLOWED", `${c.req.method} is not allowed on ${c.req.path} (allowed: ${allow.join(", ")})`);
  };
}
