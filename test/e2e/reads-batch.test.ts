/**
 * POST /internal/answers (src/api/routes/answers.ts) and the read service's batch builds
 * (services/reads/batch.ts, on PGlite): the integration
 * token only, 400 envelopes for bad bodies (never a 500), each answer byte for byte Ponder's own
 * route for that URL at the same block, answers after a new block carry it, `minBlock` ahead of
 * the chain a 503; on PGlite the read service builds through it and serves Ponder's bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SECRETS } from "../../core/profiles.js";
import { answerKey } from "../../core/reads/routes.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { sessionActions } from "./reads-session.js";
import { hotErrors, hotOk } from "./helpers/hot-urls.js";
import { dbKinds } from "./stack.js";

type Built = { status: number; body: string; block: string | null };

// The read service builds through this route where it cannot open the indexer's database: on
// PGlite (on Postgres it reads the tables itself; the answers' bytes on both databases are
// reads-golden's). Postgres only when the run has no PGlite.
const kinds = dbKinds().includes("pglite") ? (["pglite"] as const) : dbKinds();

describe.each(kinds)("POST /internal/answers and batch builds on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let EUR: `0x${string}`;
  let GBP: string;
  let acct: bigint;
  let a3: bigint;

  const post = async (body: unknown, token: string | null = DEFAULT_SECRETS.INTEGRATION_TOKEN) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (token !== null) headers["x-internal-token"] = token;
    const res = await fetch(`${ix.url}/internal/answers`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: JSON.parse(text) as Record<string, any>, block: res.headers.get("x-indexed-block") };
  };
  const at = async (base: string, path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { headers });
    return { status: res.status, text: await res.text(), block: res.headers.get("x-indexed-block") };
  };
  const head = () => v.client.getBlockNumber({ cacheTime: 0 });

  beforeAll(async () => {
    v = await startVenue(kind);
    ix = await v.startIndexer("batch");
    EUR = v.deployment.markets[0]!.marketId as `0x${string}`;
    GBP = v.deployment.markets[1]!.marketId;
    acct = v.accountIds[0]!;
    a3 = v.accountIds[3]!;
    const { place, setPrice } = sessionActions(v);
    await setPrice(EUR, "1.0800");
    await place(0, EUR, "SHORT", "LIMIT", "1000", 10, "1.0850");
    await place(1, EUR, "LONG", "LIMIT", "1000", 10, "1.0750");
    await place(0, EUR, "SHORT", "LIMIT", "500", 10, "1.0860");
    await place(3, EUR, "LONG", "MARKET", "100", 10);
    await waitForBlock(ix.url, await head());
  }, 300_000);
  afterAll(async () => {
    await v?.stop();
  });

  it("only the integration token: 401 without or with an unknown one, 403 with another service's (envelopes)", async () => {
    const body = { minBlock: "0", paths: ["/markets"] };
    for (const [token, status, code] of [
      [null, 401, "UNAUTHENTICATED"],
      ["nope-not-a-token", 401, "UNAUTHENTICATED"],
      [DEFAULT_SECRETS.GATEWAY_TOKEN, 403, "INSUFFICIENT_SCOPE"],
      [DEFAULT_SECRETS.KEEPER_TOKEN, 403, "INSUFFICIENT_SCOPE"],
    ] as const) {
      const r = await post(body, token);
      expect([token, r.status, r.json.success, r.json.error?.code]).toEqual([token, status, false, code]);
    }
    expect((await post(body)).status).toBe(200);
  });

  it("bad bodies answer 400 VALIDATION_ERROR envelopes, never a 500", async () => {
    const bad: unknown[] = [
      "not json",
      "",
      "[]",
      {},
      { paths: ["/markets"] },
      { minBlock: "0" },
      { minBlock: "0", paths: [] },
      { minBlock: "0", paths: Array.from({ length: 51 }, () => "/markets") },
      { minBlock: "abc", paths: ["/markets"] },
      { minBlock: -1, paths: ["/markets"] },
      { minBlock: 1.5, paths: ["/markets"] },
      { minBlock: "0", paths: ["/markets/x/trades"] },
      { minBlock: "0", paths: ["/openapi.json"] },
      { minBlock: "0", paths: [42] },
      { minBlock: "0", paths: [`/markets?${"x".repeat(3000)}`] },
      { minBlock: "0", paths: ["/markets"], extra: 1 },
    ];
    for (const body of bad) {
      const r = await post(body);
      expect([JSON.stringify(body).slice(0, 80), r.status, r.json.success, r.json.error?.code]).toEqual([JSON.stringify(body).slice(0, 80), 400, false, "VALIDATION_ERROR"]);
    }
  });

  it("each answer is Ponder's own route's bytes for that URL at the same block (200, 400 and 404), in one state", async () => {
    const page1 = JSON.parse((await at(ix.url, `/accounts/${acct}/orders?limit=1`)).text).data;
    expect(page1.nextCursor).toBeTruthy();
    // the list reads.test.ts reads too (helpers/hot-urls.ts; at most 50 paths here), and a plus
    // sign encoded (reads.test.ts sends it as typed)
    const ids = { EUR, GBP, acct, a3, cursor: page1.nextCursor as string };
    const urls = [...hotOk(ids), ...hotErrors(ids), `/markets/${EUR}/orderbook?depth=%2B5`];
    const keys = urls.map((u) => {
      const qi = u.indexOf("?");
      return qi < 0 ? u : answerKey(u.slice(0, qi), u.slice(qi + 1));
    });
    for (let attempt = 0; ; attempt++) {
      const r = await post({ minBlock: "0", paths: keys });
      expect(r.status).toBe(200);
      const answers = r.json.data.answers as Built[];
      expect(answers.length).toBe(keys.length);
      // one state: every answer carries the request's block
      expect(new Set(answers.map((a) => a.block))).toEqual(new Set([r.json.data.block]));
      expect(r.block).toBe(r.json.data.block);
      const direct = await Promise.all(urls.map((u) => at(ix.url, u, { "Cache-Control": "no-cache" })));
      // a block indexed between the batch and Ponder's reads (the state moves without trades too): again
      if (direct.some((d) => d.block !== r.json.data.block) && attempt < 3) continue;
      urls.forEach((u, i) => expect([u, answers[i]!.status, answers[i]!.block, answers[i]!.body]).toEqual([u, direct[i]!.status, direct[i]!.block, direct[i]!.text]));
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200, 400, 404]));
      expect(JSON.parse(answers[urls.indexOf(`/accounts/${a3}/positions/${EUR}`)]!.body).data).toMatchObject({ isOpen: true, side: "LONG" });
      return;
    }
  });

  it("after new blocks the answers carry the new block; minBlock ahead of the chain answers the 503 envelope", async () => {
    const { place } = sessionActions(v);
    const before = await post({ minBlock: "0", paths: [`/markets/${EUR}/orderbook`, `/accounts/${v.accountIds[2]}/orders`] });
    const asks = JSON.parse(before.json.data.answers[0].body).data.asks.length as number;
    const r = await place(2, EUR, "SHORT", "LIMIT", "200", 10, "1.0880");
    // asked at once, with the new block as minBlock: waits for it to be indexed
    const after = await post({ minBlock: r.blockNumber.toString(), paths: [`/markets/${EUR}/orderbook`, `/accounts/${v.accountIds[2]}/orders`] });
    expect(after.status).toBe(200);
    expect(BigInt(after.json.data.block)).toBeGreaterThanOrEqual(r.blockNumber);
    const [book, orders] = after.json.data.answers as Built[];
    expect(book!.block).toBe(after.json.data.block);
    expect(JSON.parse(book!.body).data.asks.length).toBe(asks + 1);
    expect(JSON.parse(orders!.body).data.orders[0].priceFormatted).toBe("1.088");
    const late = await post({ minBlock: (r.blockNumber + 1000n).toString(), paths: ["/markets"] });
    expect([late.status, late.json.success, late.json.error.code]).toEqual([503, false, "SERVICE_UNAVAILABLE"]);
    expect(BigInt(late.block!)).toBeGreaterThanOrEqual(r.blockNumber);
  });

  // the read service builds its answers through POST /internal/answers on PGlite only (on Postgres
  // it runs the same plans on its own pool: reads.test.ts, reads-golden.test.ts)
  it.runIf(kind === "pglite")("the read service on PGlite builds through the batch: Ponder's bytes, new blocks followed; with a wrong token its held reads fail", async () => {
    const rd = await v.startReads(ix);
    await waitForBlock(rd.url, await head());
    const hot = [
      "/markets",
      `/markets/${EUR}`,
      `/markets/${EUR}/orderbook?depth=3`,
      `/markets/${EUR}/funding`,
      `/markets/${EUR}/price`,
      `/accounts/${acct}`,
      `/accounts/${acct}/orders?status=active&limit=5`,
      `/accounts/${a3}/positions/${EUR}`,
      `/accounts/${a3}/positions/${EUR}/funding`,
      "/accounts/999999",
      `/markets/${EUR}/orderbook?depth=0`,
    ];
    const compare = async (path: string) => {
      for (let attempt = 0; ; attempt++) {
        const mine = await at(rd.url, path);
        const ponder = await at(ix.url, path, { "Cache-Control": "no-cache" });
        if (mine.block !== ponder.block && attempt < 3) continue;
        expect([path, mine.status, mine.block, mine.text]).toEqual([path, ponder.status, ponder.block, ponder.text]);
        return mine;
      }
    };
    for (const path of hot) await compare(path);
    // held now: a new block rebuilds them (one request), the next reads carry it
    await sessionActions(v).setPrice(EUR, "1.0800"); // the oracle's staleness bound (60 s on a devnet)
    const r = await sessionActions(v).place(2, EUR, "SHORT", "LIMIT", "200", 10, "1.0890");
    const book = await at(rd.url, `/markets/${EUR}/orderbook?depth=3&minBlock=${r.blockNumber}`);
    expect([book.status, BigInt(book.block!) >= r.blockNumber]).toEqual([200, true]);
    for (const path of hot) await compare(path);

    // the hot answers come from POST /internal/answers: with a token Ponder refuses, none is built
    const wrong = await v.startReads(ix, { INTEGRATION_TOKEN: "not-the-integration-token" });
    await waitForBlock(wrong.url, await head());
    expect((await at(wrong.url, `/markets/${EUR}/orderbook`)).status).toBe(503);
    expect((await at(wrong.url, "/openapi.json")).status).toBe(200); // passed through to Ponder as before
  });
});
