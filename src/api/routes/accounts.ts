/** GET /accounts/{accountId}, GET /accounts/by-address/{userAddress}, GET /accounts/{accountId}/operators. */
import { createRoute } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { createApiApp } from "../lib/app.js";
import { findAccountByOwner, findOperators, requireAccount } from "../lib/data.js";
import { accountByAddressResponse, accountOperatorsResponse } from "../../../core/reads/responses.js";
import { hotAnswer } from "../lib/hotAnswers.js";
import { HOT_ROUTES } from "../../../core/reads/routes.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { Account, AccountByAddress, AccountOperators, AccountPath, AddressPath, ReadQuery, envelope } from "../../../core/schemas/reads.js";

const getAccount = createRoute({
  method: "get",
  path: HOT_ROUTES.account,
  tags: ["accounts"],
  summary: "Account and its margin",
  middleware: readMiddleware,
  request: { params: AccountPath, query: ReadQuery },
  responses: {
    200: { description: "The account", headers: readHeaders, content: { "application/json": { schema: envelope(Account, "AccountResponse") } } },
    ...readErrors,
    ...notFound("ACCOUNT_NOT_FOUND"),
  },
});

const getAccountByAddress = createRoute({
  method: "get",
  path: "/accounts/by-address/{userAddress}",
  tags: ["accounts"],
  summary: "The account of a wallet (200 with exists:false when it has none)",
  middleware: readMiddleware,
  request: { params: AddressPath, query: ReadQuery },
  responses: {
    200: {
      description: "The account, or accountId 0 and exists false",
      headers: readHeaders,
      content: { "application/json": { schema: envelope(AccountByAddress, "AccountByAddressResponse") } },
    },
    ...readErrors,
  },
});

const getAccountOperators = createRoute({
  method: "get",
  path: "/accounts/{accountId}/operators",
  tags: ["accounts"],
  summary: "The account owner's operators: expiry, on-chain policy and budget used",
  description:
    "Each operator the owner approved (the relayer, for accounts created through it), the policy that bounds it on chain (maximum leverage, price band, 24 h adverse-execution budget) and the budget it has used, decayed to the indexed block's time. docs/CONTRACTS.md \"Operators\".",
  middleware: readMiddleware,
  request: { params: AccountPath, query: ReadQuery },
  responses: {
    200: { description: "The operators", headers: readHeaders, content: { "application/json": { schema: envelope(AccountOperators, "AccountOperatorsResponse") } } },
    ...readErrors,
    ...notFound("ACCOUNT_NOT_FOUND"),
  },
});

export const accountRoutes = createApiApp()
  .openapi(getAccount, (c) => hotAnswer(c) as never)
  .openapi(getAccountByAddress, async (c) => {
    const { userAddress } = c.req.valid("param");
    const row = await findAccountByOwner(userAddress as Hex);
    return c.json({ success: true as const, data: accountByAddressResponse(row) }, 200);
  })
  .openapi(getAccountOperators, async (c) => {
    const { accountId } = c.req.valid("param");
    const account = await requireAccount(BigInt(accountId));
    const rows = await findOperators(account.owner);
    return c.json({ success: true as const, data: accountOperatorsResponse(account, rows, c.get("indexed").timestamp) }, 200);
  });
