import { TIME_IN_FORCE_VALUE } from "../../../core/order-options.js";
import { describe, expect, it } from "vitest";
import { VenueInputError, type MarketRules } from "../../../packages/client/src/index.js";
import { decodeFunctionData, encodeErrorResult, type Hex } from "viem";
import { engineAbi } from "../../../abis/index.js";
import {
  BATCH_BASE_GAS, batchGas, cancelCall, deadmanCall, ITEM_GAS, itemError, placeCall, quoteOrder, quoteParams, toEngineOrder,
  type MakerOptions,
} from "./orders.js";
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
        collateral6: q.collateral6, leverage: 5n, limitPriceX18: q.priceX18, clientKey: key, timeInForce: 3, reduceOnly: false, expiresAt: 0n,
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

describe("the maker's batch items", () => {
  it("encodes POST_ONLY places, cancels by client key and the dead-man refresh as Engine entry points", () => {
    const p = quoteParams(market, opts);
    const q = desiredQuotes(INDEX, p)[0]!;
    const key = quoteClientKey(EUR, q.side, q.level, 0);
    const o = quoteOrder(7n, market, q, p.leverage, key);
    expect(o.timeInForce).toBe(TIME_IN_FORCE_VALUE.POST_ONLY);
    const place = decodeFunctionData({ abi: engineAbi, data: placeCall(o) });
    expect(place.functionName).toBe("placeOrder");
    expect(place.args[0]).toMatchObject({ clientKey: key, timeInForce: 3, limitPriceX18: q.priceX18 });
    expect(decodeFunctionData({ abi: engineAbi, data: cancelCall(7n, EUR, key) })).toMatchObject({ functionName: "cancelOrder", args: [7n, EUR, key] });
    expect(decodeFunctionData({ abi: engineAbi, data: deadmanCall(7n, 1_060n) })).toMatchObject({ functionName: "setDeadman", args: [7n, 1_060n] });
  });

  it("budgets gas per item, well above what each takes", () => {
    expect(batchGas([])).toBe(BATCH_BASE_GAS);
    expect(batchGas(["place", "cancel", "deadman"])).toBe(BATCH_BASE_GAS + ITEM_GAS.place + ITEM_GAS.cancel + ITEM_GAS.deadman);
    // 32 places stay well inside a 30M block
    expect(batchGas(Array(32).fill("place")) < 30_000_000n).toBe(true);
    expect(ITEM_GAS.place >= 2n * 263_178n).toBe(true);
  });

  it("decodes an item's revert data: the error's name and arguments, empty data as \"\", an unknown selector as itself", () => {
    const data = encodeErrorResult({ abi: engineAbi, errorName: "PostOnlyWouldCross", args: [5n, 4n] });
    expect(itemError(data)).toEqual({ name: "PostOnlyWouldCross", args: [5n, 4n] });
    expect(itemError(encodeErrorResult({ abi: engineAbi, errorName: "DeadmanTooSoon", args: [10n, 20n] })).args[1]).toBe(20n);
    expect(itemError(encodeErrorResult({ abi: engineAbi, errorName: "OrderNotFound", args: [7n, EUR] })).name).toBe("OrderNotFound");
    expect(itemError("0x")).toEqual({ name: "", args: [] });
    expect(itemError("0xdeadbeef00" as Hex).name).toBe("0xdeadbeef");
  });
});
