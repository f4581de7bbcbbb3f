/**
 * Middleware: `Authorization: Bearer <token>` from POST /auth/login. Sets `wallet` on the
 * context; 401 UNAUTHENTICATED (with WWW-Authenticate) when missing, invalid or expired.
 */
import type { MiddlewareHandler } from "hono";
import type { Address } from "viem";
import { ApiError } from "../errors.js";
import { verifyToken } from "./siwe.js";

export type BearerVariables = { wallet: Address };

export function bearerAuth(options: { secret: () => string }): MiddlewareHandler<{ Variables: BearerVariables }> {
  return async function bearerAuthMiddleware(c, next) {
    const header = c.req.header("Authorization") ?? "";
    const m = /^Bearer\s+([A-Za-z0-9\-_.]+)\s*$/i.exec(header);
    if (!m) {
      c.header("WWW-Authenticate", 'Bearer realm="venue", error="invalid_request"');
      throw new ApiError("UNAUTHENTICATED", "sign in first: Authorization: Bearer <token> (GET /auth/nonce, POST /auth/login)");
    }
    try {
      const { address } = await verifyToken(options.secret(), m[1]!);
      c.set("wallet", address);
    } catch (e) {
      c.header("WWW-Authenticate", 'Bearer realm="venue", error="invalid_token"');
      throw e;
    }
    await next();
  };
}
