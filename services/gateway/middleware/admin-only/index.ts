/**
 * Admin routes: only from a loopback address, never through a proxy (a forwarded request is
 * refused even when the proxy itself is on loopback), and only with `X-Admin-Token`.
 */
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../../../../core/errors.js";
import { sameSecret } from "../../../../core/auth/service-tokens.js";

export interface AdminOnlyOptions {
  token: string;
  headerName?: string;
  /** The peer's address (the node server's socket); undefined when unknown. */
  remoteAddress: (c: Context) => string | undefined;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
export const isLoopback = (addr: string | undefined) => addr !== undefined && LOOPBACK.test(addr);

export const adminOnly = ({ token, headerName = "X-Admin-Token", remoteAddress }: AdminOnlyOptions): MiddlewareHandler =>
  async function adminOnly(c, next) {
    const forwarded = c.req.header("x-forwarded-for") ?? c.req.header("forwarded");
    if (forwarded || !isLoopback(remoteAddress(c))) {
      throw new ApiError("NOT_FOUND", "not found");
    }
    const given = c.req.header(headerName);
    if (!given || !sameSecret(given, token)) {
      c.header("WWW-Authenticate", `AdminToken header="${headerName}"`);
      throw new ApiError("UNAUTHENTICATED", `missing or wrong ${headerName}`);
    }
    return next();
  };
