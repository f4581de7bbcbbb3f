/**
 * History (issue 13) on a venue of its own: the scripted session, then a random one, indexed by
 * a real Ponder. The lists reconcile with the chain's events (fills, funding payments, transfers,
 * liquidations), candles equal a recomputation from the trades (gap-free over empty periods,
 * `from` inclusive, `to` exclusive), paging while fills arrive returns each row once, exports
 * stream every row, bad input is a 400 in the envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { parseEventLogs, type Hex, type Log, type PublicClient } from "viem";
import { engineAbi, marketAbi, venueLensAbi } from "../../abis/index.js";
import { CANDLE_RESOLUTIONS, CANDLE_RESOLUTION_NAMES } from "../../core/candles.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { runSession, sessionActions } from "./reads-session.js";
import { dbKinds } from "./stack.js";
import { gatewayOverStandIns } from "../unit/gateway-standins.js";
import { pnlPointsQuery } from "../../src/api/lib/pnlSql.js";
import type { Calendar } from "../../core/calendar.js";
import { applyLocalCalendar } from "../../scripts/lib/local-calendar.js";

type Item = Record<string, unknown> & { blockNumber: number; logIndex: number; timestamp: number };
type Page = { success: boolean; data: Record<string, unknown> & { hasMore: boolean; nextCursor: string | null }; error?: { code: string } };

/** A deterministic PRNG (mulberry32): a failing seed can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.each(dbKinds())("history on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  /** the read service in front of Ponder: the integration API's URL, what clients call */
  let rd: { url: string };
  let EUR: Hex;
  let GBP: Hex;
  let logs: Log[] = [];
  const seed = Number(process.env.HISTORY_SEED ?? Date.now() % 100_000);
  let closure: Closure;

  const get = async (path: string, headers: Record<string, string> = {}) => {
    // an idle kept-alive socket may be closed by the server just as it is reused: once more on a new one
    const res = await fetch(`${rd.url}${path}`, { headers }).catch(() => fetch(`${rd.url}${path}`, { headers }));
    return { status: res.status, body: (await res.json()) as Page };
  };
  /** Every item of a list, page by page. */
  const all = async (path: string, key: string, limit = 3): Promise<Item[]> => {
    const out: Item[] = [];
    let cursor: string | null = null;
    for (;;) {
      const sep = path.includes("?") ? "&" : "?";
      const { status, body } = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
      expect(status, JSON.stringify(body)).toBe(200);
      out.push(...(body.data[key] as Item[]));
      if (!body.data.hasMore) return out;
      cursor = body.data.nextCursor;
    }
  };
  const chainLogs = async () => {
    const markets = v.deployment.markets.map((m) => m.marketAddress);
    const raw = await v.client.getLogs({ address: [v.deployment.contracts.engine, ...markets] as Hex[], fromBlock: 0n, toBlock: "latest" });
    return raw;
  };
  const decoded = (name: string) =>
    parseEventLogs({ abi: [...marketAbi, ...engineAbi], logs, eventName: name as never }) as unknown as Array<{
      args: Record<string, bigint | number | Hex>;
      blockNumber: bigint;
      logIndex: number;
      address: Hex;
    }>;
  const marketOf = (address: Hex) => v.deployment.markets.find((m) => m.marketAddress.toLowerCase() === address.toLowerCase())!.marketId;

  const blockTime = async (n: bigint) => (await v.client.getBlock({ blockNumber: n })).timestamp;
  /** What the contracts' views answer for the account at block B, in the PnL point's fields. */
  const viewsAt = async (accountId: bigint, B: bigint) => {
    const { engine, venueLens } = v.deployment.contracts;
    const positionEvents = decoded("PositionUpdated");
    const acc = await v.client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [accountId], blockNumber: B });
    const states = await v.client.readContract({ address: venueLens, abi: venueLensAbi, functionName: "positions", args: [engine, accountId], blockNumber: B });
    const open = states.filter((s) => s.position.sizeQty !== 0n);
    const sum = (f: (s: (typeof open)[number]) => bigint) => open.reduce((a, s) => a + f(s), 0n);
    const settled = positionEvents.filter((e) => e.args.accountId === accountId && e.blockNumber <= B);
    const total = (k: string) => settled.reduce((a, e) => a + (e.args[k] as bigint), 0n);
    const expected = {
      collateral: acc.totalWad.toString(),
      equity: (acc.totalWad + sum((s) => s.health.equityWad)).toString(),
      unrealizedPnL: sum((s) => s.health.unrealizedPnlWad).toString(),
      pendingFunding: sum((s) => s.health.pendingFundingWad).toString(),
      realizedPnL: total("realizedPnlWad").toString(),
      fundingPaid: total("fundingPaidWad").toString(),
      feesPaid: total("feeWad").toString(),
      openPositions: open.length,
    };
    return { expected, open };
  };

  beforeAll(async () => {
    v = await startVenue(kind);
    ({ ix, rd } = await v.startIndexerAndReads("history"));
    [EUR, GBP] = v.deployment.markets.map((m) => m.marketId) as [Hex, Hex];
    await runSession(v);
    await randomSession(v, seed);
    closure = await closureSession(v);
    await waitForBlock(rd.url, await v.client.getBlockNumber({ cacheTime: 0 }));
    logs = await chainLogs();
  }, 400_000);
  afterAll(async () => {
    await v?.stop();
  });

  it("trades and each account's fills are the chain's OrderFilled events, (block, log index) order, newest first", async () => {
    const filled = decoded("OrderFilled");
    expect(filled.length).toBeGreaterThan(10);
    for (const marketId of [EUR, GBP]) {
      const trades = await all(`/markets/${marketId}/trades`, "trades");
      const expected = filled
        .filter((e) => marketOf(e.address) === marketId)
        .map((e) => ({ blockNumber: Number(e.blockNumber), logIndex: e.logIndex, price: String(e.args.priceX18), size: String(e.args.quantityQty), side: e.args.takerSide === 0 ? "LONG" : "SHORT" }))
        .reverse();
      expect(trades.map((t) => ({ blockNumber: t.blockNumber, logIndex: t.logIndex, price: t.price, size: t.size, side: t.side }))).toEqual(expected);
    }
    for (const accountId of v.accountIds.slice(0, 6)) {
      const fills = await all(`/accounts/${accountId}/fills`, "fills", 4);
      const expected = filled
        .flatMap((e) => {
          const a = e.args;
          const takerSide = a.takerSide === 0 ? "LONG" : "SHORT";
          const base = { blockNumber: Number(e.blockNumber), logIndex: e.logIndex, marketId: marketOf(e.address), price: String(a.priceX18), size: String(a.quantityQty) };
          const out = [];
          if (a.makerAccountId === accountId) out.push({ ...base, liquidity: "MAKER", side: takerSide === "LONG" ? "SHORT" : "LONG", orderId: String(a.makerOrderId), fee: String(a.makerFeeWad) });
          if (a.takerAccountId === accountId) out.push({ ...base, liquidity: "TAKER", side: takerSide, orderId: String(a.takerOrderId), fee: String(a.takerFeeWad) });
          return out;
        })
        .reverse();
      const got = fills.map((f) => ({ blockNumber: f.blockNumber, logIndex: f.logIndex, marketId: f.marketId, price: f.price, size: f.size, liquidity: f.liquidity, side: f.side, orderId: f.orderId, fee: f.fee }));
      expect(got, `account ${accountId}`).toEqual(expected);
      // the market filter is the same list restricted
      const eur = await all(`/accounts/${accountId}/fills?marketId=${EUR}`, "fills", 5);
      expect(eur.map((f) => f.id)).toEqual(fills.filter((f) => f.marketId === EUR).map((f) => f.id));
    }
  });

  it("funding payments, transfers and liquidations reconcile with PositionUpdated, MarginUpdated and Liquidated", async () => {
    const positions = decoded("PositionUpdated");
    const margins = decoded("MarginUpdated");
    const liquidated = decoded("Liquidated");
    let payments = 0;
    for (const accountId of v.accountIds.slice(0, 6)) {
      // a settlement on a position that had size: replay sizes from the events
      const size = new Map<Hex, bigint>();
      const expected: Array<{ blockNumber: number; logIndex: number; payment: string; positionSize: string }> = [];
      for (const e of positions.filter((p) => p.args.accountId === accountId)) {
        const m = marketOf(e.address);
        const before = size.get(m) ?? 0n;
        if (before !== 0n) expected.push({ blockNumber: Number(e.blockNumber), logIndex: e.logIndex, payment: String(e.args.fundingPaidWad), positionSize: String(before) });
        size.set(m, e.args.sizeQty as bigint);
      }
      const got = await all(`/accounts/${accountId}/funding-payments`, "fundingPayments", 2);
      expect(got.map((p) => ({ blockNumber: p.blockNumber, logIndex: p.logIndex, payment: p.payment, positionSize: p.positionSize }))).toEqual(expected.reverse());
      // Σ payments = Σ fundingPaidWad of every position change (a new position settles nothing)
      const sumEvents = positions.filter((p) => p.args.accountId === accountId).reduce((s, p) => s + (p.args.fundingPaidWad as bigint), 0n);
      expect(got.reduce((s, p) => s + BigInt(p.payment as string), 0n)).toBe(sumEvents);
      payments += got.filter((p) => p.payment !== "0").length;

      const transfers = await all(`/accounts/${accountId}/transfers`, "transfers", 2);
      const expectedTransfers = margins
        .filter((e) => e.args.accountId === accountId && (e.args.reason === 0 || e.args.reason === 1))
        .map((e) => ({ blockNumber: Number(e.blockNumber), logIndex: e.logIndex, type: e.args.reason === 0 ? "DEPOSIT" : "WITHDRAWAL", amount: String(e.args.amount6) }))
        .reverse();
      expect(transfers.map((t) => ({ blockNumber: t.blockNumber, logIndex: t.logIndex, type: t.type, amount: t.amount }))).toEqual(expectedTransfers);
      expect(expectedTransfers.length).toBeGreaterThan(0);

      const liqs = await all(`/accounts/${accountId}/liquidations`, "liquidations");
      const expectedLiqs = liquidated
        .filter((e) => e.args.accountId === accountId)
        .map((e) => ({ blockNumber: Number(e.blockNumber), logIndex: e.logIndex, closedSize: String(e.args.closedQty), badDebt: String(e.args.badDebtWad) }))
        .reverse();
      expect(liqs.map((l) => ({ blockNumber: l.blockNumber, logIndex: l.logIndex, closedSize: l.closedSize, badDebt: l.badDebt }))).toEqual(expectedLiqs);
    }
    expect(payments).toBeGreaterThan(0);
    expect(liquidated.length).toBeGreaterThan(0);
  });

  it("order history: every order with its final status and fill count", async () => {
    const placed = decoded("OrderPlaced");
    const filled = decoded("OrderFilled");
    const closed = decoded("OrderClosed");
    // a single cancel: its OrderCancelled; cancelOrders (cancel-all, dead-man): one OrdersCancelled for several orders
    const cancelled = new Set([
      ...decoded("OrderCancelled").map((e) => e.args.orderId as bigint),
      ...decoded("OrdersCancelled").flatMap((e) => [...(e.args.orderIds as unknown as bigint[])]),
    ]);
    for (const accountId of v.accountIds.slice(0, 6)) {
      const orders = await all(`/accounts/${accountId}/orders/history`, "orders", 3);
      const mine = placed.filter((e) => e.args.accountId === accountId);
      expect(orders.map((o) => o.orderId)).toEqual(mine.map((e) => String(e.args.orderId)).reverse());
      for (const o of orders) {
        const id = BigInt(o.orderId as string);
        const fills = filled.filter((e) => e.args.makerOrderId === id || e.args.takerOrderId === id).length;
        expect(o.fillCount, `order ${id}`).toBe(fills);
        const close = closed.find((e) => e.args.orderId === id);
        expect(o.status).toBe(close ? (close.args.status === 2 ? "filled" : "cancelled") : cancelled.has(id) ? "cancelled" : "active");
      }
    }
  });

  it("funding history: every FundingUpdated of the market", async () => {
    const updates = decoded("FundingUpdated");
    for (const marketId of [EUR, GBP]) {
      const got = await all(`/markets/${marketId}/funding/history`, "funding", 7);
      const expected = updates
        .filter((e) => marketOf(e.address) === marketId)
        .map((e) => ({ blockNumber: Number(e.blockNumber), logIndex: e.logIndex, rate: String(e.args.rateX18PerHour), cumulativeIndex: String(e.args.cumulativeIndexX18) }))
        .reverse();
      expect(got.map((f) => ({ blockNumber: f.blockNumber, logIndex: f.logIndex, rate: f.rate, cumulativeIndex: f.cumulativeIndex }))).toEqual(expected);
    }
  });

  it(`candles equal a recomputation from the trades, gap-free, from inclusive and to exclusive (seed ${seed})`, async () => {
    for (const marketId of [EUR, GBP]) {
      const trades = (await all(`/markets/${marketId}/trades`, "trades", 1000)).reverse(); // chain order
      expect(trades.length).toBeGreaterThan(0);
      const first = trades[0]!.timestamp;
      const last = trades.at(-1)!.timestamp;
      for (const resolution of CANDLE_RESOLUTION_NAMES) {
        const len = Number(CANDLE_RESOLUTIONS[resolution]);
        const start = first - (first % len);
        const end = last - (last % len) + len;
        // the recomputation: every period from the first trade's to the last's, gaps at the previous close
        const expected: Array<Record<string, unknown>> = [];
        let close: bigint | undefined;
        for (let t = start; t < end; t += len) {
          const inside = trades.filter((x) => x.timestamp >= t && x.timestamp < t + len);
          const prices = inside.map((x) => BigInt(x.price as string));
          const c = inside.length
            ? {
                open: prices[0]!, high: prices.reduce((a, b) => (b > a ? b : a)), low: prices.reduce((a, b) => (b < a ? b : a)), close: prices.at(-1)!,
                baseVolume: inside.reduce((s, x) => s + BigInt(x.size as string), 0n), quoteVolume: inside.reduce((s, x) => s + BigInt(x.quoteAmount as string), 0n), tradeCount: inside.length,
              }
            : { open: close!, high: close!, low: close!, close: close!, baseVolume: 0n, quoteVolume: 0n, tradeCount: 0 };
          close = c.close;
          expected.push({ startedAt: t, open: String(c.open), high: String(c.high), low: String(c.low), close: String(c.close), baseVolume: String(c.baseVolume), quoteVolume: String(c.quoteVolume), tradeCount: c.tradeCount });
        }
        // from a period start before the first trade (nothing before it), paging by 7
        const got = await all(`/markets/${marketId}/candles?resolution=${resolution}&from=${start - 3 * len}&to=${end}`, "candles", 7);
        const shape = (c: Item) => ({ startedAt: c.startedAt, open: c.open, high: c.high, low: c.low, close: c.close, baseVolume: c.baseVolume, quoteVolume: c.quoteVolume, tradeCount: c.tradeCount });
        expect(got.map(shape), resolution).toEqual(expected);
        if (resolution === "1m") expect(expected.some((c) => c.tradeCount === 0), "the session has empty minutes").toBe(true);
        // from inclusive, to exclusive, exactly: an inner window
        if (expected.length >= 3) {
          const a = expected[1]!.startedAt as number;
          const b = expected.at(-1)!.startedAt as number;
          const inner = await all(`/markets/${marketId}/candles?resolution=${resolution}&from=${a}&to=${b}`, "candles", 1000);
          expect(inner.map(shape)).toEqual(expected.slice(1, -1));
          // an unaligned from starts at the next period
          const shifted = await all(`/markets/${marketId}/candles?resolution=${resolution}&from=${a - len + 1}&to=${b}`, "candles", 1000);
          expect(shifted.map(shape)).toEqual(expected.slice(1, -1));
        }
      }
    }
  });

  it("paging through trades while new fills arrive returns every row exactly once", async () => {
    const { place, setPrice } = sessionActions(v);
    const before = await all(`/markets/${EUR}/trades`, "trades", 1000);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; ; i++) {
      const { body } = await get(`/markets/${EUR}/trades?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...(body.data.trades as Item[]).map((t) => t.id as string));
      if (!body.data.hasMore) break;
      cursor = body.data.nextCursor;
      if (i % 3 === 0) {
        // a new resting bid and a taker that fills it: a new trade, newer than every page
        // a fresh index first (the earlier tests may outlast the oracle's 60 s staleness bound)
        await setPrice(EUR, "1.0550");
        const head = await v.client.getBlockNumber({ cacheTime: 0 });
        await place(1, EUR, "LONG", "LIMIT", "100", 5, "1.0560"); // within the band of a mark at 1.055 ± the clamp
        await place(2, EUR, "SHORT", "MARKET", "100", 5);
        await waitForBlock(rd.url, head + 2n);
      }
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(before.map((t) => t.id));
  });

  it("exports stream the whole range as CSV and NDJSON, oldest first", async () => {
    const accountId = v.accountIds[0]!;
    const fills = (await all(`/accounts/${accountId}/fills`, "fills", 1000)).reverse();
    const csv = await fetch(`${rd.url}/accounts/${accountId}/fills`, { headers: { accept: "text/csv" } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/text\/csv/);
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]!.split(",")).toContain("fee");
    expect(lines.length - 1).toBe(fills.length);
    const idCol = lines[0]!.split(",").indexOf("id");
    expect(lines.slice(1).map((l) => l.split(",")[idCol])).toEqual(fills.map((f) => f.id));
    const nd = await fetch(`${rd.url}/accounts/${accountId}/fills?from=${fills[1]!.timestamp}`, { headers: { accept: "application/x-ndjson" } });
    const items = (await nd.text()).trim().split("\n").map((l) => JSON.parse(l) as Item);
    expect(items.map((i) => i.id)).toEqual(fills.filter((f) => f.timestamp >= fills[1]!.timestamp).map((f) => f.id));
    // the JSON answer of the same URL is still JSON (the export is chosen by Accept alone)
    const again = await get(`/accounts/${accountId}/fills?from=${fills[1]!.timestamp}`);
    expect(again.body.success).toBe(true);
  });

  it("the gateway serves the same lists under /v1 in snake_case behind the API key, exports included", async () => {
    // the real gateway app over this venue's real Ponder (relayer and keeper are not needed for reads)
    const gw = await gatewayOverStandIns({ INTEGRATION_URL: rd.url, RATE_LIMIT_PER_MINUTE: "100000" });
    try {
      const accountId = v.accountIds[0]!;
      const call = (path: string, headers: Record<string, string> = {}) => gw.app.request(path, { headers: { "X-API-Key": gw.keyA.key, ...headers } });
      expect((await gw.app.request(`/v1/accounts/${accountId}/fills`)).status).toBe(401);
      const camel = await all(`/accounts/${accountId}/fills?marketId=${EUR}`, "fills", 1000);
      const pages: Array<Record<string, unknown>> = [];
      let cursor: string | null = null;
      for (;;) {
        const res = await call(`/v1/accounts/${accountId}/fills?market_id=${EUR}&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { data: { fills: Array<Record<string, unknown>>; has_more: boolean; next_cursor: string | null } };
        pages.push(...body.data.fills);
        if (!body.data.has_more) break;
        cursor = body.data.next_cursor;
      }
      expect(pages.map((f) => [f.id, f.quote_amount, f.fee, f.liquidity, f.timestamp_iso])).toEqual(camel.map((f) => [f.id, f.quoteAmount, f.fee, f.liquidity, f.timestampISO]));
      const candles = (await (await call(`/v1/markets/${EUR}/candles?resolution=1h&limit=5`)).json()) as { data: { candles: Array<Record<string, unknown>> } };
      expect(candles.data.candles.length).toBeGreaterThan(0);
      expect(candles.data.candles[0]).toHaveProperty("base_volume");
      for (const path of [`/v1/markets/${EUR}/trades`, `/v1/markets/${EUR}/funding/history`, `/v1/accounts/${accountId}/funding-payments`, `/v1/accounts/${accountId}/transfers`, `/v1/accounts/${accountId}/liquidations`, `/v1/accounts/${accountId}/orders/history`]) {
        const res = await call(path);
        expect(res.status, path).toBe(200);
        expect(((await res.json()) as { data: Record<string, unknown> }).data, path).toHaveProperty("has_more");
      }
      const csv = await call(`/v1/accounts/${accountId}/fills?market_id=${EUR}`, { accept: "text/csv" });
      expect(csv.status).toBe(200);
      const lines = (await csv.text()).trim().split("\n");
      expect(lines[0]!.split(",")).toEqual(expect.arrayContaining(["quote_amount", "timestamp_iso", "block_number", "log_index"]));
      expect(lines.length - 1).toBe(camel.length);
      const nd = await call(`/v1/accounts/${accountId}/transfers`, { accept: "application/x-ndjson" });
      const items = (await nd.text()).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(items.length).toBeGreaterThan(0);
      expect(items[0]).toHaveProperty("available_after");
      const bad = await call(`/v1/markets/${EUR}/trades?limit=0`);
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_ERROR");
      const badExport = await call(`/v1/markets/${EUR}/trades?from=tomorrow`, { accept: "text/csv" });
      expect(badExport.status).toBe(400);
    } finally {
      await gw.close();
    }
  });

  it("PnL through market closures equals the views: no funding while CLOSED, none for the closed interval after a reopening", async () => {
    const eur = v.deployment.markets[0]!.marketAddress as Hex;
    const ends = closure.ends.map((e) => e.end);
    for (const accountId of closure.accountIds) {
      const points = await all(`/accounts/${accountId}/pnl?resolution=1h&from=${ends[0]! - 3600n}&to=${ends.at(-1)! - 3599n}`, "pnl", 4);
      expect(points.map((p) => BigInt(p.endedAt as number))).toEqual([...ends].reverse());
      for (const p of points) {
        const e = closure.ends.find((x) => x.end === BigInt(p.endedAt as number))!;
        const B = BigInt(p.blockNumber);
        expect(await blockTime(B + 1n)).toBeGreaterThan(e.end);
        if (e.atEnd) expect(BigInt(p.blockTimestamp as number), `a session change stamped ${e.end}`).toBe(e.end);
        const [state] = await v.client.readContract({ address: eur, abi: marketAbi, functionName: "session", blockNumber: B });
        expect(state, `session at period end ${e.end}`).toBe(SESSION[e.session]);
        const { expected, open } = await viewsAt(accountId, B);
        expect(open.some((s) => s.marketId === EUR), `account ${accountId} holds EUR at ${e.end}`).toBe(true);
        const got = Object.fromEntries(Object.keys(expected).map((k) => [k, p[k]]));
        expect(got, `account ${accountId} at block ${B} (period end ${e.end}, ${e.session})`).toEqual(expected);
      }
    }
    // the read service passes PnL to Ponder: the same bytes
    const path = `/accounts/${closure.accountIds[0]}/pnl?resolution=1h&from=${ends[0]! - 3600n}&to=${ends.at(-1)! - 3599n}`;
    const [r, p] = await Promise.all([fetch(`${rd.url}${path}`), fetch(`${ix.url}${path}`, { headers: { "Cache-Control": "no-cache" } })]);
    expect(r.headers.get("x-history-source")).toBeNull();
    expect(await r.text()).toBe(await p.text());
  });

  it("PnL at each period end equals the contract views at that period's last block", async () => {
    let checked = 0;
    let withPositions = 0;
    for (const accountId of v.accountIds.slice(0, 6)) {
      const points = await all(`/accounts/${accountId}/pnl?resolution=1h`, "pnl", 3);
      expect(points.length, `account ${accountId}`).toBeGreaterThan(1);
      for (const [i, p] of points.entries()) {
        // gap-free, newest first, each an hour
        expect((p.endedAt as number) - (p.startedAt as number)).toBe(3600);
        if (i > 0) expect(p.startedAt).toBe((points[i - 1]!.startedAt as number) - 3600);
        const B = BigInt(p.blockNumber);
        // B is the last block at or before the period end
        expect(await blockTime(B)).toBe(BigInt(p.blockTimestamp as number));
        expect(BigInt(p.blockTimestamp as number)).toBeLessThanOrEqual(BigInt(p.endedAt as number));
        expect(await blockTime(B + 1n)).toBeGreaterThan(BigInt(p.endedAt as number));
        const { expected, open } = await viewsAt(accountId, B);
        const got = Object.fromEntries(Object.keys(expected).map((k) => [k, p[k]]));
        expect(got, `account ${accountId} at block ${B} (period end ${p.endedAt})`).toEqual(expected);
        checked++;
        if (open.length) withPositions++;
      }
      // a day's end is an hour's end: the 1d points are the 1h points at those ends
      const days = await all(`/accounts/${accountId}/pnl?resolution=1d`, "pnl", 2);
      for (const d of days) {
        const h = points.find((p) => p.endedAt === d.endedAt);
        if (h) expect({ ...d, startedAt: 0, startedAtISO: "" }).toEqual({ ...h, startedAt: 0, startedAtISO: "" });
      }
      // from inclusive, to exclusive, on the period start
      if (points.length >= 3) {
        const from = points.at(-2)!.startedAt as number;
        const to = points[0]!.startedAt as number;
        const ranged = await all(`/accounts/${accountId}/pnl?resolution=1h&from=${from}&to=${to}`, "pnl", 2);
        expect(ranged).toEqual(points.filter((p) => (p.startedAt as number) >= from && (p.startedAt as number) < to));
      }
    }
    expect(checked).toBeGreaterThan(6);
    expect(withPositions).toBeGreaterThan(2);
    // the gateway's copy, snake_case
    const gw = await gatewayOverStandIns({ INTEGRATION_URL: rd.url, RATE_LIMIT_PER_MINUTE: "100000" });
    try {
      const accountId = v.accountIds[1]!;
      const res = await gw.app.request(`/v1/accounts/${accountId}/pnl?resolution=1h&limit=2`, { headers: { "X-API-Key": gw.keyA.key } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { pnl: Array<Record<string, unknown>>; has_more: boolean } };
      const camel = (await get(`/accounts/${accountId}/pnl?resolution=1h&limit=2`)).body.data.pnl as Item[];
      expect(body.data.pnl.map((p) => [p.ended_at, p.equity, p.unrealized_pnl, p.realized_pnl, p.block_number])).toEqual(
        camel.map((p) => [p.endedAt, p.equity, p.unrealizedPnL, p.realizedPnL, p.blockNumber]),
      );
      const bad = await gw.app.request(`/v1/accounts/${accountId}/pnl?resolution=5m`, { headers: { "X-API-Key": gw.keyA.key } });
      expect(bad.status).toBe(400);
    } finally {
      await gw.close();
    }
    // bad input: 400 in the envelope
    const a = v.accountIds[0]!;
    for (const path of [
      `/accounts/${a}/pnl`,
      `/accounts/${a}/pnl?resolution=1m`,
      `/accounts/${a}/pnl?resolution=1h&from=20&to=10`,
      `/accounts/${a}/pnl?resolution=1h&limit=0`,
      `/accounts/${a}/pnl?resolution=1h&cursor=${Buffer.from(JSON.stringify({ l: "pnl:1h", k: ["7"] })).toString("base64url")}`,
      `/accounts/${a}/pnl?resolution=1d&cursor=${Buffer.from(JSON.stringify({ l: "pnl:1h", k: ["3600"] })).toString("base64url")}`,
    ]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(body.error!.code, path).toBe("VALIDATION_ERROR");
    }
    expect((await get(`/accounts/999999/pnl?resolution=1h`)).status).toBe(404);
  });

  it("the OpenAPI documents list the history routes", async () => {
    const doc = (await (await fetch(`${ix.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const p of ["/markets/{marketId}/trades", "/markets/{marketId}/candles", "/markets/{marketId}/funding/history", "/accounts/{accountId}/fills", "/accounts/{accountId}/funding-payments", "/accounts/{accountId}/transfers", "/accounts/{accountId}/liquidations", "/accounts/{accountId}/orders/history", "/accounts/{accountId}/orders/modifications", "/accounts/{accountId}/pnl"]) {
      expect(doc.paths, p).toHaveProperty([p]);
    }
    const gw = await gatewayOverStandIns({ INTEGRATION_URL: rd.url });
    try {
      const v1 = (await (await gw.app.request("/v1/openapi.json")).json()) as { paths: Record<string, { get: { responses: Record<string, unknown> } }> };
      expect(v1.paths["/v1/accounts/{account_id}/fills"]!.get.responses).toHaveProperty("200");
      expect(JSON.stringify(v1)).toContain("quote_amount");
      expect(v1.paths).toHaveProperty(["/v1/markets/{market_id}/candles"]);
      expect(v1.paths).toHaveProperty(["/v1/accounts/{account_id}/pnl"]);
    } finally {
      await gw.close();
    }
  });

  it.runIf(kind === "postgres")("every history list is served by an index in its order (no sort, no scan of the table), and PnL by index lookups", async () => {
    const db = new pg.Client({ connectionString: v.databaseUrl! });
    await db.connect();
    try {
      await db.query(`SET search_path TO "${ix.schema}"`);
      // the planner prefers a scan of these small tables: forbid it, so the plan shows what serves the query at scale
      await db.query("SET enable_seqscan = off");
      const page = (table: string, scope: string, keys = "timestamp, block_number, log_index") => {
        const desc = keys.split(", ").map((k) => `${k} DESC`).join(", ");
        return `SELECT * FROM ${table} WHERE ${scope} AND timestamp_placeholder AND (${keys}) < (9999999999, 999999, 999) ORDER BY ${desc} LIMIT 101`
          .replace("timestamp_placeholder", `${keys.split(", ")[0]} >= 0 AND ${keys.split(", ")[0]} < 9999999999`);
      };
      const market = `'${EUR}'`;
      const address = `'${v.deployment.markets[0]!.marketAddress.toLowerCase()}'`;
      const queries: Record<string, string> = {
        trades: page("trade", `market_id = ${market}`),
        fills: page("account_fill", "account_id = 1"),
        fillsByMarket: page("account_fill", `account_id = 1 AND market_id = ${market}`),
        fundingHistory: page("funding_history", `market_address = ${address}`),
        fundingPayments: page("funding_payment", "account_id = 1"),
        transfers: page("transfer", "account_id = 1"),
        liquidations: page("account_liquidation", "account_id = 1"),
        orderHistory: page("orders", "account_id = 1", "created_at, created_block, order_id"),
        orderModifications: page("order_modified_event", "account_id = 1"),
        orderModificationsByMarket: page("order_modified_event", `account_id = 1 AND market_id = ${market}`),
        orderModificationsByOrder: page("order_modified_event", "account_id = 1 AND order_id = 1"),
        candles: `SELECT * FROM candle WHERE market_id = ${market} AND resolution = '1m' AND period_start >= 0 AND period_start < 9999999999 ORDER BY period_start`,
      };
      for (const [name, q] of Object.entries(queries)) {
        const plan = (await db.query(`EXPLAIN ${q}`)).rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n");
        expect(plan, `${name}:\n${plan}`).toMatch(/Index (Only )?Scan/);
        expect(plan, `${name}:\n${plan}`).not.toMatch(/Seq Scan|Sort/);
      }
      // PnL: the route's own statement (src/api/lib/pnlSql.ts) for an account with positions on
      // both markets at 48 hourly period ends: every table it reads is read by an index lookup
      const account = v.accountIds[0]!;
      const { rows: markets } = await db.query(
        `SELECT m.market_id AS "marketId", m.market_address AS "marketAddress", p.position_id AS "positionId" FROM position p JOIN market m ON m.market_id = p.market_id WHERE p.account_id = $1`,
        [account.toString()],
      );
      expect(markets.length).toBeGreaterThan(0);
      const now = BigInt(Math.floor(Date.now() / 1000));
      const ends = Array.from({ length: 48 }, (_, i) => now - (now % 3600n) - BigInt(i) * 3600n);
      const pnl = pnlPointsQuery(ix.schema, account, ends, markets);
      const plan = (await db.query(`EXPLAIN ${pnl.text}`, pnl.values)).rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n");
      for (const table of ["period_end_block", "margin_update_event", "position_update_event", "funding_update_event", "funding_rate_stale_event", "market_session_event", "index_price_event"]) {
        expect(plan, `pnl, ${table}:\n${plan}`).toMatch(new RegExp(`Index (Only )?Scan( Backward)? using \\S+ on ${table}\\b`));
        expect(plan, `pnl:\n${plan}`).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
      }
    } finally {
      await db.end();
    }
  });

  it("bad input is a 400 in the envelope", async () => {
    const bad = [
      `/markets/${EUR}/trades?limit=0`,
      `/markets/${EUR}/trades?limit=1001`,
      `/markets/${EUR}/trades?cursor=nope!`,
      `/markets/${EUR}/trades?cursor=${Buffer.from(JSON.stringify({ l: "fills", k: ["1", "1", "1"] })).toString("base64url")}`,
      `/markets/${EUR}/trades?from=20&to=10`,
      `/markets/${EUR}/trades?from=yesterday`,
      `/markets/${EUR}/trades?page=2`,
      `/markets/${EUR}/candles`,
      `/markets/${EUR}/candles?resolution=2m`,
      `/accounts/1/fills?marketId=0x12`,
    ];
    for (const path of bad) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(body.success, path).toBe(false);
      expect(body.error!.code, path).toBe("VALIDATION_ERROR");
    }
    expect((await get(`/accounts/999999/fills`)).status).toBe(404);
    expect((await get(`/markets/0x${"ab".repeat(32)}/trades`)).status).toBe(404);
  });
  it("the read service answers the history lists itself on Postgres (through Ponder's server on PGlite): the one read model's bytes and block, errors included", async () => {
    const a = v.accountIds[0]!;
    const head = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(rd.url, head);
    const both = async (path: string) => {
      const [r, p] = await Promise.all([fetch(`${rd.url}${path}`), fetch(`${ix.url}${path}`, { headers: { "Cache-Control": "no-cache" } })]);
      return { r, p, rBody: await r.text(), pBody: await p.text() };
    };
    const first = JSON.parse((await both(`/accounts/${a}/fills?limit=2`)).rBody) as Page;
    const tradesFirst = JSON.parse((await both(`/markets/${EUR}/trades?limit=3`)).rBody) as Page;
    const candlesFirst = JSON.parse((await both(`/markets/${EUR}/candles?resolution=1m&limit=5&from=0`)).rBody) as Page;
    expect(first.data.nextCursor).toBeTruthy();
    expect(tradesFirst.data.nextCursor).toBeTruthy();
    expect(candlesFirst.data.nextCursor).toBeTruthy();
    const otherList = Buffer.from(JSON.stringify({ l: "fills", k: ["1", "1", "1"] })).toString("base64url");
    const paths = [
      `/markets/${EUR}/trades?limit=3`,
      `/markets/${EUR}/trades?limit=3&cursor=${tradesFirst.data.nextCursor}`,
      `/markets/${EUR.toUpperCase().replace("0X", "0x")}/trades?limit=2&from=0&to=9999999999`,
      `/markets/${GBP}/funding/history?limit=4`,
      `/markets/${EUR}/candles?resolution=1m&limit=5&from=0`,
      `/markets/${EUR}/candles?resolution=1m&limit=5&from=0&cursor=${candlesFirst.data.nextCursor}`,
      `/markets/${EUR}/candles?resolution=1h`,
      `/accounts/${a}/fills?limit=2`,
      `/accounts/${a}/fills?limit=2&cursor=${first.data.nextCursor}`,
      `/accounts/${a}/fills?marketId=${GBP}&limit=3`,
      `/accounts/${a}/funding-payments?limit=3`,
      `/accounts/${a}/transfers`,
      `/accounts/${a}/liquidations`,
      `/accounts/${v.accountIds[3]!}/liquidations?marketId=${EUR}`,
      `/accounts/${a}/orders/history?limit=5`,
      `/accounts/${a}/fills?minBlock=${head}`,
      // errors: the same envelope and status
      `/accounts/${a}/fills?cursor=nope!`,
      `/accounts/${a}/fills?cursor=${otherList.replace(/.$/, "A")}`,
      `/markets/${EUR}/trades?cursor=${otherList}`,
      `/markets/${EUR}/trades?limit=0`,
      `/markets/${EUR}/trades?from=20&to=10`,
      `/markets/${EUR}/trades?page=2`,
      `/markets/${EUR}/trades?limit=1&limit=2`,
      `/markets/0x12/trades`,
      `/markets/0x${"ab".repeat(32)}/trades`,
      `/markets/0x${"ab".repeat(32)}/trades?cursor=nope!`,
      `/markets/${EUR}/candles?resolution=2m`,
      `/markets/${EUR}/candles?resolution=1m&cursor=nope!`,
      `/accounts/999999/fills`,
      `/accounts/999999/fills?cursor=nope!`,
      `/accounts/abc/fills`,
      `/accounts/${a}/fills?marketId=0x${"ab".repeat(32)}`,
      `/accounts/${a}/transfers?marketId=${EUR}`,
      `/accounts/${a}/fills?minBlock=x`,
    ];
    for (const path of paths) {
      const { r, p, rBody, pBody } = await both(path);
      expect(r.headers.get("x-history-source"), path).toBe(kind === "postgres" ? "reads" : null);
      expect(p.headers.get("x-history-source"), path).toBeNull();
      expect(r.status, `${path}: ${rBody}`).toBe(p.status);
      expect(rBody, path).toBe(pBody);
      expect(r.headers.get("x-indexed-block"), path).toBe(p.headers.get("x-indexed-block"));
      // a page answered below Hono (held-answers-listener.ts) carries the headers the Hono path gives
      expect(r.headers.get("content-type"), path).toMatch(/^application\/json/);
      expect(r.headers.get("x-request-id"), path).toBeTruthy();
      expect(r.headers.get("access-control-expose-headers"), path).toContain("X-Indexed-Block");
      if (kind === "postgres") expect(r.headers.get("ratelimit-limit"), path).toBeTruthy();
      if (kind === "postgres" && r.status === 200) expect(r.headers.get("x-cache"), path).toBe("MISS");
      if (r.status >= 400) expect((JSON.parse(rBody) as Page).success, path).toBe(false);
    }
    // a block not indexed yet: 503 in the envelope after the bounded wait, as Ponder
    const late = await fetch(`${rd.url}/accounts/${a}/fills?minBlock=${head + 1000n}`);
    expect(late.status).toBe(503);
    expect(((await late.json()) as Page).error!.code).toBe("SERVICE_UNAVAILABLE");
    // exports are Ponder's (streamed), through the read service
    const csv = await fetch(`${rd.url}/accounts/${a}/fills`, { headers: { accept: "text/csv" } });
    expect(csv.headers.get("x-history-source")).toBeNull();
    expect(await csv.text()).toBe(await (await fetch(`${ix.url}/accounts/${a}/fills`, { headers: { accept: "text/csv" } })).text());
  });
});

/** Random orders on both markets with random gaps of time (seeded), after the scripted session. */
async function randomSession(v: Venue, seed: number) {
  const rnd = prng(seed);
  const { place, setPrice, advance } = sessionActions(v);
  const markets = v.deployment.markets.slice(0, 2).map((m) => m.marketId) as Hex[];
  const mids = ["1.0550", "1.2700"];
  for (let i = 0; i < 24; i++) {
    const m = Math.floor(rnd() * 2);
    const mid = Number(mids[m]);
    // a maker on one side, then a taker against it (accounts 1 and 2 trade; others stay as the script left them)
    const side = rnd() < 0.5 ? "LONG" : "SHORT";
    const offset = Math.floor(rnd() * 5) * 0.0001;
    const price = (side === "LONG" ? mid - offset : mid + offset).toFixed(4);
    await place(1, markets[m]!, side, "LIMIT", String(50 + Math.floor(rnd() * 100)), 5, price).catch(() => {});
    await place(2, markets[m]!, side === "LONG" ? "SHORT" : "LONG", "MARKET", String(20 + Math.floor(rnd() * 100)), 5).catch(() => {});
    const gap = [0, 5, 61, 240, 1000, 3700][Math.floor(rnd() * 6)]!;
    if (gap) {
      await advance(gap);
      // a fresh index price (the oracle's staleness bound)
      await setPrice(markets[0]!, mids[0]!);
      await setPrice(markets[1]!, mids[1]!);
    }
  }
}

type Closure = { accountIds: bigint[]; ends: Array<{ end: bigint; session: keyof typeof SESSION; atEnd?: boolean }> };
const SESSION = { OPEN: 0, REDUCE_ONLY: 1, CLOSED: 2 } as const;

/**
 * Two calendars on EUR/USD (docs/CONTRACTS.md "Weekends and gaps"; set as the local start script
 * does) with an open position (accounts 1 long, 2 short) and explicit block times: REDUCE_ONLY
 * mid-hour, CLOSED exactly on an hour, the index moves and a margined cancel makes the rate stale
 * while closed, the reopening exactly on a later hour (a block at that second), then a second
 * calendar's closure from mid-hour to a quarter past. Sessions switch with time alone (a price
 * update marks each switch with a block). Returns the hour ends around them, each with the
 * session in force at its last block.
 */
async function closureSession(v: Venue): Promise<Closure> {
  const { send, place, setPrice, rpc } = sessionActions(v);
  const EUR = v.deployment.markets[0]!.marketId as Hex;
  const HOUR = 3600n;
  const at = async (t: bigint) => rpc("evm_setNextBlockTimestamp", [Number(t)]);
  const calendar = (c: Calendar) => applyLocalCalendar(v.client as PublicClient, v.rpcUrl, { ...v.deployment, markets: [v.deployment.markets[0]!] }, c);
  const weekMinute = (t: bigint) => Number(((t + 3n * 86_400n) % (7n * 86_400n)) / 60n);
  const key = `0x${"c1".repeat(32)}` as Hex;
  // a fresh index and a position for both accounts, then a margined bid that rests (cancelled while closed)
  await setPrice(EUR, "1.0550");
  await place(1, EUR, "LONG", "LIMIT", "400", 5, "1.0560");
  await place(2, EUR, "SHORT", "MARKET", "400", 5);
  await place(1, EUR, "LONG", "LIMIT", "200", 5, "1.0520", key);
  const now = (await v.client.getBlock()).timestamp;
  const h0 = now - (now % HOUR) + 2n * HOUR; // an hour end at least an hour ahead
  // REDUCE_ONLY from h0 − 30 min, CLOSED from h0 + 1 h to h0 + 3 h
  expect(await calendar({ closeAtMin: weekMinute(h0 + HOUR), windowMin: 90, closedMin: 120 })).toBe(1);
  await at(h0 - 1800n);
  await setPrice(EUR, "1.0550"); // REDUCE_ONLY from this second: funding accrues as before
  await at(h0 + HOUR - 20n);
  await setPrice(EUR, "1.0560");
  await send(-1, "pokeFunding", [EUR]); // the last accrual before the close
  await at(h0 + HOUR);
  await setPrice(EUR, "1.0560"); // CLOSED exactly on the hour (h0 + 1h's last block)
  await at(h0 + HOUR + 600n);
  await setPrice(EUR, "1.0600"); // the index moves while closed
  await at(h0 + HOUR + 1200n);
  await send(1, "cancelOrder", [v.accountIds[1]!, EUR, key]); // the rate is stale from here, applied from the reopening
  await at(h0 + 2n * HOUR + 1800n);
  await setPrice(EUR, "1.0620");
  await at(h0 + 3n * HOUR);
  await setPrice(EUR, "1.0620"); // reopened exactly on the hour (h0 + 3h's last block)
  await at(h0 + 3n * HOUR + 900n);
  await setPrice(EUR, "1.0610"); // fresh, no accrual: h0 + 4h values the reopening's lastUpdate and stale rate
  // a second calendar: REDUCE_ONLY from h0 + 4h15, CLOSED from h0 + 4h30 to h0 + 6h16
  expect(await calendar({ closeAtMin: weekMinute(h0 + 4n * HOUR + 1800n), windowMin: 15, closedMin: 106 })).toBe(1);
  await at(h0 + 4n * HOUR + 600n);
  await setPrice(EUR, "1.0600");
  await place(1, EUR, "LONG", "LIMIT", "100", 5, "1.0610"); // an accrual after the reopening
  await place(2, EUR, "SHORT", "MARKET", "100", 5);
  await at(h0 + 4n * HOUR + 1800n);
  await setPrice(EUR, "1.0600"); // the second closure, mid-hour
  await at(h0 + 6n * HOUR + 700n);
  await setPrice(EUR, "1.0590");
  await at(h0 + 6n * HOUR + 960n);
  await setPrice(EUR, "1.0590"); // reopened
  await at(h0 + 7n * HOUR + 300n);
  await setPrice(EUR, "1.0580");
  await rpc("evm_mine"); // h0 + 7h's period is final once a later block exists
  const ends: Closure["ends"] = [
    { end: h0 - HOUR, session: "OPEN" },
    { end: h0, session: "REDUCE_ONLY" },
    { end: h0 + HOUR, session: "CLOSED", atEnd: true }, // the closing block itself
    { end: h0 + 2n * HOUR, session: "CLOSED" }, // inside, after a cancel
    { end: h0 + 3n * HOUR, session: "OPEN", atEnd: true }, // the reopening block itself
    { end: h0 + 4n * HOUR, session: "OPEN" }, // after it, nothing accrued since
    { end: h0 + 5n * HOUR, session: "CLOSED" },
    { end: h0 + 6n * HOUR, session: "CLOSED" },
    { end: h0 + 7n * HOUR, session: "OPEN" },
  ];
  return { accountIds: [v.accountIds[1]!, v.accountIds[2]!], ends };
}
