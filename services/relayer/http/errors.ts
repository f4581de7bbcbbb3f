/** The relayer's one onError: ApiError as its envelope; anything else 500 without details. */
import type { Context, ErrorHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { ApiError } from "../../../core/errors.js";
import { fail } from "../../../core/envelope.js";

export const errorJson = (c: Context, err: ApiError) => {
  if (err.status === 401) c.header("WWW-Authenticate", 'Token realm="relayer", header="X-Internal-Token"');
  // a full lane or caller (429), an unfunded signer (503): worth retrying later
  if (err.code === "RATE_LIMITED") c.header("Retry-After", "1");
  if (err.code === "RELAYER_OUT_OF_FUNDS") c.header("Retry-After", "30");
  return c.json(fail(err.code, err.message), err.status as ContentfulStatusCode);
};

export function onError(log: Logger): ErrorHandler {
  return function relayerOnError(err, c) {
    if (err instanceof ApiError) return errorJson(c, err);
    log.error({ err, path: c.req.path }, "unhandled error");
    return errorJson(c, new ApiError("INTERNAL_ERROR", "internal error"));
  };
}
