/** GET /accounts/{accountId}, GET /accounts/by-address/{userAddress}. */
import { createRoute } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { createApiApp } from "../lib/app.js";
import { findAccountByOwner } from "../lib/data.js";
import { accountByAddressResponse } from "../../../core/reads/responses.js";
import { hotAnswer } from "../lib/hotAnswers.js";
import { HOT_ROUTES } from "../../../core/reads/routes.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { Account, AccountByAddress, AccountPath, AddressPath, ReadQuery, envelope } from "../../../core/schemas/reads.js";

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

export const accountRoutes = createApiApp()
  .openapi(getAccount, (c) => hotAnswer(c) as never)
  .openapi(getAccountByAddress, async (c) => {
    const { userAddress } = c.req.valid("param");
    const row = await findAccountByOwner(userAddress as Hex);
    return c.json({ success: true as const, data: accountByAddressResponse(row) }, 200);
  });
