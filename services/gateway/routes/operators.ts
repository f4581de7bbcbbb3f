/** /v1/operators (EIP-712 approval of the relayer) and /v1/transactions (202 follow-up), via the relayer. */
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../../core/errors.js";
import type { GatewayApp, GatewayDeps } from "../context.js";
import { forwardHeaders, send } from "../context.js";
import { requireIdentity } from "../middleware/api-key/index.js";
import { ApproveBody, TransactionIdParam, TypedDataQuery, policyParams } from "../schemas.js";
import { defineRoute, jsonBody } from "./define.js";

export const typedData = defineRoute({
  method: "get",
  path: "/v1/operators/typed-data",
  tag: "Operators",
  summary: "EIP-712 typed data approving the relayer as operator",
  description:
    "Sign it with the owner's wallet (eth_signTypedData_v4) and POST the signature to /v1/operators/approve. The approval carries the policy that bounds the relayer on chain (`message`: maxLeverage, bandBps, budgetBps; conservative defaults 10x, 100 bps, 100 bps of the account's value per 24 h, or `max_leverage`, `band_bps`, `budget_bps` as asked); POST the same values with the signature. The one answer whose keys are not snake_case: EIP-712 defines them (primaryType, chainId, verifyingContract), and the document is passed to the wallet as is.",
  request: { query: TypedDataQuery },
  ok: { status: 200, name: "OperatorTypedData", description: "EIP-712 typed data, verbatim: domain, types, primaryType, message" },
});

export const approve = defineRoute({
  method: "post",
  path: "/v1/operators/approve",
  tag: "Operators",
  summary: "Submit the owner's operator approval signature",
  description: "`owner` must be the API key's wallet.",
  request: jsonBody(ApproveBody, "{ owner, operator?, expiry, deadline, max_leverage?, band_bps?, budget_bps?, signature }"),
  ok: { status: 200, name: "OperatorApproved", description: "owner, operator, expiry, transaction_hash" },
  errors: [202, 403],
});

export const transaction = defineRoute({
  method: "get",
  path: "/v1/transactions/{id}",
  tag: "Transactions",
  summary: "Status of a write answered 202",
  description: "The hash may change while the relayer bumps gas; poll until transaction_status is final.",
  request: { params: TransactionIdParam },
  ok: { status: 200, name: "TransactionStatus", description: "request_id, transaction_hash, transaction_status (PENDING, REORGED, CONFIRMED, REVERTED, FAILED, EXPIRED, CANCELLED), block_number, confirmations, final, reorgs, result" },
  errors: [404],
});

export const cancelTransaction = defineRoute({
  method: "post",
  path: "/v1/transactions/{id}/cancel",
  tag: "Transactions",
  summary: "Cancel one of your writes not mined yet",
  description:
    "Not signed yet: CANCELLED at once, nothing sent (200). Signed or sent: its nonce is replaced by a no-op, a self-transfer of 0 (202); the write then ends CANCELLED, or CONFIRMED if it was mined first: poll GET /v1/transactions/{id}. Already final: 409 NOT_CANCELLABLE.",
  request: { params: TransactionIdParam },
  ok: { status: 200, name: "TransactionCancelled", description: "the write's status (as GET /v1/transactions/{id}), transaction_status CANCELLED or PENDING with cancel_requested" },
  errors: [202, 404, 409],
  accepted: { name: "TransactionCancelling", data: z.record(z.string(), z.unknown()).openapi({ description: "the write's status, transaction_status PENDING, cancel_requested true" }) },
});

export function registerOperatorRoutes(app: GatewayApp, { upstreams: { relayer } }: GatewayDeps) {
  app.openapi(typedData, async (c) => {
    const q = c.req.valid("query");
    const owner = q.owner ?? requireIdentity(c).wallet;
    return send(
      c,
      await relayer.call({
        path: "/internal/operators/typed-data",
        query: { owner, expiry: q.expiry, deadline: q.deadline, ...policyParams(q) },
        headers: forwardHeaders(c),
      }),
      { verbatim: true },
    );
  });

  app.openapi(approve, async (c) => {
    const b = c.req.valid("json");
    if (b.owner.toLowerCase() !== requireIdentity(c).wallet.toLowerCase()) {
      throw new ApiError("UNAUTHORIZED", "owner must be the wallet of the API key");
    }
    return send(
      c,
      await relayer.call({
        method: "POST",
        path: "/internal/operators/approve",
        body: {
          owner: b.owner, ...(b.operator ? { operator: b.operator } : {}), expiry: b.expiry, deadline: b.deadline, ...policyParams(b),
          signature: b.signature,
          ...(b.valid_until !== undefined ? { validUntil: b.valid_until } : {}),
        },
        headers: forwardHeaders(c, true),
      }),
    );
  });

  app.openapi(cancelTransaction, async (c) =>
    send(c, await relayer.call({ method: "POST", path: `/internal/transactions/${c.req.valid("param").id}/cancel`, headers: forwardHeaders(c) })),
  );

  app.openapi(transaction, async (c) =>
    send(c, await relayer.call({ path: `/internal/transactions/${c.req.valid("param").id}`, headers: forwardHeaders(c) })),
  );
}
