/**
 * `X-API-Key` authentication. A missing or unknown key answers 401 UNAUTHENTICATED with
 * `WWW-Authenticate`; routes marked optional let a request without the header through (a
 * header that is present must still be valid).
 */
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../../../../core/errors.js";
import type { ApiKeyIdentity } from "../../keys.js";

export type ApiKeyVariables = { apiKey?: ApiKeyIdentity };

export interface ApiKeyOptions {
  verify: (key: string) => Promise<ApiKeyIdentity | null>;
  headerName?: string;
  realm?: string;
  /** Requests for which the key may be absent (e.g. the public market list). */
  isOptional?: (c: Context) => boolean;
}

export const apiKeyAuth = ({
  verify,
  headerName = "X-API-Key",
  realm = "venue-gateway",
  isOptional = () => false,
}: ApiKeyOptions): MiddlewareHandler<{ Variables: ApiKeyVariables }> =>
  async function apiKeyAuth(c, next) {
    const key = c.req.header(headerName);
    if (key === undefined && isOptional(c)) return next();
    const identity = key ? await verify(key) : null;
    if (!identity) {
      c.header("WWW-Authenticate", `ApiKey realm="${realm}", header="${headerName}"`);
      throw new ApiError(
        "UNAUTHENTICATED",
        key ? `invalid or revoked API key in ${headerName}` : `missing API key: send it in the ${headerName} header`,
      );
    }
    c.set("apiKey", identity);
    return next();
  };

/** The authenticated identity; throws 401 if the route ran without one (a wiring mistake). */
export function requireIdentity(c: { var: ApiKeyVariables }): ApiKeyIdentity {
  const id = c.var.apiKey;
  if (!id) throw new ApiError("UNAUTHENTICATED", "this route needs an API key");
  return id;
}
