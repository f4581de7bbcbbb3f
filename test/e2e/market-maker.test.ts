/**
 * The local market maker as a client of the venue (issue 30): its reads, streams, units and
 * builders through packages/client, its writes on chain with its own key.
 *   - the keeper's own maker (the shared stack's keeper process): its open orders, as the
 *     integration API lists them, are levels of the REST book at the same indexed block;
 *   - a maker of this file's own (wallet 15; one level each side 50 bps from the index, outside the
 *     keeper's 10–30 bps and inside EUR's 94 bps band, so neither maker trades with the other even
 *     through a 50 bps move): a round short of margin still cancels its stale orders (before, the
 *     first place that failed for margin ended the market's round, leaving every stale quote
 *     resting and its margin locked) and tops the account up, so the next round quotes the new
 *     ladder; its quotes are in the REST book and its REST order list at its last write's block
 *     (read-your-writes: the client's `minBlock`);
 *   - the same maker run as the keeper runs it (startMarketMaker), with a stream service of this
 *     file's own (the shared stack's read service behind it, so it can be killed): it re-quotes
 *     after an index move on the `market` channel alone (its poll is 10 minutes while the stream
 *     is connected), keeps quoting by polling while the stream service is killed, and follows the
 *     stream again once it is back on the same port;
 *   - the same maker with its dead-man switch on (10 s): a re-quote is one Engine.batch transaction
 *     (its cancels, its POST_ONLY places, its DeadmanSet at the chain's time + 10 s); a quiet round
 *     refreshes the deadline alone once less than half is left; stopped, the keeper's dead-man
 *     executor cancels its quotes after the deadline (CloseReason DEADMAN).
 * (The shared stack's own keeper maker runs with MARKET_MAKER_DEADMAN_SECONDS=0: test/e2e/stack.ts.)
 * The shared stack is left as found: the index moved back, this file's orders cancelled.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { decodeFunctionData, getAddress, parseEventLogs, type Hex, type PublicClient } from "viem";
import { engineAbi, marketAbi, oracleAbi } from "../../abis/index.js";
import { e2ePort } from "./helpers/ports.js";
import { devAccount, KEY_INDEX } from "../../core/config.js";
import { PROJECT_ROOT } from "../../core/deployment.js";
import { AMOUNT6_TO_WAD } from "../../core/units.js";
import { registry } from "../../core/metrics.js";
import { startProcess, waitForHttp, type Proc } from "../../scripts/lib/processes.js";
import { nodeTs, serviceMain } from "../../scripts/lib/services.js";
import { VenueClient, big, meta, type Market, type Order } from "../../packages/client/src/index.js";
import { Signer } from "../../services/keeper/chain/clients.js";
import { MarketMaker, type MakerOptions } from "../../services/keeper/market-maker/maker.js";
import { quoteParams } from "../../services/keeper/market-maker/orders.js";
import { TIME_IN_FORCE_VALUE } from "../../core/order-options.js";
import { CLOSE_REASON_DEADMAN } from "../../services/keeper/orders/deadman.js";
import { desiredQuotes, quoteClientKey, SIDE_LONG, SIDE_SHORT, SLOTS } from "../../services/keeper/market-maker/quotes.js";
import { startMarketMaker, type RunningMarketMaker } from "../../services/keeper/market-maker/run.js";
import { publicClient } from "./helpers/chain.js";
import { sharedStack, type StackInfo } from "./helpers/stacks.js";
import { until } from "./helpers/wait.js";

const MAKER_WALLET = 15; // this file's own (ether only in the harness)
const LEVELS = 1;
const ACTIVE = 1;
const log = pino({ level: "silent" });

describe.each([sharedStack()])("market maker ($kind)", (s: StackInfo) => {
  const client = publicClient(s) as PublicClient;
  const { engine, oracle, depositToken } = s.deployment.contracts;
  const EUR = s.deployment.markets.find((m) => m.symbol === "EUR/USD")!;
  const marketId = EUR.marketId as Hex;
  const signer = (role: string, key: Hex) => new Signer(role, key, client, s.rpcUrl, s.chainId, log);
  const makerKey = signer("market-maker", devAccount(MAKER_WALLET).privateKey);
  /** the deployer (an oracle updater here) moves the index and mints the maker's tokens: one signer, one nonce queue */
  const deployer = signer("deployer", s.keys.deployer);
  // a loaded machine's indexer may trail a write by more than the server's minBlock wait (5 s): 503 and Retry-After, again
  const retry = { retries: 20, maxWaitMs: 5_000 };
  const reader = new VenueClient({ baseUrl: s.integrationUrl, retry });
  const opts = (spreadBps = 50n, deadmanSeconds = 0): MakerOptions => ({
    levels: LEVELS, spreadBps, levelStepBps: 15n, levelQty: 100n, leverage: 5n, requoteBps: 5n, depositUsd: 10_000n, marketIds: [marketId], deadmanSeconds,
  });
  let market: Market;
  let startIndex = 0n;
  let makerAccount = 0n;
  let streamsPort = 0;
  let streams: Proc | undefined;
  let running: RunningMarketMaker | undefined;

  const startStreams = async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env, PROFILE: "local", PORT: String(streamsPort), HOST: "127.0.0.1", INTEGRATION_URL: s.integrationUrl, RPC_URL: s.rpcUrl, LOG_LEVEL: "warn",
      // no relayer needed: the transactions channel's feed retries quietly
      RELAYER_URL: `http://127.0.0.1:${await e2ePort()}`,
    };
    delete env.DATABASE_URL;
    delete env.DATABASE_SCHEMA;
    streams = startProcess("streams (market maker)", process.execPath, nodeTs(serviceMain("streams")), env, join(s.logDir, `streams-market-maker-${Date.now()}.log`), PROJECT_ROOT);
    await waitForHttp(`http://127.0.0.1:${streamsPort}/health`, { proc: streams, timeoutMs: 120_000, intervalMs: 100 });
  };

  /** the stream service boots while the first tests run (their chain work and its start overlap) */
  let streamsUp: Promise<unknown> = Promise.resolve();
  beforeAll(async () => {
    streamsPort = await e2ePort();
    streamsUp = startStreams().then(() => undefined, (e: unknown) => e);
  });

  afterAll(async () => {
    await running?.close();
    await streams?.stop();
    if (makerAccount > 0n) await makerKey.write({ address: engine, abi: engineAbi, functionName: "setDeadman", args: [makerAccount, 0n] }).catch(() => {});
    // the shared stack as found: the index back, this file's orders gone
    if (startIndex > 0n) await setIndex(startIndex).catch(() => {});
    if (makerAccount > 0n) {
      for (const [key] of await activeOnChain(makerAccount)) {
        await makerKey.write({ address: engine, abi: engineAbi, functionName: "cancelOrder", args: [makerAccount, marketId, key] }).catch(() => {});
      }
    }
  });

  /** Sets EUR's index (the keeper's price feed re-anchors at it); the index at its block. */
  const setIndex = async (price: bigint) => {
    const r = await deployer.write({ address: oracle, abi: oracleAbi, functionName: "setPrice", args: [marketId, price] });
    const [index] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId], blockNumber: r.blockNumber });
    return { index, block: Number(r.blockNumber) };
  };
  /** The index moved `bps` (within the oracle's 1 % bound), on the tick. */
  const moveIndex = async (bps: bigint) => {
    const [index] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId] });
    const tick = big(market.tickSize);
    return setIndex(((index * (10_000n + bps)) / 10_000n / tick) * tick);
  };

  /** The maker's active orders in EUR on chain, by client key. */
  const activeOnChain = async (accountId: bigint) => {
    const out = new Map<Hex, bigint>();
    for (const side of [SIDE_LONG, SIDE_SHORT] as const)
      for (let level = 0; level < LEVELS; level++)
        for (const slot of SLOTS) {
          const key = quoteClientKey(marketId, side, level, slot);
          const orderId = await client.readContract({ address: EUR.marketAddress as Hex, abi: marketAbi, functionName: "orderIdOf", args: [accountId, key] });
          if (orderId === 0n) continue;
          const o = await client.readContract({ address: EUR.marketAddress as Hex, abi: marketAbi, functionName: "getOrder", args: [orderId] });
          if (Number(o.status) === ACTIVE) out.set(key, o.priceX18);
        }
    return out;
  };

  /** An account's active EUR orders as the integration API lists them at `minBlock` or later. */
  const activeOnRest = async (accountId: bigint | number, minBlock?: number) => {
    const orders: Order[] = [];
    for await (const o of reader.orders(accountId, { status: "active", marketId, minBlock })) orders.push(o);
    return orders;
  };

  /**
   * The maker's ladder around `index` (within 8 bps of each wanted price: the requote threshold
   * and the feed's drift; a 50 bps move leaves every old quote 50 bps from the new one).
   */
  const ladderAround = (orders: { side: "LONG" | "SHORT"; price: bigint }[], index: bigint, o = opts()) => {
    const wanted = desiredQuotes(index, quoteParams(market, o));
    return orders.length === wanted.length && orders.every((x) => wanted.some((w) => {
      const d = x.price - w.priceX18;
      return (w.side === SIDE_LONG) === (x.side === "LONG") && (d < 0n ? -d : d) * 10_000n <= w.priceX18 * 8n;
    }));
  };
  const restLadder = (orders: Order[]) => orders.map((o) => ({ side: o.side, price: big(o.price) }));

  it("the keeper's own maker (on the client): its open orders are levels of the REST book", async () => {
    market = await reader.market(marketId);
    [startIndex] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId] });
    // the keeper may still be setting its maker up (its account, its deposit) when this file starts
    const accountId = await until("the keeper maker's account", async () => (await reader.accountByAddress(devAccount(KEY_INDEX.marketMaker).address)).accountId, 60_000);
    // the orders and the book of one indexed block (the maker may be moving between two reads)
    await until("the keeper maker's orders in the REST book at one block", async () => {
      const page = await reader.ordersPage(accountId, { status: "active", marketId });
      const block = meta(page)!.indexedBlock!;
      const book = await reader.orderBook(marketId, { depth: 50, minBlock: block });
      if (meta(book)!.indexedBlock !== block) return false;
      const levels = [...book.bids, ...book.asks];
      return page.orders.some((o) => o.side === "LONG") && page.orders.some((o) => o.side === "SHORT")
        && page.orders.every((o) => levels.some((l) => l.price === o.price && big(l.quantity) >= big(o.remainingQuantity)));
    }, 30_000);
  });

  it("a round short of margin cancels its stale quotes and tops up; the next one quotes the new ladder (reads through the client)", async () => {
    const api = new VenueClient({ baseUrl: s.integrationUrl, retry });
    const deps = { api, chain: client, maker: makerKey, deployer, addresses: { engine, depositToken }, log };
    const maker = new MarketMaker(deps, opts());
    expect(await maker.round()).toBeGreaterThan(0);
    makerAccount = maker.account;
    const placed = await activeOnChain(maker.account);
    expect(placed.size).toBe(2 * LEVELS);
    // at the block of its last write (the client's minBlock), the REST order list and book hold its quotes
    const rest = await activeOnRest(maker.account, api.minBlock);
    expect(new Map(rest.map((o) => [o.clientKey.toLowerCase(), big(o.price)]))).toEqual(new Map([...placed].map(([k, p]) => [k.toLowerCase(), p])));
    const book = await reader.orderBook(marketId, { depth: 50, minBlock: api.minBlock });
    for (const o of rest) {
      const level = [...book.bids, ...book.asks].find((l) => l.price === o.price);
      expect(level, `quote at ${o.priceFormatted} in the REST book`).toBeDefined();
      expect(big(level!.quantity) >= big(o.remainingQuantity)).toBe(true);
    }

    // a wider ladder (every quote stale) while the account has no margin left to place with
    const wapi = new VenueClient({ baseUrl: s.integrationUrl, retry });
    const wider = new MarketMaker({ ...deps, api: wapi }, opts(60n));
    await wider.setup();
    const available = async () => (await client.readContract({ address: engine, abi: engineAbi, functionName: "getAccount", args: [maker.account] })).availableWad;
    const w = await makerKey.write({ address: engine, abi: engineAbi, functionName: "withdraw", args: [maker.account, (await available()) / AMOUNT6_TO_WAD] });
    expect(await available()).toBeLessThan(AMOUNT6_TO_WAD);
    // a write outside this maker's own: its block as the reads' minBlock
    wapi.minBlock = Math.max(wapi.minBlock, Number(w.blockNumber));

    await wider.round();
    // every stale quote is gone (its margin free again), though none of the new ones could be placed
    const afterShort = await activeOnChain(maker.account);
    for (const key of placed.keys()) expect(afterShort.has(key), `stale quote ${key} still resting`).toBe(false);
    // and the round topped the account up
    expect(await available()).toBeGreaterThan(0n);

    await wider.round();
    const [index] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId] });
    expect(ladderAround(restLadder(await activeOnRest(maker.account, wapi.minBlock)), index, opts(60n))).toBe(true);
  });

  it("run as the keeper runs it: re-quotes on the market channel, polls while the stream service is down, follows it again after a restart", async () => {
    running = startMarketMaker({
      integrationUrl: s.integrationUrl, streamsUrl: `http://127.0.0.1:${streamsPort}`, intervalMs: 300, streamPollMs: 600_000,
      chain: client, maker: makerKey, deployer, addresses: { engine, depositToken }, opts: opts(), log, reconnect: { initialMs: 200, maxMs: 1_000 },
    });
    const r = running;
    const requotedTo = (index: bigint, label: string) =>
      until(`${label}: the maker's REST orders around ${index}`, async () => ladderAround(restLadder(await activeOnRest(makerAccount, r.api.minBlock)), index), 30_000);

    // the stream service (started with the file) up: the maker follows EUR's market channel; its poll is 10 minutes from now on
    const failed = await streamsUp;
    if (failed) throw failed;
    await until("the maker's stream connected", async () => r.follower.connected, 30_000);
    const viaStream = await moveIndex(50n);
    await requotedTo(viaStream.index, "index moved with the stream up");
    expect(r.follower.connected).toBe(true);

    // the stream service is killed: the maker polls again (and keeps quoting)
    await streams!.stop();
    streams = undefined;
    await until("the maker's stream lost", async () => !r.follower.connected, 30_000);
    const whileDown = await moveIndex(-50n);
    await requotedTo(whileDown.index, "index moved with the stream service down");

    // back on the same port: the client reconnects by itself and the market channel drives re-quotes again
    await startStreams();
    await until("the maker's stream reconnected", async () => r.follower.connected, 30_000);
    const afterRestart = await moveIndex(50n);
    await requotedTo(afterRestart.index, "index moved after the stream service's restart");
    expect(r.follower.connected).toBe(true);
    expect(r.loop.state().failures).toBe(0);

    // shutdown closes the stream (no reconnect)
    await r.close();
    running = undefined;
    expect(r.follower.connected).toBe(false);
  });

  it("with its dead-man switch: one POST_ONLY batch per re-quote, the deadline set and refreshed on chain time; stopped, the keeper cancels its quotes (DEADMAN)", async () => {
    const api = new VenueClient({ baseUrl: s.integrationUrl, retry });
    const DEADMAN = 10;
    // a wider ladder than the last test's: every resting quote is stale, the round cancels and places
    const maker = new MarketMaker({ api, chain: client, maker: makerKey, deployer, addresses: { engine, depositToken }, log }, opts(70n, DEADMAN));
    const deadmanOf = () => client.readContract({ address: engine, abi: engineAbi, functionName: "deadmanOf", args: [makerAccount] });
    const refreshes = async (via: string) => (await registry.getSingleMetric("venue_keeper_maker_deadman_refreshes_total")?.get())?.values.find((v) => v.labels.via === via)?.value ?? 0;
    const before = await activeOnChain(makerAccount);
    expect(before.size).toBe(2 * LEVELS);

    const first = await client.getBlockNumber();
    expect(await maker.round()).toBe(1);
    // one transaction of the maker since: Engine.batch (non-atomic) of the cancels, the places and the dead-man
    const txs = [];
    for (let b = first + 1n; b <= BigInt(api.minBlock); b++) {
      for (const tx of (await client.getBlock({ blockNumber: b, includeTransactions: true })).transactions) {
        if (getAddress(tx.from) === getAddress(makerKey.address)) txs.push(tx);
      }
    }
    expect(txs).toHaveLength(1);
    const call = decodeFunctionData({ abi: engineAbi, data: txs[0]!.input });
    expect(call.functionName).toBe("batch");
    const [items, atomic] = call.args as readonly [readonly Hex[], boolean];
    expect(atomic).toBe(false);
    expect(items.map((d) => decodeFunctionData({ abi: engineAbi, data: d }).functionName).sort()).toEqual(
      [...Array(2 * LEVELS).fill("cancelOrder"), ...Array(2 * LEVELS).fill("placeOrder"), "setDeadman"].sort(),
    );
    const receipt = await client.getTransactionReceipt({ hash: txs[0]!.hash });
    const block = await client.getBlock({ blockNumber: receipt.blockNumber });
    const placed = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrderPlaced" });
    expect(placed).toHaveLength(2 * LEVELS);
    expect(placed.every((e) => e.args.accountId === makerAccount && e.args.timeInForce === TIME_IN_FORCE_VALUE.POST_ONLY)).toBe(true);
    const closed = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "OrderCancelled" });
    expect(closed.filter((e) => e.args.accountId === makerAccount)).toHaveLength(2 * LEVELS);
    const [set] = parseEventLogs({ abi: engineAbi, logs: receipt.logs, eventName: "DeadmanSet" });
    expect(set!.args.accountId).toBe(makerAccount);
    // the chain's time (the latest block's when the round read it) + 10 s, at least 5 s past the batch's block
    const deadline = set!.args.deadline;
    expect(deadline >= block.timestamp + 5n && deadline <= block.timestamp + BigInt(DEADMAN)).toBe(true);
    expect(await deadmanOf()).toBe(deadline);
    const after = await activeOnChain(makerAccount);
    const [index] = await client.readContract({ address: oracle, abi: oracleAbi, functionName: "getPrice", args: [marketId] });
    expect(ladderAround([...after.values()].map((price) => ({ side: price < index ? "LONG" as const : "SHORT" as const, price })), index, opts(70n))).toBe(true);

    // quiet rounds: once less than half the period is left (chain time: a block every second here), the deadline moves on its own
    const alone = await refreshes("alone");
    const refreshed = await until("the maker's dead-man deadline refreshed", async () => {
      await client.request({ method: "evm_mine" as never, params: [] as never });
      await maker.round();
      const d = await deadmanOf();
      return d > deadline ? d : undefined;
    }, 30_000, 1_000);
    expect(refreshed > deadline).toBe(true);
    expect(await refreshes("alone") + await refreshes("batch")).toBeGreaterThan(alone);

    // the maker stops: once the deadline passed (chain time), the keeper's dead-man executor cancels its quotes
    const stoppedAt = await client.getBlockNumber();
    const cancelled = await until("the keeper's dead-man cancel of the maker's quotes", async () => {
      await client.request({ method: "evm_mine" as never, params: [] as never });
      return (await activeOnChain(makerAccount)).size === 0 ? true : undefined;
    }, 90_000, 1_000);
    expect(cancelled).toBe(true);
    const logs = await client.getLogs({ address: EUR.marketAddress as Hex, fromBlock: stoppedAt, toBlock: "latest" });
    const deadmanClosed = parseEventLogs({ abi: marketAbi, logs, eventName: "OrdersCancelled" }).filter((e) => e.args.accountId === makerAccount);
    // its quotes of the stop (those of the batch above, or of a re-quote since when the index moved)
    expect(deadmanClosed.flatMap((e) => e.args.orderIds)).toHaveLength(2 * LEVELS);
    expect(deadmanClosed.every((e) => Number(e.args.reason) === CLOSE_REASON_DEADMAN)).toBe(true);
    const chainNow = (await client.getBlock({ blockTag: "latest" })).timestamp;
    expect(chainNow >= refreshed).toBe(true);
    // no item of this file's makers ran out of gas or went missing in a mined batch
    const failed = (await registry.getSingleMetric("venue_keeper_maker_batch_items_failed_total")?.get())?.values ?? [];
    expect(failed.filter((v) => v.labels.reason === "empty" || v.labels.reason === "lost")).toEqual([]);
    expect((await registry.getSingleMetric("venue_keeper_maker_batches_total")?.get())?.values.find((v) => v.labels.result === "ok")?.value).toBeGreaterThan(0);
  });
});
