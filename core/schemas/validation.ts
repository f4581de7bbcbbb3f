/**
 * zod issues → ApiError. A issue that carries `params.code` (a code the spec names for that
 * value, e.g. INVALID_AMOUNT) wins over a plain VALIDATION_ERROR; the message names the field.
 */
import type { z } from "zod";
import { ApiError, ERROR_CODES, type ErrorCode } from "../errors.js";

const fieldOf = (issue: z.core.$ZodIssue) => (issue.path.length ? issue.path.map(String).join(".") : "body");

/** `target`: where the value came from (zod-openapi's "query", "json", ...), to name unknown keys. */
export function validationError(error: { issues: readonly z.core.$ZodIssue[] }, target?: string): ApiError {
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
  if (first.code === "unrecognized_keys") {
    // strict query schemas: an unknown parameter is refused, not ignored (nor a response-cache key)
    const what = target === "query" ? "query parameter" : "field";
    const keys = first.keys.map((k) => `"${k}"`).join(", ");
    return new ApiError("VALIDATION_ERROR", `unknown ${what}${first.keys.length > 1 ? "s" : ""}: ${keys}`, { field: first.keys[0] });
  }
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
