import { describe, expect, it } from "vitest";
import { VenueInputError, type MarketRules } from "../../../packages/client/src/index.js";
import { quoteOrder, quoteParams, toEngineOrder, type MakerOptions } from "./orders.js";
import { desiredQuotes, quoteClientKey, SIDE_LONG, SIDE_SHORT } from "./quotes.js";

const EUR = `0x${"ab".repeat(32)}` as const;
const TICK = 10n ** 13n;
const market = { marketId: EUR, symbol: "EUR/USD", maxLeverage: 20, tickSize: TICK.toString(), lotSize: (10n ** 16n).toString(), isActive: true };
const opts: MakerOptions = { levels: 2, spreadBps: 10n, levelStepBps: 10n, levelQty: 1_000n, leverage: 5n, requoteBps: 5n, depositUsd: 1_000_000n };
const INDEX = 1_080_000_000_000_000_000n;

describe("the maker's orders through the client's builder", () => {
  it("takes tick, lot and the leverage cap from the market's read", () => {
    const p = quoteParams(market, opts);
    expect(p).toMatchObject({ tickX18: TICK, lotQty: 10n ** 16n, leverage: 5n, levelQty: 1_000n * 10n ** 18n });
    expect(quoteParams({ ...market, maxLeverage: 3 }, opts).leverage).toBe(3n);
  });

  it("maps every quote of the ladder onto Engine.placeOrder's struct", () => {
    const p = quoteParams(market, opts);
    for (const q of desiredQuotes(INDEX, p)) {
      const key = quoteClientKey(EUR, q.side, q.level, 1);
      expect(quoteOrder(7n, market, q, p.leverage, key)).toEqual({
        accountId: 7n, marketId: EUR, side: q.side === SIDE_LONG ? 0 : 1, orderType: 1,
        collateral6: q.collateral6, leverage: 5n, limitPriceX18: q.priceX18, clientKey: key, timeInForce: 0, reduceOnly: false, expiresAt: 0n,
      });
    }
    expect(toEngineOrder(1n, { marketId: EUR, side: "SHORT", orderType: "MARKET", collateralAmount: "5", leverage: 2, clientKey: EUR })).toMatchObject({ side: 1, orderType: 0, limitPriceX18: 0n });
    // a body with the order options carries them to the engine
    expect(toEngineOrder(1n, { marketId: EUR, side: "LONG", orderType: "LIMIT", limitPrice: "1", collateralAmount: "5", leverage: 2, clientKey: EUR, timeInForce: "POST_ONLY", reduceOnly: true, expiresAt: 1_900_000_000 }))
      .toMatchObject({ timeInForce: 3, reduceOnly: true, expiresAt: 1_900_000_000n });
  });

  it("refuses a bad quote before anything is sent", () => {
    const q = desiredQuotes(INDEX, quoteParams(market, opts)).find((x) => x.side === SIDE_SHORT)!;
    const key = quoteClientKey(EUR, q.side, q.level);
    const refused = (m: MarketRules, quote = q, lev = 5n) => {
      try {
        quoteOrder(1n, m, quote, lev, key);
      } catch (e) {
        expect(e).toBeInstanceOf(VenueInputError);
        return (e as VenueInputError).code;
      }
      return "accepted";
    };
    expect(refused(market, { ...q, priceX18: q.priceX18 + 1n })).toBe("INVALID_PRICE");
    expect(refused(market, q, 21n)).toBe("EXCEEDS_MAX_LEVERAGE");
    expect(refused({ ...market, isActive: false })).toBe("MARKET_NOT_ACTIVE");
    expect(refused(market, { ...q, collateral6: 0n })).toBe("INVALID_AMOUNT");
    expect(refused(market)).toBe("accepted");
  });
});
