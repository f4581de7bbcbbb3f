/**
 * The read routes' edges over real HTTP: malformed and unknown ids, bad query values (400/404
 * envelopes, never a 500), empty answers (no account, no position), X-Indexed-Block and
 * ?minBlock, the OpenAPI document (every route of the spec, reads and writes) and /docs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { UNKNOWN_MARKET } from "./helpers/hot-urls.js";
import { dbKinds } from "./stack.js";
import { sessionActions } from "./reads-session.js";
import { until } from "./helpers/wait.js";

type Json = Record<string, any>;

const BAD_ACCOUNT_IDS = ["abc", "-1", "0", "1.5", "0x01", "1e3", "9".repeat(80), "%20"];
const BAD_MARKET_IDS = ["0x12", "abc", `0x${"g".repeat(64)}`, `0x${"a".repeat(66)}`, "a".repeat(64), "-1"];
const BAD_ADDRESSES = ["0x12", "xyz", `0x${"z".repeat(40)}`, `0x${"1".repeat(42)}`];

describe.each(dbKinds())("read routes on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let EUR: string;
  let acct: bigint;

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${ix.url}${path}`, { headers });
    const text = await res.text();
    let body: Json;
    try {
      body = JSON.parse(text);
    } catch {
      body = { raw: text };
    }
    return { status: res.status, body, block: res.headers.get("x-indexed-block"), cache: res.headers.get("x-cache") };
  };
  const expectError = async (path: string, status: number, code: string) => {
    const r = await get(path);
    expect({ path, status: r.status, code: r.body.error?.code, success: r.body.success }).toEqual({ path, status, code, success: false });
    expect(typeof r.body.error.message).toBe("string");
  };

  beforeAll(async () => {
    v = await startVenue(kind);
    ix = await v.startIndexer("reads");
    EUR = v.deployment.markets[0]!.marketId;
    acct = v.accountIds[0]!;
    const { place, setPrice } = sessionActions(v);
    // a fresh index first: the indexer may take longer to start than the oracle's staleness bound (60 s on a devnet)
    await setPrice(EUR as `0x${string}`, "1.0800");
    await place(0, EUR as `0x${string}`, "SHORT", "LIMIT", "1000", 10, "1.0850");
    await place(1, EUR as `0x${string}`, "LONG", "LIMIT", "1000", 10, "1.0750");
    await waitForBlock(ix.url, await v.client.getBlockNumber({ cacheTime: 0 }));
  }, 300_000);
  afterAll(async () => {
    await v?.stop();
  });

  it("malformed ids answer 400 VALIDATION_ERROR on every route", async () => {
    for (const id of BAD_ACCOUNT_IDS) {
      for (const path of [`/accounts/${id}`, `/accounts/${id}/orders`, `/accounts/${id}/positions/${EUR}`, `/accounts/${id}/positions/${EUR}/funding`]) {
        await expectError(path, 400, "VALIDATION_ERROR");
      }
    }
    for (const id of BAD_MARKET_IDS) {
      for (const path of [
        `/markets/${id}`,
        `/markets/${id}/funding`,
        `/markets/${id}/orderbook`,
        `/markets/${id}/price`,
        `/accounts/${acct}/positions/${id}`,
        `/accounts/${acct}/positions/${id}/funding`,
        `/accounts/${acct}/orders?marketId=${id}`,
      ]) {
        await expectError(path, 400, "VALIDATION_ERROR");
      }
    }
    for (const a of BAD_ADDRESSES) await expectError(`/accounts/by-address/${a}`, 400, "VALIDATION_ERROR");
  });

  it("bad query values answer 400 naming the field", async () => {
    for (const depth of ["0", "101", "-1", "abc", "1.5", "1e2", " 5"]) {
      await expectError(`/markets/${EUR}/orderbook?depth=${depth}`, 400, "VALIDATION_ERROR");
    }
    const r = await get(`/markets/${EUR}/orderbook?depth=1000`);
    expect(r.body.error.message).toMatch(/^depth/);
    for (const q of ["status=foo", "status=ACTIVE", "limit=0", "limit=abc", "limit=100000", "offset=-1"]) {
      await expectError(`/accounts/${acct}/orders?${q}`, 400, "VALIDATION_ERROR");
    }
    for (const q of ["minBlock=-1", "minBlock=abc", `minBlock=${"9".repeat(40)}`]) {
      await expectError(`/markets?${q}`, 400, "VALIDATION_ERROR");
    }
  });

  it("unknown ids answer 404 with the spec's codes", async () => {
    for (const path of ["/accounts/999999", "/accounts/999999/orders", `/accounts/999999/positions/${EUR}`, `/accounts/999999/positions/${EUR}/funding`]) {
      await expectError(path, 404, "ACCOUNT_NOT_FOUND");
    }
    for (const path of [
      `/markets/${UNKNOWN_MARKET}`,
      `/markets/${UNKNOWN_MARKET}/funding`,
      `/markets/${UNKNOWN_MARKET}/orderbook`,
      `/markets/${UNKNOWN_MARKET}/price`,
      `/accounts/${acct}/positions/${UNKNOWN_MARKET}`,
      `/accounts/${acct}/orders?marketId=${UNKNOWN_MARKET}`,
    ]) {
      await expectError(path, 404, "MARKET_NOT_FOUND");
    }
    await expectError("/no/such/route", 404, "NOT_FOUND");
  });

  it("empty answers: no account for an address, no open position, an empty filter", async () => {
    const none = await get(`/accounts/by-address/0x${"12".repeat(20)}`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ success: true, data: { accountId: 0, exists: false } });
    const owner = await get(`/accounts/by-address/${v.wallet(0).account.address.toLowerCase()}`);
    expect(owner.body.data).toMatchObject({ accountId: Number(acct), exists: true });
    const p = await get(`/accounts/${acct}/positions/${EUR}`);
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ isOpen: false, side: null, size: "0", health: null });
    const f = await get(`/accounts/${acct}/positions/${EUR}/funding`);
    expect(f.body.data).toMatchObject({ pendingFunding: "0", direction: "NONE" });
    const o = await get(`/accounts/${acct}/orders?status=filled`);
    expect(o.body.data).toEqual({ orders: [], totalCount: 0, hasMore: false, nextCursor: null });
    const active = await get(`/accounts/${acct}/orders?status=active&marketId=${EUR.toUpperCase().replace("0X", "0x")}`);
    expect(active.body.data.totalCount).toBe(1);
    expect(active.body.data.orders[0]).toMatchObject({ side: "SHORT", orderType: "LIMIT", isActive: true, fillPercent: 0, priceFormatted: "1.085" });
    const book = await get(`/markets/${EUR}/orderbook`);
    expect(book.body.data.spread).toMatchObject({ absolute: "10000000000000000", absoluteFormatted: "0.01" });
    expect(book.body.data.midPriceFormatted).toBe("1.08");
  });

  it("every read answers X-Indexed-Block; ?minBlock waits (bounded) for the block", async () => {
    await sessionActions(v).setPrice(EUR as `0x${string}`, "1.0800"); // the oracle's staleness bound (60 s on a devnet)
    const head = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(ix.url, head);
    for (const path of [`/accounts/${acct}`, `/accounts/${acct}/orders`, `/markets`, `/markets/${EUR}/price`, `/markets/${EUR}/orderbook`]) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(Number(r.block), path).toBeGreaterThanOrEqual(Number(head));
    }
    // read-your-writes: ask for the next block, then mine it (nothing else mines on this venue: the
    // answer cannot come before the order's block, whenever the request reaches the server)
    const pending = get(`/accounts/${acct}/orders?minBlock=${head + 1n}`);
    await sessionActions(v).place(0, EUR as `0x${string}`, "SHORT", "LIMIT", "500", 10, "1.0860");
    const r = await pending;
    expect(r.status).toBe(200);
    expect(Number(r.block)).toBeGreaterThanOrEqual(Number(head) + 1);
    expect(r.body.data.totalCount).toBe(2);
    // a block far ahead: the wait is bounded (the test's timeout is the liveness bound), then 503
    const late = await get(`/markets?minBlock=${head + 1000n}`);
    expect(late.status).toBe(503);
    expect(late.body.error.code).toBe("SERVICE_UNAVAILABLE");
  });

  it("the read service serves the integration API's answers from memory, one build per indexed block", async () => {
    const rd = await v.startReads(ix);
    const at = async (base: string, path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, { headers });
      return { status: res.status, text: await res.text(), block: res.headers.get("x-indexed-block"), cache: res.headers.get("x-cache") };
    };
    const hot = [
      "/markets",
      `/markets/${EUR}`,
      `/markets/${EUR}/orderbook`,
      `/markets/${EUR}/orderbook?depth=3`,
      `/markets/${EUR}/funding`,
      `/markets/${EUR}/price`,
      `/accounts/${acct}`,
      `/accounts/${acct}/orders`,
      `/accounts/${acct}/orders?status=active&limit=5`,
      `/accounts/${acct}/positions/${EUR}`,
      `/accounts/${acct}/positions/${EUR}/funding`,
    ];
    for (const path of hot) {
      const first = await at(rd.url, path);
      expect([path, first.status]).toEqual([path, 200]);
      // held: a later read is a HIT with the same bytes. Until the service's block feed is live
      // it passes reads to Ponder (no X-Cache), and a new indexed state may land between two reads
      // (the feed's checkpoint can move without a new event), which rebuilds the answer: so the
      // HIT is awaited (a liveness bound), not expected of the very next read.
      const again = await until(`${path} held by the read service`, async () => {
        const r = await at(rd.url, path);
        return r.cache === "HIT" ? r : null;
      }, 30_000, 100);
      expect([path, again.cache, again.text, again.block]).toEqual([path, "HIT", first.text, first.block]);
      // the same bytes as Ponder's own route at that block (nothing is indexed meanwhile)
      const direct = await at(ix.url, path, { "Cache-Control": "no-cache" });
      expect([path, direct.text, direct.block]).toEqual([path, first.text, first.block]);
    }
    // errors are the integration API's own, never held
    await expect(at(rd.url, "/accounts/abc")).resolves.toMatchObject({ status: 400 });
    await expect(at(rd.url, `/markets/${EUR}/orderbook?depth=0`)).resolves.toMatchObject({ status: 400 });
    await expect(at(rd.url, `/markets?minBlock=abc`)).resolves.toMatchObject({ status: 400 });
    const missing = await at(rd.url, `/markets/${UNKNOWN_MARKET}/orderbook`);
    expect([missing.status, JSON.parse(missing.text).error.code]).toEqual([404, "MARKET_NOT_FOUND"]);
    expect((await at(rd.url, "/accounts/999999")).status).toBe(404);
    // everything else is passed to Ponder
    expect((await at(rd.url, "/openapi.json")).status).toBe(200);
    expect(JSON.parse((await at(rd.url, `/accounts/by-address/0x${"12".repeat(20)}`)).text).data.exists).toBe(false);

    // a new block: every held answer is rebuilt by the service, the next read is a HIT at the new block
    const book = JSON.parse((await at(rd.url, `/markets/${EUR}/orderbook`)).text).data;
    await sessionActions(v).setPrice(EUR as `0x${string}`, "1.0800"); // the oracle's staleness bound (60 s on a devnet)
    const r = await sessionActions(v).place(2, EUR as `0x${string}`, "SHORT", "LIMIT", "200", 10, "1.0880");
    const after = await at(rd.url, `/markets/${EUR}/orderbook?minBlock=${r.blockNumber}`);
    expect(after.status).toBe(200);
    expect(Number(after.block)).toBeGreaterThanOrEqual(Number(r.blockNumber));
    expect(JSON.parse(after.text).data.asks.length).toBe(book.asks.length + 1);
    const again = await at(rd.url, `/markets/${EUR}/orderbook`);
    expect([again.cache, again.text]).toEqual(["HIT", after.text]);
    const orders = JSON.parse((await at(rd.url, `/accounts/${v.accountIds[2]}/orders?minBlock=${r.blockNumber}`)).text).data;
    expect(orders.orders[0].priceFormatted).toBe("1.088");
    // no-cache revalidates against the indexed state: the same answer while nothing changed
    const fresh = await at(rd.url, `/markets/${EUR}/orderbook`, { "Cache-Control": "no-cache" });
    expect([fresh.status, fresh.text]).toEqual([200, after.text]);
    // PGlite: Ponder's process serves the indexed state from a thread indexing does not block
    // (src/api/lib/stateServer.ts), advertised on /blocks/*, its bytes Ponder's; the read
    // service's no-cache reads revalidate there. Postgres: none (the read service reads Postgres)
    const cur = await fetch(`${ix.url}/blocks/current`);
    const stateUrl = cur.headers.get("x-indexed-state-url");
    const stream = new AbortController();
    const streamed = await fetch(`${ix.url}/blocks/stream`, { signal: stream.signal });
    stream.abort();
    expect(streamed.headers.get("x-indexed-state-url")).toBe(stateUrl);
    if (kind === "pglite") {
      expect(stateUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/blocks\/current$/);
      expect(await (await fetch(stateUrl!)).text()).toBe(await cur.text());
    } else expect(stateUrl).toBeNull();
    // a no-cache read follows a new block without ?minBlock: Ponder's bytes and block
    const next = await sessionActions(v).place(2, EUR as `0x${string}`, "SHORT", "LIMIT", "200", 10, "1.0890");
    let seen = fresh;
    for (const deadline = Date.now() + 10_000; Number(seen.block) < Number(next.blockNumber) && Date.now() < deadline; ) {
      seen = await at(rd.url, `/markets/${EUR}/orderbook`, { "Cache-Control": "no-cache" });
    }
    expect(Number(seen.block)).toBeGreaterThanOrEqual(Number(next.blockNumber));
    const ponderAt = await at(ix.url, `/markets/${EUR}/orderbook`, { "Cache-Control": "no-cache" });
    expect([seen.status, seen.block, seen.text]).toEqual([200, ponderAt.block, ponderAt.text]);
    expect(JSON.parse(seen.text).data.asks.length).toBe(JSON.parse(after.text).data.asks.length + 1);
    // a block far ahead: bounded wait, then 503 as from the integration API
    const late = await at(rd.url, `/markets?minBlock=${r.blockNumber + 1000n}`);
    expect([late.status, JSON.parse(late.text).error.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
  });

  it("the OpenAPI document lists every route of the spec, reads and writes", async () => {
    const doc = (await get("/openapi.json")).body;
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const spec = [
      "GET /accounts/{accountId}",
      "GET /accounts/by-address/{userAddress}",
      "GET /accounts/{accountId}/positions/{marketId}",
      "GET /accounts/{accountId}/orders",
      "GET /markets",
      "GET /markets/{marketId}",
      "GET /markets/{marketId}/funding",
      "GET /markets/{marketId}/orderbook",
      "GET /markets/{marketId}/price",
      "GET /accounts/{accountId}/positions/{marketId}/funding",
      "POST /accounts",
      "POST /accounts/{accountId}/deposit",
      "POST /accounts/{accountId}/withdraw",
      "POST /accounts/{accountId}/orders",
      "DELETE /accounts/{accountId}/orders/{clientKey}",
      "POST /accounts/{accountId}/positions/{marketId}/close",
    ];
    expect(spec.filter((r) => !routes.includes(r))).toEqual([]);
    // units documented from core/fields.ts
    const position = JSON.stringify(doc.components?.schemas?.Position ?? {});
    expect(position).toContain("base-asset quantity, 18 decimals");
    const docs = await fetch(`${ix.url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("/docs/assets/swagger-ui-bundle.js");
    const js = await fetch(`${ix.url}/docs/assets/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
  });

  it("SQL over HTTP is open in the local profile", async () => {
    const res = await fetch(`${ix.url}/sql/db?sql=${encodeURIComponent(JSON.stringify({ json: { sql: "select market_id from market where market_id = '0x00' limit 1", params: [], typings: [] } }))}`);
    expect(res.status).toBe(200);
  });

  // last: on Postgres it stops Ponder's server. The bytes of every hot answer, both surfaces, are
  // test/e2e/reads-golden.test.ts's (one read model: core/reads/plans.ts)
  it("the read service holds open positions and books; on Postgres it answers from the tables with Ponder's server stopped", async () => {
    const GBP = v.deployment.markets[1]!.marketId;
    const { place, setPrice, advance } = sessionActions(v);
    // an open position on each side (account 3 lifts account 0's best ask), then time for funding to accrue
    await setPrice(EUR as `0x${string}`, "1.0800");
    await place(3, EUR as `0x${string}`, "LONG", "MARKET", "100", 10);
    await advance(120);
    const rd = await v.startReads(ix);
    await waitForBlock(rd.url, await v.client.getBlockNumber({ cacheTime: 0 }));
    const at = async (base: string, path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, { headers });
      return { status: res.status, text: await res.text(), block: res.headers.get("x-indexed-block") };
    };
    const a3 = v.accountIds[3]!;
    const pos = JSON.parse((await at(rd.url, `/accounts/${a3}/positions/${EUR}`)).text).data;
    expect(pos).toMatchObject({ isOpen: true, side: "LONG" });
    expect(JSON.parse((await at(rd.url, `/accounts/${acct}/positions/${EUR}`)).text).data).toMatchObject({ isOpen: true, side: "SHORT" });
    expect(JSON.parse((await at(rd.url, `/markets/${EUR}/orderbook`)).text).data.asks.length).toBeGreaterThan(1);

    if (kind !== "postgres") return;
    // on Postgres the read service needs no Ponder server for these answers: stop it, then a new
    // block, new keys and no-cache reads are still answered, from the tables
    const before = await at(rd.url, `/markets/${EUR}/orderbook?depth=2`);
    await ix.proc.stop();
    const r = await setPrice(EUR as `0x${string}`, "1.0810");
    // nothing indexes the new block without Ponder: the state stays, answers are rebuilt from the tables
    expect((await at(rd.url, `/markets/${EUR}/orderbook?depth=2`, { "Cache-Control": "no-cache" })).text).toBe(before.text);
    const fresh = await at(rd.url, `/markets/${EUR}/orderbook?depth=3`, { "Cache-Control": "no-cache" });
    expect([fresh.status, JSON.parse(fresh.text).data.asks.length]).toEqual([200, 3]);
    expect((await at(rd.url, `/accounts/${a3}/positions/${GBP}/funding`)).status).toBe(200);
    expect(JSON.parse((await at(rd.url, "/accounts/999998")).text).error.code).toBe("ACCOUNT_NOT_FOUND");
    expect((await at(rd.url, `/markets/${EUR}/orderbook?depth=0`)).status).toBe(400);
    expect(Number((await at(rd.url, "/markets")).block)).toBeLessThan(Number(r.blockNumber));
  });
});
