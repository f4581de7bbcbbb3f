/** Request body limit of both HTTP surfaces: hono/body-limit, answered 413 PAYLOAD_TOO_LARGE in the envelope. */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../errors.js";

export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;

export const bodyLimitEnvelope = (maxBytes: number): MiddlewareHandler =>
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError("PAYLOAD_TOO_LARGE", `request body is larger than ${maxBytes} bytes`);
    },
  });
