/**
 * Error handling shared by the integration API and the keeper: one `onError`, the zod hook that
 * turns validation failures into `VALIDATION_ERROR` naming the field, and the 404 answer.
 * Every error leaves as the envelope, never a stack trace.
 */
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import { ApiError, defaultMessage } from "../errors.js";
import { fail } from "../envelope.js";
import { validationError } from "../schemas/validation.js";

export function errorResponse(c: Context, err: ApiError): Response {
  if (err.code === "SERVICE_UNAVAILABLE" || err.code === "RATE_LIMITED") c.header("Retry-After", "1");
  return c.json(fail(err.code, err.message), err.status as ContentfulStatusCode);
}

/** `defaultHook` of every OpenAPIHono app: zod failures become 400 VALIDATION_ERROR. */
export function validationHook(
  result: { success: true; data: unknown; target: string } | { success: false; error: ZodError; target: string },
  c: Context,
): Response | undefined {
  if (result.success) return undefined;
  // spec codes carried by the schema (e.g. amount "0" → INVALID_AMOUNT) win over VALIDATION_ERROR
  return errorResponse(c, validationError(result.error, result.target));
}

function isZodError(err: unknown): err is ZodError {
  return typeof err === "object" && err !== null && (err as { name?: string }).name === "ZodError"
    && Array.isArray((err as { issues?: unknown }).issues);
}

type ErrorLog = { error: (fields: Record<string, unknown>, msg: string) => void };

const consoleLog: ErrorLog = {
  error: (fields, msg) => console.error(JSON.stringify({ level: "error", msg, ...fields })),
};

/** `app.onError`: ApiError as is, zod and Hono's own 4xx as client errors, anything else 500 without details. */
export const makeOnError = (log: ErrorLog = consoleLog): ErrorHandler => (err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (isZodError(err)) return errorResponse(c, validationError(err));
  if (err instanceof HTTPException && err.status < 500) {
    // e.g. malformed JSON body
    const code =
      err.status === 401 ? "UNAUTHENTICATED" : err.status === 404 ? "NOT_FOUND" : err.status === 413 ? "PAYLOAD_TOO_LARGE" : "VALIDATION_ERROR";
    return errorResponse(c, new ApiError(code, err.message || defaultMessage(code)));
  }
  log.error({ path: c.req.path, err: String((err as Error)?.stack ?? err) }, "unhandled error");
  return errorResponse(c, new ApiError("INTERNAL_ERROR", "internal error"));
};

export const notFound: NotFoundHandler = (c) =>
  errorResponse(c, new ApiError("NOT_FOUND", `no route ${c.req.method} ${c.req.path}`));
