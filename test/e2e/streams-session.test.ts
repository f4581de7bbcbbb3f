/**
 * The streams through a scripted session on a venue of their own (own anvil, Ponder, read
 * service and stream service; nothing else writes to the chain, so every block is one of our
 * steps and the chain may be reverted): limit orders, a cancel, market orders, a close, funding
 * pokes after time passes, a liquidation, then an anvil reorg (evm_snapshot → evm_revert → a
 * different branch past the old head). After every step the client that applies snapshot +
 * updates holds exactly what REST answers at that block (book, trades, market, the liquidated
 * account); across the reorg it gets `reorg` (the common ancestor) and a new snapshot, and then
 * equals REST on the new branch.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { e2ePort } from "./helpers/ports.js";
import { devAccount } from "../../core/config.js";
import { issueToken } from "../../core/auth/siwe.js";
import { DEFAULT_SECRETS } from "../../core/profiles.js";
import { PROJECT_ROOT } from "../../core/deployment.js";
import { serviceMain, nodeTs } from "../../scripts/lib/services.js";
import { startProcess, waitForHttp, type Proc } from "../../scripts/lib/processes.js";
import { startVenue, type Venue } from "./reads-env.js";
import { sessionActions } from "./reads-session.js";
import { mainKind } from "./stack.js";
import { StreamClient, type SubState } from "./helpers/stream-client.js";

const TYPE_MARKET = 0; // OrderType.MARKET

describe.each([mainKind()])("streams through a session with a liquidation, funding pokes and a reorg (%s)", (kind) => {
  let v: Venue;
  let reads = "";
  let streams = "";
  let proc: Proc | undefined;
  let c: StreamClient;
  const subs: Record<string, SubState> = {};
  const [A, B, C, D, L] = [0, 1, 2, 3, 5];
  let EUR: Hex;

  beforeAll(async () => {
    v = await startVenue(kind);
    const { ix, rd } = await v.startIndexerAndReads("streams");
    reads = rd.url;
    const port = await e2ePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env, PROFILE: "local", PORT: String(port), HOST: "127.0.0.1", INTEGRATION_URL: reads, RPC_URL: v.rpcUrl, LOG_LEVEL: "warn",
      // no relayer here: the transactions channel's feed retries quietly
      RELAYER_URL: `http://127.0.0.1:${await e2ePort()}`,
    };
    delete env.DATABASE_URL;
    delete env.DATABASE_SCHEMA;
    if (kind === "postgres") Object.assign(env, { DATABASE_URL: v.databaseUrl!, DATABASE_SCHEMA: ix.schema });
    proc = startProcess("streams", process.execPath, nodeTs(serviceMain("streams")), env, join(v.base, "streams.log"), PROJECT_ROOT);
    streams = `http://127.0.0.1:${port}`;
    await waitForHttp(`${streams}/health`, { proc, timeoutMs: 120_000, intervalMs: 100 });
    EUR = v.deployment.markets[0]!.marketId.toLowerCase() as Hex;
    const token = (await issueToken(DEFAULT_SECRETS.JWT_SECRET, devAccount(D).address)).token;
    c = await StreamClient.open(`ws://127.0.0.1:${port}/ws`, { Authorization: `Bearer ${token}` });
    subs.book = await c.subscribe({ channel: "orderbook", marketId: EUR, depth: 10 });
    subs.trades = await c.subscribe({ channel: "trades", marketId: EUR });
    subs.market = await c.subscribe({ channel: "market", marketId: EUR });
    subs.account = await c.subscribe({ channel: "account", accountId: Number(v.accountIds[D]) });
  }, 400_000);
  afterAll(async () => {
    c?.close();
    await proc?.stop();
    await v?.stop();
  });

  const rest = async (path: string) => {
    const res = await fetch(`${reads}${path}`);
    const body = (await res.json()) as { data: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    return { data: body.data, block: BigInt(res.headers.get("x-indexed-block") ?? "-1") };
  };

  /** Block `block` (nothing else mines): the client, once all its subscriptions describe it, equals REST at it. */
  async function consistent(label: string, block: bigint) {
    const all = Object.values(subs);
    await c.until(() => all.every((x) => x.block >= block), 30_000).catch(() => {
      throw new Error(`${label}: the stream did not reach block ${block} (at ${all.map((x) => `${x.channel} ${x.block}`).join(", ")})`);
    });
    const id = v.accountIds[D];
    const q = `?minBlock=${block}`;
    const [book, trades, market, price, funding, account, orders, position, fills, fp, liq] = await Promise.all([
      rest(`/markets/${EUR}/orderbook${q}&depth=10`),
      rest(`/markets/${EUR}/trades${q}&limit=100`),
      rest(`/markets/${EUR}${q}`),
      rest(`/markets/${EUR}/price${q}`),
      rest(`/markets/${EUR}/funding${q}`),
      rest(`/accounts/${id}${q}`),
      rest(`/accounts/${id}/orders${q}`),
      rest(`/accounts/${id}/positions/${EUR}${q}`),
      rest(`/accounts/${id}/fills${q}&limit=50`),
      rest(`/accounts/${id}/funding-payments${q}&limit=50`),
      rest(`/accounts/${id}/liquidations${q}&limit=50`),
    ]);
    for (const r of [book, trades, market, price, funding, account, orders, position, fills, fp, liq]) expect(r.block, `${label}: REST at ${block}`).toBe(block);
    for (const x of all) expect(x.block, `${label}: ${x.channel} at ${block}`).toBe(block);
    expect({ bids: subs.book!.data!.bids, asks: subs.book!.data!.asks }, `${label}: book`).toEqual({ bids: book.data.bids, asks: book.data.asks });
    expect(subs.trades!.trades.slice(0, trades.data.trades.length), `${label}: trades`).toEqual(trades.data.trades.slice(0, subs.trades!.trades.length));
    expect(subs.market!.data, `${label}: market`).toEqual({ market: market.data, price: price.data, funding: funding.data });
    const a = subs.account!.data!;
    expect(a.account, `${label}: account`).toEqual(account.data);
    expect(a.orders, `${label}: orders`).toEqual(orders.data);
    expect(a.positions[EUR], `${label}: position`).toEqual(position.data);
    expect(a.fills, `${label}: fills`).toEqual(fills.data.fills);
    expect(a.fundingPayments, `${label}: funding payments`).toEqual(fp.data.fundingPayments);
    expect(a.liquidations, `${label}: liquidations`).toEqual(liq.data.liquidations);
  }

  it("equals REST at every block of the session, and again after a reorg with a resync", async () => {
    const { send, place, setPrice, rpc } = sessionActions(v);
    const step = async (label: string, action: () => Promise<{ blockNumber: bigint }>) => consistent(label, (await action()).blockNumber);

    await step("a fresh index", () => setPrice(EUR, "1.0800"));
    for (const p of ["1.0810", "1.0820", "1.0830"]) await step(`an ask at ${p}`, () => place(A, EUR, "SHORT", "LIMIT", "1000", 10, p));
    for (const p of ["1.0790", "1.0780"]) await step(`a bid at ${p}`, () => place(B, EUR, "LONG", "LIMIT", "1000", 10, p));
    const key = `0x${"d1".repeat(32)}` as Hex;
    await step("D's resting bid", () => place(D, EUR, "LONG", "LIMIT", "300", 5, "1.0750", key));
    await step("D's cancel", () => send(D, "cancelOrder", [v.accountIds[D]!, EUR, key]));
    await step("C's market buy", () => place(C, EUR, "LONG", "MARKET", "300", 20));
    await step("D's 40x market buy", () => place(D, EUR, "LONG", "MARKET", "200", 40));

    // funding: two hours pass, a fresh index, a poke (anyone may)
    await rpc("evm_increaseTime", [7200]);
    await step("a fresh index after two hours", () => setPrice(EUR, "1.0800"));
    // funding accrues while the index is fresh: half a minute of it, whatever the wall clock did
    // between these two blocks (in one second, none would accrue)
    await rpc("evm_increaseTime", [30]);
    await step("a funding poke", () => send(L, "pokeFunding", [EUR]));
    expect(BigInt(subs.market!.data!.funding.cumulativeFunding)).not.toBe(0n);
    await step("C's close", () => send(C, "closePosition", [v.accountIds[C]!, EUR, TYPE_MARKET, 0n, `0x${"0".repeat(64)}`]));
    await rpc("evm_increaseTime", [1800]);
    await step("another funding poke", () => send(L, "pokeFunding", [EUR]));

    // the index falls: D's 40x long is liquidated by anyone
    await step("the index falls", () => setPrice(EUR, "1.0500"));
    await step("D's liquidation", () => send(L, "liquidatePosition", [v.accountIds[D]!, EUR]));
    expect(subs.account!.data!.liquidations.length).toBe(1);
    expect(subs.account!.data!.positions[EUR].isOpen).toBe(false);

    // a reorg: a branch with a fill and a new level, dropped for another past its head
    await step("a fresh index", () => setPrice(EUR, "1.0800"));
    const base = await v.client.getBlockNumber({ cacheTime: 0 });
    const snapshot = (await rpc("evm_snapshot")) as string;
    await step("orphan: a bid at 1.0700", () => place(B, EUR, "LONG", "LIMIT", "700", 10, "1.0700"));
    await step("orphan: a market buy", () => place(C, EUR, "LONG", "MARKET", "300", 10));
    const orphanTrade = subs.trades!.trades[0]!;
    const reorgsBefore = Object.values(subs).map((x) => x.reorgs.length);
    await rpc("evm_revert", [snapshot]);
    // (Ponder takes the new branch once it passes the old head: compared there)
    await place(A, EUR, "LONG", "LIMIT", "500", 10, "1.0710");
    await place(4, EUR, "SHORT", "MARKET", "200", 10);
    const { blockNumber: head } = await place(A, EUR, "LONG", "LIMIT", "400", 10, "1.0720");
    expect(head).toBe(base + 3n);
    await consistent("after the reorg, past the old head", head);
    await step("new branch: one more block", () => place(B, EUR, "LONG", "LIMIT", "300", 10, "1.0730"));
    // the orphaned fill is gone from the client's copy, and the book/trades subscriptions heard of the reorg
    expect(subs.trades!.trades.some((t) => t.id === orphanTrade.id && t.transactionHash === orphanTrade.transactionHash)).toBe(false);
    const reorgs = Object.values(subs).map((x, i) => x.reorgs.length - reorgsBefore[i]!);
    expect(reorgs.every((n) => n >= 1), `reorg messages per subscription: ${reorgs}`).toBe(true);
    for (const x of Object.values(subs)) for (const a of x.reorgs) expect(BigInt(a)).toBeLessThanOrEqual(base);
    for (const x of Object.values(subs)) expect(x.gaps, `${x.channel}: no gap`).toBe(0);
  }, 300_000);
});
