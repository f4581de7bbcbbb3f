/** /v1/liquidation: the keeper's reads and actions. Open to any valid key (liquidation is permissionless). */
import type { GatewayApp, GatewayDeps } from "../context.js";
import { forwardHeaders, send } from "../context.js";
import { AccountIdParam, IdParam, MarketIdParam, PositionIdParam } from "../schemas.js";
import { defineRoute } from "./define.js";

const tag = "Liquidation";

export const accountHealth = defineRoute({
  method: "get",
  path: "/v1/liquidation/accounts/{id}/health",
  tag,
  summary: "Liquidation health of an account (all its positions)",
  request: { params: IdParam },
  ok: { status: 200, name: "AccountHealth", description: "the keeper's account health (equity, maintenance, is_liquidatable, positions)" },
  errors: [404],
});

export const marketLiquidation = defineRoute({
  method: "get",
  path: "/v1/liquidation/market/{market_id}",
  tag,
  summary: "Liquidation data of a market",
  request: { params: MarketIdParam },
  ok: { status: 200, name: "MarketLiquidation", description: "positions at risk, liquidatable positions, insurance fund" },
  errors: [404],
});

export const accountLiquidation = defineRoute({
  method: "get",
  path: "/v1/liquidation/account/{account_id}",
  tag,
  summary: "Liquidation data of an account",
  request: { params: AccountIdParam },
  ok: { status: 200, name: "AccountLiquidation", description: "positions with liquidation and insolvency prices" },
  errors: [404],
});

export const positionLiquidation = defineRoute({
  method: "get",
  path: "/v1/liquidation/position/{position_id}",
  tag,
  summary: "Liquidation data of a position",
  request: { params: PositionIdParam },
  ok: { status: 200, name: "PositionLiquidation", description: "position health, liquidation and insolvency prices" },
  errors: [404],
});

export const liquidateAccount = defineRoute({
  method: "post",
  path: "/v1/liquidation/account/{account_id}/liquidate",
  tag,
  summary: "Liquidate every liquidatable position of an account",
  description: "No body. Any valid key may call it; the chain checks that the positions are liquidatable (NOT_LIQUIDATABLE).",
  request: { params: AccountIdParam },
  ok: { status: 200, name: "LiquidationResult", description: "transaction_hash and the liquidated positions" },
  errors: [202, 404, 409],
});

export const liquidatePosition = defineRoute({
  method: "post",
  path: "/v1/liquidation/position/{position_id}/liquidate",
  tag,
  summary: "Liquidate one position",
  description: "No body. position_id = keccak256(abi.encode(uint256 accountId, bytes32 marketId)).",
  request: { params: PositionIdParam },
  ok: { status: 200, name: "LiquidationResult", description: "transaction_hash and the liquidated position" },
  errors: [202, 404, 409],
});

export function registerLiquidationRoutes(app: GatewayApp, { upstreams: { keeper } }: GatewayDeps) {
  app.openapi(accountHealth, async (c) =>
    send(c, await keeper.call({ path: `/liquidation/accounts/${c.req.valid("param").id}/health`, headers: forwardHeaders(c) })),
  );
  app.openapi(marketLiquidation, async (c) =>
    send(c, await keeper.call({ path: `/liquidation/market/${c.req.valid("param").market_id}`, headers: forwardHeaders(c) })),
  );
  app.openapi(accountLiquidation, async (c) =>
    send(c, await keeper.call({ path: `/liquidation/account/${c.req.valid("param").account_id}`, headers: forwardHeaders(c) })),
  );
  app.openapi(positionLiquidation, async (c) =>
    send(c, await keeper.call({ path: `/liquidation/position/${c.req.valid("param").position_id}`, headers: forwardHeaders(c) })),
  );
  app.openapi(liquidateAccount, async (c) =>
    send(
      c,
      await keeper.call({
        method: "POST",
        path: `/liquidation/account/${c.req.valid("param").account_id}/liquidate`,
        headers: forwardHeaders(c, true),
      }),
    ),
  );
  app.openapi(liquidatePosition, async (c) =>
    send(
      c,
      await keeper.call({
        method: "POST",
        path: `/liquidation/position/${c.req.valid("param").position_id}/liquidate`,
        headers: forwardHeaders(c, true),
      }),
    ),
  );
}
