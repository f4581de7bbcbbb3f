/** GET /accounts/{accountId}/positions/{marketId} and .../funding. */
import { createRoute } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { createApiApp } from "../lib/app.js";
import { findPosition, requireAccount, requireMarketSnapshot } from "../lib/data.js";
import { positionFundingResponse, positionResponse } from "../../../core/reads/responses.js";
import { readAtIndexedBlock } from "../lib/indexedBlock.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { AccountMarketPath, Position, PositionFunding, ReadQuery, envelope } from "../lib/schemas.js";

const getPosition = createRoute({
  method: "get",
  path: "/accounts/{accountId}/positions/{marketId}",
  tags: ["positions"],
  summary: "Position and health at the latest indexed block (isOpen false, health null when none)",
  middleware: readMiddleware,
  request: { params: AccountMarketPath, query: ReadQuery },
  responses: {
    200: { description: "The position", headers: readHeaders, content: { "application/json": { schema: envelope(Position, "PositionResponse") } } },
    ...readErrors,
    ...notFound("ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND"),
  },
});

const getPositionFunding = createRoute({
  method: "get",
  path: "/accounts/{accountId}/positions/{marketId}/funding",
  tags: ["positions"],
  summary: "Funding owed or due by the position since its last settlement",
  middleware: readMiddleware,
  request: { params: AccountMarketPath, query: ReadQuery },
  responses: {
    200: {
      description: "Pending funding",
      headers: readHeaders,
      content: { "application/json": { schema: envelope(PositionFunding, "PositionFundingResponse") } },
    },
    ...readErrors,
    ...notFound("ACCOUNT_NOT_FOUND, MARKET_NOT_FOUND"),
  },
});

async function load(accountIdRaw: string, marketIdRaw: string, now: bigint) {
  const accountId = BigInt(accountIdRaw);
  const marketId = marketIdRaw.toLowerCase() as Hex;
  const [, snap, pos] = await Promise.all([
    requireAccount(accountId),
    requireMarketSnapshot(marketId, now),
    findPosition(accountId, marketId),
  ]);
  return { accountId, snap, pos };
}

export const positionRoutes = createApiApp()
  .openapi(getPosition, async (c) => {
    const { accountId, marketId } = c.req.valid("param");
    const data = await readAtIndexedBlock(c, async (b) => {
      const { accountId: id, snap, pos } = await load(accountId, marketId, b.timestamp);
      return positionResponse(id, snap, pos);
    });
    return c.json({ success: true as const, data }, 200);
  })
  .openapi(getPositionFunding, async (c) => {
    const { accountId, marketId } = c.req.valid("param");
    const data = await readAtIndexedBlock(c, async (b) => {
      const { accountId: id, snap, pos } = await load(accountId, marketId, b.timestamp);
      return positionFundingResponse(id, snap, pos);
    });
    return c.json({ success: true as const, data }, 200);
  });
