/**
 * Middleware: only the venue's own services may call the relayer. Every request needs the shared
 * `X-Internal-Token` (compared in constant time); 401 otherwise.
 */
import { timingSafeEqual, createHash } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../../core/errors.js";

const digest = (s: string) => createHash("sha256").update(s).digest();
/** Constant-time equality of two secrets of any length. */
export const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

export function internalAuth(options: { token: string; header?: string }): MiddlewareHandler {
  const header = options.header ?? "X-Internal-Token";
  return async function internalAuthMiddleware(c, next) {
    const given = c.req.header(header);
    if (!given || !sameSecret(given, options.token)) throw new ApiError("UNAUTHENTICATED", `missing or invalid ${header}`);
    await next();
  };
}
