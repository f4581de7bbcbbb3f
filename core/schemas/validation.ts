/**
 * zod issues → ApiError. A issue that carries `params.code` (a code the spec names for that
 * value, e.g. INVALID_AMOUNT) wins over a plain VALIDATION_ERROR; the message names the field.
 */
import type { z } from "zod";
import { ApiError, ERROR_CODES, type ErrorCode } from "../errors";

const fieldOf = (issue: z.core.$ZodIssue) => (issue.path.length ? issue.path.map(String).join(".") : "body");

export function validationError(error: { issues: readonly z.core.$ZodIssue[] }): ApiError {
  const coded = error.issues.find((i) => {
    const code = (i as { params?: { code?: unknown } }).params?.code;
    return typeof code === "string" && code in ERROR_CODES;
  });
  if (coded) {
    const code = (coded as unknown as { params: { code: ErrorCode } }).params.code;
    return new ApiError(code, coded.message, { field: fieldOf(coded) });
  }
  const first = error.issues[0];
  if (!first) return new ApiError("VALIDATION_ERROR", "invalid request");
  const field = fieldOf(first);
  let message = first.message;
  if (first.code === "invalid_type")
    message = /received undefined$/.test(first.message) ? "is required" : `must be ${first.expected === "int" ? "an integer" : `a ${first.expected}`}`;
  if (first.code === "invalid_value" && "values" in first) message = `must be one of ${first.values.map(String).join(", ")}`;
  return new ApiError("VALIDATION_ERROR", `${field}: ${message}`, { field });
}

/** Parses with a schema or throws the ApiError above. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(r.error);
  return r.data;
}
