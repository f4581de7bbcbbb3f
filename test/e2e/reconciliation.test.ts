/**
 * Reconciliation: after a scripted session (test/e2e/reads-session.ts), every read route for
 * every account, market and position touched equals, field by field, what the contracts' views
 * say at the block the API reports in X-Indexed-Block.
 */
import { MARKET_STATUS } from "../../core/market-status.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUnits, getAddress, parseEventLogs, type Hex } from "viem";
import { engineAbi, marketAbi, oracleAbi, venueLensAbi } from "../../abis/index.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { mainKind } from "./stack.js";
import { runSession, sessionActions, type Session } from "./reads-session.js";

type Json = Record<string, any>;
const SIDES = ["LONG", "SHORT"];
const STATUS = ["none", "active", "filled", "cancelled"];

describe.each([mainKind()])("reconciliation on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let s: Session;
  let block: bigint;
  let modified: Hex | null = null;

  const api = async (path: string) => {
    const res = await fetch(`${ix.url}${path}`);
    const body = (await res.json()) as Json;
    expect(res.headers.get("x-indexed-block"), path).toBe(block.toString());
    return { status: res.status, body, data: body.data as Json };
  };
  const read = <T>(address: Hex, abi: readonly unknown[], functionName: string, args: readonly unknown[] = []) =>
    v.client.readContract({ address, abi, functionName, args, blockNumber: block } as never) as Promise<T>;
  const marketAddress = (marketId: Hex) => v.deployment.markets.find((m) => m.marketId === marketId)!.marketAddress as Hex;

  /** GET /markets/{id}/funding against Market.funding(), markPrice() and the index at `block`. */
  const expectFundingEqualsView = (f: Json, fv: Json, mark: bigint, index: bigint) => {
    const rate = fv.rateNowX18PerHour as bigint; // the rate in force (a cancel's stale rate included)
    expect(f).toMatchObject({
      currentRate: rate.toString(),
      cumulativeFunding: fv.cumulativeIndexX18.toString(),
      pendingFunding: (fv.cumulativeIndexNowX18 - fv.cumulativeIndexX18).toString(),
      lastUpdate: Number(fv.lastUpdate),
      rateStaleSince: fv.rateStaleSince === 0n ? null : Number(fv.rateStaleSince),
      prices: { perpPrice: mark.toString(), indexPrice: index.toString(), premium: (((mark - index) * 10n ** 18n) / index).toString() },
      components: { premiumComponent: fv.premiumComponentX18.toString(), skewComponent: fv.skewComponentX18.toString(), skew: fv.skewX18.toString() },
      direction: rate > 0n ? "LONGS_PAY" : rate < 0n ? "SHORTS_PAY" : "NEUTRAL",
    });
    expect(f.currentRateAnnualized).toBe(formatUnits(rate * 24n * 365n * 100n, 18));
  };

  beforeAll(async () => {
    v = await startVenue(kind);
    ix = await v.startIndexer("recon");
    s = await runSession(v);
    await modifySome();
    block = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(ix.url, block);
  }, 300_000);

  /**
   * Market v2 modifies on top of the session (Engine.modifyOrder, one OrderModified each, no
   * LevelUpdated): a bid and an ask placed near the mark (the session's own resting orders are
   * outside the band by now), the bid a lot smaller at its price (by id: its time kept), the ask
   * five ticks further out (by its key: a new level, its old one emptied); the tests below then
   * compare the orders, levels and book with the chain.
   */
  const modifySome = async () => {
    const { send, place, setPrice } = sessionActions(v);
    const ZERO = `0x${"0".repeat(64)}` as Hex;
    const keyOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
    for (const EUR of s.markets) {
      const market = marketAddress(EUR);
      const view = <T>(functionName: string, args: readonly unknown[] = []) => v.client.readContract({ address: market, abi: marketAbi, functionName, args } as never) as Promise<T>;
      const [index] = (await v.client.readContract({ address: v.deployment.contracts.oracle, abi: oracleAbi, functionName: "getPrice", args: [EUR] })) as readonly [bigint, bigint];
      await setPrice(EUR, formatUnits(index, 18)); // a modify needs a fresh index
      const p = await view<Json>("params");
      const mark = await view<bigint>("markPrice");
      const tick = p.tickSizeX18 as bigint;
      const atTick = (x: bigint) => (x / tick) * tick;
      // inside the band, not crossing the session's resting orders (some sit beyond the mark by now)
      const [[bestBid = 0n]] = await view<[bigint[]]>("getLevels", [0, 1n]);
      const [[bestAsk = 0n]] = await view<[bigint[]]>("getLevels", [1, 1n]);
      const lo = atTick((mark * (10_000n - BigInt(p.priceBandBps))) / 10_000n) + tick;
      const hi = atTick((mark * (10_000n + BigInt(p.priceBandBps))) / 10_000n) - tick;
      const bidAt = [atTick((mark * 997n) / 1000n), ...(bestAsk ? [bestAsk - 10n * tick] : [])].reduce((a, b) => (a < b ? a : b));
      const askAt = [atTick((mark * 1003n) / 1000n), bestBid + 10n * tick].reduce((a, b) => (a > b ? a : b));
      if (bidAt < lo || askAt + 6n * tick > hi) continue; // this market's book leaves no room: the next one
      /** places with the first session account that can, returns its wallet and the order */
      const rest = async (side: "LONG" | "SHORT", price: bigint, key: Hex) => {
        for (const [w, id] of v.accountIds.entries()) {
          if (!s.accounts.includes(id)) continue;
          try {
            const r = await place(w, EUR, side, "LIMIT", "100", 5, formatUnits(price, 18), key);
            const [e] = parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderPlaced" });
            return { w, id, orderId: e!.args.orderId, qty: e!.args.quantityQty };
          } catch {
            continue;
          }
        }
        throw new Error(`no session account could place a ${side} at ${price}`);
      };
      const bid = await rest("LONG", bidAt, keyOf(0xb1d));
      const ask = await rest("SHORT", askAt, keyOf(0xa5c));
      expect(bid.qty - p.lotSizeQty).toBeGreaterThanOrEqual(p.minOrderQty);
      await send(bid.w, "modifyOrder", [bid.id, EUR, bid.orderId, ZERO, bidAt, bid.qty - p.lotSizeQty]);
      await send(ask.w, "modifyOrder", [ask.id, EUR, 0n, keyOf(0xa5c), askAt + 6n * tick, ask.qty]);
      // a cancel of several (Engine.cancelOrders): one OrdersCancelled, no OrderClosed or
      // LevelUpdated; two more bids at the modified bid's level and one at a level of its own, all
      // three cancelled: the orders, accounts and book below are compared with the chain
      const more: bigint[] = [];
      for (const [price, key] of [[bidAt, keyOf(0xc1)], [bidAt, keyOf(0xc2)], [bidAt + tick, keyOf(0xc3)]] as const) {
        const r = await place(bid.w, EUR, "LONG", "LIMIT", "100", 5, formatUnits(price, 18), key);
        more.push(parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderPlaced" })[0]!.args.orderId);
      }
      const cancelled = await send(bid.w, "cancelOrders", [bid.id, EUR, more]);
      expect(parseEventLogs({ abi: marketAbi, logs: cancelled.logs, eventName: "OrdersCancelled" }).map((e) => e.args.orderIds)).toEqual([more]);
      expect(parseEventLogs({ abi: marketAbi, logs: cancelled.logs, eventName: "OrderClosed" })).toEqual([]);
      modified = EUR;
      return;
    }
    throw new Error("no market with room for a modify");
  };
  afterAll(async () => {
    await v?.stop();
  });

  it("accounts equal Engine.getAccount", async () => {
    for (const id of s.accounts) {
      const { status, data } = await api(`/accounts/${id}`);
      expect(status).toBe(200);
      const a = await read<Json>(v.deployment.contracts.engine, engineAbi, "getAccount", [id]);
      const deadline = Number(await read<bigint>(v.deployment.contracts.engine, engineAbi, "deadmanOf", [id]));
      expect(data).toEqual({
        accountId: Number(id),
        accountAddress: getAddress(a.accountAddress),
        owner: getAddress(a.owner),
        margin: {
          available: a.availableWad.toString(),
          availableFormatted: formatUnits(a.availableWad, 18),
          committed: a.committedWad.toString(),
          committedFormatted: formatUnits(a.committedWad, 18),
          total: a.totalWad.toString(),
          totalFormatted: formatUnits(a.totalWad, 18),
        },
        deadman: { deadline, deadlineISO: deadline === 0 ? null : new Date(deadline * 1000).toISOString(), enabled: deadline !== 0 },
      });
      const byAddress = await api(`/accounts/by-address/${a.owner}`);
      expect(byAddress.data).toEqual({ accountId: Number(id), accountAddress: getAddress(a.accountAddress), owner: getAddress(a.owner), exists: true });
    }
  });

  it("positions and their funding equal getPosition / positionHealth / pendingFunding", async () => {
    let open = 0;
    for (const id of s.accounts) {
      for (const marketId of s.markets) {
        const market = marketAddress(marketId);
        const { data } = await api(`/accounts/${id}/positions/${marketId}`);
        const p = await read<Json>(market, marketAbi, "getPosition", [id]);
        const size = p.sizeQty as bigint;
        const funding = (await api(`/accounts/${id}/positions/${marketId}/funding`)).data;
        // VenueLens.positionHealth: the contracts' own health and pending funding at this block
        const h = await read<Json>(v.deployment.contracts.venueLens, venueLensAbi, "positionHealth", [market, id]);
        const pending = h.pendingFundingWad as bigint;
        expect(funding.pendingFunding).toBe(pending.toString());
        expect(funding.direction).toBe(pending > 0n ? "PAY" : pending < 0n ? "RECEIVE" : "NONE");
        expect(funding.lastSettled).toBe(Number(p.lastSettledAt));
        if (size === 0n) {
          expect(data).toMatchObject({ isOpen: false, side: null, size: "0", health: null, openBlock: 0 });
          continue;
        }
        open++;
        const abs = size < 0n ? -size : size;
        expect(data).toMatchObject({
          isOpen: true,
          side: size > 0n ? "LONG" : "SHORT",
          size: abs.toString(),
          entryPrice: p.entryPriceX18.toString(),
          margin: p.marginWad.toString(),
          openBlock: Number(p.openBlock),
        });
        const lev = (h.positionValueWad as bigint) / (p.marginWad as bigint);
        expect(data.leverage).toBe(Number(lev < 1n ? 1n : lev));
        expect(data.health).toEqual({
          markPrice: h.markPriceX18.toString(),
          markPriceFormatted: formatUnits(h.markPriceX18, 18),
          positionValue: h.positionValueWad.toString(),
          positionValueFormatted: formatUnits(h.positionValueWad, 18),
          unrealizedPnL: h.unrealizedPnlWad.toString(),
          unrealizedPnLFormatted: formatUnits(h.unrealizedPnlWad, 18),
          marginRatioBps: Number(h.marginRatioBps),
          marginRatioPercent: formatUnits(h.marginRatioBps, 2),
          liquidationPrice: h.liquidationPriceX18.toString(),
          liquidationPriceFormatted: formatUnits(h.liquidationPriceX18, 18),
          insolvencyPrice: h.insolvencyPriceX18.toString(),
          insolvencyPriceFormatted: formatUnits(h.insolvencyPriceX18, 18),
          isLiquidatable: h.isLiquidatable,
        });
      }
    }
    expect(open).toBeGreaterThanOrEqual(3);
  });

  it("orders equal Market.getOrder, filtered by market and status", async () => {
    let total = 0;
    const statuses = new Set<string>();
    for (const id of s.accounts) {
      const { data } = await api(`/accounts/${id}/orders?limit=1000`);
      expect(data.totalCount).toBe(data.orders.length);
      for (const o of data.orders as Json[]) {
        total++;
        statuses.add(o.status);
        const c = await read<Json>(marketAddress(o.marketId), marketAbi, "getOrder", [BigInt(o.orderId)]);
        if (c.status === 0) {
          // a taker that never rested is not stored (MarketBase._finishTaker): its OrderClosed on chain
          const [closed] = await v.client.getContractEvents({
            address: marketAddress(o.marketId), abi: marketAbi, eventName: "OrderClosed", args: { orderId: BigInt(o.orderId) }, fromBlock: 0n, toBlock: block,
          });
          expect(closed, `order ${o.orderId}: neither stored nor closed`).toBeDefined();
          const e = (closed as unknown as { args: Json }).args;
          expect(o).toMatchObject({
            status: STATUS[e.status],
            filledQuantity: e.filledQty.toString(),
            remainingQuantity: "0",
            isActive: false,
          });
          expect(BigInt(o.originalQuantity)).toBe(e.filledQty + e.cancelledQty);
          expect(Number(e.accountId)).toBe(Number(id));
          continue;
        }
        expect(o).toMatchObject({
          orderId: c.orderId.toString(),
          side: SIDES[c.side],
          orderType: ["MARKET", "LIMIT"][c.orderType],
          status: STATUS[c.status],
          price: c.priceX18.toString(),
          originalQuantity: c.originalQty.toString(),
          filledQuantity: c.filledQty.toString(),
          remainingQuantity: c.remainingQty.toString(),
          isActive: c.status === 1,
          fillPercent: Number((c.filledQty * 100n) / c.originalQty),
        });
        expect(Number(c.accountId)).toBe(Number(id));
        // the key is not stored with the order: while it is open, the market's map leads from the key to it
        const byKey = await read<bigint>(marketAddress(o.marketId), marketAbi, "orderIdOf", [BigInt(id), o.clientKey]);
        expect(byKey).toBe(c.status === 1 ? c.orderId : 0n);
      }
      for (const status of ["active", "filled", "cancelled"]) {
        for (const marketId of s.markets) {
          const f = (await api(`/accounts/${id}/orders?marketId=${marketId}&status=${status}&limit=1000`)).data;
          const expected = (data.orders as Json[]).filter((o) => o.status === status && o.marketId === marketId);
          expect(f.orders.map((o: Json) => o.orderId)).toEqual(expected.map((o) => o.orderId));
          expect(f.totalCount).toBe(expected.length);
        }
      }
    }
    expect(total).toBeGreaterThanOrEqual(15);
    expect([...statuses].sort()).toEqual(["active", "cancelled", "filled"]);
  });

  it("markets, funding, order book and mark price equal the market's views", async () => {
    const list = (await api("/markets")).data.markets as Json[];
    expect(list.map((m) => m.marketId)).toEqual(v.deployment.markets.map((m) => m.marketId));
    for (const { marketId, marketAddress: address } of v.deployment.markets) {
      const market = address as Hex;
      const m = (await api(`/markets/${marketId}`)).data;
      expect(list.find((x) => x.marketId === marketId)).toEqual(m);
      const params = await read<Json>(market, marketAbi, "params");
      const [longQty, shortQty] = await read<[bigint, bigint]>(market, marketAbi, "openInterest");
      expect(m).toMatchObject({
        marketId,
        symbol: params.symbol,
        marketAddress: getAddress(market),
        baseFxToken: getAddress(params.baseFxToken),
        quoteFxToken: getAddress(params.quoteFxToken),
        maxLeverage: Number(params.maxLeverage),
        maintenanceMarginBps: Number(params.maintenanceMarginBps),
        liquidationFeeBps: Number(params.liquidationFeeBps),
        // the spec's isActive: the chain's status() is ACTIVE (not only unpaused)
        isActive: (await read<number>(market, marketAbi, "status")) === 0,
        status: MARKET_STATUS[await read<number>(market, marketAbi, "status")],
        openInterest: { long: longQty.toString(), longFormatted: formatUnits(longQty, 18), short: shortQty.toString(), shortFormatted: formatUnits(shortQty, 18) },
        tickSize: params.tickSizeX18.toString(),
        lotSize: params.lotSizeQty.toString(),
        minOrderSize: params.minOrderQty.toString(),
        makerFeeBps: Number(params.makerFeeBps),
        takerFeeBps: Number(params.takerFeeBps),
        operatorBandBps: Number(params.operatorBandBps),
        maxPositionSize: params.maxPositionQty.toString(),
        maxOpenInterest: params.maxOpenInterestQty.toString(),
      });

      const f = (await api(`/markets/${marketId}/funding`)).data;
      const fv = await read<Json>(market, marketAbi, "funding");
      const mark = await read<bigint>(market, marketAbi, "markPrice");
      const [index] = await read<[bigint, bigint]>(v.deployment.contracts.oracle, oracleAbi, "getPrice", [marketId]);
      expectFundingEqualsView(f, fv, mark, index);

      const price = (await api(`/markets/${marketId}/price`)).data;
      expect(price.markPrice).toBe(mark.toString());

      const book = (await api(`/markets/${marketId}/orderbook?depth=100`)).data;
      for (const [side, key] of [[0, "bids"], [1, "asks"]] as const) {
        // the depth that could fill now (core/reads/depth.ts): the stored levels less the orders that cannot
        const [prices, qtys, counts] = await read<[bigint[], bigint[], bigint[]]>(market, marketAbi, "getFillableLevels", [side, 100n]);
        expect(book[key]).toEqual(
          prices.map((p, i) => ({
            price: p.toString(),
            priceFormatted: formatUnits(p, 18),
            quantity: qtys[i]!.toString(),
            quantityFormatted: formatUnits(qtys[i]!, 18),
            orderCount: Number(counts[i]),
          })),
        );
      }
      const blk = await v.client.getBlock({ blockNumber: block });
      expect(book.timestamp).toBe(Number(blk.timestamp) * 1000);
      expect(price.timestamp).toBe(Number(blk.timestamp));
      const top = (await api(`/markets/${marketId}/orderbook`)).data;
      expect(top.bids.length).toBeLessThanOrEqual(10);
      if (book.bids.length && book.asks.length) {
        const bid = BigInt(book.bids[0].price);
        const ask = BigInt(book.asks[0].price);
        expect(book.spread.absolute).toBe((ask - bid).toString());
        expect(book.midPrice).toBe(((ask + bid) / 2n).toString());
      } else {
        expect(book.spread).toBeNull();
        expect(book.midPrice).toBeNull();
      }
    }
  });

  it("the modifies happened (two OrderModified, no LevelUpdated with them) and their orders are indexed as modified", async () => {
    const market = marketAddress(modified!);
    const logs = await v.client.getContractEvents({ address: market, abi: marketAbi, eventName: "OrderModified", fromBlock: 0n, toBlock: block });
    expect(logs).toHaveLength(2);
    for (const l of logs as unknown as { args: Json; transactionHash: Hex }[]) {
      const receipt = await v.client.getTransactionReceipt({ hash: l.transactionHash });
      expect(parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "LevelUpdated" })).toHaveLength(0);
      const { data } = await api(`/accounts/${l.args.accountId}/orders?marketId=${modified}&status=active&limit=1000`);
      expect((data.orders as Json[]).find((o) => o.orderId === l.args.orderId.toString())).toMatchObject({
        price: l.args.priceX18.toString(), originalQuantity: l.args.originalQty.toString(), remainingQuantity: l.args.remainingQty.toString(),
      });
    }
  });

  it("a liquidation happened and is indexed", async () => {
    const d = s.accounts[3]!;
    const p = (await api(`/accounts/${d}/positions/${s.markets[0]}`)).data;
    const c = await read<Json>(marketAddress(s.markets[0]!), marketAbi, "getPosition", [d]);
    expect(p.size).toBe((c.sizeQty < 0n ? -c.sizeQty : c.sizeQty).toString());
    expect(c.sizeQty).toBe(0n); // fully closed by the liquidation
  });

  // Last (it moves the compared block): a cancel of margined size marks the rate stale without
  // accruing; until the next accrual the indexed funding must split at the cancel's second as the
  // views do (docs/CONTRACTS.md "Funding").
  it("right after a cancel, before any accrual, funding and pending funding equal the views", async () => {
    const { send, place, setPrice, advance } = sessionActions(v);
    const EUR = s.markets[0]!;
    const market = marketAddress(EUR);
    const B = 1;
    const key = `0x${"c5".repeat(32)}` as Hex;
    await setPrice(EUR, "1.0550"); // fresh again (the devnet oracle's bound is 60 s)
    // a margined bid 0.3 % below the mark (inside the band, below every ask): it steers the skew
    const markNow = (await v.client.readContract({ address: market, abi: marketAbi, functionName: "markPrice" })) as bigint;
    const tick = 10n ** 13n;
    await place(B, EUR, "LONG", "LIMIT", "400", 10, formatUnits(((markNow * 997n) / 1000n / tick) * tick, 18), key);
    await advance(600);
    await setPrice(EUR, "1.0550");
    await send(B, "cancelOrder", [v.accountIds[B]!, EUR, key]);
    await advance(900);
    await setPrice(EUR, "1.0560"); // an oracle update is no accrual
    block = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(ix.url, block);

    const fv = await read<Json>(market, marketAbi, "funding");
    expect(fv.rateStaleSince).toBeGreaterThan(0n); // still stale at this block
    expect(fv.rateStaleSince).toBeGreaterThan(fv.lastUpdate);
    expect(fv.rateNowX18PerHour).not.toBe(fv.rateX18PerHour); // the cancel changed the rate in force
    const mark = await read<bigint>(market, marketAbi, "markPrice");
    const [index] = await read<[bigint, bigint]>(v.deployment.contracts.oracle, oracleAbi, "getPrice", [EUR]);
    expectFundingEqualsView((await api(`/markets/${EUR}/funding`)).data, fv, mark, index);
    let open = 0;
    for (const id of s.accounts) {
      const h = await read<Json>(v.deployment.contracts.venueLens, venueLensAbi, "positionHealth", [market, id]);
      const funding = (await api(`/accounts/${id}/positions/${EUR}/funding`)).data;
      expect(funding.pendingFunding).toBe((h.pendingFundingWad as bigint).toString());
      const p = (await api(`/accounts/${id}/positions/${EUR}`)).data;
      if (!p.isOpen) continue;
      open++;
      expect(p.health.unrealizedPnL).toBe(h.unrealizedPnlWad.toString());
      expect(p.health.marginRatioBps).toBe(Number(h.marginRatioBps));
      expect(p.health.liquidationPrice).toBe(h.liquidationPriceX18.toString());
    }
    expect(open).toBeGreaterThanOrEqual(2);
  });
});
