/** One helper for the gateway's route declarations (shared responses and security). */
import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import { AcceptedData } from "../responses.js";
import { ErrorEnvelope, SuccessEnvelope } from "../schemas.js";

type Req = NonNullable<RouteConfig["request"]>;

export interface RouteSpec<R extends Req = Req> {
  method: "get" | "post" | "delete";
  path: string;
  tag: string;
  summary: string;
  description?: string;
  request?: R;
  /** success status and the name of its data */
  ok: { status: 200 | 201; name: string; description: string; data?: z.ZodType };
  /** no X-API-Key needed */
  isPublic?: boolean;
  /** error statuses worth listing beyond the common ones */
  errors?: number[];
  /** the 202 (not mined in time): its data, when it differs from the generic Accepted */
  accepted?: { name: string; data: z.ZodType };
}

const err = (description: string) => ({ description, content: { "application/json": { schema: ErrorEnvelope } } });

export function defineRoute<const R extends Req = {}>(s: RouteSpec<R>) {
  const common: Record<number, ReturnType<typeof err>> = {
    400: err("bad input: VALIDATION_ERROR naming the field, or a venue rule (INVALID_AMOUNT, ...)"),
    429: err("RATE_LIMITED (Retry-After, RateLimit-* headers)"),
    502: err("UPSTREAM_ERROR"),
    503: err("SERVICE_UNAVAILABLE: an internal service is down; RELAYER_OUT_OF_FUNDS: the relayer's signer is low on ether (nothing queued)"),
    504: err("UPSTREAM_TIMEOUT"),
  };
  if (!s.isPublic) common[401] = err("missing, invalid or revoked X-API-Key (WWW-Authenticate)");
  for (const status of s.errors ?? []) common[status] ??= err(errorText[status] ?? "error");
  const accepted = common[202]
    ? {
        202: {
          description: errorText[202]!,
          content: { "application/json": { schema: s.accepted ? envelope(`${s.accepted.name}Envelope`, s.accepted.data) : envelope("AcceptedEnvelope", AcceptedData) } },
        },
      }
    : {};
  delete common[202];
  return createRoute({
    method: s.method,
    path: s.path,
    tags: [s.tag],
    summary: s.summary,
    ...(s.description ? { description: s.description } : {}),
    ...(s.isPublic ? { security: [] } : { security: [{ ApiKey: [] }] }),
    request: (s.request ?? {}) as R,
    responses: {
      [s.ok.status]: {
        description: s.ok.description,
        content: {
          "application/json": {
            schema: s.ok.data ? envelope(`${s.ok.name}Envelope`, s.ok.data) : SuccessEnvelope(s.ok.name, s.ok.description),
          },
        },
      },
      ...accepted,
      ...common,
    } as RouteConfig["responses"],
  });
}

const errorText: Record<number, string> = {
  202: "accepted: not mined within the relayer's bound; the fields known before mining, the rest null; poll GET /v1/transactions/{request_id}",
  403: "UNAUTHORIZED (another wallet's account), NOT_REGISTERED, OPERATOR_NOT_APPROVED",
  404: "ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND, ORDER_NOT_FOUND, NO_POSITION, ...",
  409: "MARKET_NOT_ACTIVE, IDEMPOTENCY_CONFLICT, EXPIRED (valid_until passed before it was mined), CANCELLED, NOT_CANCELLABLE, ...",
  422: "INSUFFICIENT_MARGIN, INSUFFICIENT_BALANCE, INSUFFICIENT_ALLOWANCE, TRANSACTION_REVERTED",
};

/** The request part for a JSON body. */
export const jsonBody = <T>(schema: T, description: string) => ({
  body: { required: true, description, content: { "application/json": { schema } } },
});

const envelopes = new Map<string, z.ZodType>();
/** `{ success: true, data }` around a data schema (one component per name). */
function envelope(name: string, data: z.ZodType) {
  let e = envelopes.get(name);
  if (!e) {
    e = z.object({ success: z.literal(true), data }).openapi(name);
    envelopes.set(name, e);
  }
  return e;
}
