/** Types shared by the gateway's routes: the Hono env, the dependencies, the response helpers. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { RequestIdVariables } from "hono/request-id";
import type { Logger } from "pino";
import { snakeKeys } from "../../core/case.js";
import { fail } from "../../core/envelope.js";
import { CLIENT_IDENTITY_HEADER } from "../../core/http/client-identity.js";
import type { Store } from "hono-rate-limiter";
import type { GatewayConfig } from "./config.js";
import type { GatewayStore } from "./db/open.js";
import type { KeyStore } from "./keys.js";
import type { ApiKeyVariables } from "./middleware/api-key/index.js";
import { errorStatus, type Upstream, type UpstreamReply } from "./upstream.js";

export type GatewayEnv = { Variables: ApiKeyVariables & RequestIdVariables & { upstreamMs?: number; heldReply?: UpstreamReply } };
export type GatewayApp = OpenAPIHono<GatewayEnv>;
export type GatewayContext = Context<GatewayEnv>;

export interface Upstreams {
  integration: Upstream;
  relayer: Upstream;
  keeper: Upstream;
}

/** What the app hands each GET it answered (held-copies-listener.ts `HeldByUrl`): declared here so the listener imports the context, not the other way round. */
export interface ReplyCapture {
  capture(c: GatewayContext): void;
}

export interface GatewayDeps {
  config: GatewayConfig;
  store: GatewayStore;
  keys: KeyStore;
  log: Logger;
  upstreams: Upstreams;
  /** keeps the bytes of answers from the per-block copy, for the listener below Hono (held-copies-listener.ts `HeldByUrl`) */
  hot?: ReplyCapture;
  /** the per-key limit's counters (default: a store of its own, memory or Redis) */
  limitStore?: Store;
  /** the TCP peer (for the loopback-only admin routes); defaults to the node server's socket */
  remoteAddress?: (c: Context) => string | undefined;
}

/**
 * The gateway's answer for an upstream reply: same status, the envelope with snake_case keys,
 * `X-Indexed-Block` passed on. Error codes keep their meaning; statuses follow core/errors.ts.
 * Typed `any` because the body is the upstream's (its shape is documented, not re-validated).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function send(c: GatewayContext, reply: UpstreamReply, opts: { verbatim?: boolean } = {}): any {
  if (reply.indexedBlock) c.header("X-Indexed-Block", reply.indexedBlock);
  c.set("upstreamMs", reply.ms);
  if (reply.heldGen !== undefined) c.set("heldReply", reply); // a per-block copy: the hot path may hold its bytes (held-copies-listener.ts)
  const { body } = reply;
  if (body.success) {
    // `verbatim`: documents whose keys are not ours to rename (EIP-712 typed data to sign).
    // A reply held for a block is rendered once (block-cache.ts).
    const text = opts.verbatim
      ? JSON.stringify({ success: true, data: body.data })
      : (reply.rendered ??= JSON.stringify({ success: true, data: snakeKeys(body.data) }));
    return c.body(text, reply.status as 200, {
      "content-type": "application/json",
    });
  }
  const { code, message } = body.error!;
  const status = errorStatus(code, reply.status);
  if (code === "INTERNAL_ERROR") return c.json(fail("UPSTREAM_ERROR", `${reply.upstream} failed: ${message}`), status as 502);
  return c.json(fail(code, message ?? code), status as 400);
}

/**
 * Headers every call to an upstream carries for this request. The gateway counted it against its
 * API key: `X-Venue-Client` names that key to the services behind (believed there beside the
 * gateway's token only), so their per-client limits count the key, not the gateway.
 */
export function forwardHeaders(c: GatewayContext, write = false): Record<string, string | undefined> {
  const h: Record<string, string | undefined> = { "X-Request-Id": c.get("requestId") };
  const id = c.get("apiKey");
  if (id) {
    h["X-Caller-Address"] = id.wallet;
    h[CLIENT_IDENTITY_HEADER] = `key:${id.keyId}`;
  }
  if (write) h["Idempotency-Key"] = c.req.header("idempotency-key");
  // a read's `Cache-Control: no-cache` reaches the read service (it revalidates the indexed state first)
  else h["Cache-Control"] = c.req.header("cache-control");
  return h;
}
