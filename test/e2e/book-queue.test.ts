/**
 * The book read's order within a level is the chain's queue, where it matters: the cut. The
 * chain's view (`getFillableLevels`) reads at most MAX_DEPTH_ORDERS (2,000) orders from the best
 * price outwards, each level in its FIFO; the reads cut there too (core/reads/depth.ts). A modify
 * that grows an order (or moves it) puts it at the tail of its level, behind orders placed after
 * it, so a level cut by the 2,000th order counts the orders ahead in the chain's queue, not the
 * lowest order ids. On a venue of its own (nothing else trades): 1,999 asks at one price from 20
 * accounts (100 open orders per account and market at most), then X's ask and Y's smaller ask at
 * the next price, X placed first; X grows (to the tail, behind Y). The chain's view counts Y's in
 * that level, not X's; GET /markets/{id}/orderbook (Ponder's route and the read service) equals
 * getFillableLevels at the block it reports, before and after the modify.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFunctionResult, encodeFunctionData, parseEventLogs, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { engineAbi, marketAbi } from "../../abis/index.js";
import { KEY_INDEX, devAccount } from "../../core/config.js";
import { MAX_DEPTH_ORDERS } from "../../core/reads/depth.js";
import { walletClientFor } from "../../scripts/lib/clients.js";
import { mintTo, prepareWallet, usd } from "../../scripts/lib/demo-wallets.js";
import { startVenue, waitForBlock, type Indexer, type Venue } from "./reads-env.js";
import { px, sessionActions, usd6 } from "./reads-session.js";
import { getOnce } from "./helpers/http.js";
import { mainKind } from "./stack.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Levels = [bigint[], bigint[], bigint[]];
const SHORT = 1;
const LIMIT = 1;
const PER_ACCOUNT = 100; // MarketBase.MAX_OPEN_ORDERS
const BATCH = 32; // Engine.MAX_BATCH
/** The blocks' gas limit here (and the views' gas): the chain's view of 2,000 orders is a heavy eth_call. */
const GAS = 1_000_000_000n;

