import { describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { GatewayClient, VenueClient, type WriteStatus } from "../src/client.js";
import { order } from "../src/builders.js";
import { WriteFailedError } from "../src/errors.js";
import { amount6, x18 } from "../src/units.js";
import { fakeFetch, ok, on, type Call } from "./fakes.js";

const base = "http://127.0.0.1:24069";
const EUR = `0x${"a9".repeat(32)}` as `0x${string}`;
const market = { marketId: EUR, maxLeverage: 50, tickSize: "10000000000000", isActive: true, symbol: "EUR/USD" };
const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const status = (s: Partial<WriteStatus> & { transactionStatus: string }, result: unknown = null) =>
  ok({ requestId: "rq1", kind: "placeOrder", transactionHash: null, blockNumber: null, confirmations: 0, final: false, reorgs: 0, nonce: 1, transactionHashes: [], result, error: null, httpStatus: null, validUntil: null, validUntilISO: null, cancelRequested: false, createdAtISO: "", updatedAtISO: "", ...s });
const auth = [
  { match: on("GET", "/auth/nonce"), repeat: true, reply: ok({ nonce: "n0nce0123456789", domain: null, uri: null, chainId: 31337, version: "1" }) },
  { match: on("POST", "/auth/login"), repeat: true, reply: ok({ token: "tok", tokenType: "Bearer", address: account.address, expiresAt: 4_000_000_000, expiresAtISO: "", expiresIn: 900 }) },
  { match: on("GET", `/markets/${EUR}`), repeat: true, reply: ok(market) },
];

describe("writes", () => {
  it("a 202 is followed to CONFIRMED, through REORGED, to final; then the indexer's block; reads after it pass minBlock", async () => {
    const placed = { clientKey: "0xck", orderId: "9", marketId: EUR, side: "LONG", size: "1", sizeFormatted: "1", orderType: "LIMIT", status: "PLACED" };
    const f = fakeFetch([
      ...auth,
      { match: on("POST", "/accounts/1/orders"), reply: ok({ ...placed, requestId: "rq1", transactionHash: null, transactionStatus: "PENDING", blockNumber: null, validUntil: 1 }, 202) },
      { match: on("GET", "/transactions/rq1"), reply: status({ transactionStatus: "PENDING", transactionHash: "0xa" }) },
      { match: on("GET", "/transactions/rq1"), reply: status({ transactionStatus: "CONFIRMED", transactionHash: "0xa", blockNumber: 50, confirmations: 1 }, { ...placed, requestId: "rq1", transactionHash: "0xa", transactionStatus: "CONFIRMED", blockNumber: 50, confirmations: 1, final: false }) },
      { match: on("GET", "/transactions/rq1"), reply: status({ transactionStatus: "REORGED", transactionHash: "0xa", blockNumber: null, reorgs: 1 }) },
      { match: on("GET", "/transactions/rq1"), reply: status({ transactionStatus: "PENDING", transactionHash: "0xa", reorgs: 1 }) },
      { match: on("GET", "/transactions/rq1"), reply: status({ transactionStatus: "CONFIRMED", transactionHash: "0xa", blockNumber: 52, confirmations: 3, final: true, reorgs: 1 }, { ...placed, requestId: "rq1", transactionHash: "0xa", transactionStatus: "CONFIRMED", blockNumber: 52, confirmations: 3, final: true }) },
      { match: (c) => c.path === "/markets?minBlock=52", reply: { status: 503, body: { success: false, error: { code: "SERVICE_UNAVAILABLE", message: "not yet" } } } },
      { match: (c) => c.path === "/markets?minBlock=52", reply: ok({ markets: [] }) },
      { match: (c) => c.path === `/accounts/1/positions/${EUR}?minBlock=52`, reply: ok({ isOpen: true }) },
    ]);
    const c = new VenueClient({ baseUrl: base, fetch: f.fetch, signer: account, session: { timers: false }, sleep: async () => undefined });
    const statuses: string[] = [];
    const events: WriteStatus[] = [];
    c.on("transaction", (s) => events.push(s));
    const r = await c.placeOrder(1, order.limit({ marketId: EUR, side: "LONG", collateral: amount6("10"), leverage: 5, price: x18("1.08") }), {
      untilFinal: true, onStatus: (s) => statuses.push(s.transactionStatus + (s.final ? "/final" : "")),
    });
    expect(statuses).toEqual(["PENDING", "CONFIRMED", "REORGED", "PENDING", "CONFIRMED/final"]);
    expect(events.map((e) => e.transactionStatus)).toEqual(["PENDING", "CONFIRMED", "REORGED", "PENDING", "CONFIRMED"]);
    expect(r).toMatchObject({ orderId: "9", blockNumber: 52, final: true });
    expect(c.minBlock).toBe(52);
    const post = f.calls.find((x) => x.method === "POST" && x.path === "/accounts/1/orders")!;
    expect(post.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(post.body).toMatchObject({ marketId: EUR, orderType: "LIMIT", limitPrice: "1080000000000000000", collateralAmount: "10000000" });
    await c.position(1, EUR); // passes minBlock=52 (the route above only matches it)
  });

  it("a new Idempotency-Key per call; the same one again after a lost answer", async () => {
    const mined = (c: Call) => ok({ accountId: 1, depositedAmount: (c.body as { amount: string }).amount, requestId: "r", transactionHash: "0x1", transactionStatus: "CONFIRMED", blockNumber: 7, confirmations: 1, final: true });
    const f = fakeFetch([
      ...auth,
      { match: on("POST", "/accounts/1/deposit"), reply: mined },
      { match: on("POST", "/accounts/1/deposit"), reply: new TypeError("socket hang up") },
      { match: on("POST", "/accounts/1/deposit"), reply: mined },
    ]);
    const c = new VenueClient({ baseUrl: base, fetch: f.fetch, signer: account, session: { timers: false }, sleep: async () => undefined });
    await c.deposit(1, amount6("1"), { wait: "mined" });
    await c.deposit(1, amount6("2"), { wait: "mined" });
    const keys = f.calls.filter((x) => x.path === "/accounts/1/deposit").map((x) => x.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[1]).toBe(keys[2]);
    await c.deposit(1, 1n, { wait: "mined", idempotencyKey: "mine-1" }).catch(() => undefined);
    expect(f.calls.at(-1)!.headers["idempotency-key"]).toBe("mine-1");
  });

  it("a write that ends REVERTED throws WriteFailedError with the relayer's code", async () => {
    const f = fakeFetch([
      { match: on("POST", "/v1/accounts/1/withdraw"), reply: ok({ request_id: "rq1", transaction_hash: null, transaction_status: "PENDING", block_number: null }, 202) },
      { match: on("GET", "/v1/transactions/rq1"), reply: { status: 200, body: { success: true, data: { request_id: "rq1", transaction_status: "REVERTED", error: { code: "INSUFFICIENT_MARGIN", message: "not enough" }, confirmations: 0, final: false, reorgs: 0 } } } },
    ]);
    const g = new GatewayClient({ baseUrl: base, fetch: f.fetch, apiKey: "vgw_x", sleep: async () => undefined });
    const e = await g.withdraw(1, 5n).catch((x) => x);
    expect(e).toBeInstanceOf(WriteFailedError);
    expect(e).toMatchObject({ code: "INSUFFICIENT_MARGIN", requestId: "rq1", transactionStatus: "REVERTED" });
    expect(f.calls[0]!.headers["x-api-key"]).toBe("vgw_x");
    expect(f.calls[0]!.body).toEqual({ amount: "5" });
  });

  it("the gateway's trade body: snake_case, side and order_type as 0/1; a bad order is refused before sending", async () => {
    const f = fakeFetch([
      { match: on("GET", `/v1/markets/${EUR}`), reply: ok({ market_id: EUR, max_leverage: 20, tick_size: "10000000000000", is_active: true, symbol: "EUR/USD" }) },
      { match: on("POST", "/v1/accounts/2/trade"), reply: ok({ request_id: "r", transaction_status: "CONFIRMED", block_number: 0, confirmations: 1, final: true, order_id: "5" }, 201) },
    ]);
    const g = new GatewayClient({ baseUrl: base, fetch: f.fetch, apiKey: "k" });
    await expect(g.placeOrder(2, order.market({ marketId: EUR, side: "SHORT", collateral: 1n, leverage: 21 }))).rejects.toMatchObject({ code: "EXCEEDS_MAX_LEVERAGE" });
    expect(f.calls.filter((c) => c.method === "POST")).toHaveLength(0);
    const r = await g.placeOrder(2, order.market({ marketId: EUR, side: "SHORT", collateral: 1n, leverage: 20 }));
    expect(r.orderId).toBe("5");
    expect(f.calls.at(-1)!.body).toMatchObject({ market_id: EUR, collateral: "1", side: 1, leverage: 20, order_type: 0 });
  });

  it("modifyOrder: POST /accounts/{id}/orders/modify (by clientKey) and /v1 (by order_id, snake_case); off the tick, no name or both names refused before sending", async () => {
    const key = `0x${"7e".repeat(32)}` as `0x${string}`;
    const modified = { orderId: "9", clientKey: key, marketId: EUR, price: "1080000000000000000", remainingQuantity: "5" };
    const f = fakeFetch([
      ...auth,
      { match: on("POST", "/accounts/1/orders/modify"), reply: ok({ ...modified, requestId: "rq1", transactionHash: "0xa", transactionStatus: "CONFIRMED", blockNumber: 5, confirmations: 1, final: true }) },
    ]);
    const c = new VenueClient({ baseUrl: base, fetch: f.fetch, signer: account, session: { timers: false }, sleep: async () => undefined });
    await expect(c.modifyOrder(1, { marketId: EUR, clientKey: key, price: x18("1.08") + 1n, quantity: 5n })).rejects.toMatchObject({ code: "INVALID_PRICE" });
    await expect(c.modifyOrder(1, { marketId: EUR, price: x18("1.08"), quantity: 5n })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    await expect(c.modifyOrder(1, { marketId: EUR, orderId: 9n, clientKey: key, price: x18("1.08"), quantity: 5n })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    await expect(c.modifyOrder(1, { marketId: EUR, orderId: 9n, price: x18("1.08"), quantity: 0n })).rejects.toMatchObject({ code: "INVALID_AMOUNT" });
    expect(f.calls.filter((x) => x.path.endsWith("/modify"))).toHaveLength(0);
    const r = await c.modifyOrder(1, { marketId: EUR, clientKey: key, price: x18("1.08"), quantity: 5n }, { wait: "mined" });
    expect(r.remainingQuantity).toBe("5");
    expect(f.calls.at(-1)!.body).toEqual({ marketId: EUR, clientKey: key, price: "1080000000000000000", quantity: "5" });

    const g = fakeFetch([
      { match: on("GET", `/v1/markets/${EUR}`), reply: ok({ market_id: EUR, max_leverage: 20, tick_size: "10000000000000", is_active: true, symbol: "EUR/USD" }) },
      { match: on("POST", "/v1/accounts/2/orders/modify"), reply: ok({ request_id: "r", transaction_status: "CONFIRMED", block_number: 0, confirmations: 1, final: true, order_id: "9", remaining_quantity: "5" }) },
    ]);
    const gc = new GatewayClient({ baseUrl: base, fetch: g.fetch, apiKey: "k" });
    const v = await gc.modifyOrder(2, { marketId: EUR, orderId: 9n, price: x18("1.08"), quantity: 5n });
    expect(v).toMatchObject({ orderId: "9", remainingQuantity: "5" });
    expect(g.calls.at(-1)!.body).toEqual({ market_id: EUR, order_id: "9", price: "1080000000000000000", quantity: "5" });
  });
});
