/** The keeper's error handling: every failure leaves as the envelope, never a stack trace. */
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import type { Logger } from "pino";
import { ApiError } from "../../../core/errors.js";
import { fail } from "../../../core/envelope.js";

export function errorResponse(c: Context, err: ApiError): Response {
  if (err.code === "SERVICE_UNAVAILABLE") c.header("Retry-After", "1");
  return c.json(fail(err.code, err.message), err.status as ContentfulStatusCode);
}

/** `defaultHook`: a zod failure names the field (`accountId: must be a positive integer`). */
export function validationHook(
  result: { success: true; data: unknown; target: string } | { success: false; error: ZodError; target: string },
  c: Context,
): Response | undefined {
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.join(".") : result.target;
  return errorResponse(c, new ApiError("VALIDATION_ERROR", `${field}: ${issue?.message ?? "invalid"}`));
}

export const makeOnError = (log: Logger): ErrorHandler => (err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (err instanceof HTTPException && err.status < 500) {
    return errorResponse(c, new ApiError(err.status === 401 ? "UNAUTHENTICATED" : "VALIDATION_ERROR", err.message || "bad request"));
  }
  log.error({ path: c.req.path, err: err instanceof Error ? err.stack : String(err) }, "unhandled error");
  return errorResponse(c, new ApiError("INTERNAL_ERROR", "internal error"));
};

export const notFound: NotFoundHandler = (c) =>
  errorResponse(c, new ApiError("NOT_FOUND", `no route ${c.req.method} ${c.req.path}`));
