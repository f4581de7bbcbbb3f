/**
 * Errors the client throws. Every answer of an HTTP surface that is an error envelope becomes a
 * `VenueApiError` carrying its `code` (core/errors.ts lists them: `ErrorCode`), its HTTP status,
 * the request id and the rate-limit headers; refusals before sending are `VenueInputError`.
 */
import type { ErrorCode } from "./types.js";

export type { ErrorCode };

/** The rate-limit headers of an answer (IETF draft RateLimit-*; absent headers are undefined). */
export type RateLimit = {
  limit?: number;
  remaining?: number;
  /** seconds until the window resets */
  reset?: number;
  policy?: string;
  /** seconds, on a 429 or 503 */
  retryAfter?: number;
};

/** A code of the venue, or one the client itself uses (NETWORK_ERROR, TIMEOUT, WRITE_NOT_MINED). */
export type ClientErrorCode = ErrorCode | "NETWORK_ERROR" | "TIMEOUT" | "WRITE_NOT_MINED" | "STREAM_CLOSED" | "NOT_CONNECTED";

export class VenueError extends Error {
  override name = "VenueError";
  constructor(
    readonly code: ClientErrorCode | (string & {}),
    message: string,
  ) {
    super(message);
  }
  /** `e.is("INSUFFICIENT_MARGIN")` narrows nothing but reads well. */
  is(code: ClientErrorCode): boolean {
    return this.code === code;
  }
}

/** An error envelope from a surface: `{ success: false, error: { code, message } }`. */
export class VenueApiError extends VenueError {
  override name = "VenueApiError";
  constructor(
    code: ErrorCode | (string & {}),
    message: string,
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly requestId: string | undefined,
    readonly rateLimit: RateLimit,
  ) {
    super(code, message);
  }
}

/** 429 RATE_LIMITED: `retryAfterSeconds` from the Retry-After header. */
export class RateLimitedError extends VenueApiError {
  override name = "RateLimitedError";
  get retryAfterSeconds(): number | undefined {
    return this.rateLimit.retryAfter;
  }
}

/** 401 UNAUTHENTICATED: no, a bad or an expired bearer token or API key. */
export class UnauthenticatedError extends VenueApiError {
  override name = "UnauthenticatedError";
}

/** Refused by the client before anything was sent (a builder's check); `field` names the input. */
export class VenueInputError extends VenueError {
  override name = "VenueInputError";
  constructor(
    code: ErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(code, message);
  }
}

/** The request never got an answer (connection refused, reset, DNS). */
export class VenueNetworkError extends VenueError {
  override name = "VenueNetworkError";
  constructor(message: string, override readonly cause?: unknown) {
    super("NETWORK_ERROR", message);
  }
}

/** A write that ended without being mined successfully (REVERTED, FAILED, EXPIRED, CANCELLED): the relayer's code. */
export class WriteFailedError extends VenueError {
  override name = "WriteFailedError";
  constructor(
    code: string,
    message: string,
    readonly requestId: string,
    readonly transactionStatus: string,
  ) {
    super(code, message);
  }
}
