/**
 * Guard of Ponder's SQL over HTTP (`/sql/*`): open in the local profile, else only with
 * `X-Internal-Token` = INTERNAL_TOKEN (the services' shared secret).
 */
import { timingSafeEqual } from "node:crypto";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../../core/errors.js";

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export function sqlGuard(opts: { profile?: string; token?: string } = {}) {
  const profile = opts.profile ?? process.env.PROFILE ?? "local";
  const token = opts.token ?? process.env.INTERNAL_TOKEN;
  return createMiddleware(async function sqlGuard(c, next) {
    if (profile !== "local") {
      const given = c.req.header("X-Internal-Token");
      if (!token || !given || !same(given, token)) {
        throw new ApiError("UNAUTHENTICATED", "the SQL endpoint needs X-Internal-Token outside the local profile");
      }
    }
    await next();
  });
}
