/**
 * Request body limit of both HTTP surfaces, answered 413 PAYLOAD_TOO_LARGE in the envelope:
 * hono/body-limit inside the app, and `refuseOversizedBody` below it for a declared
 * `Content-Length` over the limit. The latter leaves the connection usable: the body is left to
 * Node's server, which discards it and keeps the connection alive, whereas an answer from the
 * Hono app (@hono/node-server 2.1) has started reading the body and gives up draining it after
 * 500 ms, closing the connection under the client's next request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { fail } from "../envelope.js";
import { ApiError } from "../errors.js";

export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;

const tooLarge = (maxBytes: number) => new ApiError("PAYLOAD_TOO_LARGE", `request body is larger than ${maxBytes} bytes`);

export const bodyLimitEnvelope = (maxBytes: number): MiddlewareHandler =>
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge(maxBytes);
    },
  });

export type OversizedBodyOptions = {
  /** routes without the limit */
  exempt?: (path: string) => boolean;
  /** headers of the answer besides the envelope's (e.g. CORS, so that a browser can read the 413) */
  headers?: (req: IncomingMessage) => Record<string, string>;
};

/**
 * For a node listener, before its Hono app: a request declaring a `Content-Length` over `maxBytes`
 * is answered 413 here (true), its body never read. A chunked body (no length) is left to
 * `bodyLimitEnvelope`.
 */
export function refuseOversizedBody(req: IncomingMessage, res: ServerResponse, maxBytes: number, o: OversizedBodyOptions = {}): boolean {
  const length = req.headers["content-length"];
  if (length === undefined || !/^\d+$/.test(length) || Number(length) <= maxBytes) return false;
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  if (o.exempt?.(q < 0 ? url : url.slice(0, q))) return false;
  const err = tooLarge(maxBytes);
  const body = JSON.stringify(fail(err.code, err.message));
  res.writeHead(err.status, { ...o.headers?.(req), "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) });
  res.end(body);
  return true;
}
