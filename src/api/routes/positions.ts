/** GET /accounts/{accountId}/positions/{marketId} and .../funding. */
import { createRoute } from "@hono/zod-openapi";
import { createApiApp } from "../lib/app.js";
import { hotAnswer } from "../lib/hotAnswers.js";
import { HOT_ROUTES } from "../../../core/reads/routes.js";
import { notFound, readErrors, readHeaders, readMiddleware } from "../lib/routes.js";
import { AccountMarketPath, Position, PositionFunding, ReadQuery, envelope } from "../../../core/schemas/reads.js";

const getPosition = createRoute({
  method: "get",
  path: HOT_ROUTES.position,
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
  path: HOT_ROUTES.positionFunding,
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

export const positionRoutes = createApiApp()
  .openapi(getPosition, (c) => hotAnswer(c) as never)
  .openapi(getPositionFunding, (c) => hotAnswer(c) as never);
