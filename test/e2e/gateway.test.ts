/**
 * The /v1 gateway end to end against the real stack (anvil, Ponder, relayer, keeper, gateway):
 * every route of the spec's table, the auth cases, snake_case in and out, bad input.
 * Wallets: 2 trades (prepared account), 1 is "another wallet", 7 creates its account.
 */
import { createPublicClient, encodeAbiParameters, getAddress, http, keccak256, parseEventLogs, type Hex } from "viem";
import { engineAbi, marketAbi } from "../../abis/index.js";
import { snakeKeys } from "../../core/case.js";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { sharedStack } from "./helpers/stacks.js";
import { publicClient } from "./helpers/chain.js";
import { gatewayClient } from "./helpers/http.js";

/** No camelCase key anywhere in a gateway answer. */
function expectSnake(v: unknown, path = "data"): void {
  if (Array.isArray(v)) return v.forEach((x, i) => expectSnake(x, `${path}[${i}]`));
  if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      expect(k, `${path}.${k}`).toMatch(/^[a-z0-9_]+$/);
      expectSnake(x, `${path}.${k}`);
    }
  }
}


describe.each([sharedStack()])("gateway /v1 ($kind)", (s) => {
  const req = gatewayClient(s);
  const trader = s.wallets[2]!;
  const other = s.wallets[1]!;
  const fresh = s.wallets[7]!;
  const market = s.deployment.markets[0]!;
  const accountId = trader.accountId!;

  describe("health (no key)", () => {
    const admin = { headers: { "X-Admin-Token": s.adminToken } };
    it("GET /health answers the gateway and a summary of statuses (details with the admin token)", async () => {
      const r = await req("GET", "/health");
      expect(r.status).toBe(200);
      expect(Object.keys(r.body.data).sort()).toEqual(["service", "services", "status"]);
      expect(r.body.data).toMatchObject({ service: "gateway" });
      expect(Object.keys(r.body.data.services).sort()).toEqual(["chain", "database", "indexer", "keeper", "relayer"]);
      const a = await req("GET", "/health", admin);
      expect(a.body.data).toMatchObject({ service: "gateway", profile: "local", details: { relayer: { status: "ok" } } });
      expect(JSON.stringify(a.body)).not.toContain(s.rpcUrl);
    });

    it("GET /health/{service} answers each service's real state", async () => {
      expect((await req("GET", "/health/indexer")).body.data).toEqual({ service: "indexer", status: "ok" });
      const indexer = await req("GET", "/health/indexer", admin);
      expect(indexer.status).toBe(200);
      expect(indexer.body.data).toMatchObject({ service: "indexer", status: "ok", ready: true });
      expect(indexer.body.data.blocks_behind).toBeGreaterThanOrEqual(0);
      expect(indexer.body.data.head_block).toBeGreaterThanOrEqual(indexer.body.data.indexed_block);
      for (const name of ["relayer", "keeper", "database", "chain"]) {
        const r = await req("GET", `/health/${name}`);
        expect(r.status, name).toBe(200);
        expect(r.body.data).toMatchObject({ service: name, status: "ok" });
      }
      // the relayer's spending at a glance (admin details): the signer's balance, the oldest pending write's age
      expect((await req("GET", "/health/relayer", admin)).body.data.details).toMatchObject({
        signer_balance: expect.stringMatching(/^\d+$/), out_of_funds: false, oldest_pending_age_ms: expect.any(Number), pending_writes: expect.any(Number),
      });
      expect((await req("GET", "/health/chain", admin)).body.data.chain_id).toBe(s.chainId);
      expect((await req("GET", "/health/database", admin)).body.data.kind).toBe(s.kind === "postgres" ? "postgres" : "pglite");
      expect((await req("GET", "/health/nope")).status).toBe(404);
    });
  });

  describe("authentication", () => {
    it("GET /v1/markets needs no key and answers snake_case", async () => {
      const r = await req("GET", "/v1/markets");
      expect(r.status).toBe(200);
      expect(r.headers.get("x-request-id")).toBeTruthy();
      expectSnake(r.body.data);
      const m = r.body.data.markets.find((x: { market_id: string }) => x.market_id === market.marketId);
      expect(m).toMatchObject({ symbol: market.symbol, market_address: expect.any(String), max_leverage: expect.any(Number) });
      expect(m.open_interest).toHaveProperty("long_formatted");
    });

    it("no key, a bad key, a revoked key: 401 with WWW-Authenticate", async () => {
      const none = await req("GET", `/v1/accounts/${accountId}`);
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toMatch(/X-API-Key/);
      expect(none.body.error!.code).toBe("UNAUTHENTICATED");
      const bad = await req("GET", `/v1/accounts/${accountId}`, { key: "vgw_" + "x".repeat(43) });
      expect(bad.status).toBe(401);
      expect(bad.headers.get("www-authenticate")).toBeTruthy();

      const adminHeaders = { "X-Admin-Token": s.adminToken, "content-type": "application/json" };
      const created = await fetch(`${s.gatewayUrl}/admin/keys`, {
        method: "POST",
        headers: adminHeaders,
        body: JSON.stringify({ wallet: trader.address, label: "e2e revoke" }),
      });
      const { data } = (await created.json()) as { data: { key: string; key_id: string } };
      expect((await req("GET", `/v1/accounts/${accountId}`, { key: data.key })).status).toBe(200);
      const revoked = await fetch(`${s.gatewayUrl}/admin/keys/${data.key_id}`, { method: "DELETE", headers: adminHeaders });
      expect(revoked.status).toBe(200);
      const after = await req("GET", `/v1/accounts/${accountId}`, { key: data.key });
      expect(after.status).toBe(401);
    });

    it("a valid key writing on another wallet's account: 403 UNAUTHORIZED; reads are open", async () => {
      const read = await req("GET", `/v1/accounts/${accountId}`, { key: other.apiKey });
      expect(read.status).toBe(200);
      const w = await req("POST", `/v1/accounts/${accountId}/withdraw`, { key: other.apiKey, body: { amount: "1" } });
      expect(w.status).toBe(403);
      expect(w.body.error!.code).toBe("UNAUTHORIZED");
      const d = await req("POST", `/v1/accounts/${accountId}/deposit`, { key: other.apiKey, body: { amount: "1" } });
      expect(d.status).toBe(403);
      const t = await req("POST", `/v1/accounts/${accountId}/trade`, {
        key: other.apiKey,
        body: { market_id: market.marketId, collateral: "1000000", side: 0, leverage: 2, order_type: 0 },
      });
      expect(t.status).toBe(403);
      const create = await req("POST", "/v1/accounts/create", { key: other.apiKey, body: { owner: fresh.address } });
      expect(create.status).toBe(403);
    });
  });

  describe("reads", () => {
    it("GET /v1/accounts/{id}: the account, snake_case, X-Indexed-Block", async () => {
      const r = await req("GET", `/v1/accounts/${accountId}`, { key: trader.apiKey });
      expect(r.status).toBe(200);
      expect(r.headers.get("x-indexed-block")).toMatch(/^\d+$/);
      expectSnake(r.body.data);
      expect(r.body.data).toMatchObject({ account_id: accountId, owner: expect.stringMatching(/^0x/i) });
      expect(r.body.data.owner.toLowerCase()).toBe(trader.address.toLowerCase());
      expect(r.body.data.margin).toHaveProperty("available_formatted");
      expect((await req("GET", "/v1/accounts/999999", { key: trader.apiKey })).body.error!.code).toBe("ACCOUNT_NOT_FOUND");
    });

    it("order book and funding of a market", async () => {
      const book = await req("GET", `/v1/markets/${market.marketId}/orderbook?depth=5`, { key: trader.apiKey });
      expect(book.status).toBe(200);
      expectSnake(book.body.data);
      expect(book.body.data).toHaveProperty("mid_price");
      expect(book.body.data.bids.length).toBeLessThanOrEqual(5);
      const funding = await req("GET", `/v1/markets/${market.marketId}/funding`, { key: trader.apiKey });
      expect(funding.status).toBe(200);
      expectSnake(funding.body.data);
      expect(funding.body.data).toHaveProperty("last_update_iso");
      expect(funding.body.data).toHaveProperty("current_rate_annualized");
      const unknown = await req("GET", `/v1/markets/0x${"00".repeat(32)}/funding`, { key: trader.apiKey });
      expect(unknown.status).toBe(404);
    });

    it("market, price, account by address, position and its funding", async () => {
      const m = await req("GET", `/v1/markets/${market.marketId}`, { key: trader.apiKey });
      expect(m.status).toBe(200);
      expect(m.body.data).toMatchObject({ market_id: market.marketId, symbol: market.symbol });
      const price = await req("GET", `/v1/markets/${market.marketId}/price`, { key: trader.apiKey });
      expect(price.body.data).toMatchObject({ market_id: market.marketId, mark_price: expect.stringMatching(/^\d+$/) });
      const byAddr = await req("GET", `/v1/accounts/by-address/${trader.address}`, { key: trader.apiKey });
      expect(byAddr.body.data).toMatchObject({ account_id: accountId, exists: true });
      const pos = await req("GET", `/v1/accounts/${accountId}/positions/${market.marketId}`, { key: trader.apiKey });
      expect(pos.status).toBe(200);
      expectSnake(pos.body.data);
      expect(pos.body.data).toHaveProperty("is_open");
      const funding = await req("GET", `/v1/accounts/${accountId}/positions/${market.marketId}/funding`, { key: trader.apiKey });
      expect(funding.status).toBe(200);
      expect(funding.body.data).toHaveProperty("pending_funding");
      expect(funding.body.data).toHaveProperty("last_settled_iso");
    });

    it("bad path and query values are 400 naming the field", async () => {
      for (const [path, field] of [
        ["/v1/accounts/abc", "id"],
        ["/v1/markets/EURUSD/orderbook", "market_id"],
        [`/v1/accounts/${accountId}/orders?status=open`, "status"],
        [`/v1/accounts/${accountId}/orders?market_id=0x12`, "market_id"],
      ]) {
        const r = await req("GET", path!, { key: trader.apiKey });
        expect(r.status, path).toBe(400);
        expect(r.body.error!.code).toBe("VALIDATION_ERROR");
        expect(r.body.error!.message).toContain(field);
      }
    });
  });

  describe("writes", () => {
    let depositRequestId: string;

    it("deposit and withdraw: { amount } in, snake_case out", async () => {
      const dep = await req("POST", `/v1/accounts/${accountId}/deposit`, { key: trader.apiKey, body: { amount: "2000000" } });
      expect(dep.status).toBe(200);
      expectSnake(dep.body.data);
      expect(dep.body.data).toMatchObject({ account_id: accountId, deposited_amount: "2000000", transaction_hash: expect.stringMatching(/^0x/) });
      expect(dep.body.data).toHaveProperty("new_available_margin");
      depositRequestId = dep.body.data.request_id;
      const wd = await req("POST", `/v1/accounts/${accountId}/withdraw`, { key: trader.apiKey, body: { amount: "1000000" } });
      expect(wd.status).toBe(200);
      expect(wd.body.data).toMatchObject({ withdrawn_amount: "1000000", withdrawn_amount_formatted: "1" });
      const zero = await req("POST", `/v1/accounts/${accountId}/withdraw`, { key: trader.apiKey, body: { amount: "0" } });
      expect(zero.status).toBe(400);
      expect(zero.body.error!.code).toBe("INVALID_AMOUNT");
    });

    it("GET /v1/transactions/{id} reports a write", async () => {
      expect(depositRequestId).toBeTruthy();
      const r = await req("GET", `/v1/transactions/${depositRequestId}`, { key: trader.apiKey });
      expect(r.status).toBe(200);
      expectSnake(r.body.data);
      expect(r.body.data).toMatchObject({ request_id: depositRequestId, transaction_status: "CONFIRMED" });
      expect((await req("GET", "/v1/transactions/does-not-exist", { key: trader.apiKey })).status).toBe(404);
    });

    it("valid_until is forwarded (one in the past: 400); a mined write cannot be cancelled (409), another's is not found (404)", async () => {
      const past = await req("POST", `/v1/accounts/${accountId}/deposit`, { key: trader.apiKey, body: { amount: "1000000", valid_until: "1000" } });
      expect([past.status, past.body.error!.code]).toEqual([400, "VALIDATION_ERROR"]);
      expect(past.body.error!.message).toMatch(/validUntil/);
      const soon = await req("POST", `/v1/accounts/${accountId}/deposit`, { key: trader.apiKey, body: { amount: "1000000", valid_until: String(Math.floor(Date.now() / 1000) + 120) } });
      expect(soon.status).toBe(200);
      const status = await req("GET", `/v1/transactions/${soon.body.data.request_id}`, { key: trader.apiKey });
      expect(status.body.data.valid_until).toBeGreaterThan(Math.floor(Date.now() / 1000));
      const mined = await req("POST", `/v1/transactions/${depositRequestId}/cancel`, { key: trader.apiKey });
      expect([mined.status, mined.body.error!.code]).toEqual([409, "NOT_CANCELLABLE"]);
      const theirs = await req("POST", `/v1/transactions/${depositRequestId}/cancel`, { key: other.apiKey });
      expect([theirs.status, theirs.body.error!.code]).toEqual([404, "TRANSACTION_NOT_FOUND"]);
    });

    it("trade LIMIT (integers in), list with filters, cancel with { market_id, client_key }", async () => {
      // a bid 0.5 % under the mark, on the deploy's tick (0.00001), inside the relayer's operator band: it rests
      const mark = await req("GET", `/v1/markets/${market.marketId}/price`, { key: trader.apiKey });
      expect(mark.status, JSON.stringify(mark.body)).toBe(200);
      const tick = 10n ** 13n;
      const bidPrice = ((BigInt(mark.body.data.mark_price) * 995n) / 1000n / tick) * tick;
      const placed = await req("POST", `/v1/accounts/${accountId}/trade`, {
        key: trader.apiKey,
        headers: { "Idempotency-Key": `gw-e2e-${s.kind}-limit` },
        body: { market_id: market.marketId, collateral: "50000000", side: 0, leverage: 2, order_type: 1, limit_price: bidPrice.toString() },
      });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      expectSnake(placed.body.data);
      expect(placed.body.data).toMatchObject({ market_id: market.marketId, side: "LONG", order_type: "LIMIT", status: expect.any(String) });
      const clientKey: Hex = placed.body.data.client_key;
      const block = placed.body.data.block_number;

      // read your own write: min_block, and a bounded retry while a loaded indexer catches up
      const listed = async (query: string) => {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const r = await req("GET", `/v1/accounts/${accountId}/orders?${query}`, { key: trader.apiKey });
          const keys = r.status === 200 ? r.body.data.orders.map((o: { client_key: string }) => o.client_key) : [];
          if (keys.includes(clientKey) || Date.now() > deadline) return { r, keys };
          await new Promise((res) => setTimeout(res, 250));
        }
      };
      const { r: active, keys: activeKeys } = await listed(`market_id=${market.marketId}&status=active&min_block=${block ?? 0}`);
      expect(active.status).toBe(200);
      expectSnake(active.body.data);
      expect(activeKeys).toContain(clientKey);
      expect(active.body.data.total_count).toBeGreaterThanOrEqual(1);

      const cancelled = await req("POST", `/v1/accounts/${accountId}/orders/cancel`, {
        key: trader.apiKey,
        body: { market_id: market.marketId, client_key: clientKey },
      });
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect(cancelled.body.data).toMatchObject({ client_key: clientKey, margin_returned: expect.any(String) });
      const again = await req("POST", `/v1/accounts/${accountId}/orders/cancel`, {
        key: trader.apiKey,
        body: { market_id: market.marketId, client_key: clientKey },
      });
      expect(again.status).toBe(404);
      expect(again.body.error!.code).toBe("ORDER_NOT_FOUND");

      const { keys: cancelledKeys } = await listed(`status=cancelled&min_block=${cancelled.body.data.block_number ?? 0}`);
      expect(cancelledKeys).toContain(clientKey);
    });

    it("orders page with an opaque cursor; orders placed while paging are returned once, on a fresh first page", async () => {
      const mark = await req("GET", `/v1/markets/${market.marketId}/price`, { key: trader.apiKey });
      const tick = 10n ** 13n;
      const place = async (i: number) => {
        const price = ((BigInt(mark.body.data.mark_price) * BigInt(9_950 - i)) / 10_000n / tick) * tick; // resting bids
        const r = await req("POST", `/v1/accounts/${accountId}/trade`, {
          key: trader.apiKey,
          body: { market_id: market.marketId, collateral: "10000000", side: "0", leverage: "2", order_type: 1, limit_price: price.toString() },
        });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        return { key: r.body.data.client_key as string, block: Number(r.body.data.block_number ?? 0) };
      };
      const before = [await place(1), await place(2), await place(3)];
      const page = (query: string) => req("GET", `/v1/accounts/${accountId}/orders?status=active&${query}`, { key: trader.apiKey });

      const first = await page(`limit=2&min_block=${before[2]!.block}`);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.data).toMatchObject({ has_more: true, next_cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/) });
      const seen: string[] = first.body.data.orders.map((o: { client_key: string }) => o.client_key);
      const during = await place(4); // a newer order lands between two pages
      let cursor: string | null = first.body.data.next_cursor;
      while (cursor) {
        const r = await page(`limit=2&cursor=${cursor}&min_block=${during.block}`);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        seen.push(...r.body.data.orders.map((o: { client_key: string }) => o.client_key));
        cursor = r.body.data.has_more ? r.body.data.next_cursor : null;
        if (!r.body.data.has_more) expect(r.body.data.next_cursor).toBeNull();
      }
      expect(new Set(seen).size).toBe(seen.length); // each once
      for (const o of before) expect(seen).toContain(o.key);
      expect(seen).not.toContain(during.key); // newer than the cursor: on a fresh first page
      expect((await page("limit=1")).body.data.orders[0].client_key).toBe(during.key);

      for (const q of ["limit=0", "limit=1001", "cursor=!!", "cursor=abc"]) {
        const bad = await page(q);
        expect(bad.status, q).toBe(400);
        expect(bad.body.error!.code).toBe("VALIDATION_ERROR");
      }
      for (const o of [...before, during]) {
        const c = await req("POST", `/v1/accounts/${accountId}/orders/cancel`, { key: trader.apiKey, body: { market_id: market.marketId, client_key: o.key } });
        expect(c.status, JSON.stringify(c.body)).toBe(200);
      }
    });

    it("read-your-writes: a trade, then at once the position with the same key, no min_block", async () => {
      const gbp = s.deployment.markets[1]!.marketId;
      const before = await req("GET", `/v1/accounts/${accountId}/positions/${gbp}`, { key: trader.apiKey });
      expect(before.status).toBe(200);
      const placed = await req("POST", `/v1/accounts/${accountId}/trade`, {
        key: trader.apiKey,
        body: { market_id: gbp, collateral: "20000000", side: 0, leverage: 2, order_type: 0 },
      });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      const block = Number(placed.body.data.block_number);
      expect(block).toBeGreaterThan(0);
      // no retry and no min_block: the gateway waits for the key's last write by itself
      const after = await req("GET", `/v1/accounts/${accountId}/positions/${gbp}`, { key: trader.apiKey });
      expect(after.status).toBe(200);
      expect(Number(after.headers.get("x-indexed-block"))).toBeGreaterThanOrEqual(block);
      if (BigInt(placed.body.data.filled_quantity ?? "0") > 0n) {
        expect(after.body.data.is_open).toBe(true);
        expect(after.body.data.size).not.toBe(before.body.data.size);
      }
    });

    it("position margin: ADD and REMOVE in snake_case, the chain's margin in the answer and the next read; too much is 422", async () => {
      const gbp = s.deployment.markets[1]!.marketId;
      const placed = await req("POST", `/v1/accounts/${accountId}/trade`, {
        key: trader.apiKey,
        body: { market_id: gbp, collateral: "30000000", side: 0, leverage: 3, order_type: 0 },
      });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      const path = `/v1/accounts/${accountId}/positions/${gbp}/margin`;
      const add = await req("POST", path, { key: trader.apiKey, body: { action: "ADD", amount: "5000000" } });
      expect(add.status, JSON.stringify(add.body)).toBe(200);
      expectSnake(add.body.data);
      expect(add.body.data).toMatchObject({ account_id: accountId, market_id: gbp, action: "ADD", amount: "5000000", amount_formatted: "5", transaction_status: "CONFIRMED" });
      const position = await req("GET", `/v1/accounts/${accountId}/positions/${gbp}`, { key: trader.apiKey });
      expect(position.body.data.margin).toBe(add.body.data.position_margin);
      const remove = await req("POST", path, { key: trader.apiKey, body: { action: "REMOVE", amount: "5000000" } });
      expect(remove.status, JSON.stringify(remove.body)).toBe(200);
      // the removal settles the funding accrued since the addition first (its PositionUpdated says how much)
      const receipt = await publicClient(s).getTransactionReceipt({ hash: remove.body.data.transaction_hash });
      const [moved] = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "PositionUpdated" });
      expect(BigInt(remove.body.data.position_margin)).toBe(BigInt(add.body.data.position_margin) - moved!.args.fundingPaidWad - 5_000_000n * 10n ** 12n);
      const tooMuch = await req("POST", path, { key: trader.apiKey, body: { action: "REMOVE", amount: "1000000000000" } });
      expect([tooMuch.status, tooMuch.body.error!.code]).toEqual([422, "INSUFFICIENT_MARGIN"]);
      const theirs = await req("POST", path, { key: other.apiKey, body: { action: "ADD", amount: "1" } });
      expect(theirs.status).toBe(403);
      const closed = await req("POST", `/v1/accounts/${accountId}/positions/${gbp}/close`, { key: trader.apiKey, body: {} });
      expect(closed.status, JSON.stringify(closed.body)).toBe(201);
    });

    it("close without a position: 404 NO_POSITION (another wallet's account: 403)", async () => {
      const other3 = s.deployment.markets[2]!.marketId;
      const none = await req("POST", `/v1/accounts/${accountId}/positions/${other3}/close`, { key: trader.apiKey, body: {} });
      expect(none.status, JSON.stringify(none.body)).toBe(404);
      expect(none.body.error!.code).toBe("NO_POSITION");
      const theirs = await req("POST", `/v1/accounts/${accountId}/positions/${other3}/close`, { key: other.apiKey, body: {} });
      expect(theirs.status).toBe(403);
    });

    it("wrong JSON types and malformed bodies are 400 VALIDATION_ERROR naming the field", async () => {
      const good = { market_id: market.marketId, collateral: "1000000", side: 0, leverage: 2, order_type: 0 };
      for (const [patch, field] of [
        [{ side: "2" }, "side"],
        [{ side: "LONG" }, "side"],
        [{ leverage: "2.5" }, "leverage"],
        [{ order_type: "MARKET" }, "order_type"],
        [{ collateral: 1000000 }, "collateral"],
        [{ limit_price: 1 }, "limit_price"],
        [{ market_id: 5 }, "market_id"],
      ] as const) {
        const r = await req("POST", `/v1/accounts/${accountId}/trade`, { key: trader.apiKey, body: { ...good, ...patch } });
        expect(r.status, field).toBe(400);
        expect(r.body.error!.code).toBe("VALIDATION_ERROR");
        expect(r.body.error!.message).toContain(field);
      }
      const malformed = await req("POST", `/v1/accounts/${accountId}/deposit`, { key: trader.apiKey, raw: "{amount:" });
      expect(malformed.status).toBe(400);
      const amountNumber = await req("POST", `/v1/accounts/${accountId}/deposit`, { key: trader.apiKey, body: { amount: 5 } });
      expect(amountNumber.status).toBe(400);
      expect(amountNumber.body.error!.message).toContain("amount");
      const cancelBad = await req("POST", `/v1/accounts/${accountId}/orders/cancel`, { key: trader.apiKey, body: { market_id: market.marketId } });
      expect(cancelBad.status).toBe(400);
      expect(cancelBad.body.error!.message).toContain("client_key");
      // integer-like values as JSON integers or their strings alike (the spec): 0 and "0" are one value
      for (const leverage of [0, "0"]) {
        const lev0 = await req("POST", `/v1/accounts/${accountId}/trade`, { key: trader.apiKey, body: { ...good, leverage, side: "0", order_type: "0" } });
        expect(lev0.status, JSON.stringify(lev0.body)).toBe(400);
        expect(lev0.body.error!.code).toBe("EXCEEDS_MAX_LEVERAGE");
      }
    });

    it("POST /v1/accounts/create: only for the key's wallet", async () => {
      const r = await req("POST", "/v1/accounts/create", { key: fresh.apiKey, body: { owner: fresh.address } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expectSnake(r.body.data);
      expect(r.body.data).toMatchObject({ account_id: expect.any(Number), account_address: expect.stringMatching(/^0x/) });
      expect(r.body.data.owner.toLowerCase()).toBe(fresh.address.toLowerCase());
      const twice = await req("POST", "/v1/accounts/create", { key: fresh.apiKey, body: { owner: fresh.address } });
      expect(twice.status).toBe(400);
      expect(twice.body.error!.code).toBe("ACCOUNT_EXISTS");
      const noOwner = await req("POST", "/v1/accounts/create", { key: fresh.apiKey, body: {} });
      expect(noOwner.status).toBe(400);
      expect(noOwner.body.error!.message).toContain("owner");
    });

    it("operator approval: typed data (verbatim EIP-712) signed by the owner, submitted through the gateway", async () => {
      const r = await req("GET", "/v1/operators/typed-data", { key: fresh.apiKey });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const td = r.body.data;
      expect(td).toHaveProperty("primaryType");
      expect(td.domain).toHaveProperty("verifyingContract");
      expect(td.message.owner.toLowerCase()).toBe(fresh.address.toLowerCase());
      const account = privateKeyToAccount(fresh.privateKey);
      const signature = await account.signTypedData({ domain: td.domain, types: td.types, primaryType: td.primaryType, message: td.message });
      const wrongOwner = await req("POST", "/v1/operators/approve", {
        key: fresh.apiKey,
        body: { owner: trader.address, expiry: td.message.expiry, deadline: td.message.deadline, signature },
      });
      expect(wrongOwner.status).toBe(403);
      const approved = await req("POST", "/v1/operators/approve", {
        key: fresh.apiKey,
        body: { owner: fresh.address, expiry: td.message.expiry, deadline: td.message.deadline, signature },
      });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      expectSnake(approved.body.data);
      expect(approved.body.data.transaction_hash).toMatch(/^0x/);
      const replay = await req("POST", "/v1/operators/approve", {
        key: fresh.apiKey,
        body: { owner: fresh.address, expiry: td.message.expiry, deadline: td.message.deadline, signature },
      });
      expect(replay.body.success).toBe(false);
      expect(replay.status).toBeLessThan(500);
    });
  });

  describe("liquidation (keeper)", () => {
    const positionId = keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "bytes32" }], [BigInt(accountId), market.marketId as Hex]));

    it("reads: account health, market, account, position", async () => {
      const health = await req("GET", `/v1/liquidation/accounts/${accountId}/health`, { key: other.apiKey });
      expect(health.status, JSON.stringify(health.body)).toBe(200);
      expectSnake(health.body.data);
      const m = await req("GET", `/v1/liquidation/market/${market.marketId}`, { key: other.apiKey });
      expect(m.status).toBe(200);
      expectSnake(m.body.data);
      const a = await req("GET", `/v1/liquidation/account/${accountId}`, { key: other.apiKey });
      expect(a.status).toBe(200);
      const p = await req("GET", `/v1/liquidation/position/${positionId}`, { key: other.apiKey });
      expect([200, 404]).toContain(p.status);
      if (p.status === 404) expect(p.body.error!.code).toMatch(/NOT_FOUND|NO_POSITION/);
    });

    it("liquidating healthy or absent positions fails cleanly (any valid key may call)", async () => {
      const acc = await req("POST", `/v1/liquidation/account/${accountId}/liquidate`, { key: other.apiKey });
      expect(acc.body.success).toBe(false);
      expect([404, 409]).toContain(acc.status);
      const pos = await req("POST", `/v1/liquidation/position/${positionId}/liquidate`, { key: other.apiKey });
      expect(pos.body.success).toBe(false);
      expect([404, 409]).toContain(pos.status);
      expect((await req("POST", `/v1/liquidation/position/0x12/liquidate`, { key: other.apiKey })).status).toBe(400);
    });
  });

  it("the OpenAPI document lists every route of the spec's table; the docs page loads locally", async () => {
    const doc = (await (await fetch(`${s.gatewayUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const table: [string, string][] = [
      ["get", "/health"], ["get", "/health/{service}"], ["post", "/v1/accounts/create"], ["get", "/v1/accounts/{id}"],
      ["post", "/v1/accounts/{id}/deposit"], ["post", "/v1/accounts/{id}/withdraw"], ["post", "/v1/accounts/{account_id}/trade"],
      ["get", "/v1/accounts/{account_id}/orders"], ["post", "/v1/accounts/{account_id}/orders/cancel"], ["get", "/v1/markets"],
      ["get", "/v1/markets/{market_id}/orderbook"], ["get", "/v1/markets/{market_id}/funding"],
      ["get", "/v1/liquidation/accounts/{id}/health"], ["get", "/v1/liquidation/market/{market_id}"],
      ["get", "/v1/liquidation/account/{account_id}"], ["get", "/v1/liquidation/position/{position_id}"],
      ["post", "/v1/liquidation/account/{account_id}/liquidate"], ["post", "/v1/liquidation/position/{position_id}/liquidate"],
    ];
    for (const [m, p] of table) expect(doc.paths[p]?.[m], `${m} ${p}`).toBeDefined();
    const page = await fetch(`${s.gatewayUrl}/v1/docs`);
    expect(page.status).toBe(200);
    expect((await fetch(`${s.gatewayUrl}/v1/docs/assets/swagger-ui.css`)).status).toBe(200);
  });

  it("GET /v1/accounts/{id}/operators: the relayer with its on-chain policy and the budget its orders used (the integration API's answer, snake_case)", async () => {
    const r = await req("GET", `/v1/accounts/${accountId}/operators`, { key: trader.apiKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expectSnake(r.body.data);
    expect(r.body.data).toMatchObject({ account_id: accountId, owner: getAddress(trader.address) });
    const ops = r.body.data.operators as Array<Record<string, any>>;
    expect(ops.length).toBeGreaterThan(0);
    const client = createPublicClient({ transport: http(s.rpcUrl) });
    for (const op of ops) {
      // expiry and policy as the engine holds them
      const chain = await client.readContract({
        address: s.deployment.contracts.engine as Hex, abi: engineAbi, functionName: "operatorState", args: [trader.address as Hex, op.operator as Hex],
      });
      expect(op.expiry).toBe(Number(chain.expiry));
      expect(op.policy).toEqual({ max_leverage: chain.maxLeverage, band_bps: chain.bandBps, budget_bps: chain.budgetBps });
      expect(BigInt(op.budget_used_now)).toBeLessThanOrEqual(BigInt(op.budget_used));
    }
    // this file's trades went through the relayer: its budget was charged
    const charged = ops.filter((o) => BigInt(o.budget_used) > 0n);
    expect(charged.length, JSON.stringify(ops)).toBeGreaterThan(0);
    for (const o of charged) {
      expect(o.active).toBe(true);
      expect(BigInt(o.budget)).toBeGreaterThan(0n);
      expect(o.budget_at_iso).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    // the integration API's own answer, camelCase, the same values
    const direct = await fetch(`${s.integrationUrl}/accounts/${accountId}/operators`);
    expect(direct.status).toBe(200);
    const body = (await direct.json()) as { data: Record<string, unknown> };
    expect(body.data).toHaveProperty("operators");
    expect(snakeKeys(body.data)).toMatchObject({ account_id: accountId, owner: getAddress(trader.address) });
    // an unknown account: 404 in the envelope
    const missing = await req("GET", `/v1/accounts/999999/operators`, { key: trader.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.body.error!.code).toBe("ACCOUNT_NOT_FOUND");
    expect((await req("GET", `/v1/accounts/x/operators`, { key: trader.apiKey })).status).toBe(400);
  });

  it("carries the request id end to end", async () => {
    const r = await req("GET", `/v1/accounts/${accountId}`, { key: trader.apiKey, headers: { "X-Request-Id": `gw-e2e-${s.kind}` } });
    expect(r.headers.get("x-request-id")).toBe(`gw-e2e-${s.kind}`);
  });
});
