/**
 * A liquidation cannot be stalled by a wall of unfillable resting orders (docs/CONTRACTS.md
 * "Health and liquidation", "Order bond"; docs/KEEPER.md "Liquidation scan", step 6), on the real
 * shared stack: nothing but the keeper liquidates, through the relayer.
 *
 * Set-up, EUR/USD, with J = 150 (other sizes on chain: contracts/test/attack/S11):
 * - a victim (wallet 19) opens a 40× long against the keeper's market maker; the index is
 *   walked down until its mark is ~4 bps above its liquidation price (still healthy);
 * - griefers (wallets 18 and 16: at most 100 resting orders per account and market) each open a
 *   small short, rest reduce-only LIMIT bids (J = 100 + 50) on 5 ticks just above the
 *   maker's bids, then close their shorts: the bids can never fill (reduce-only, no position left)
 *   and each holds a 0.50 bond;
 * - the index goes ~7 bps further down (3 bps past the liquidation price; 1–2.5 when the mark
 *   drifted up while the wall was built): the victim is liquidatable, and the wall is the first
 *   thing a seller meets (bids are swept from the highest down).
 * Why so close to the threshold: the wall must sit inside the maker's spread (±10 bps, re-quoted
 * when the index moves 5 bps) both when it is placed and when the keeper liquidates. Placed at the
 * start price, the ~1.4 % drop would make the maker's re-quoted asks cross it and clear it (any
 * taker cancels the unfillable makers it meets); below the maker's bids no liquidation meets it.
 *
 * Then: the keeper's first call cancels 100 wall orders (MAX_SKIPS), closes 0 and is mined (no
 * revert: the cancellations stick, their bonds are paid to the liquidator); the keeper calls again,
 * and the second call cancels the rest (50) and closes the position into the maker's bids. The griefers lose exactly their bonds. afterAll puts the index back and waits for the
 * maker's book around it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BaseError, ContractFunctionRevertedError, getAddress, keccak256, parseEventLogs, parseUnits,
  toHex, zeroHash, type Hex, type TransactionReceipt,
} from "viem";
import { depositTokenAbi, engineAbi, marketAbi, oracleAbi, venueLensAbi } from "../../abis/index.js";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import { publicClient, walletClient } from "./helpers/chain.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";
import { until } from "./helpers/wait.js";
import { chainTrading, positionIdOf } from "./helpers/trading.js";

// ether only in the harness: this file's own wallets (17 is liquidation.test.ts's)
// (J = 100 and other sizes on chain: contracts/test/attack/S11LiquidationProgress.t.sol)
const CASES = [{ J: 150, victim: 19, griefers: [18, 16] }];
const MAX_SKIPS = 100;
const MAX_OPEN_ORDERS = 100;
const WALL_TICKS = 5n;
const BOND = parseUnits("0.5", 18);
const REDUCE_ONLY_EXPIRED = 3; // IMarket.CloseReason
const LONG = 0, SHORT = 1, MARKET = 0, LIMIT = 1;

type Envelope<T = any> = { success: boolean; data: T; error?: { code: string; message: string } };
async function call<T = any>(url: string): Promise<{ status: number; body: Envelope<T>; block: number }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Envelope<T>, block: Number(res.headers.get("x-indexed-block") ?? -1) };
}
/** The keeper's counter (absent until its first increment: 0). */
async function noProgressTotal(keeperUrl: string): Promise<number> {
  const text = await (await fetch(`${keeperUrl}/metrics`)).text();
  const line = text.split("\n").find((l) => /^venue_keeper_liquidations_no_progress_total[ {]/.test(l));
  return line ? Number(line.split(" ").at(-1)) : 0;
}
const wallKey = (J: number, i: number) => keccak256(toHex(`liquidation-stall-${J}-${i}`));

describe.each([sharedStack()])("liquidation behind a wall of unfillable orders ($kind)", (s: StackInfo) => {
  const client = publicClient(s);
  const deployerWallet = walletClient(s, s.keys.deployer);
  const { engine, depositToken, oracle, venueLens } = s.deployment.contracts;
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD")!;
  const marketId = eur.marketId as Hex;
  const market = eur.marketAddress as Hex;
  const relayer = devAccount(KEY_INDEX.relayer).address;
  /** a griefer of one case: its wall orders' keys, its total margin before the case */
  type Griefer = { w: ReturnType<typeof walletClient>; id: bigint; keys: Hex[]; start: bigint };
  const griefers: Griefer[] = []; // every case's, for afterAll
  let startPrice = 0n;
  let tick = 0n;

  const { send, write, trade, fund } = chainTrading(s);
  const walkIndex = (target: bigint) => chainTrading(s).walkIndex(marketId, target);
  const place = (accountId: bigint, side: number, orderType: number, collateral6: bigint, leverage: bigint, limitPriceX18 = 0n, clientKey: Hex = zeroHash) =>
    ({ address: engine, abi: engineAbi, functionName: "placeOrder", args: [{ accountId, marketId, side, orderType, collateral6, leverage, limitPriceX18, clientKey, timeInForce: 0, reduceOnly: false, expiresAt: 0n }] }) as const;
  const account = (id: bigint, blockNumber?: bigint) => client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [id], blockNumber });
  const positionOf = (id: bigint) => client.readContract({ address: market, abi: marketAbi, functionName: "getPosition", args: [id] });
  const bestPrices = () => client.readContract({ address: venueLens, abi: venueLensAbi, functionName: "bestPrices", args: [market] });

  /** The maker's quotes re-quoted around the index (its best bid and ask ±5..15 bps from it): the
   *  book a moved index leaves behind takes it several seconds. */
  const settled = () => until("the maker's quotes around the index", async () => {
    const [[bid, ask], [index]] = await Promise.all([bestPrices(), client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId] })]);
    return bid < index && ask > index && (ask - bid) * 10_000n <= index * 30n ? { bid, ask, index } : undefined;
  }, 90_000);

  /** A victim's mark above its liquidation price, in millionths; and the index putting it at `ppm`. */
  const headroom = async (victimId: bigint) => {
    const blockNumber = await client.getBlockNumber({ cacheTime: 0 }); // not viem's cached head
    const [h, [index]] = await Promise.all([
      client.readContract({ address: venueLens, abi: venueLensAbi, functionName: "positionHealth", args: [market, victimId], blockNumber }),
      client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId], blockNumber }),
    ]);
    const ppm = ((h.markPriceX18 - h.liquidationPriceX18) * 1_000_000n) / h.liquidationPriceX18;
    // mark = index × (1 + the premium's average), which moves over minutes: the ratio holds for a step
    const indexFor = (target: bigint) => ((h.liquidationPriceX18 * (1_000_000n + target) * index) / 1_000_000n / h.markPriceX18 / tick) * tick;
    return { ppm, index, indexFor };
  };

  beforeAll(async () => {
    [startPrice] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId] });
    tick = (await client.readContract({ address: market, abi: marketAbi, functionName: "params" })).tickSizeX18;
  });

  afterAll(async () => {
    try {
      // a failed run leaves no wall and no griefer position behind for the other files
      for (const g of griefers) {
        for (const key of g.keys) {
          const open = await client.readContract({ address: market, abi: marketAbi, functionName: "orderIdOf", args: [g.id, key] });
          if (open !== 0n) await send(g.w, { address: engine, abi: engineAbi, functionName: "cancelOrder", args: [g.id, marketId, key] }).catch(() => {});
        }
        if ((await positionOf(g.id)).sizeQty !== 0n) {
          await send(g.w, { address: engine, abi: engineAbi, functionName: "closePosition", args: [g.id, marketId, MARKET, 0n, zeroHash] }).catch(() => {});
        }
      }
    } finally {
      // leave the shared stack's EUR/USD where it was: the index, and the maker's book around it
      // (a file opening a position at once would otherwise buy at a stale ask)
      if (startPrice > 0n) await walkIndex(startPrice).then(settled);
    }
  });

  it.each(CASES)("J = $J unfillable bids: each call cancels at most 100 and sticks, the keeper calls until the 40x long is closed", async ({ J, victim: vi, griefers: gis }) => {
    const victim = { w: walletClient(s, devAccount(vi).privateKey), id: 0n };
    victim.id = await fund(victim.w, "500");
    const mine: Griefer[] = [];
    for (const gi of gis) {
      const g: Griefer = { w: walletClient(s, devAccount(gi).privateKey), id: 0n, keys: [], start: 0n };
      g.id = await fund(g.w, "100");
      g.start = (await account(g.id)).totalWad;
      griefers.push(g);
      mine.push(g);
    }
    const zeroCalls = Math.floor(J / MAX_SKIPS); // calls that only cancel (J < 200 here)

    // The maker quotes around the index; the insurance fund holds no long its reduction (the keeper's
    // funding round, a reduce-only seller) would clear the wall with: reduced now, or not due for two minutes.
    await settled();
    await until("no fund reduction due against the wall", async () => {
      if ((await positionOf(0n)).sizeQty <= 0n) return true;
      try {
        await write(victim.w, { address: market, abi: marketAbi, functionName: "reduceFundPosition" });
        return false; // reduced: look again
      } catch (e) {
        const r = e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : null;
        if (!(r instanceof ContractFunctionRevertedError) || r.data?.errorName !== "FundReductionNotDue") throw e;
        const { timestamp } = await client.getBlock();
        return (r.data.args![0] as bigint) > timestamp + 120n;
      }
    }, 150_000, 1_000);

    // 1. The victim's 40× long.
    await trade(victim.w, place(victim.id, LONG, MARKET, parseUnits("500", 6), 40n));
    const size = (await positionOf(victim.id)).sizeQty;
    expect(size > 0n).toBe(true);
    const positionId = positionIdOf(victim.id, marketId);

    // 2. The index down until the victim is ~4 bps from liquidation, the maker's quotes around it.
    let near = await headroom(victim.id);
    for (let i = 0; i < 4 && (near.ppm < 300n || near.ppm > 600n); i++) {
      await walkIndex(near.indexFor(400n));
      near = await headroom(victim.id);
    }
    expect(near.ppm > 0n && near.ppm <= 600n, `headroom ${near.ppm} ppm`).toBe(true);
    const { bid, ask, index } = await settled();

    // 3. The wall: small shorts; J reduce-only bids on the 5 ticks above the maker's best bid, and
    //    above index × 0.9995, the highest bid it keeps at this index (spread 10 bps, re-quoted
    //    beyond 5), sent with pipelined nonces; the shorts closed.
    for (const g of mine) await trade(g.w, place(g.id, SHORT, MARKET, parseUnits("1", 6), 2n));
    const base = [bid, ((index * 9_995n) / 10_000n / tick) * tick].reduce((a, b) => (a > b ? a : b));
    const wallTop = base + WALL_TICKS * tick;
    expect(wallTop < ask).toBe(true);
    const fees = await client.estimateFeesPerGas();
    const order = (g: Griefer, i: number) => place(g.id, LONG, LIMIT, 0n, 0n, base + (1n + (BigInt(i) % WALL_TICKS)) * tick, wallKey(J, i));
    const gas = (await client.estimateContractGas({ ...order(mine[0]!, 0), account: mine[0]!.w.account })) * 2n;
    const hashes: Hex[] = [];
    // in a few blocks rather than J (the indexer, and so the keeper, take their time per block):
    // automine off while they are sent, then mined
    await client.request({ method: "evm_setAutomine" as never, params: [false] as never });
    try {
      for (const [k, g] of mine.entries()) {
        let nonce = await client.getTransactionCount({ address: g.w.account.address, blockTag: "pending" });
        for (let i = k * MAX_OPEN_ORDERS; i < Math.min(J, (k + 1) * MAX_OPEN_ORDERS); i++) {
          g.keys.push(wallKey(J, i));
          hashes.push(await g.w.writeContract({ ...order(g, i), gas, nonce: nonce++, maxFeePerGas: fees.maxFeePerGas * 2n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }));
        }
      }
      for (let n = 0; n < 20 && (await client.getBlock({ blockTag: "pending" })).transactions.length > 0; n++) {
        await client.request({ method: "evm_mine" as never, params: [] as never });
      }
    } finally {
      await client.request({ method: "evm_setAutomine" as never, params: [true] as never });
    }
    const placed = await Promise.all(hashes.map((hash) => client.waitForTransactionReceipt({ hash })));
    expect(placed.filter((r) => r.status !== "success").length).toBe(0);
    const wall = new Set(placed.flatMap((r) => parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderPlaced" }).map((l) => l.args.orderId)));
    expect(wall.size).toBe(J);
    const afterWall = new Map<bigint, bigint>();
    for (const g of mine) {
      await trade(g.w, { address: engine, abi: engineAbi, functionName: "closePosition", args: [g.id, marketId, MARKET, 0n, zeroHash] });
      expect((await positionOf(g.id)).sizeQty).toBe(0n);
      const a = await account(g.id);
      expect(a.committedWad).toBe(BOND * BigInt(g.keys.length)); // the bonds, nothing else
      afterWall.set(g.id, a.totalWad);
    }
    // the wall is what a seller meets first, and the victim is still healthy
    expect((await bestPrices())[0]).toBe(wallTop);
    near = await headroom(victim.id);
    expect(near.ppm > 0n, `the victim became liquidatable while the wall was built (headroom ${near.ppm} ppm)`).toBe(true);

    // 4. ~7 bps more down: 3 bps past the liquidation price. The maker's asks re-quoted there
    //    (≥ index × 1.0005) stay above the wall, its bids from before (≤ index × 0.9995) below it.
    //    The wall itself lifts the book's mid, so the mark's premium average drifts up while it is
    //    built (more the slower the machine): the victim's headroom grows and the drop with it. A
    //    drop whose re-quoted asks would cross the wall goes less far past the liquidation price
    //    (down to 1 bp) instead.
    const metricBefore = await noProgressTotal(s.keeperUrl);
    const clears = (t: bigint) => (t * 10_005n) / 10_000n > wallTop + 5n * tick;
    const drops = [300n, 250n, 200n, 150n, 100n].map((past) => near.indexFor(-past));
    const target = drops.find(clears) ?? drops.at(-1)!;
    expect(clears(target), `a drop to ${target} would let the maker's asks cross the wall (its top ${wallTop}, built on ${base}: the maker's bid ${bid}, the index ${index} then; tick ${tick}; headroom now ${near.ppm} ppm)`).toBe(true);
    const moved = await walkIndex(target);

    // 5. The keeper alone: wait until the position is closed. It calls again once the indexer has
    //    passed its previous call's block: a quiet chain (the e2e price feed pushes every 10 s)
    //    gets a block every 2 s, as a live one would.
    let head = 0n;
    let headAt = Date.now();
    const closed = await until("the keeper closes the position", async () => {
      const b = await client.getBlockNumber({ cacheTime: 0 });
      if (b !== head) [head, headAt] = [b, Date.now()];
      else if (Date.now() - headAt >= 2_000) await client.request({ method: "evm_mine" as never, params: [] as never });
      const r = await call(`${s.keeperUrl}/liquidation/position/${positionId}?minBlock=${moved.blockNumber}`);
      return r.body.success && !r.body.data.isOpen && r.body.data.liquidations.some((l: any) => l.remainingSize === "0") ? r : undefined;
    }, 120_000, 500);
    expect(closed.body.data).toMatchObject({ isOpen: false, size: "0", health: null });
    const liqs = [...closed.body.data.liquidations].sort((a: any, b: any) => a.blockNumber - b.blockNumber);

    // The calls, all by the relayer's signer: the first ones closed 0 and left the size as it was, the last closed it all.
    expect(liqs.map((l: any) => [l.closedQuantity, l.remainingSize])).toEqual([
      ...Array.from({ length: zeroCalls }, () => ["0", size.toString()]),
      [size.toString(), "0"],
    ]);
    for (const l of liqs) expect(getAddress(l.liquidator)).toBe(relayer);
    const receipts: TransactionReceipt[] = await Promise.all(liqs.map((l: any) => client.getTransactionReceipt({ hash: l.transactionHash })));
    const mm = await client.readContract({ address: engine, abi: engineAbi, functionName: "accountIdOf", args: [devAccount(KEY_INDEX.marketMaker).address] });
    const calls = receipts.map((r) => {
      const ev = parseEventLogs({ abi: marketAbi, logs: r.logs.filter((l) => getAddress(l.address) === getAddress(market)) }) as any[];
      const paid = parseEventLogs({ abi: depositTokenAbi, logs: r.logs, eventName: "Transfer" })
        .filter((t) => getAddress(t.args.to) === relayer && getAddress(t.args.from) === getAddress(engine));
      return {
        status: r.status,
        expired: ev.filter((e) => e.eventName === "OrderClosed" && e.args.reason === REDUCE_ONLY_EXPIRED).map((e) => e.args),
        fills: ev.filter((e) => e.eventName === "OrderFilled").map((e) => e.args),
        paid: paid.reduce((n, t) => n + t.args.value, 0n),
      };
    });
    // Each call mined: 100 wall orders cancelled per zero call (the skip budget), the rest in the last one.
    expect(calls.map((c) => [c.status, c.expired.length])).toEqual([
      ...Array.from({ length: zeroCalls }, () => ["success", MAX_SKIPS]),
      ["success", J - zeroCalls * MAX_SKIPS],
    ]);
    expect(calls.slice(0, -1).every((c) => c.fills.length === 0)).toBe(true);
    const last = calls.at(-1)!;
    // the maker's bids (honest depth) took the whole position in the last call
    expect(last.fills.length > 0 && last.fills.every((f) => f.makerAccountId === mm && f.takerAccountId === victim.id)).toBe(true);
    expect(last.fills.reduce((n: bigint, f) => n + f.quantityQty, 0n)).toBe(size);
    const expired = calls.flatMap((c) => c.expired);
    expect(new Set(expired.map((e) => e.orderId))).toEqual(wall);
    expect(expired.every((e) => mine.some((g) => g.id === e.accountId) && e.filledQty === 0n)).toBe(true);
    // Bonds go to whoever cleared the orders: the liquidator's address, in deposit tokens (6 decimals, floor) with its fee.
    expect(calls.map((c) => c.paid)).toEqual(calls.map((c, i) => (BigInt(liqs[i].liquidatorFee) + BigInt(c.expired.length) * BOND) / 10n ** 12n));

    // No call reverted: every transaction the relayer sent since the wall is one of these, mined successfully.
    const sent: Hex[] = [];
    for (let b = placed.at(-1)!.blockNumber; b <= receipts.at(-1)!.blockNumber; b++) {
      const blk = await client.getBlock({ blockNumber: b, includeTransactions: true });
      sent.push(...blk.transactions.filter((t) => getAddress(t.from) === relayer).map((t) => t.hash));
    }
    expect(sent).toEqual(liqs.map((l: any) => l.transactionHash));
    // The keeper counted the calls that closed nothing; no stall reported.
    expect((await noProgressTotal(s.keeperUrl)) - metricBefore).toBeGreaterThanOrEqual(zeroCalls);
    const health = (await (await fetch(`${s.keeperUrl}/health`)).json()) as any;
    expect(health.data.stalledLiquidations.some((x: any) => x.positionId === positionId)).toBe(false);

    // Indexed: every wall order cancelled as an expired reduce-only order, closed at one of the liquidations.
    const block = closed.block;
    const times = new Set(liqs.map((l: any) => l.timestamp));
    for (const g of mine) {
      const h = await call(`${s.integrationUrl}/accounts/${g.id}/orders/history?marketId=${marketId}&limit=1000&minBlock=${block}`);
      expect(h.status, JSON.stringify(h.body.error)).toBe(200);
      const bids = h.body.data.orders.filter((o: any) => wall.has(BigInt(o.orderId)));
      expect(bids.length).toBe(g.keys.length);
      for (const o of bids) {
        expect(o).toMatchObject({ side: "LONG", orderType: "LIMIT", reduceOnly: true, status: "cancelled", closeReason: "REDUCE_ONLY_EXPIRED", filledQuantity: "0" });
        expect(times.has(o.closedAt)).toBe(true);
      }
      // The griefer lost exactly its bonds since the wall (chain and integration API agree), and gained nothing.
      const onChain = await account(g.id, BigInt(block));
      expect([onChain.totalWad, onChain.committedWad]).toEqual([afterWall.get(g.id)! - BOND * BigInt(g.keys.length), 0n]);
      expect(onChain.totalWad < g.start).toBe(true);
      const api = await call(`${s.integrationUrl}/accounts/${g.id}?minBlock=${block}`);
      expect(api.body.data.margin).toMatchObject({ total: onChain.totalWad.toString(), committed: "0" });
    }
    // The victim: flat on chain and in the integration API.
    expect((await positionOf(victim.id)).sizeQty).toBe(0n);
    const pos = await call(`${s.integrationUrl}/accounts/${victim.id}/positions/${marketId}?minBlock=${block}`);
    expect(pos.body.data).toMatchObject({ isOpen: false, size: "0" });
  });
});
