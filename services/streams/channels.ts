/**
 * The channels: what each one reads from the integration API per block, its snapshot and its
 * update (the difference between two consecutive states). Every state is built from the REST
 * answers of one indexed block (`X-Indexed-Block`), so a client applying snapshot + updates
 * holds exactly what those routes answer at the message's `blockNumber`.
 */
import type { BookLevel as Level } from "../../core/streams/book.js";
import type { SubscribeRequest } from "../../core/streams/protocol.js";

/** One GET against the integration API at `minBlock` or later: the envelope's `data`, and the block it describes. */
export type Read = (path: string) => Promise<unknown>;

export type ChannelDef<S> = {
  /** REST paths read per block; `read` returns each one's data, all of one block. */
  build(read: Read): Promise<S>;
  snapshot(s: S): unknown;
  /** The update from `prev` to `next`. */
  diff(prev: S, next: S): unknown;
  /** Data-based reorg detection: the block below which `prev` and `next` agree, when an item `prev` holds vanished. */
  orphaned?(prev: S, next: S): bigint | null;
  /** Event-driven (transactions): not rebuilt per block; its updates are pushed as events arrive, built anew on each subscribe. */
  events?: true;
  /** An event-driven topic's state after one pushed update (kept current for the next snapshot). */
  apply?(s: S, data: unknown): S;
};


/** The topic a request reads (one build per block however many subscribe) and what its messages echo. */
export function topicOf(
  r: SubscribeRequest,
  markets: () => string[],
  wallet: string | null = null,
  recentWrites: (wallet: string) => Promise<unknown[]> = async () => [],
): { key: string; params: Record<string, unknown>; def: ChannelDef<any> } {
  switch (r.channel) {
    case "transactions":
      return { key: `transactions:${wallet}`, params: { wallet }, def: transactions(wallet!, recentWrites) };
    case "orderbook":
      return { key: `orderbook:${r.marketId}:${r.depth}`, params: { marketId: r.marketId, depth: r.depth }, def: orderbook(r.marketId, r.depth) };
    case "trades":
      return { key: `trades:${r.marketId}`, params: { marketId: r.marketId }, def: trades(r.marketId) };
    case "market":
      return { key: `market:${r.marketId}`, params: { marketId: r.marketId }, def: market(r.marketId) };
    case "candles":
      return { key: `candles:${r.marketId}:${r.resolution}`, params: { marketId: r.marketId, resolution: r.resolution }, def: candles(r.marketId, r.resolution) };
    case "account":
      return { key: `account:${r.accountId}`, params: { accountId: r.accountId }, def: account(r.accountId, markets) };
  }
}

// ─── helpers ───────────────────────────────────────────────────────────────────────────

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

type Item = { id: string; blockNumber: number; logIndex: number; transactionHash?: string };
const itemKey = (i: Item) => `${i.id}:${i.blockNumber}:${i.transactionHash ?? ""}`;

/** Items of `next` (newest first) that `prev` did not hold, newest first. */
function added<T extends Item>(prev: T[], next: T[]): T[] {
  const seen = new Set(prev.map(itemKey));
  return next.filter((i) => !seen.has(itemKey(i)));
}

/** When an item of `prev` within `next`'s window is gone, the chain dropped its block: the block before the oldest such item. */
function vanished(prev: Item[], next: Item[], full: boolean): bigint | null {
  const oldest = next.length ? Math.min(...next.map((i) => i.blockNumber)) : 0;
  const have = new Set(next.map(itemKey));
  let low: number | null = null;
  for (const i of prev) {
    // a full window may have pushed older items out: only compare within it
    if (full && i.blockNumber < oldest) continue;
    if (!have.has(itemKey(i))) low = low === null ? i.blockNumber : Math.min(low, i.blockNumber);
  }
  return low === null ? null : BigInt(low - 1);
}

// ─── orderbook ─────────────────────────────────────────────────────────────────────────

type Book = { marketId: string; bids: Level[]; asks: Level[] };

/** Levels of `next` that differ from `prev`, and `prev`'s levels gone from `next` with quantity "0". */
function levelDiff(prev: Level[], next: Level[]): Level[] {
  const before = new Map(prev.map((l) => [l.price, l]));
  const after = new Set(next.map((l) => l.price));
  const out: Level[] = [];
  for (const l of next) if (!same(before.get(l.price), l)) out.push(l);
  for (const l of prev) if (!after.has(l.price)) out.push({ price: l.price, priceFormatted: l.priceFormatted, quantity: "0", quantityFormatted: "0", orderCount: 0 });
  return out;
}