describe.each([mainKind()])("the book read cuts a level in the chain's queue order on %s", (kind) => {
  let v: Venue;
  let ix: Indexer;
  let rd: { url: string };
  let EUR: Hex;
  let market: Hex;
  const keys = Array.from({ length: 22 }, () => generatePrivateKey());
  const accounts: bigint[] = [];
  let x = 0n;
  let y = 0n;

  /** A view of the market at block `at`, with ample gas: getFillableLevels over 2,000 orders costs more than a default eth_call's cap. */
  const view = async <T>(functionName: string, args: readonly unknown[], at: bigint) => {
    const data = encodeFunctionData({ abi: marketAbi, functionName, args } as never);
    const r = await v.client.call({ to: market, data, blockNumber: at, gas: GAS });
    return decodeFunctionResult({ abi: marketAbi, functionName, data: r.data! } as never) as T;
  };
  const levels = ([prices, qtys, counts]: Levels) => prices.map((p, i) => ({ price: p.toString(), quantity: qtys[i]!.toString(), orderCount: Number(counts[i]) }));
  const shown = (ls: Json[]) => ls.map((l) => ({ price: l.price, quantity: l.quantity, orderCount: l.orderCount }));
  const placeCall = (accountId: bigint, price: string, collateral: string) =>
    encodeFunctionData({
      abi: engineAbi,
      functionName: "placeOrder",
      args: [{
        accountId, marketId: EUR, side: SHORT, orderType: LIMIT, collateral6: usd6(collateral), leverage: 10n, limitPriceX18: px(price),
        clientKey: `0x${"0".repeat(64)}`, timeInForce: 0, reduceOnly: false, expiresAt: 0n,
      }],
    });
  /** `calls` of the account's owner in one Engine.batch (atomic), mined. */
  const batch = async (i: number, calls: Hex[]) => {
    const w = walletClientFor(v.rpcUrl, v.chainId, keys[i]!);
    const { request } = await v.client.simulateContract({ address: v.deployment.contracts.engine, abi: engineAbi, functionName: "batch", args: [calls, true], account: w.account });
    const limit = (await v.client.getBlock({ blockTag: "latest" })).gasLimit;
    const est = await v.client.estimateGas({ account: w.account, to: v.deployment.contracts.engine, data: encodeFunctionData({ abi: engineAbi, functionName: "batch", args: [calls, true] }) });
    const gas = est * 2n < limit ? est * 2n : limit - 1n; // headroom: the 63/64 rule on the engine → market call undercuts the estimate
    expect(gas).toBeLessThan(30_000_000n); // an ordinary block's worth
    const r = await v.client.waitForTransactionReceipt({ hash: await w.writeContract({ ...request, gas } as never) });
    expect(r.status).toBe("success");
    return r;
  };
  /** `n` asks of account i at `price`, by batches of 32. */
  const asks = async (i: number, n: number, price: string, collateral: string) => {
    for (let k = 0; k < n; k += BATCH) await batch(i, Array.from({ length: Math.min(BATCH, n - k) }, () => placeCall(accounts[i]!, price, collateral)));
  };
  /** Both read servers' book at `minBlock` equals getFillableLevels at the block each reports. */
  const bookEqualsChain = async (minBlock: bigint) => {
    const out: Json[] = [];
    for (const base of [ix.url, rd.url]) {
      const res = await getOnce(`${base}/markets/${EUR}/orderbook?depth=10&minBlock=${minBlock}`, { headers: { "cache-control": "no-cache" } });
      const body = (await res.json()) as Json;
      expect(res.status, JSON.stringify(body)).toBe(200);
      const at = BigInt(res.headers.get("x-indexed-block")!);
      expect({ bids: shown(body.data.bids), asks: shown(body.data.asks) }).toEqual({
        bids: levels(await view<Levels>("getFillableLevels", [0, 10n], at)),
        asks: levels(await view<Levels>("getFillableLevels", [1, 10n], at)),
      });
      out.push(body.data);
    }
    return out[0]!;
  };

  beforeAll(async () => {
    v = await startVenue(kind);
    await v.client.request({ method: "evm_setBlockGasLimit" as never, params: [`0x${GAS.toString(16)}`] as never });
    ({ ix, rd } = await v.startIndexerAndReads("queue"));
    EUR = v.deployment.markets[0]!.marketId as Hex;
    market = v.deployment.markets[0]!.marketAddress as Hex;
    await sessionActions(v).setPrice(EUR, "1.0800");
    const ctx = { rpcUrl: v.rpcUrl, chainId: v.chainId, deployment: v.deployment };
    const addresses = keys.map((k) => privateKeyToAccount(k).address);
    for (const a of addresses) await v.client.request({ method: "anvil_setBalance" as never, params: [a, "0x56BC75E2D63100000"] as never });
    await mintTo(ctx, devAccount(KEY_INDEX.deployer).privateKey, addresses.map((address) => ({ address, amount6: usd("20000") })));
    for (const k of keys) accounts.push(BigInt(await prepareWallet(ctx, k, { approve: true, createAccount: true, deposit6: usd("15000") })));
    // 1,999 asks at 1.0840: 19 accounts × 100, one × 99 (the senders side by side, four at a time)
    const jobs = Array.from({ length: 20 }, (_, i) => () => asks(i, i === 19 ? PER_ACCOUNT - 1 : PER_ACCOUNT, "1.0840", "20"));
    for (let k = 0; k < jobs.length; k += 4) await Promise.all(jobs.slice(k, k + 4).map((j) => j()));
    // X's ask, then Y's smaller one, at 1.0850
    const placedId = async (i: number, collateral: string) => {
      const r = await batch(i, [placeCall(accounts[i]!, "1.0850", collateral)]);
      return parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderPlaced" })[0]!.args.orderId;
    };
    x = await placedId(20, "200");
    y = await placedId(21, "50");
  }, 900_000);
  afterAll(async () => {
    await ix?.stop();
    await v?.stop();
  });

  it("the chain's view stops at the 2,000th order: 1,999 at the best price, then the head of the next level's queue (X's, placed first); the reads say the same", async () => {
    const block = await v.client.getBlockNumber({ cacheTime: 0 });
    await waitForBlock(ix.url, block, 600_000); // ~100 events in each of the batches' blocks
    const stored = levels(await view<Levels>("getLevels", [1, 10n], block));
    expect(stored.map((l) => l.orderCount)).toEqual([MAX_DEPTH_ORDERS - 1, 2]);
    const fillable = levels(await view<Levels>("getFillableLevels", [1, 10n], block));
    const xo = await view<Json>("getOrder", [x], block);
    expect(fillable.map((l) => [l.orderCount, l.quantity])).toEqual([[MAX_DEPTH_ORDERS - 1, stored[0]!.quantity], [1, xo.remainingQty.toString()]]);
    await bookEqualsChain(block);
  });

  it("X grows: at the tail of its level, behind Y's; the chain's view counts Y's there now, and so do the reads (not the lower order id, X's)", async () => {
    await sessionActions(v).setPrice(EUR, "1.0800"); // fresh again (the oracle's bound is 60 s)
    const xo = await view<Json>("getOrder", [x], await v.client.getBlockNumber({ cacheTime: 0 }));
    const r = await batch(20, [encodeFunctionData({ abi: engineAbi, functionName: "modifyOrder", args: [accounts[20]!, EUR, x, `0x${"0".repeat(64)}`, px("1.0850"), xo.remainingQty * 2n] })]);
    const [e] = parseEventLogs({ abi: marketAbi, logs: r.logs, eventName: "OrderModified" });
    expect(e!.args).toMatchObject({ orderId: x, remainingQty: xo.remainingQty * 2n, levelOrderCount: 2n });
    await waitForBlock(ix.url, r.blockNumber, 120_000);
    const yo = await view<Json>("getOrder", [y], r.blockNumber);
    const fillable = levels(await view<Levels>("getFillableLevels", [1, 10n], r.blockNumber));
    expect(fillable[1]).toEqual({ price: px("1.0850").toString(), quantity: yo.remainingQty.toString(), orderCount: 1 });
    expect(x).toBeLessThan(y);
    const book = await bookEqualsChain(r.blockNumber);
    expect(book.asks[1]).toMatchObject({ quantity: yo.remainingQty.toString(), orderCount: 1 });
  });
});
