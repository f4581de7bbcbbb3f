/** MarketFactory events: a new market and its parameters (the Market contract is then indexed by factory). */
import { on } from "./on.js";
import { market } from "ponder:schema";
import { patchMarketState } from "./store.js";

on("MarketFactory:MarketCreated", async ({ event, context }) => {
  const a = event.args;
  const p = a.params;
  await context.db.insert(market).values({
    marketId: a.marketId,
    marketAddress: a.market,
    marketIndex: a.marketIndex,
    symbol: a.symbol,
    baseFxToken: a.baseFxToken,
    baseFxTokenSymbol: a.baseFxTokenSymbol,
    quoteFxToken: a.quoteFxToken,
    quoteFxTokenSymbol: a.quoteFxTokenSymbol,
    tickSizeX18: p.tickSizeX18,
    lotSizeQty: p.lotSizeQty,
    minOrderQty: p.minOrderQty,
    maxLeverage: Number(p.maxLeverage),
    maintenanceMarginBps: Number(p.maintenanceMarginBps),
    liquidationFeeBps: Number(p.liquidationFeeBps),
    makerFeeBps: Number(p.makerFeeBps),
    takerFeeBps: Number(p.takerFeeBps),
    priceBandBps: Number(p.priceBandBps),
    markClampBps: Number(p.markClampBps),
    maxFillsPerTx: Number(p.maxFillsPerTx),
    maxFundingRateX18PerHour: p.maxFundingRateX18PerHour,
    skewScaleX18PerHour: p.skewScaleX18PerHour,
    operatorBandBps: Number(p.operatorBandBps),
    maxOpenInterestQty: p.maxOpenInterestQty,
    maxPositionQty: p.maxPositionQty,
    createdBlock: event.block.number,
    createdAt: event.block.timestamp,
  });
  // Market.initialize (same transaction) starts funding at this block's time without an event
  await patchMarketState(context, a.market, event.block.number, {
    marketId: a.marketId,
    fundingLastUpdate: event.block.timestamp,
  });
});