export function orderbook(marketId: string, depth: number): ChannelDef<Book> {
  return {
    async build(read) {
      const d = (await read(`/markets/${marketId}/orderbook?depth=${depth}`)) as Book;
      return { marketId, bids: d.bids, asks: d.asks };
    },
    snapshot: (s) => s,
    diff: (p, n) => ({ marketId, bids: levelDiff(p.bids, n.bids), asks: levelDiff(p.asks, n.asks) }),
  };
}

// ─── trades ────────────────────────────────────────────────────────────────────────────

const TRADES_WINDOW = 100;
const TRADES_SNAPSHOT = 50;
type TradeItem = Item & Record<string, unknown>;
type Trades = { trades: TradeItem[]; full: boolean };

export function trades(marketId: string): ChannelDef<Trades> {
  return {
    async build(read) {
      const d = (await read(`/markets/${marketId}/trades?limit=${TRADES_WINDOW}`)) as { trades: TradeItem[]; hasMore: boolean };
      return { trades: d.trades, full: d.hasMore };
    },
    snapshot: (s) => ({ marketId, trades: s.trades.slice(0, TRADES_SNAPSHOT) }),
    diff: (p, n) => ({ marketId, trades: added(p.trades, n.trades) }),
    orphaned: (p, n) => vanished(p.trades, n.trades, n.full),
  };
}

// ─── market ────────────────────────────────────────────────────────────────────────────

type MarketState = { market: unknown; price: unknown; funding: unknown };

export function market(marketId: string): ChannelDef<MarketState> {
  const build = async (read: Read) => {
    const [m, price, funding] = await Promise.all([read(`/markets/${marketId}`), read(`/markets/${marketId}/price`), read(`/markets/${marketId}/funding`)]);
    return { market: m, price, funding };
  };
  // every block: mark, index, funding and open interest as the REST routes answer them
  return { build, snapshot: (s) => s, diff: (_p, n) => n };
}

// ─── candles ───────────────────────────────────────────────────────────────────────────

const CANDLES_WINDOW = 200;
type CandleItem = { startedAt: number } & Record<string, unknown>;
type Candles = { candles: CandleItem[] };

export function candles(marketId: string, resolution: string): ChannelDef<Candles> {
  return {
    async build(read) {
      const d = (await read(`/markets/${marketId}/candles?resolution=${resolution}&limit=${CANDLES_WINDOW}`)) as { candles: CandleItem[] };
      return { candles: d.candles };
    },
    snapshot: (s) => ({ marketId, resolution, candles: s.candles }),
    // the periods that are new or changed (the open one on every trade; new empty ones as time passes)
    diff: (p, n) => {
      const before = new Map(p.candles.map((c) => [c.startedAt, c]));
      return { marketId, resolution, candles: n.candles.filter((c) => !same(before.get(c.startedAt), c)) };
    },
  };
}

// ─── account ───────────────────────────────────────────────────────────────────────────

const ACCOUNT_WINDOW = 50;
type AccountState = {
  account: { owner: string } & Record<string, unknown>;
  orders: unknown;
  positions: Record<string, unknown>;
  fills: TradeItem[];
  fundingPayments: TradeItem[];
  liquidations: TradeItem[];
  /** as GET /accounts/{id}/operators: the owner's operators, their policies and budget use */
  operators: unknown;
  /** as GET /accounts/{id}/triggers?status=all: its positions' take-profits and stop-losses (at most one per market and kind), any status */
  triggers: TriggerItem[];
};
type TriggerItem = { triggerId: string } & Record<string, unknown>;

/** The triggers of `next` that `prev` did not hold as they are now: each change (set, executed with its order id, cancelled with its end reason) once. */
const changedTriggers = (prev: TriggerItem[], next: TriggerItem[]) => {
  const before = new Map(prev.map((t) => [t.triggerId, t]));
  return next.filter((t) => !same(before.get(t.triggerId), t));
};

/** An operators answer without what only the passing of time moves (the budget used, decayed to the block): a diff sends it on a charge or an approval. */
const operatorsAtRest = (o: unknown) =>
  ((o as { operators?: Record<string, unknown>[] } | null)?.operators ?? []).map(({ budgetUsedNow: _n, budgetUsedNowFormatted: _f, ...rest }) => rest);

