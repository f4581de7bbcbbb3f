import { describe, expect, it } from "vitest";
import { camelKeys, snakeKeys, toCamelCase, toSnakeCase } from "./case.js";

// Every camelCase key of the integration API's responses (spec/integration-api.md).
const INTEGRATION_KEYS = `accountId accountAddress owner margin available availableFormatted committed committedFormatted
total totalFormatted exists isOpen side size sizeFormatted entryPrice entryPriceFormatted marginFormatted leverage openBlock
health markPrice markPriceFormatted positionValue positionValueFormatted unrealizedPnL unrealizedPnLFormatted marginRatioBps
marginRatioPercent liquidationPrice liquidationPriceFormatted insolvencyPrice insolvencyPriceFormatted isLiquidatable clientKey
orderId marketId orderType price priceFormatted originalQuantity originalQuantityFormatted filledQuantity filledQuantityFormatted
remainingQuantity remainingQuantityFormatted marginAllocated isActive fillPercent orders totalCount symbol marketAddress baseFxToken
baseFxTokenSymbol quoteFxToken quoteFxTokenSymbol maxLeverage maintenanceMarginBps maintenanceMarginPercent liquidationFeeBps
liquidationFeePercent openInterest long longFormatted short shortFormatted currentRate currentRateFormatted currentRatePercent
currentRateAnnualized cumulativeFunding cumulativeFundingFormatted pendingFunding pendingFundingFormatted lastUpdate lastUpdateISO
prices perpPrice perpPriceFormatted indexPrice indexPriceFormatted premium premiumPercent components premiumComponent skewComponent
skew skewPercent direction timestamp bids asks spread absolute absoluteFormatted percent midPrice midPriceFormatted quantity
quantityFormatted orderCount lastSettled lastSettledISO transactionHash depositedAmount depositedAmountFormatted newAvailableMargin
withdrawnAmount withdrawnAmountFormatted status marginReturned marginReturnedFormatted closingSide requestId transactionStatus
blockNumber collateralAmount limitPrice userAddress`.split(/\s+/);

describe("toSnakeCase", () => {
  it.each([
    ["unrealizedPnL", "unrealized_pnl"],
    ["unrealizedPnLFormatted", "unrealized_pnl_formatted"],
    ["lastUpdateISO", "last_update_iso"],
    ["lastSettledISO", "last_settled_iso"],
    ["marginRatioBps", "margin_ratio_bps"],
    ["accountId", "account_id"],
    ["baseFxTokenSymbol", "base_fx_token_symbol"],
    ["success", "success"],
    ["already_snake", "already_snake"],
    ["ISOTime", "iso_time"],
  ])("%s → %s", (camel, snake) => expect(toSnakeCase(camel)).toBe(snake));
});

describe("toCamelCase", () => {
  it.each([
    ["market_id", "marketId"],
    ["limit_price", "limitPrice"],
    ["order_type", "orderType"],
    ["unrealized_pnl", "unrealizedPnL"],
    ["last_update_iso", "lastUpdateISO"],
    ["amount", "amount"],
  ])("%s → %s", (snake, camel) => expect(toCamelCase(snake)).toBe(camel));

  it("round-trips every integration API key", () => {
    for (const k of INTEGRATION_KEYS) expect(toCamelCase(toSnakeCase(k))).toBe(k);
  });

  it("gives distinct snake keys for distinct integration keys", () => {
    const snake = new Set(INTEGRATION_KEYS.map(toSnakeCase));
    expect(snake.size).toBe(new Set(INTEGRATION_KEYS).size);
  });
});

describe("snakeKeys / camelKeys", () => {
  it("renames nested keys and leaves values alone", () => {
    const data = {
      accountId: 1,
      margin: { availableFormatted: "1.5" },
      orders: [{ clientKey: "0xab", side: "LONG", health: null }],
      health: { unrealizedPnL: "-12", marginRatioBps: 1500 },
    };
    const snake = snakeKeys(data);
    expect(snake).toEqual({
      account_id: 1,
      margin: { available_formatted: "1.5" },
      orders: [{ client_key: "0xab", side: "LONG", health: null }],
      health: { unrealized_pnl: "-12", margin_ratio_bps: 1500 },
    });
    expect(camelKeys(snake)).toEqual(data);
  });

  it("keeps primitives and arrays of primitives", () => {
    expect(snakeKeys("x")).toBe("x");
    expect(snakeKeys([1, "a", null])).toEqual([1, "a", null]);
  });
});
