/** GET /accounts/{accountId}, GET /accounts/by-address/{userAddress}. */
import { createRoute } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { createApiApp } from "../lib/app.js";
import { findAccountByOwner, requireAccount } from "../lib/data.js";
import { accountByAddressResponse, accountResponse } from "../../../core/reads/responses.js";
import { readAtIndexedBlock } from "../lib/indexedBlock.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { Account, AccountByAddress, AccountPath, AddressPath, ReadQuery, envelope } from "../lib/schemas.js";

const getAccount = createRoute({
  method: "get",
  path: "/accounts/{accountId}",
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
  .openapi(getAccount, async (c) => {
    const { accountId } = c.req.valid("param");
    const data = await readAtIndexedBlock(c, async () => accountResponse(await requireAccount(BigInt(accountId))));
    return c.json({ success: true as const, data }, 200);
  })
  .openapi(getAccountByAddress, async (c) => {
    const { userAddress } = c.req.valid("param");
    const row = await findAccountByOwner(userAddress as Hex);
    return c.json({ success: true as const, data: accountByAddressResponse(row) }, 200);
  });