export function account(accountId: number, markets: () => string[]): ChannelDef<AccountState> {
  const base = `/accounts/${accountId}`;
  return {
    async build(read) {
      const ids = markets();
      const [acct, orders, operators, triggers, fills, fp, liq, ...pos] = await Promise.all([
        read(base),
        read(`${base}/orders`),
        read(`${base}/operators`),
        read(`${base}/triggers?status=all`),
        read(`${base}/fills?limit=${ACCOUNT_WINDOW}`),
        read(`${base}/funding-payments?limit=${ACCOUNT_WINDOW}`),
        read(`${base}/liquidations?limit=${ACCOUNT_WINDOW}`),
        ...ids.map((m) => read(`${base}/positions/${m}`)),
      ]);
      return {
        account: acct as AccountState["account"],
        orders,
        positions: Object.fromEntries(ids.map((m, i) => [m, pos[i]])),
        fills: (fills as { fills: TradeItem[] }).fills,
        fundingPayments: (fp as { fundingPayments: TradeItem[] }).fundingPayments,
        liquidations: (liq as { liquidations: TradeItem[] }).liquidations,
        operators,
        triggers: (triggers as { triggers: TriggerItem[] }).triggers,
      };
    },
    snapshot: (s) => ({ accountId, ...s }),
    diff: (p, n) => {
      const out: Record<string, unknown> = { accountId };
      if (!same(p.account, n.account)) out.account = n.account;
      if (!same(p.orders, n.orders)) out.orders = n.orders;
      if (!same(operatorsAtRest(p.operators), operatorsAtRest(n.operators))) out.operators = n.operators;
      // a trigger that changed, as it is now (a removal is a change of status: none vanishes)
      const triggers = changedTriggers(p.triggers ?? [], n.triggers);
      if (triggers.length) out.triggers = triggers;
      const positions = Object.fromEntries(Object.entries(n.positions).filter(([m, v]) => !same(p.positions[m], v)));
      if (Object.keys(positions).length) out.positions = positions;
      out.fills = added(p.fills, n.fills);
      out.fundingPayments = added(p.fundingPayments, n.fundingPayments);
      out.liquidations = added(p.liquidations, n.liquidations);
      return out;
    },
    orphaned: (p, n) => {
      const xs = [vanished(p.fills, n.fills, n.fills.length >= ACCOUNT_WINDOW), vanished(p.liquidations, n.liquidations, n.liquidations.length >= ACCOUNT_WINDOW)].filter((x): x is bigint => x !== null);
      return xs.length ? xs.reduce((a, b) => (a < b ? a : b)) : null;
    },
  };
}

// ─── transactions ──────────────────────────────────────────────────────────────────────

/** The recent writes a transactions snapshot carries beside every one not final yet. */
export const RECENT_WRITES = 20;
const OPEN = new Set(["QUEUED", "SIGNED", "SENT"]);
type Tx = { requestId: string; status: string } & Record<string, unknown>;
type Txs = { transactions: Tx[] };

/** A write's change applied to the list (newest first): replaced in place, or added in front; kept: the open ones and the last RECENT_WRITES. */
export function applyWrite(s: Txs, tx: Tx): Txs {
  const i = s.transactions.findIndex((t) => t.requestId === tx.requestId);
  const list = i >= 0 ? s.transactions.map((t, j) => (j === i ? tx : t)) : [tx, ...s.transactions];
  let recent = 0;
  return { transactions: list.filter((t) => OPEN.has(t.status) || recent++ < RECENT_WRITES) };
}

/**
 * The caller's writes (by wallet), from the relayer's events: each state change as it commits
 * (QUEUED, SIGNED, SENT, then CONFIRMED with its block, or REVERTED, FAILED, EXPIRED, CANCELLED
 * with the error code; REORGED when a mined write's block left the chain, then SENT and mined again). The snapshot, read from the relayer (`GET /internal/transactions`) on
 * every subscribe and kept current by the events, holds every write not final yet and the last
 * RECENT_WRITES, newest first: a client that reconnects sees where its in-flight writes stand.
 */
export function transactions(wallet: string, recent: (wallet: string) => Promise<unknown[]>): ChannelDef<Txs> {
  return {
    events: true,
    build: async () => ({ transactions: (await recent(wallet)) as Tx[] }),
    snapshot: (s) => ({ wallet, transactions: s.transactions }),
    diff: () => ({}),
    apply: (s, data) => (data as Txs).transactions.reduce(applyWrite, s),
  };
}
