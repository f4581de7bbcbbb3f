/**
 * Stream service replicas beyond one process (issue 14, "beyond one machine"): three replicas of
 * services/streams started beside the Postgres stack's own, each fed by its own `LISTEN` on the
 * indexer's database (one push per block, nothing per subscriber) and reading the one read
 * service. Trades go through the integration API; then:
 *   - every replica's client holds, at each block it was sent, the same book (after applying the
 *     deltas), trades, market values and account as the other replicas' clients at that block,
 *     and at every quiet point all of them equal the REST answers at REST's block; a write's
 *     transactions message reaches each replica's client with the mined block;
 *   - the upstream work of a replica per block is one build per followed topic: its
 *     integration-API reads per processed block (`venue_streams_upstream_reads_total{cause="block"}`
 *     / `venue_streams_blocks_total` on /metrics) are the topics' REST reads, the same with 1 or
 *     50 subscribers per topic; with every replica following the same topics the read service
 *     sees replicas × that per block (O(replicas × topics), never O(subscribers));
 *   - the connection limit per key holds per replica (as documented in docs/STREAMS.md).
 * Runs on the Postgres stack only (E2E_DB=postgres): on PGlite no other process may open the
 * indexer's database, and replicas follow the read service's /blocks/stream instead.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUnits, type Hex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { e2ePort } from "./helpers/ports.js";
import { devAccount } from "../../core/config.js";
import { issueToken } from "../../core/auth/siwe.js";
import { PROJECT_ROOT } from "../../core/deployment.js";
import { serviceMain, nodeTs } from "../../scripts/lib/services.js";
import { startProcess, waitForHttp, type Proc } from "../../scripts/lib/processes.js";
import { publicClient } from "./helpers/chain.js";
import { jsonClient } from "./helpers/http.js";
import { postgresStack, type StackInfo } from "./helpers/stacks.js";
import { StreamClient, type SubState } from "./helpers/stream-client.js";

const WALLET = 3; // account 4, the streams tests' wallet
const REPLICAS = 3;
const PER_KEY = 3;

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Replica = { url: string; proc: Proc; client?: StreamClient; subs: Record<string, SubState>; views: Record<string, Map<bigint, string>> };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const randomWallet = () => privateKeyToAddress(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}` as Hex);

describe.each([postgresStack()])("stream service replicas on $kind", (s: StackInfo) => {
  const api = jsonClient(s.integrationUrl);
  const eur = s.deployment.markets.find((m) => m.symbol === "EUR/USD")!.marketId.toLowerCase() as Hex;
  const me = devAccount(WALLET);
  const accountId = s.wallets[WALLET]!.accountId!;
  const replicas: Replica[] = [];
  const extra: StreamClient[] = [];
  let token = "";

  /** What a replica's client holds of a channel, comparable across replicas (list windows cut to what every snapshot holds). */
  const view = (sub: SubState): string => {
    const d = sub.data as Msg;
    switch (sub.channel) {
      case "orderbook":
        return JSON.stringify({ bids: d.bids, asks: d.asks });
      case "trades":
        return JSON.stringify(sub.trades.slice(0, 20));
      case "market":
        return JSON.stringify(d);
      case "account":
        return JSON.stringify({ account: d.account, orders: d.orders, positions: d.positions, fills: d.fills.slice(0, 20), fundingPayments: d.fundingPayments.slice(0, 20), liquidations: d.liquidations.slice(0, 20) });
      default:
        return "";
    }
  };

  async function startReplica(i: number): Promise<Replica> {
    const port = await e2ePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...s.tokens,
      PROFILE: "local",
      PONDER_TELEMETRY_DISABLED: "true",
      PORT: String(port),
      HOST: "127.0.0.1",
      INTEGRATION_URL: s.integrationUrl,
      RELAYER_URL: s.relayerUrl!,
      RPC_URL: s.rpcUrl,
      // the push: LISTEN on the indexer's database, per replica
      DATABASE_URL: s.databaseUrl!,
      DATABASE_SCHEMA: s.schemas.indexer,
      STREAMS_MAX_CONNECTIONS_PER_KEY: String(PER_KEY),
      LOG_LEVEL: "warn",
    };
    const proc = startProcess(`streams replica ${i}`, process.execPath, nodeTs(serviceMain("streams")), env, join(s.logDir, `streams-replica-${i}.log`), PROJECT_ROOT);
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/health`, { proc, timeoutMs: 120_000, intervalMs: 100 });
    return { url, proc, subs: {}, views: {} };
  }

  const wsOf = (r: Replica) => `${r.url.replace(/^http/, "ws")}/ws`;
  const stats = async (r: Replica) => ((await (await fetch(`${r.url}/stats`)).json()) as { data: Msg }).data;
  /** The replica's counters from its /metrics (Prometheus text). */
  async function counters(r: Replica) {
    const text = await (await fetch(`${r.url}/metrics`)).text();
    const value = (name: string, ...labels: string[]) =>
      text
        .split("\n")
        .filter((l) => l.startsWith(name) && labels.every((x) => l.includes(x)))
        .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
    return {
      blockReads: value("venue_streams_upstream_reads_total{", 'upstream="integration"', 'cause="block"'),
      rereads: value("venue_streams_upstream_reads_total{", 'upstream="integration"', 'cause="block-reread"'),
      subscribeReads: value("venue_streams_upstream_reads_total{", 'upstream="integration"', 'cause="subscribe"'),
      blocks: value("venue_streams_blocks_total"),
      topics: value("venue_streams_topics"),
      subscriptions: value("venue_streams_subscriptions"),
    };
  }

  const rest = async (path: string) => {
    const res = await fetch(`${s.integrationUrl}${path}`);
    const body = (await res.json()) as { data: Msg };
    return { data: body.data, block: BigInt(res.headers.get("x-indexed-block") ?? "-1") };
  };

  const write = async (method: string, path: string, body?: unknown) => {
    const r = await api(method, path, { token, body, headers: { Prefer: "wait" } });
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body.data;
  };

  const allSubs = () => replicas.flatMap((r) => Object.values(r.subs));
  async function untilAll(pred: () => boolean, ms: number) {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > deadline) return false;
      await sleep(25);
    }
    return true;
  }

  /** Every replica's client, once all describe REST's block, equals the REST answers at it. */
  async function consistent(label: string): Promise<bigint> {
    for (let attempt = 0; attempt < 40; attempt++) {
      const [book, trades, market, price, funding, account, orders, position] = await Promise.all([
        rest(`/markets/${eur}/orderbook?depth=10`),
        rest(`/markets/${eur}/trades?limit=100`),
        rest(`/markets/${eur}`),
        rest(`/markets/${eur}/price`),
        rest(`/markets/${eur}/funding`),
        rest(`/accounts/${accountId}`),
        rest(`/accounts/${accountId}/orders`),
        rest(`/accounts/${accountId}/positions/${eur}`),
      ]);
      const b = book.block;
      if (new Set([book, trades, market, price, funding, account, orders, position].map((r) => r.block)).size !== 1 || allSubs().some((x) => x.block !== b)) {
        await untilAll(() => allSubs().every((x) => x.block >= b), 10_000);
        continue;
      }
      for (const [i, r] of replicas.entries()) {
        const at = `${label}, replica ${i}, block ${b}`;
        expect({ bids: r.subs.book!.data!.bids, asks: r.subs.book!.data!.asks }, `${at}: book`).toEqual({ bids: book.data.bids, asks: book.data.asks });
        const n = Math.min(r.subs.trades!.trades.length, trades.data.trades.length);
        expect(r.subs.trades!.trades.slice(0, n), `${at}: trades`).toEqual(trades.data.trades.slice(0, n));
        expect(r.subs.market!.data, `${at}: market`).toEqual({ market: market.data, price: price.data, funding: funding.data });
        expect(r.subs.account!.data!.account, `${at}: account`).toEqual(account.data);
        expect(r.subs.account!.data!.orders, `${at}: orders`).toEqual(orders.data);
        expect(r.subs.account!.data!.positions[eur], `${at}: position`).toEqual(position.data);
      }
      return b;
    }
    throw new Error(`${label}: the replicas and REST never described one block`);
  }

  beforeAll(async () => {
    token = (await issueToken(s.jwtSecret, me.address)).token;
    for (let i = 0; i < REPLICAS; i++) replicas.push(await startReplica(i));
    for (const r of replicas) {
      const c = await StreamClient.open(wsOf(r), { Authorization: `Bearer ${token}` });
      r.client = c;
      c.onApplied = (sub, m) => {
        const v = (r.views[sub.channel] ??= new Map());
        v.set(BigInt(m.blockNumber), view(sub));
      };
      r.subs.book = await c.subscribe({ channel: "orderbook", marketId: eur, depth: 10 });
      r.subs.trades = await c.subscribe({ channel: "trades", marketId: eur });
      r.subs.market = await c.subscribe({ channel: "market", marketId: eur });
      r.subs.account = await c.subscribe({ channel: "account", accountId });
    }
  }, 400_000);

  afterAll(async () => {
    for (const c of extra) c.close();
    for (const r of replicas) r.client?.close();
    await Promise.all(replicas.map((r) => r.proc.stop()));
  });

  it("each replica is fed by its own LISTEN; through trades placed on the API, every replica's clients hold the same state at the same blocks, equal to REST", async () => {
    for (const r of replicas) expect((await stats(r)).feed, "the block push: Postgres LISTEN").toBe("postgres");
    // the transactions channel on every replica (each keeps one connection to the relayer's write events)
    const txs = await Promise.all(replicas.map((r) => r.client!.subscribe({ channel: "transactions" })));
    const checked: bigint[] = [];
    checked.push(await consistent("start"));

    const bestBid = BigInt((await rest(`/markets/${eur}/orderbook?depth=10`)).data.bids[0]?.price ?? parseUnits("1.079", 18));
    const low = ((bestBid * 998n) / 1000n / 10n ** 14n) * 10n ** 14n;
    const key = `0x${"5e".repeat(31)}03` as Hex;
    await write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "LIMIT", limitPrice: low.toString(), clientKey: key });
    expect(await untilAll(() => replicas.every((r) => r.subs.book!.data!.bids.some((l: Msg) => BigInt(l.price) === low)), 20_000), "the new level on every replica").toBe(true);
    checked.push(await consistent("after a limit order"));
    await write("DELETE", `/accounts/${accountId}/orders/${key}?marketId=${eur}`);
    checked.push(await consistent("after the cancel"));
    const placed = await write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "MARKET" });
    checked.push(await consistent("after a market order"));
    await write("POST", `/accounts/${accountId}/positions/${eur}/close`, { orderType: "MARKET" });
    checked.push(await consistent("after the close"));

    // the market order's mined message, on every replica, names the mined block
    const receipt = await publicClient(s).getTransactionReceipt({ hash: placed.transactionHash });
    for (const [i, t] of txs.entries()) {
      await replicas[i]!.client!.until(() => t.events.some((e) => e.requestId === placed.requestId && e.status === "CONFIRMED"), 20_000);
      expect(t.events.find((e) => e.requestId === placed.requestId && e.status === "CONFIRMED")!.blockNumber, `replica ${i}`).toBe(receipt.blockNumber.toString());
    }

    // across replicas: at every block two replicas both sent, their clients held the same state
    const start = checked[0]!; // every replica subscribed and in step from here
    for (const channel of ["orderbook", "trades", "market", "account"]) {
      const [first, ...others] = replicas.map((r) => r.views[channel]!);
      for (const [i, other] of others.entries()) {
        const common = [...first!.keys()].filter((b) => b >= start && other.has(b));
        for (const b of common) expect(other.get(b), `${channel} at block ${b}: replica ${i + 1} vs replica 0`).toBe(first!.get(b));
        // the quiet points above are blocks every replica described
        for (const b of checked) expect(common, `${channel}: replica ${i + 1} and 0 both at ${b}`).toContain(b);
        const end = checked.at(-1)!; // (a block after the last quiet point may have reached one replica only)
        const a = [...first!.keys()].filter((b) => b >= start && b <= end);
        const o = [...other.keys()].filter((b) => b >= start && b <= end);
        console.log(`[streams-replicas] ${channel}: replica 0 sent blocks ${a.join(" ")}; replica ${i + 1} ${o.join(" ")}; quiet points ${checked.join(" ")}`);
        // a message per block on both: the same sequence. (Under a burst a replica may fold a block that
        // passed during a build into its next message; the states at the blocks both sent are equal above.)
        const folded = [a, o].some((xs) => xs.some((b, k) => k > 0 && b !== xs[k - 1]! + 1n));
        if (!folded) expect(o, `${channel}: replica ${i + 1}'s block sequence equals replica 0's`).toEqual(a);
        else console.log(`[streams-replicas] ${channel}: blocks folded under a burst; compared at the ${common.length} blocks both sent`);
      }
    }
    for (const x of allSubs()) expect(x.gaps, `${x.channel}: no gap`).toBe(0);
  }, 240_000);

  it("upstream reads per block per replica are one build per followed topic, the same with 1 and with 50 subscribers per topic (O(replicas × topics) in all)", async () => {
    // the topics' REST reads (services/streams/channels.ts): book 1, trades 1, market 3, account 7 (account, orders,
    // operators, triggers, fills, funding payments, liquidations) + one position per market
    const perBlock = 1 + 1 + 3 + 7 + s.deployment.markets.length;
    /** Per-block reads of each replica over a window of at least `blocks` processed blocks (writes make them). */
    async function window(blocks: number) {
      const before = await Promise.all(replicas.map(counters));
      const bestBid = BigInt((await rest(`/markets/${eur}/orderbook?depth=10`)).data.bids[0]?.price ?? parseUnits("1.079", 18));
      const low = ((bestBid * 997n) / 1000n / 10n ** 14n) * 10n ** 14n;
      for (let i = 0; ; i++) {
        const now = await Promise.all(replicas.map(counters));
        if (now.every((c, j) => c.blocks - before[j]!.blocks >= blocks)) {
          return now.map((c, j) => {
            const d = (k: keyof typeof c) => c[k] - before[j]![k];
            return { reads: d("blockReads"), rereads: d("rereads"), blocks: d("blocks"), subscriptions: c.subscriptions, topics: c.topics };
          });
        }
        if (i > 40) throw new Error("not enough blocks");
        const key = `0x${"5e".repeat(30)}04${i.toString(16).padStart(2, "0")}` as Hex;
        await write("POST", `/accounts/${accountId}/orders`, { marketId: eur, collateralAmount: "50000000", side: "LONG", leverage: 2, orderType: "LIMIT", limitPrice: low.toString(), clientKey: key });
        await write("DELETE", `/accounts/${accountId}/orders/${key}?marketId=${eur}`);
      }
    }

    const one = await window(6);
    // 49 more subscribers of each topic on the last replica: 49 connections (each its own sign-in, so the
    // per-key limit is not in the way) on book, trades and market, and 49 more account subscriptions
    const last = replicas[REPLICAS - 1]!;
    const before = await counters(last);
    // (the owner's two more connections reach the per-key limit of 3; at most 20 messages a second each)
    const owners = [await StreamClient.open(wsOf(last), { Authorization: `Bearer ${token}` }), await StreamClient.open(wsOf(last), { Authorization: `Bearer ${token}` })];
    extra.push(...owners);
    for (let i = 0; i < 49; i++) {
      const c = await StreamClient.open(wsOf(last), { Authorization: `Bearer ${(await issueToken(s.jwtSecret, randomWallet())).token}` });
      extra.push(c);
      await c.subscribe({ channel: "orderbook", marketId: eur, depth: 10 });
      await c.subscribe({ channel: "trades", marketId: eur });
      await c.subscribe({ channel: "market", marketId: eur });
      await owners[i % 2]!.subscribe({ channel: "account", accountId });
      await sleep(60);
    }
    const joined = await counters(last);
    // joining a topic that is already built reads nothing; an account subscription checks the owner once
    expect(joined.subscribeReads - before.subscribeReads, "upstream reads of 196 subscribes").toBe(49);
    expect(joined.topics).toBe(before.topics);
    const fifty = await window(6);

    const line = (w: (typeof one)[number]) => `${(w.reads / w.blocks).toFixed(2)} reads/block (${w.reads}/${w.blocks}; re-reads ${w.rereads}) with ${w.subscriptions} subscriptions`;
    console.log(`[streams-replicas] expected ${perBlock} reads per block per replica (4 block-built topics; transactions reads none per block)\n${replicas.map((_, j) => `replica ${j}: ${line(one[j]!)}, then ${line(fifty[j]!)}`).join("\n")}`);
    expect(fifty[REPLICAS - 1]!.subscriptions).toBe(one[REPLICAS - 1]!.subscriptions + 4 * 49);
    // exactly one build per followed topic per block, on every replica, with 1 or 50 subscribers per topic
    // (re-reads, when a build's answers named different blocks, come on top: counted apart, reported above)
    for (const [j, w] of one.entries()) expect(w.reads, `replica ${j}, 1 subscriber per topic`).toBe(perBlock * w.blocks);
    for (const [j, w] of fifty.entries()) expect(w.reads, `replica ${j}, ${j === REPLICAS - 1 ? 50 : 1} subscribers per topic`).toBe(perBlock * w.blocks);
    // so per block the read service sees replicas × (the topics' reads), whatever the subscribers: O(replicas × topics)
    expect(fifty.reduce((a, w) => a + w.reads / w.blocks, 0)).toBe(REPLICAS * perBlock);
  }, 300_000);

  it("the connection limit per key holds per replica", async () => {
    const who = { Authorization: `Bearer ${(await issueToken(s.jwtSecret, randomWallet())).token}` };
    const open: StreamClient[] = [];
    for (let i = 0; i < PER_KEY; i++) open.push(await StreamClient.open(wsOf(replicas[0]!), who));
    await expect(StreamClient.open(wsOf(replicas[0]!), who)).rejects.toMatchObject({ status: 429 });
    // the same key on another replica: its own count
    for (let i = 0; i < PER_KEY; i++) open.push(await StreamClient.open(wsOf(replicas[1]!), who));
    await expect(StreamClient.open(wsOf(replicas[1]!), who)).rejects.toMatchObject({ status: 429, body: expect.stringMatching(/connections per key/) });
    for (const c of open) c.close();
  }, 60_000);
});
