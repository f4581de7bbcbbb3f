import { describe, expect, it } from "vitest";
import { cacheKey } from "../../src/api/lib/responseCache.js";

describe("response cache key", () => {
  it("is the path and the sorted query, without minBlock", () => {
    expect(cacheKey("http://h/markets/0xab/orderbook")).toBe("/markets/0xab/orderbook");
    expect(cacheKey("http://h/markets/0xab/orderbook?minBlock=9")).toBe("/markets/0xab/orderbook");
    expect(cacheKey("http://h/a/orders?status=ACTIVE&limit=5&minBlock=3")).toBe(cacheKey("http://h/a/orders?limit=5&status=ACTIVE"));
    expect(cacheKey("http://h/a/orders?limit=5")).not.toBe(cacheKey("http://h/a/orders?limit=6"));
    expect(cacheKey("http://h/a/orders?cursor=x")).not.toBe(cacheKey("http://h/b/orders?cursor=x"));
  });
});
