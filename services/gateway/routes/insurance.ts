/** /v1/insurance-fund: the venue's insurance fund now (its history is a /v1 history list). */
import { snakeSchema } from "../../../core/schemas/history.js";
import { InsuranceFund } from "../../../core/schemas/insurance.js";
import type { GatewayApp, GatewayDeps } from "../context.js";
import { forwardHeaders, send } from "../context.js";
import { ReadQuery } from "../schemas.js";
import { defineRoute } from "./define.js";

export const getInsuranceFund = defineRoute({
  method: "get",
  path: "/v1/insurance-fund",
  tag: "Insurance",
  summary: "The insurance fund: balance, donations, fees, bad debt",
  description: "Venue-wide: one fund backs every market. Anyone may donate (Engine.donateInsurance); nobody withdraws.",
  request: { query: ReadQuery },
  ok: { status: 200, name: "InsuranceFund", data: snakeSchema(InsuranceFund), description: "balance, donated, fees, fees_withdrawn, bad_debt (WAD) and updated_block" },
});

export function registerInsuranceRoutes(app: GatewayApp, { upstreams: { integration } }: GatewayDeps) {
  app.openapi(getInsuranceFund, async (c) =>
    send(c, await integration.call({ path: "/insurance-fund", query: { minBlock: c.req.valid("query").min_block }, headers: forwardHeaders(c) })),
  );
}
