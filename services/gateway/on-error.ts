/** The gateway's one error handler and not-found answer: always the envelope, never a stack. */
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { fail } from "../../core/envelope.js";
import { ApiError } from "../../core/errors.js";

export const gatewayOnError =
  (log: Logger): ErrorHandler =>
  (err: Error, c: Context) => {
    if (err instanceof ApiError) return c.json(fail(err.code, err.message), err.status as ContentfulStatusCode);
    if (err instanceof HTTPException) {
      // hono's own 4xx (malformed JSON, body too large): a client mistake, said in the envelope.
      const status = err.status;
      if (status === 413) return c.json(fail("PAYLOAD_TOO_LARGE", "request body is too large"), 413);
      if (status < 500) return c.json(fail("VALIDATION_ERROR", err.message || "bad request"), 400);
    }
    log.error({ err, path: c.req.path, requestId: c.get("requestId" as never) }, "unhandled error");
    return c.json(fail("INTERNAL_ERROR", "internal error"), 500);
  };

export const gatewayNotFound: NotFoundHandler = (c) =>
  c.json(fail("NOT_FOUND", `no route ${c.req.method} ${c.req.path}`), 404);
